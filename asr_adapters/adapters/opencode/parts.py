"""OpenCode message parts (``MessageV2.Part``) -> ASR content parts, and what is left of a
part once its content moved (kept verbatim on the message, so nothing is lost)."""

from __future__ import annotations

from typing import Any

import orjson

from ...core.usage import count
from ...core.usage import normalized_usage as normalized

REGISTRY = "ai.opencode"
#: Part types that become content of the message record they belong to.
CONTENT_TYPES = frozenset({"text", "reasoning", "file", "agent", "subtask", "compaction"})
#: Part types folded into the message record: step boundaries (their usage is read from them).
STEP_TYPES = frozenset({"step-start", "step-finish"})
_IDS = ("sessionID", "messageID")


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (odd shapes never crash a mapping)."""
    return value if isinstance(value, dict) else {}


def leftover(part: dict[str, Any], moved: tuple[str, ...] = ()) -> dict[str, Any]:
    """The part without its session/message ids and the members that moved into a record."""
    return {k: v for k, v in part.items() if k not in _IDS and k not in moved}


def text_of(part: dict[str, Any]) -> str | None:
    text = part.get("text")
    return text if isinstance(text, str) else None


def file_part(part: dict[str, Any]) -> dict[str, Any] | None:
    """A ``file`` part: an image carried in a ``data:`` URL, else a link to its URL."""
    url = part.get("url")
    mime = part.get("mime")
    if not isinstance(url, str) or not url:
        return None
    if url.startswith("data:") and isinstance(mime, str) and mime.startswith("image/") and ";base64," in url:
        return {"type": "image", "mimeType": mime, "data": url.split(";base64,", 1)[1]}
    name = part.get("filename")
    if not isinstance(name, str) or not name:
        name = url.rsplit("/", 1)[-1] or url
    link: dict[str, Any] = {"type": "resource_link", "uri": url, "name": name}
    if isinstance(mime, str):
        link["mimeType"] = mime
    return link


def reasoning_part(part: dict[str, Any]) -> dict[str, Any]:
    """A ``reasoning`` part: its text as stored (OpenCode does not say whether the provider
    gave full reasoning or a summary, so ``visibility`` stays absent); provider metadata
    (signatures, encrypted ids) kept as opaque data, never as text (ASR-215)."""
    out: dict[str, Any] = {"type": "reasoning"}
    text = text_of(part)
    if text:
        out["text"] = text
    metadata = part.get("metadata")
    if metadata:  # provider state as its JSON text: opaque, never indexed or shown
        out["opaque"] = {"format": f"{REGISTRY}/reasoning-metadata", "data": orjson.dumps(metadata).decode()}
        anthropic = metadata.get("anthropic") if isinstance(metadata, dict) else None
        if isinstance(anthropic, dict) and isinstance(anthropic.get("signature"), str):
            out["signature"] = anthropic["signature"]
    return out


def data_part(part: dict[str, Any]) -> dict[str, Any]:
    """A structured user-side part (``agent`` mention, ``subtask`` request, ``compaction``
    marker) as a data part; OpenCode renders it into text only when it builds a request."""
    kind = part.get("type")
    data = leftover(part, ("id", "type"))
    return {"type": "data", "data": data, "schema": f"{REGISTRY}/{kind}"}


def tool_content(state: dict[str, Any]) -> list[dict[str, Any]]:
    """What a finished tool call returned: its output (or error) text, then attachments."""
    content: list[dict[str, Any]] = []
    status = state.get("status")
    value = state.get("output") if status == "completed" else state.get("error")
    if isinstance(value, str):
        content.append({"type": "text", "text": value})
    elif value is not None:
        content.append({"type": "data", "data": value, "schema": f"{REGISTRY}/tool-output"})
    for attachment in state.get("attachments") or ():
        if isinstance(attachment, dict):
            converted = file_part(attachment)
            if converted is not None:
                content.append(converted)
    return content


def normalized_usage(tokens: Any) -> dict[str, Any] | None:
    """OpenCode's ``tokens`` object under the one definition (core.usage).

    OpenCode's ``getUsage`` (``packages/opencode/src/session/index.ts``) stores ``input``
    without the cache (it subtracts the cache reads and writes from the provider's count, or
    takes Anthropic's and Bedrock's uncached one), so ``inputTokens`` adds ``cache.read`` and
    ``cache.write`` back. It prices ``reasoning`` beside ``output`` (both at the output rate),
    and builds whose ``total`` is the sum of all five show ``output`` without the reasoning:
    ``outputTokens`` = output + reasoning, except where the stored ``total`` shows that
    ``output`` already holds it (total = the input side + output)."""
    if not isinstance(tokens, dict):
        return None
    cache = obj(tokens.get("cache"))
    read, write = cache.get("read"), cache.get("write")
    output, reasoning, total = tokens.get("output"), tokens.get("reasoning"), tokens.get("total")
    output_parts: tuple[Any, ...] = (reasoning,)
    inputs = normalized(input=tokens.get("input"), input_parts=(read, write))
    known = inputs is not None and count(output) is not None and count(total) is not None
    if known and inputs is not None and total == inputs["inputTokens"] + output and count(reasoning):
        output_parts = ()  # this build's output already counts the reasoning
    return normalized(
        input=tokens.get("input"),
        input_parts=(read, write),
        cache_read=read,
        cache_write=write,
        output=output,
        output_parts=output_parts,
        reasoning=reasoning,
        total=total,
    )


def native_usage(holder: dict[str, Any]) -> dict[str, Any]:
    """The usage members of a message or ``step-finish`` part, verbatim."""
    return {k: holder[k] for k in ("tokens", "cost") if k in holder}
