"""Whether an input is a Claude Code transcript, from its head only (no converter imported)."""

from __future__ import annotations

from typing import Any

from ...core.source import Source

_SNIFF = (b'"type":"file-history-snapshot"', b'"type":"queue-operation"', b'"type":"permission-mode"', b'"leafUuid"')


#: Line types that carry the transcript's envelope (``uuid``) besides user and assistant lines.
_ENVELOPE_TYPES = frozenset({"system", "attachment", "progress"})


def _transcript_line(obj: dict[str, Any]) -> bool:
    """A line shaped as Claude Code writes one, whatever its session facts: a user or assistant
    line with its ``uuid`` and a ``message`` of that role, another envelope line with a ``uuid``,
    a ``summary`` naming its leaf."""
    kind = obj.get("type")
    if kind == "user" or kind == "assistant":
        message = obj.get("message")
        return type(obj.get("uuid")) is str and type(message) is dict and message.get("role") == kind
    if kind in _ENVELOPE_TYPES:
        return type(obj.get("uuid")) is str
    return kind == "summary" and type(obj.get("leafUuid")) is str


def _line_score(source: Source) -> int:
    """For a transcript whose first lines lack the session facts (``sessionId``, ``version``:
    a fixture, a hand-cut file): how many of the head's parsed lines are transcript lines, 85
    when all are and the tree links (``parentUuid``/``isSidechain``) are there, 75 without."""
    lines = source.head_lines()
    share = lines.share(_transcript_line)
    objects = lines.objects
    if not share or not any(obj.get("type") in ("user", "assistant") for obj in objects):
        return 0
    linked = any("parentUuid" in obj or "isSidechain" in obj for obj in objects)
    return round((85 if linked else 75) * share)


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    head = source.head()
    if b'"sessionId"' in head and (b'"parentUuid"' in head or b'"isSidechain"' in head):
        return 95
    if any(marker in head for marker in _SNIFF) and b'"sessionId"' in head:
        return 80
    if source.is_sqlite:
        return 0
    return _line_score(source)
