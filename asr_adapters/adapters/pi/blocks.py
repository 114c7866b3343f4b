"""pi's message blocks and usage (``packages/ai`` ``AssistantMessage``, ``ToolResultMessage``)
as ASR parts, calls and outcomes: the one mapping pi and OpenClaw (whose runtime is pi) share.

Signatures differ by provider API and are not always signatures: Anthropic stores a base64
blob, MiniMax a hex string, OpenAI-compatible gateways store the *name* of the field the
reasoning came from (``reasoning_content``), and the OpenAI Responses APIs store the whole
reasoning item as a JSON string (with ``encrypted_content``). For those, pi's ``thinking`` text
is the item's summary parts joined by a blank line (``openai-responses-shared.ts``
``processResponsesStream``): a summary, never the full reasoning (ASR-214).

Everything a block carries beyond what a part holds goes under ``_meta``, namespaced with
the registry name of the agent that wrote the file (``namespace``).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from ...core import items
from ...core.outcome import cancelled, is_exit_code, not_a_failure, set_exit_code
from ...core.usage import count
from ...core.usage import normalized_usage as normalized
from ...model.order import canonical_part_order

#: pi's APIs whose ``input`` is the provider's whole prompt count, cache reads included.
CACHED_INPUT_APIS = frozenset({"google-generative-ai", "google-vertex"})
#: Field names that OpenAI-compatible providers leave where a signature would be.
_FIELD_NAMES = frozenset({"reasoning_content", "reasoning_details", "reasoning", "reasoning_text", "thinking"})
_STATUS = {"stop": "complete", "toolUse": "complete", "length": "partial", "aborted": "interrupted", "error": "error"}
_PHASES = {"final_answer": "final", "final": "final", "commentary": "commentary"}
#: pi's agent loop answers a call it did not run, because a queued user message came first, so
SKIPPED = "Skipped due to queued user message."
#: pi's bash tool ends a failed command's output with this line (``tools/bash.ts``)
EXITED = re.compile(r"Command exited with code (-?\d+)")


def normalized_usage(usage: Any, api: Any = None) -> dict[str, Any] | None:
    """pi's ``usage`` under the one definition (core.usage); None when it records none.

    pi counts ``input`` without the cache: its providers subtract the cached part
    (``packages/ai/src/providers``: openai-completions, openai-responses-shared,
    google-gemini-cli) or take Anthropic's and Bedrock's uncached count, and pi's own
    ``totalTokens`` is input + output + cacheRead + cacheWrite. So ``inputTokens`` adds the
    cache counts to it. pi's Gemini API-key and Vertex providers (``api``
    ``google-generative-ai`` / ``google-vertex``) take ``promptTokenCount``, which already
    counts the cached part: there only the cache writes are added. ``output`` already holds
    the reasoning (pi adds thinking/reasoning counts to it; 1.x's optional ``reasoning`` is a
    part of it). An all-zero object is what pi holds when the provider reported nothing
    (OpenAI-compatible gateways, failed and aborted calls), not a response that used no
    tokens, so it gives no ``usage``.
    """
    if not isinstance(usage, dict):
        return None
    read = usage.get("cacheRead")
    write = usage.get("cacheWrite")
    parts = (write,) if api in CACHED_INPUT_APIS else (read, write)
    output = usage.get("output")
    out = normalized(
        input=usage.get("input"),
        input_parts=parts,
        cache_read=read,
        cache_write=write,
        output=output,
        reasoning=usage.get("reasoning") if count(output) is not None else None,  # a part of output
        total=usage.get("totalTokens"),
    )
    return out if out is not None and any(out.values()) else None


def status_of(stop_reason: Any) -> str | None:
    return _STATUS.get(stop_reason) if isinstance(stop_reason, str) else None


def thinking_part(block: dict[str, Any], namespace: str) -> dict[str, Any]:
    """A ``thinking`` block as a reasoning part with the visibility the provider gave it."""
    text = block.get("thinking")
    text = text if isinstance(text, str) else ""
    signature = block.get("thinkingSignature")
    part: dict[str, Any] = {"type": "reasoning"}
    meta: dict[str, Any] = {}
    if block.get("redacted") is True:
        part["visibility"] = "redacted"
        if isinstance(signature, str) and signature:
            part["opaque"] = {"format": "anthropic.redacted_thinking", "data": signature}
        if text:
            meta["thinking"] = text  # the placeholder pi writes, not reasoning
    elif isinstance(signature, str) and signature.startswith("{"):
        item = _json(signature)
        summary = item.get("summary") if isinstance(item, dict) else None
        texts: list[str] = [s["text"] for s in summary or () if isinstance(s, dict) and isinstance(s.get("text"), str)]
        if texts:
            # the Responses item's summary parts, each kept exactly; pi's text is their join
            part["visibility"] = "summary"
            part["summary"] = texts
            if text and text != "\n\n".join(texts):
                meta["thinking"] = text  # differs from the join: kept, but not as reasoning text
        elif text:
            part["visibility"] = "full"
            part["text"] = text
        elif isinstance(item, dict) and item.get("encrypted_content"):
            part["visibility"] = "encrypted"
        part["opaque"] = {"format": "openai.reasoning_item", "data": signature}
    elif isinstance(signature, str) and signature in _FIELD_NAMES:
        part["visibility"] = "full"
        part["text"] = text
        meta["thinkingSignature"] = signature
    else:
        if text:
            if not (isinstance(signature, str) and signature):
                part["visibility"] = "full"  # a provider's raw reasoning text, unsigned
            # signed (Anthropic) thinking: summarized for Claude 4 models, full for 3.7; the
            # entry does not say which, so no visibility is claimed (ASR-214)
            part["text"] = text
        elif signature:
            part["visibility"] = "omitted"
        else:
            part["text"] = text
        if isinstance(signature, str) and signature:
            part["signature"] = signature
    _keep_rest(block, part, meta, ("type", "thinking", "thinkingSignature", "redacted"), namespace)
    return canonical_part_order(part)


def text_part(block: dict[str, Any], namespace: str) -> dict[str, Any]:
    """A ``text`` block; a Responses ``textSignature`` gives the phase the source recorded."""
    if len(block) == 2 and isinstance(block.get("text"), str):  # the common case: {type, text}
        return {"type": "text", "text": block["text"]}
    part: dict[str, Any] = {"type": "text", "text": block.get("text") if isinstance(block.get("text"), str) else ""}
    meta: dict[str, Any] = {}
    signature = block.get("textSignature")
    if signature is not None:
        meta["textSignature"] = signature
        item = _json(signature) if isinstance(signature, str) and signature.startswith("{") else None
        if isinstance(item, dict) and item.get("phase") in _PHASES:
            part["phase"] = _PHASES[item["phase"]]
    _keep_rest(block, part, meta, ("type", "text", "textSignature"), namespace)
    return canonical_part_order(part)


def tool_call(block: dict[str, Any], *, stop_reason: Any, last: bool = False) -> dict[str, Any]:
    """A ``toolCall`` block as a ``tool_call`` record (without envelope).

    A call is partial when the turn stopped early (length, aborted, error) and the call is
    the block being generated when it stopped (the last one) or keeps streaming leftovers.
    """
    record: dict[str, Any] = {"type": "tool_call", "callId": str(block.get("id", ""))}
    if isinstance(block.get("name"), str):
        record["name"] = block["name"]
    arguments = block.get("arguments")
    if isinstance(arguments, str):
        parsed = _json(arguments)
        if parsed is None:
            record["arguments"] = arguments
        else:
            record["input"] = parsed
    elif arguments is not None:
        record["input"] = arguments
    streaming = last or "partialJson" in block or "partialArgs" in block
    if streaming and stop_reason in ("aborted", "length", "error"):
        record["status"] = "partial"
    for key, value in block.items():
        if key not in ("type", "id", "name", "arguments"):
            record[key] = value
    return record


def result_outcome(
    record: dict[str, Any], message: dict[str, Any], text: str, registry: str, shell_tools: frozenset[str]
) -> None:
    """What a ``toolResult`` records of its call's outcome beside ``isError``
    (docs/semantics.md, Tool outcome): a call skipped for a queued message is
    ``<registry>/cancelled``; ``details.status`` "error"/"failed", or a non-empty
    ``details.error`` code (OpenClaw's look-up tools return ``{error: "missing_brave_api_key",
    message, docs}`` rather than throwing), is a failure even where ``isError`` is false;
    ``details.exitCode``, else the shell tool's "Command exited with code N" line, is the
    ``exitCode``."""
    if text.startswith(SKIPPED):
        record["status"] = cancelled(registry)
        not_a_failure(record)
        return
    details = message.get("details")
    code: Any = None
    if isinstance(details, dict):
        error = details.get("error")
        if details.get("status") in ("error", "failed") or (isinstance(error, str) and error):
            record["isError"] = True
        code = details.get("exitCode")
    if not is_exit_code(code) and record.get("name") in shell_tools:
        match = EXITED.search(text[-400:])
        code = int(match.group(1)) if match else None
    set_exit_code(record, code)


def _keep_rest(
    block: dict[str, Any], part: dict[str, Any], meta: dict[str, Any], known: tuple[str, ...], namespace: str
) -> None:
    for key, value in block.items():
        if key not in known:
            meta[key] = value
    if meta:
        part["_meta"] = {f"{namespace}/{k}": v for k, v in meta.items()}


def _json(text: str) -> Any:
    try:
        return items.parse(text)
    except orjson.JSONDecodeError:
        return None
