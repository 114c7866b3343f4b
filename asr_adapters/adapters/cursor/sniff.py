"""Whether an input is a Cursor ``state.vscdb``, from its head and its key index (no converter)."""

from __future__ import annotations

from ...core.source import Source


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100)."""
    if not source.is_sqlite or source.path is None:
        return 0
    head = source.head()
    if b"ItemTable" not in head and b"cursorDiskKV" not in head:
        return 0
    from .db import probe  # the database's own reader: only for SQLite files that may be ours

    return probe(source.path)
