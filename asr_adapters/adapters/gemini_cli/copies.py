"""Messages Gemini CLI writes again under a new id when it rebuilds its history.

Two writers copy history (v0.44+, ``packages/core/src/core/geminiChat.ts`` and
``chatRecordingService.ts``): after ``/compress`` (or automatic compression) the new chat is
started from plain ``Content[]``, so every turn kept from the old history gets a fresh
``randomUUID`` and reaches the file inside the ``$set.messages`` reset; and ``setHistory``
with plain ``Content[]`` (tool-output masking, truncation) first records every turn of the
history again as its own message line (``recordSyntheticMessage``, new ids, the
``<session_context>`` turn first), then resets to them. Neither copy is a new prompt or a
new model reply: it is written with ``copiedFrom`` naming the message it copies.

A copy is recognised by its *copy key* (type, its text outside thoughts, the ids of the
calls and responses it holds), and only where those writers put copies: among the new ids of
a reset, aligned from the end with the history it replaces (compression keeps the latest
turns, in order); and in a run of new-id lines that starts with a copy of the history's own
``<session_context>`` turn and follows the history in order.
"""

from __future__ import annotations

from typing import Any

from .parts import SESSION_CONTEXT, STATE_SNAPSHOT, first_text, is_synthetic_reply, native_parts


def copy_key(msg: dict[str, Any]) -> int | None:
    """What a copy of this message keeps: None for messages no writer copies as turns."""
    kind = msg.get("type")
    if kind != "user" and kind != "gemini":
        return None
    texts: list[str] = []
    ids: list[str] = []
    for part in native_parts(msg.get("content")):
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        if isinstance(text, str) and part.get("thought") is not True:
            texts.append(text)
        call = part.get("functionCall") or part.get("functionResponse")
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            ids.append(call["id"])
    calls = msg.get("toolCalls") if kind == "gemini" else None
    for entry in calls if isinstance(calls, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"] not in ids:
            ids.append(entry["id"])
    text = "".join(texts)
    if not text and not ids:
        # a thought-only reply: its copy holds the thoughts as raw thought parts
        # (``**subject** description``), the original as thoughts[] entries
        thoughts = _thought_texts(msg) if kind == "gemini" else ()
        return hash((kind, "", (), thoughts)) if thoughts else None
    return hash((kind, text, tuple(ids)))


def _thought_texts(msg: dict[str, Any]) -> tuple[str, ...]:
    """The reply's thoughts as their rendering, whitespace collapsed: from thoughts[] when
    it has them, else from its raw thought parts."""
    entries = msg.get("thoughts")
    rendered: list[str] = []
    if isinstance(entries, list) and entries:
        for thought in entries:
            if not isinstance(thought, dict):
                return ()
            subject, description = thought.get("subject", ""), thought.get("description", "")
            if not isinstance(subject, str) or not isinstance(description, str):
                return ()
            rendered.append(f"**{subject}** {description}" if subject else description)
    else:
        for part in native_parts(msg.get("content")):
            if isinstance(part, dict) and part.get("thought") is True and isinstance(part.get("text"), str):
                rendered.append(part["text"])
    return tuple(" ".join(text.split()) for text in rendered)


def is_harness_turn(msg: dict[str, Any]) -> bool:
    """A turn the CLI writes anew at each rebuild (summary, acknowledgement): never a copy."""
    if msg.get("type") == "gemini":
        return is_synthetic_reply(msg)
    return first_text(native_parts(msg.get("content"))).startswith(STATE_SNAPSHOT)


def starts_burst(msg: dict[str, Any]) -> bool:
    """Whether a new-id line can open a run of re-recorded history (its environment turn)."""
    return msg.get("type") == "user" and first_text(native_parts(msg.get("content"))).startswith(SESSION_CONTEXT)


def align_from_end(
    replaced: list[tuple[str, int | None, str | None]], candidates: list[tuple[int, int | None]]
) -> dict[int, str]:
    """Copies among a reset's new entries: entry index -> the message it copies (its root).

    ``replaced``: the history the reset replaces, in order, as (id, copy key, root or None);
    ``candidates``: (index, copy key) of the reset's new entries, in order. Both are walked
    from the end, so the latest kept turns meet the latest originals.
    """
    copies: dict[int, str] = {}
    cursor = len(replaced)
    for index, key in reversed(candidates):
        if key is None:
            continue
        at = cursor - 1
        while at >= 0 and replaced[at][1] != key:
            at -= 1
        if at >= 0:
            original, _, root = replaced[at]
            copies[index] = root or original
            cursor = at
    return copies
