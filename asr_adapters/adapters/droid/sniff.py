"""Whether an input is a Factory Droid session transcript, from its head only (no converter
imported)."""

from __future__ import annotations

from typing import Any

from ...core.lazyre import LazyPattern
from ...core.source import Source

#: the record types of ``<sessionId>.jsonl`` (docs/agents/droid.md)
_TYPES = frozenset({"session_start", "message", "todo_state", "compaction_state", "session_end"})
#: ``session_start`` members no other agent's ``session_start`` is known to write together
_OWN = ("sessionTitle", "owner", "isSessionTitleManuallySet", "callingSessionId")


def start_id(line: Any) -> str | None:
    """The session id a ``session_start`` line names: ``id`` (every real file), else
    ``sessionId`` (droid-sdk-typescript ``SessionStartEventSchema``, which lists no ``id``); None
    when ``line`` is no ``session_start`` naming one."""
    if not (isinstance(line, dict) and line.get("type") == "session_start"):
        return None
    for key in ("id", "sessionId"):
        if isinstance(line.get(key), str):
            return str(line[key])
    return None


def _droid_line(line: dict[str, Any]) -> bool:
    kind = line.get("type")
    if kind == "message":
        return isinstance(line.get("message"), dict) or ("role" in line and "text" in line)
    return kind in _TYPES


#: members of a session's ``.settings.json`` (droid-sdk-typescript ``session-settings-schema.ts``)
_SETTINGS = LazyPattern(
    rb'"(?:autonomyLevel|autonomyMode|interactionMode|reasoningEffort|tokenUsage|assistantActiveTimeMs)"\s*:'
)
SETTINGS_SUFFIX = ".settings.json"


def is_settings(source: Source) -> bool:
    """A session's settings sidecar: claimed so that batch reports it as part of its
    transcript, not as a file no adapter knows."""
    return (
        source.name.endswith(SETTINGS_SUFFIX)
        and source.head().lstrip().startswith(b"{")
        and bool(_SETTINGS.search(source.head()))
    )


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is Droid's (0 to 100), from its head.

    Line 1 is always ``session_start`` (every real and reader-built file). With Droid's own
    members it is certain; a bare ``session_start`` (other tools write records of that name)
    counts only as far as the following lines are Droid's nested ``message`` records."""
    if source.is_sqlite:
        return 0
    if is_settings(source):
        return 60
    values = source.head_lines().values
    first = values[0] if values else None
    if not isinstance(first, dict) or start_id(first) is None:
        return 0
    if any(key in first for key in _OWN):
        return 95
    rest = [v for v in values[1:]]
    if not rest:
        return 0
    share = sum(1 for v in rest if isinstance(v, dict) and _droid_line(v)) / len(rest)
    return int(90 * share)
