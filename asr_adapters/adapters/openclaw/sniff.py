"""Whether an input is an OpenClaw session, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.items import first_value
from ...core.source import Source


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if source.is_sqlite:
        head = source.head()
        if b"orchestration_events" in head:
            return 0
        if b"transcript_events" in head:
            return 95
        if source.path is not None:
            from ...core.sqlite_snapshot import table_names  # only for SQLite files
            from .store import TABLE

            tables = table_names(source.path, timeout=2.0)
            if TABLE in tables and "orchestration_events" not in tables:
                return 95
        return 0
    head = source.head()
    first = first_value(head)
    if isinstance(first, dict) and first.get("type") == "session":
        if isinstance(first.get("id"), str) and "cwd" in first and "timestamp" in first:
            sure = b'"parentId"' in head or b'"message":{"role"' in head or b'"message": {"role"' in head
            return 90 if sure or "version" in first else 75
        return 0
    if isinstance(first, dict) and first.get("type") == "message" and "parentId" in first:
        message = first.get("message")
        if isinstance(message, dict) and message.get("provider") in ("openclaw", "clawdbot"):
            return 70
    return 0
