"""A reply's first, empty versions (JSONL era), folded into the record its later version writes.

Gemini CLI writes a model reply's line as soon as the request starts (``content: ""``,
``thoughts: []``, ``tokens: null``), again when the tokens arrive, and again with its text or
tool calls (chatRecordingService ``recordMessage``/``recordMessageTokens``/``recordToolCalls``).
The empty versions carry nothing the later version does not repeat, so they are not written
as records of their own: they are held until the reply's next line, and folded into the first
record that line writes (``assembly``). A held version is written as before (a ``vendor``
record) when the next message line is another message, or a rewind, reset or the end of the
file comes first (an aborted request), or when the later version does not repeat it.
"""

from __future__ import annotations

from typing import Any

from ...model.order import canonical_order
from .parts import native_parts

_EMPTY: tuple[Any, ...] = (None, "", [], {})


def is_placeholder(msg: dict[str, Any]) -> bool:
    """A ``gemini`` line with an id and nothing to show: no text, thoughts, display or calls."""
    return (
        msg.get("type") == "gemini"
        and bool(msg.get("id"))
        and not native_parts(msg.get("content"))
        and not msg.get("thoughts")
        and not msg.get("toolCalls")
        and msg.get("displayContent") is None
    )


def repeats(held: dict[str, Any], later: dict[str, Any]) -> bool:
    """Whether ``later`` keeps every member of ``held``: the same value, or one filled in
    where ``held`` had an empty one (``tokens: null``, ``content: ""``)."""
    return all(key in later and (value == later[key] or value in _EMPTY) for key, value in held.items())


def fold(records: list[dict[str, Any]], message_id: str) -> None:
    """Mark the first record of the reply in ``records`` (its message, or its first tool
    call) as built from several versions of the native message (``assembly``)."""
    for index, record in enumerate(records):
        kind = record["type"]
        if (kind == "message" and record.get("messageId") == message_id) or (
            kind == "tool_call" and record.get("inferenceId") == message_id
        ):
            record["assembly"] = {"mode": "folded", "sourceIds": [message_id]}
            records[index] = canonical_order(record)
            return
