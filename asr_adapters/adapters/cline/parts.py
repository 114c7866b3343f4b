"""Native pieces -> ASR content parts, usage and plan entries."""

from __future__ import annotations

import re
from typing import Any

import orjson

from ...core import items
from ...core.usage import count
from ...core.usage import normalized_usage as normalized
from .split import HARNESS, HUMAN, RESULT, result_state

REGISTRY = "bot.cline"
#: ui row members that have a place of their own in the record built from the row
ROW_KEYS = frozenset({"ts", "type", "say", "ask", "text", "images", "files", "partial", "reasoning"})


def parse_json(text: Any) -> Any:
    """A JSON-string ``text`` field parsed; None when it is not a JSON object or array."""
    if not isinstance(text, str) or not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = items.parse(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict | list) else None


def row_extra(row: dict[str, Any]) -> dict[str, Any]:
    """A ui row's members without a place in the record (checkpoint hash, history index …).
    An ask's JSON text (``{response, options, selected}``) is kept whole: only its
    ``response`` is shown as a part."""
    extra = {k: v for k, v in row.items() if k not in ROW_KEYS}
    # what the record does not show otherwise, kept: a `partial` other than true (true is the
    # record's status, or ``cline.partial`` on finished reasoning) and empty attachment lists
    if "partial" in row and row["partial"] is not True:
        extra["partial"] = row["partial"]
    for key in ("images", "files"):
        if key in row and not (isinstance(row[key], list) and row[key]):
            extra[key] = row[key]
    if row.get("type") == "ask" and row.get("ask") in ("plan_mode_respond", "act_mode_respond") and "text" in row:
        extra["text"] = row["text"]
    return extra


def shown_row(row: dict[str, Any]) -> dict[str, Any]:
    """What is left of a ui row folded into another record once its shown parts are there:
    its identity and members (``ts``, subtype, checkpoint hash, history index …)."""
    facts = {k: v for k, v in row.items() if k in ("ts", "type", "say", "ask", "partial")}
    facts.update(row_extra(row))
    return facts


_MIME = re.compile(r"[\w.+\-/]+")
_BASE64 = ";base64,"


def _data_url(url: str) -> dict[str, Any] | None:
    """``data:<mime>;base64,<data>`` as an image part. Cut with ``find`` rather than one regex
    over the whole URL: a regex walks every character of the (large) base64 data."""
    if not url.startswith("data:"):
        return None
    cut = url.find(";", 5)  # the mime type's characters hold no ";"
    if cut < 0 or not url.startswith(_BASE64, cut) or _MIME.fullmatch(url, 5, cut) is None:
        return None
    return {"type": "image", "mimeType": url[5:cut], "data": url[cut + len(_BASE64) :]}


