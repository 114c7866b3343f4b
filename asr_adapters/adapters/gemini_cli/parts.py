"""Gemini API parts and Gemini CLI text conventions -> ASR content parts.

Everything here is pure: a native value in, plain dicts out. Keys a part carries that
have no ASR home are kept under ``_meta`` (namespaced), so no part loses a member.
"""

from __future__ import annotations

from typing import Any

REGISTRY = "com.google.gemini-cli"
PART_META = f"{REGISTRY}/part"
THOUGHT_META = f"{REGISTRY}/thought"

#: Marker the CLI puts before files it inlines for an ``@path`` reference.
REFERENCE_START = "--- Content from referenced files ---"
SESSION_CONTEXT = "<session_context>"
STATE_SNAPSHOT = "<state_snapshot>"
HOOK_CONTEXT = "<hook_context>"
COMPRESSION_ACK = "Got it. Thanks for the additional context!"
BINARY_ACK = "Binary content received. Proceeding with analysis."
#: The signature Gemini CLI puts on model turns it writes itself
SYNTHETIC_SIGNATURE = "skip_thought_signature_validator"

MASKED_MARK = "<tool_output_masked>"
TRUNCATED_MARKS = ("Output too large. Showing first", "For full output see:")


def native_parts(value: Any) -> list[Any]:
    """A PartListUnion as a list: a string is one text part, a single part a list of one."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"text": value}] if value else []
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [{"text": p} if isinstance(p, str) else p for p in value]
    return [value]


def _with_meta(
    part: dict[str, Any], native: dict[str, Any], used: tuple[str, ...], meta: str = PART_META
) -> dict[str, Any]:
    rest = {k: v for k, v in native.items() if k not in used}
    if rest:
        part["_meta"] = {meta: rest}
    return part


def map_part(native: Any, registry: str = REGISTRY, thought_summary: bool = True) -> dict[str, Any]:
    """One native part that is not a function call/response -> one ASR part.

    ``registry`` names the agent whose file it is (Qwen Code writes the same Gemini API
    parts); ``thought_summary``: whether a ``thought: true`` text is a summary, as the Gemini
    API's thoughts are, or reasoning of unknown visibility (other providers' reasoning text
    carried in the same part, as Qwen Code stores it)."""
    meta = PART_META if registry == REGISTRY else f"{registry}/part"
    if not isinstance(native, dict):
        return {"type": "data", "data": native, "schema": meta}
    text = native.get("text")
    if len(native) == 1 and isinstance(text, str):  # the common case, without the general path
        return {"type": "text", "text": text}
    if isinstance(text, str):
        if native.get("thought") is True:
            part: dict[str, Any] = (
                {"type": "reasoning", "visibility": "summary", "summary": [text]}
                if thought_summary
                else {"type": "reasoning", "text": text}
            )
            signature = native.get("thoughtSignature")
            if isinstance(signature, str):
                part["signature"] = signature
                return _with_meta(part, native, ("text", "thought", "thoughtSignature"), meta)
            return _with_meta(part, native, ("text", "thought"), meta)
        return _with_meta({"type": "text", "text": text}, native, ("text",), meta)
    inline = native.get("inlineData")
    if isinstance(inline, dict) and isinstance(inline.get("mimeType"), str):
        mime = inline["mimeType"]
        kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else None
        if kind is not None and set(inline) <= {"mimeType", "data"}:
            part = {"type": kind, "mimeType": mime}
            if isinstance(inline.get("data"), str):
                part["data"] = inline["data"]
            return _with_meta(part, native, ("inlineData",), meta)
    file_data = native.get("fileData")
    if (
        isinstance(file_data, dict)
        and isinstance(file_data.get("fileUri"), str)
        and set(file_data)
        <= {
            "fileUri",
            "mimeType",
        }
    ):
        uri = file_data["fileUri"]
        part = {"type": "resource_link", "uri": uri, "name": uri.rsplit("/", 1)[-1] or uri}
        if isinstance(file_data.get("mimeType"), str):
            part["mimeType"] = file_data["mimeType"]
        return _with_meta(part, native, ("fileData",), meta)
    return {"type": "data", "data": native, "schema": meta}


def thought_part(thought: Any) -> dict[str, Any]:
    """A ``thoughts[]`` entry -> a reasoning part.

    Gemini stores thought *summaries*: ``summary`` is always ``[subject, description]``,
    each kept exactly (an absent subject is ``""``); the entry's other members (its
    ``timestamp``) stay under ``_meta``, so thoughts keep their recorded times.
    """
    if not isinstance(thought, dict):
        return {"type": "data", "data": thought, "schema": THOUGHT_META}
    subject = thought.get("subject", "")
    description = thought.get("description", "")
    if not isinstance(subject, str) or not isinstance(description, str):
        return {"type": "data", "data": thought, "schema": THOUGHT_META}
    part: dict[str, Any] = {"type": "reasoning", "visibility": "summary", "summary": [subject, description]}
    rest = {k: v for k, v in thought.items() if k not in ("subject", "description")}
    if rest:
        part["_meta"] = {THOUGHT_META: rest}
    return part


def thought_text_matches(text: str, thought: Any) -> bool:
    """Whether a raw thought part's text is the rendering of a ``thoughts[]`` entry:
    ``**<subject>**`` then whitespace then the description (sessionUtils
    ``convertSessionToClientHistory`` and the stream both write it so), or the description
    alone for a thought without a subject."""
    if not isinstance(thought, dict):
        return False
    subject = thought.get("subject", "")
    description = thought.get("description", "")
    if not isinstance(subject, str) or not isinstance(description, str):
        return False
    rest = text.strip()
    if subject:
        head = f"**{subject}**"
        if not rest.startswith(head):
            return False
        rest = rest[len(head) :].strip()
    return rest == description.strip()


def fold_thought(reasoning: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    """The reasoning part of a ``thoughts[]`` entry, with what the raw thought part that
    repeats it adds (its signature, other members under ``_meta``): one part, not two."""
    folded = {k: v for k, v in reasoning.items() if k != "_meta"}
    signature = raw.get("thoughtSignature")
    if isinstance(signature, str):
        folded["signature"] = signature
    rest = {k: v for k, v in raw.items() if k not in ("text", "thought", "thoughtSignature")}
    if not isinstance(signature, str) and "thoughtSignature" in raw:
        rest["thoughtSignature"] = raw["thoughtSignature"]
    meta = dict(reasoning.get("_meta", {}))
    if rest:
        meta[PART_META] = rest
    if meta:
        folded["_meta"] = meta
    return folded


def split_reference(text: str) -> tuple[str, str] | None:
    """Split a prompt at the ``@path`` reference block the CLI appended, keeping every character."""
    index = text.find(REFERENCE_START)
    if index < 0:
        return None
    if index > 0 and text[index - 1] == "\n":
        index -= 1
    return text[:index], text[index:]


def attribute_prompt(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mark the parts of a prompt that the CLI or a hook inserted (ASR-203, ASR-224).

    Parts from the ``@path`` reference block on get ``author: harness, origin: injected``;
    a ``<hook_context>`` part gets ``author: hook, origin: injected``; the typed parts carry
    nothing, so the message's own author and origin apply to them. A text part holding the
    start of the reference block is split there, every character kept.
    """
    out: list[dict[str, Any]] = []
    injected = False
    for part in parts:
        if part.get("type") == "text":
            text = part["text"]
            if text.startswith(HOOK_CONTEXT):
                out.append({**part, "author": "hook", "origin": "injected"})
                continue
            if not injected:
                split = split_reference(text)
                if split is not None:
                    injected = True
                    before, after = split
                    if before:
                        out.append({**part, "text": before})
                        part = {"type": "text", "text": after}
                    out.append({**part, "author": "harness", "origin": "injected"})
                    continue
        out.append({**part, "author": "harness", "origin": "injected"} if injected else part)
    return out


