"""Whether an input is a Qwen Code chat recording, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.items import first_value
from ...core.lazyre import LazyPattern
from ...core.source import Source

_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
#: what only a Qwen Code record holds: Gemini API parts inside a uuid-chained record, its
#: ``systemPayload``, its telemetry event names (Claude Code's lines share uuid/parentUuid)
_QWEN = LazyPattern(rb'"parts"\s*:\s*\[|"systemPayload"\s*:|"qwen-code\.')


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is Qwen Code's (0 to 100), from its head."""
    if source.is_sqlite:
        return 0
    head = source.head()
    first = first_value(head)
    kind = first.get("type") if isinstance(first, dict) else None
    if not (isinstance(kind, str) and kind in _TYPES and "parentUuid" in first):
        return 0
    if not isinstance(first.get("sessionId"), str) or not _QWEN.search(head):
        return 0
    return 98  # above Claude Code's 95 for any line with sessionId and parentUuid
