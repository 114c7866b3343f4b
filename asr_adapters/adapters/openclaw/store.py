"""The SQLite era (2026.7.2+): ``openclaw-agent.sqlite``, one database per agent.

``transcript_events(session_id, seq, event_json | event_zstd, …)`` holds the same entries the
JSONL files held, one row per entry, ``event_zstd`` being zstd-compressed UTF-8 JSON.
``session_windows`` (session id → key, chat type, channel, account) and ``session_nodes``
(key → ``SessionEntry`` JSON) give the routing facts ``sessions.json`` gave before.

The database is opened read-only in one read transaction for the whole conversion
(core.sqlite_snapshot): every batch sees the same committed state, never a row a writer rolls
back. OpenClaw keeps it in WAL mode, where a reader never blocks the writer; an idle database
(no ``-wal``/``-shm``) is read with ``immutable=1`` so nothing is created beside it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.source import MAX_LINE_BYTES, BadLine, decompress_zstd
from ...core.sqlite_snapshot import open_snapshot
from .index import SessionInfo, agent_from_key, from_entry

BATCH = 256
TABLE = "transcript_events"
#: The tables and columns the converter reads (``core.sqlite_limits.check_schema``).
READS: dict[str, frozenset[str]] = {
    TABLE: frozenset({"session_id", "seq", "event_json", "event_zstd", "created_at"}),
    "session_windows": frozenset({"session_id", "session_key", "chat_type", "channel", "account_id"}),
    "session_nodes": frozenset({"session_key", "entry_json", "current_session_id"}),
}


def connect(path: Path) -> sqlite3.Connection:
    """Read-only, in one snapshot for the whole conversion, creating nothing beside an idle
    database (core.sqlite_snapshot); a write lock waits 2 s, then raises."""
    return open_snapshot(path, timeout=2.0)


def session_ids(connection: sqlite3.Connection) -> list[str]:
    """Every session in the database, in the order it first wrote (then by id)."""
    rows = connection.execute(
        f"SELECT session_id, MIN(created_at) FROM {TABLE} GROUP BY session_id ORDER BY MIN(created_at), session_id"
    ).fetchall()
    return [row[0] for row in rows]


def events(connection: sqlite3.Connection, session_id: str) -> Iterator[tuple[int, bytes | str | None]]:
    """``(seq, raw event JSON)`` of one session, fetched in batches; ``None`` when unreadable.

    ``event_json`` is fetched as bytes (``CAST … AS BLOB``): a row whose text is not UTF-8
    then fails to parse on its own and is reported, instead of stopping the whole fetch.
    """
    last = None
    codec = _TEXT_CODECS.get(str(connection.execute("PRAGMA encoding").fetchone()[0]))
    columns = f"SELECT seq, CAST(event_json AS BLOB), event_zstd FROM {TABLE} WHERE session_id = ?"
    while True:
        if last is None:
            rows = connection.execute(f"{columns} ORDER BY seq LIMIT ?", (session_id, BATCH)).fetchall()
        else:
            query = f"{columns} AND seq > ? ORDER BY seq LIMIT ?"
            rows = connection.execute(query, (session_id, last, BATCH)).fetchall()
        if not rows:
            return
        for seq, text, packed in rows:
            if codec is not None and isinstance(text, bytes) and text:
                text = _wide(text, codec)
            yield seq, _payload(text, packed)
        last = rows[-1][0]


#: ``PRAGMA encoding`` of a database that stores its text as UTF-16 (OpenClaw keeps such
#: databases as they are): the bytes ``CAST(… AS BLOB)`` gives are then UTF-16, not UTF-8.
_TEXT_CODECS = {"UTF-16le": "utf-16-le", "UTF-16be": "utf-16-be"}


def _wide(text: bytes, codec: str) -> bytes | str:
    """A UTF-16 ``event_json`` as text; bytes that are not UTF-16 make the row unreadable."""
    try:
        return text.decode(codec, "surrogatepass")  # a lone surrogate: repaired by core.items
    except UnicodeDecodeError as exc:
        return BadLine(f"event_json is not {codec.upper()} text: {exc.reason}")


def _payload(text: Any, packed: Any) -> bytes | str | None:
    if isinstance(text, BadLine):
        return text
    if isinstance(text, str | bytes) and text:
        return text
    if isinstance(packed, bytes) and packed:
        try:  # under the core's ratio and size caps: a bomb is this row's reason, not a crash
            return decompress_zstd(packed, MAX_LINE_BYTES)
        except ValueError as exc:
            return BadLine(f"event_zstd unreadable: {exc}")
    return None


def parse(raw: bytes | str | None) -> tuple[Any, bool]:
    """One event as JSON and whether lone surrogate escapes in it were replaced (``core.items``:
    its parsed size bounded too), or raise ``ValueError`` when it cannot be read."""
    if isinstance(raw, BadLine):
        raise ValueError(raw.reason)
    if raw is None:
        raise ValueError("no event_json and no readable event_zstd")
    try:
        return items.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(str(exc)) from exc


def session_info(connection: sqlite3.Connection, session_id: str, tables: set[str]) -> SessionInfo | None:
    """Routing facts of a session from ``session_windows`` and ``session_nodes``, when present."""
    key = chat_type = channel = account = None
    if "session_windows" in tables:
        try:
            row = connection.execute(
                "SELECT session_key, chat_type, channel, account_id FROM session_windows WHERE session_id = ?",
                (session_id,),
            ).fetchone()
        except sqlite3.Error:
            row = None
        if row is not None:
            key, chat_type, channel, account = row
    entry: dict[str, Any] = {}
    if key is not None and "session_nodes" in tables:
        try:
            node = connection.execute("SELECT entry_json FROM session_nodes WHERE session_key = ?", (key,)).fetchone()
        except sqlite3.Error:
            node = None
        if node is not None:
            try:
                loaded = items.parse(node[0])
            except (orjson.JSONDecodeError, TypeError):
                loaded = None
            if isinstance(loaded, dict):
                entry = loaded
    if key is None and not entry:
        return None
    info = from_entry(key, entry)
    info.agent_id = info.agent_id or agent_from_key(key)
    info.channel = info.channel or channel
    info.chat_type = info.chat_type or chat_type
    info.account_id = info.account_id or account
    return info


def session_for_key(connection: sqlite3.Connection, key: str, tables: set[str]) -> str | None:
    """The current session id of a session key (``session_nodes``), when the table exists."""
    if "session_nodes" not in tables:
        return None
    try:
        row = connection.execute(
            "SELECT current_session_id FROM session_nodes WHERE session_key = ?", (key,)
        ).fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row is not None and isinstance(row[0], str) and row[0] else None
