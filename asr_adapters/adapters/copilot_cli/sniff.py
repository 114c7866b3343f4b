"""Whether an input is a GitHub Copilot CLI event log, from its head only (no converter imported)."""

from __future__ import annotations

from typing import Any

from ...core.lazyre import LazyPattern
from ...core.source import Source

_START = LazyPattern(rb'"type"\s*:\s*"session\.start"')
_COPILOT = LazyPattern(rb'"producer"\s*:\s*"copilot-agent"|"copilotVersion"\s*:')
_EVENT = LazyPattern(rb'"type"\s*:\s*"(?:user\.message|assistant\.(?:message|turn_start)|tool\.execution_start)"')
_ENVELOPE = LazyPattern(rb'"parentId"\s*:')
_EVENT_TYPE = LazyPattern(r"(?:session|user|assistant|tool|hook|subagent|system|skill|abort)\.[a-z_.]+\Z")


def is_start(event: Any) -> bool:
    return isinstance(event, dict) and event.get("type") == "session.start"


def _event_line(obj: dict[str, Any]) -> bool:
    """A line in the event log's envelope: a string ``id``, a dotted event ``type`` of the
    kinds the CLI writes, a ``data`` object."""
    kind = obj.get("type")
    return (
        type(kind) is str
        and _EVENT_TYPE.match(kind) is not None
        and type(obj.get("id")) is str
        and type(obj.get("data")) is dict
    )


def _line_score(source: Source) -> int:
    """For a log whose head lacks the CLI's own marks (``producer``, ``copilotVersion``, the
    ``parentId`` chain): the share of the head's parsed lines that are event lines, 90 when a
    ``session.start`` names its session, 70 without."""
    lines = source.head_lines()
    share = lines.share(_event_line)
    if not share:
        return 0
    started = any(is_start(obj) and isinstance(obj["data"].get("sessionId"), str) for obj in lines.objects)
    return round((90 if started else 70) * share)


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if source.is_sqlite:
        return 0
    head = source.head()
    if _START.search(head) and _COPILOT.search(head):
        return 100
    if _EVENT.search(head) and _ENVELOPE.search(head) and b'"data"' in head:
        return 70
    return _line_score(source)
