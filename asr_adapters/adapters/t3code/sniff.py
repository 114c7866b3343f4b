"""Whether an input is a T3 Code database, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.source import Source


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if not source.is_sqlite:
        return 0
    head = source.head()
    if b"transcript_events" in head:
        return 0  # OpenClaw's database
    if b"orchestration_events" in head:
        return 95
    if source.path is not None:
        from ...core.sqlite_snapshot import table_names  # only for SQLite files

        tables = table_names(source.path, timeout=5.0)
        if "orchestration_events" in tables and "transcript_events" not in tables:
            return 90
    return 0
