"""Droid's content blocks (Anthropic-shaped: ``text``, ``thinking``, ``redacted_thinking``,
``tool_use``, ``tool_result``, ``image``, ``document``) into ASR content parts.

Harness context arrives as ``<system-reminder>…</system-reminder>`` text inside the person's
user message (readers: phnx-labs/agi-cli, ccusage, specstory), and an activated skill as a
``<system-notification>`` block starting a line of the person's text (a public Rust session
reader: it keeps only the text before it); the text is cut at those tags so each piece keeps
its exact text and its own author (ASR-203, ASR-211, ASR-224).
"""

from __future__ import annotations

import re
from typing import Any

from ...core.refs import schema_name

REGISTRY = "ai.factory.droid"
HARNESS = ("harness", "injected")
#: a reminder anywhere; a notification only where a line starts, up to its end tag (or the
#: end of the text: the reader cuts there and no file shows whether it is always closed)
_REMINDER = re.compile(
    r"<system-reminder>.*?</system-reminder>|(?:^|(?<=\n))<system-notification>.*?(?:</system-notification>|\Z)",
    re.S,
)

Who = tuple[str, str]


def split_reminders(text: str, default: Who | None) -> list[tuple[str, Who | None]]:
    """``text`` as ``(piece, who)`` runs: each ``<system-reminder>`` or line-leading
    ``<system-notification>`` element (with the whitespace after it) is the harness's, the rest
    ``default`` (None: unknown). Joining gives ``text``."""
    pieces: list[tuple[str, Who | None]] = []
    pos = 0
    for match in _REMINDER.finditer(text):
        if match.start() > pos:
            before = text[pos : match.start()]
            if before.isspace() and pieces:
                pieces[-1] = (pieces[-1][0] + before, pieces[-1][1])
            else:
                pieces.append((before, default))
        pieces.append((match.group(), HARNESS))
        pos = match.end()
    if pos < len(text):
        rest = text[pos:]
        if rest.isspace() and pieces:
            pieces[-1] = (pieces[-1][0] + rest, pieces[-1][1])
        else:
            pieces.append((rest, default))
    return pieces or [(text, default)]


def data_part(block: Any, kind: str) -> dict[str, Any]:
    return {"type": "data", "data": block, "schema": schema_name(REGISTRY, kind)}


def media_part(block: dict[str, Any]) -> dict[str, Any]:
    """An ``image`` block with base64 bytes; any other shape (and every ``document``) is kept
    whole as a data part: a document's ``text``/``parsedData`` forms have no exact ASR part."""
    source = block.get("source")
    if block.get("type") == "image" and isinstance(source, dict) and source.get("type") == "base64":
        mime = source.get("mediaType", source.get("media_type"))
        if isinstance(source.get("data"), str) and isinstance(mime, str) and mime:
            return {"type": "image", "mimeType": mime, "data": source["data"]}
    return data_part(block, f"block/{block.get('type')}")


def reasoning_part(block: dict[str, Any]) -> dict[str, Any]:
    """A ``thinking`` block. No visibility: the provider may have returned a summary (Claude 4)
    or the full text, and the record does not say which (ASR-214). ``redacted_thinking`` is
    redacted, its ``data`` opaque."""
    if block.get("type") == "redacted_thinking":
        opaque: dict[str, Any] = {"format": "anthropic.redacted_thinking"}
        if isinstance(block.get("data"), str):
            opaque["data"] = block["data"]
        return {"type": "reasoning", "visibility": "redacted", "opaque": opaque}
    part: dict[str, Any] = {"type": "reasoning"}
    text = block.get("thinking")
    if isinstance(text, str):
        part["text"] = text  # "" kept as stored: an empty thought is not known to be withheld
    signature = block.get("signature")
    if isinstance(signature, str) and signature:
        part["signature"] = signature
    rest = {k: v for k, v in block.items() if k not in ("type", "thinking", "signature")}
    if "thinking" in block and not isinstance(text, str):
        rest["thinking"] = text
    if signature == "":
        rest["signature"] = ""  # kept: an empty signature (Gemini) is a fact of its own
    if rest:
        part["_meta"] = {f"{REGISTRY}/thinking": rest}
    return part


def result_parts(content: Any) -> list[dict[str, Any]]:
    """A ``tool_result``'s ``content``: a string, or text / image / document blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if content is None:
        return []
    if not isinstance(content, list):
        return [data_part(content, "tool_result/content")]
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append({"type": "text", "text": block["text"]})
        elif isinstance(block, dict):
            parts.append(media_part(block))
        else:
            parts.append(data_part(block, "block/unknown"))
    return parts