def is_synthetic_reply(msg: dict[str, Any]) -> bool:
    """A ``gemini`` turn the CLI wrote itself: the compression or binary-output acknowledgement."""
    if "model" in msg or msg.get("thoughts"):
        return False
    parts = native_parts(msg.get("content"))
    if len(parts) != 1 or not isinstance(parts[0], dict):
        return False
    part = parts[0]
    if part.get("text") == COMPRESSION_ACK:
        return True
    return part.get("text") == BINARY_ACK and part.get("thoughtSignature") in (SYNTHETIC_SIGNATURE, None)


def first_text(parts: list[Any]) -> str:
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            return str(part["text"])
    return ""


def output_capture(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The capture state of a tool output the CLI masked or truncated (ASR-209)."""
    for part in parts:
        text = part.get("text") if part.get("type") == "text" else None
        if not isinstance(text, str):
            continue
        if MASKED_MARK in text:
            return {
                "state": "masked",
                "reason": "Gemini CLI replaced the output with a preview; the full text went to a tool-outputs file",
            }
        if TRUNCATED_MARKS[0] in text or TRUNCATED_MARKS[1] in text:
            return {
                "state": "truncated",
                "reason": "Gemini CLI kept the start and end of the output; the full text went to a tool-outputs file",
            }
    return None