def attachments(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The images (data URLs) and files (paths) a person attached to a ui row."""
    out: list[dict[str, Any]] = []
    for image in row.get("images") or ():
        part = _data_url(image) if isinstance(image, str) else None
        out.append(part or {"type": "data", "data": image, "schema": f"{REGISTRY}/image"})
    for file in row.get("files") or ():
        if isinstance(file, str) and file:
            out.append(
                {"type": "resource_link", "uri": file, "name": file.replace("\\", "/").rsplit("/", 1)[-1] or file}
            )
        else:
            out.append({"type": "data", "data": file, "schema": f"{REGISTRY}/file"})
    return out


def block_part(block: Any) -> dict[str, Any]:
    """An Anthropic content block that is not text, a tool call or a tool result."""
    if isinstance(block, dict):
        kind = block.get("type")
        if kind == "image" and isinstance(block.get("source"), dict):
            source = block["source"]
            if source.get("type") == "base64" and isinstance(source.get("data"), str):
                return {"type": "image", "mimeType": str(source.get("media_type") or "image/*"), "data": source["data"]}
        if kind == "thinking" and isinstance(block.get("thinking"), str):
            part: dict[str, Any] = {"type": "reasoning", "text": block["thinking"]}
            if isinstance(block.get("signature"), str):
                part["signature"] = block["signature"]
            return part
        if kind == "redacted_thinking" and isinstance(block.get("data"), str | None):  # else kept as data
            opaque: dict[str, Any] = {"format": "anthropic.redacted_thinking"}
            if block.get("data") is not None:
                opaque["data"] = block["data"]
            return {"type": "reasoning", "visibility": "redacted", "opaque": opaque}
        if kind == "text" and isinstance(block.get("text"), str):
            return {"type": "text", "text": block["text"]}
    return {"type": "data", "data": block, "schema": f"{REGISTRY}/block"}


def result_parts(content: Any) -> list[dict[str, Any]]:
    """A ``tool_result`` block's content (a string or blocks) as parts."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block_part(b) for b in content]
    return [] if content is None else [{"type": "data", "data": content, "schema": f"{REGISTRY}/result"}]


USAGE_KEYS = frozenset(("tokensIn", "tokensOut", "cacheReads", "cacheWrites", "cost"))
#: Cline providers whose handler reports ``inputTokens`` with the cached input inside (the
#: OpenAI-compatible ``prompt_tokens``, nothing subtracted), read from Cline's
#: ``src/core/api/providers/*.ts``. Every other handler (anthropic, bedrock, vertex, cline,
#: openrouter, openai-native, deepseek, gemini, groq, moonshot, vercel-ai-gateway, minimax,
#: claude-code …) reports it without the cache (Anthropic's count, or the prompt count less
#: the cached part), as ``calculateApiCostAnthropic`` expects.
CACHE_INSIDE_PROVIDERS = frozenset(
    {
        "openai",
        "litellm",
        "xai",
        "zai",
        "requesty",
        "huggingface",
        "fireworks",
        "baseten",
        "together",
        "sambanova",
        "nebius",
        "lmstudio",
        "ollama",
        "qwen",
        "qwen-code",
        "doubao",
        "mistral",
        "cerebras",
        "sapaicore",
        "wandb",
        "hicap",
        "nousresearch",
        "dify",
        "oca",
        "huawei-cloud-maas",
        "asksage",
    }
)


def provider_of(row: Any) -> str | None:
    """The provider a row (or api message) names in its ``modelInfo`` (2026 builds), if any."""
    info = row.get("modelInfo") if isinstance(row, dict) else None
    provider = info.get("providerId") if isinstance(info, dict) else None
    return provider if isinstance(provider, str) else None


def _input_has_cache(provider: str | None, tokens_in: Any, cached: int) -> bool:
    """Whether Cline's input count already holds the cached input: only for the providers
    that report it so, and never when the cached part is larger than the whole (the numbers
    then prove it was counted apart). A row that names no provider (2025 builds) is read the
    way Cline's default providers count (anthropic, cline, openrouter: without the cache)."""
    if provider not in CACHE_INSIDE_PROVIDERS:
        return False
    return not (isinstance(tokens_in, int) and tokens_in < cached)


def _request_normalized(info: dict[str, Any], provider: str | None) -> dict[str, Any] | None:
    tokens_in, read, write = info.get("tokensIn"), info.get("cacheReads"), info.get("cacheWrites")
    cached = (count(read) or 0) + (count(write) or 0)
    parts = () if _input_has_cache(provider, tokens_in, cached) else (read, write)
    return normalized(
        input=tokens_in, input_parts=parts, cache_read=read, cache_write=write, output=info.get("tokensOut")
    )


def reports_tokens(info: dict[str, Any]) -> bool:
    """Whether a ClineApiReqInfo records any token spent (Cline writes zeros for a try that
    failed before the provider reported usage)."""
    return any(count(info.get(key)) for key in ("tokensIn", "tokensOut", "cacheReads", "cacheWrites"))


#: a request's ``cancelReason`` -> the status of the response it cut short (ASR-206)
_CANCEL_STATUS = {"streaming_failed": "error", "user_cancelled": "interrupted"}


def request_usage(
    info: dict[str, Any], provider: str | None = None
) -> tuple[dict[str, Any] | None, dict[str, Any], str | None]:
    """(normalized usage, the native numbers verbatim, the reply's status) of a ClineApiReqInfo
    (``provider``: the row's ``modelInfo.providerId``): a request Cline cancelled
    (``cancelReason``) cut its reply short, whatever its numbers say."""
    native = {k: v for k, v in info.items() if k in USAGE_KEYS}
    reason = info.get("cancelReason")
    status = _CANCEL_STATUS.get(reason) if isinstance(reason, str) else None
    if isinstance(reason, str) and status is None:
        status = f"{REGISTRY}/{reason}"
    return _request_normalized(info, provider), native, status


def metrics_usage(metrics: Any, provider: str | None = None) -> dict[str, Any] | None:
    """Normalized usage of an api message's ``metrics.tokens`` (2026 builds): ``prompt`` is the
    request's input count as the provider's handler reported it, ``cached`` its cache reads and
    writes together (Cline's ``Task``), so there are no separate cache members."""
    tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
    if not isinstance(tokens, dict):
        return None
    prompt, cached = tokens.get("prompt"), tokens.get("cached")
    parts = () if _input_has_cache(provider, prompt, count(cached) or 0) else (cached,)
    return normalized(input=prompt, input_parts=parts, output=tokens.get("completion"))


_CHECK = re.compile(r"^\s*[-*]\s*\[([ xX~-])\]\s?(.*)$")


def checklist(text: str) -> list[dict[str, Any]]:
    """The entries of a ``task_progress`` markdown checklist (``- [ ]`` / ``- [x]``)."""
    entries = []
    for line in text.splitlines():
        match = _CHECK.match(line)
        if match is not None:
            mark = match.group(1)
            status = "completed" if mark in "xX" else "in_progress" if mark in "~-" else "pending"
            entries.append({"content": match.group(2), "status": status})
    return entries


def piece_part(kind: str, text: str) -> dict[str, Any]:
    """A text part with the author and origin of the piece's kind (no author: unknown)."""
    part: dict[str, Any] = {"type": "text", "text": text}
    if kind == HUMAN:
        part.update(author="human", origin="prompt")
    elif kind == HARNESS:
        part.update(author="harness", origin="injected")
    elif kind == RESULT:
        part.update(author="tool", origin="injected")
    return part


def rendered_part(kind: str, text: str) -> dict[str, Any]:
    """A piece of a request's display rendering: harness text and tool output keep their
    author; the person's words carry none (Cline rewrote them: mentions expanded, images as
    ``[Image]``; what the person typed is the folded row itself)."""
    part: dict[str, Any] = {"type": "text", "text": text}
    if kind == HARNESS:
        part.update(author="harness", origin="injected")
    elif kind == RESULT:
        part.update(author="tool", origin="injected")
    return part


def with_result_state(body: dict[str, Any], tool: str | None, text: str) -> dict[str, Any]:
    """``isError``/``status`` of a tool result where its text states them (``result_state``)."""
    is_error, status = result_state(tool, text)
    if is_error is not None:
        body["isError"] = is_error
    if status is not None:
        body["status"] = status
    return body


def unanswered_status(body: dict[str, Any], info: dict[str, Any]) -> None:
    """A request no reply answered, cancelled by Cline (``cancelReason``): status
    ``bot.cline/<cancelReason>``, so it never reads as a prompt the model answered."""
    reason = info.get("cancelReason")
    if isinstance(reason, str) and reason:
        body["status"] = f"{REGISTRY}/{reason}"
