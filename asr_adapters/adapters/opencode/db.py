"""OpenCode's SQLite database (``opencode.db``, Drizzle schema ``session``/``message``/``part``/
``todo``): read-only, in one snapshot (core.sqlite_snapshot), one session at a time.

Rows are rebuilt the way OpenCode rebuilds them: the ``data`` JSON spread, with ``id`` and
``sessionID`` (``messageID`` for parts) put back from the columns. Messages come in
``(time_created, id)`` order, a message's parts in id order (ids ascend with creation). Text is
fetched as bytes and parsed by orjson, so a value that is not UTF-8 or not JSON is one
unreadable row, never a failed query.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core import items
from ...core.adapter import Context
from ...core.sqlite_limits import check_schema
from ...core.sqlite_snapshot import open_snapshot
from .store import NativeMessage, parse_object, with_ids

FORMAT = "opencode-sqlite"
PAGE = 500
REQUIRED = ("session", "message", "part")
#: The ``session`` columns ``session_info`` reads; only these are selected (by declared name).
SESSION_COLUMNS = frozenset(
    {
        "id", "slug", "project_id", "workspace_id", "directory", "path", "parent_id", "title", "version", "agent",
        "model", "revert", "permission", "goal", "summary_additions", "summary_deletions", "summary_files",
        "summary_diffs", "share_url", "time_created", "time_updated", "time_compacting", "time_archived", "cost",
        "tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read", "tokens_cache_write",
    }
)  # fmt: skip
#: The tables and columns the converter reads (``core.sqlite_limits.check_schema``).
READS: dict[str, frozenset[str]] = {
    "session": SESSION_COLUMNS,
    "message": frozenset({"id", "session_id", "data", "time_created"}),
    "part": frozenset({"id", "message_id", "data", "time_created"}),
    "todo": frozenset({"session_id", "content", "status", "priority", "position", "time_updated"}),
}


def _text(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


class Database:
    """One read-only snapshot of the database."""

    def __init__(self, path: Path) -> None:
        self.connection = open_snapshot(path, timeout=5.0)
        try:  # the tables read, as declared: a view, generated column or trigger there is refused
            self.declared = check_schema(self.connection, str(path), READS)
        except BaseException:
            self.connection.close()
            raise
        self.connection.text_factory = bytes
        self.tables = {
            _text(r[0]) for r in self.connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }

    def close(self) -> None:
        self.connection.close()

    def sessions(self) -> Iterator[dict[str, Any]]:
        """Every session row as a dict (column -> value), oldest first."""
        known = ", ".join(f'"{c}"' for c in self.declared.get("session", ()) if c in SESSION_COLUMNS)
        cursor = self.connection.execute(f"SELECT {known or 'id'} FROM session ORDER BY time_created, id")
        names = [d[0] for d in cursor.description]
        try:
            while rows := cursor.fetchmany(PAGE):
                for row in rows:
                    yield {name: _text(value) for name, value in zip(names, row, strict=True)}
        finally:
            cursor.close()


def session_info(row: dict[str, Any], context: Context) -> dict[str, Any]:
    """``Session.Info`` rebuilt from a ``session`` row (the JSON columns parsed)."""
    info: dict[str, Any] = {"id": row.get("id")}
    for column, key in (("slug", "slug"), ("project_id", "projectID"), ("workspace_id", "workspaceID")):
        if row.get(column) is not None:
            info[key] = row[column]
    for column, key in (("directory", "directory"), ("path", "path"), ("parent_id", "parentID")):
        if row.get(column) is not None:
            info[key] = row[column]
    for column in ("title", "version", "agent"):
        if row.get(column) is not None:
            info[column] = row[column]
    for column in ("model", "revert", "permission", "goal"):
        value = row.get(column)
        if value is not None:
            info[column] = _json(value, f"session {row.get('id')} {column}", context)
    summary = {
        k: row[f"summary_{k}"] for k in ("additions", "deletions", "files") if row.get(f"summary_{k}") is not None
    }
    if row.get("summary_diffs") is not None:
        summary["diffs"] = _json(row["summary_diffs"], f"session {row.get('id')} summary_diffs", context)
    if summary:
        info["summary"] = summary
    if row.get("share_url") is not None:
        info["share"] = {"url": row["share_url"]}
    time = {
        k: row[f"time_{k}"]
        for k in ("created", "updated", "compacting", "archived")
        if row.get(f"time_{k}") is not None
    }
    info["time"] = time
    totals = {
        k: row[k]
        for k in (
            "cost",
            "tokens_input",
            "tokens_output",
            "tokens_reasoning",
            "tokens_cache_read",
            "tokens_cache_write",
        )
        if k in row
    }
    if any(totals.values()):  # all zero: an imported session, whose totals OpenCode never filled
        info["totals"] = totals
    return info


def _json(value: Any, what: str, context: Context) -> Any:
    import orjson

    try:
        return items.parse(value)
    except orjson.JSONDecodeError:
        context.warn(None, f"{what}: not JSON; kept as text")
        return value


class DbSession:
    """One session of the database, read with the shared snapshot."""

    format = FORMAT
    variant = "sqlite"

    def __init__(self, db: Database, info: dict[str, Any], file: str, context: Context) -> None:
        self.db = db
        self.info = info
        self.file = file
        self.context = context

    def messages(self) -> Iterator[NativeMessage]:
        """The session's messages with their parts, from one query walking both indexes in
        order (messages by ``(time_created, id)``, each one's parts by id), a page at a time."""
        session_id = str(self.info["id"])
        accounting = self.context.accounting
        cursor = self.db.connection.execute(
            "SELECT m.id, m.data, p.id, p.data, p.time_created FROM message m LEFT JOIN part p ON p.message_id = m.id "
            "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id",
            (session_id,),
        )
        current: str | None = None
        info: dict[str, Any] | None = None
        parts: list[dict[str, Any]] = []
        times: dict[str, int] = {}
        try:
            while rows := cursor.fetchmany(PAGE):
                for raw_id, data, raw_part, part_data, part_time in rows:
                    message_id = _text(raw_id)
                    if message_id != current:
                        if current is not None:
                            yield from self._message(session_id, current, info, parts, times)
                        current, parts, times = message_id, [], {}
                        accounting.native_items += 1
                        info = parse_object(data, f"message {message_id}", self.context)
                    if raw_part is not None:
                        part_id = _text(raw_part)
                        accounting.native_items += 1
                        part = parse_object(part_data, f"part {part_id}", self.context)
                        if part is not None:
                            parts.append(with_ids(part, id=part_id, sessionID=session_id, messageID=message_id))
                            if isinstance(part_time, int):
                                times[part_id] = part_time
            if current is not None:
                yield from self._message(session_id, current, info, parts, times)
        finally:
            cursor.close()

    @staticmethod
    def _message(
        session_id: str,
        message_id: str,
        info: dict[str, Any] | None,
        parts: list[dict[str, Any]],
        times: dict[str, int],
    ) -> Iterator[NativeMessage]:
        if info is not None:
            yield NativeMessage(with_ids(info, id=message_id, sessionID=session_id), parts, part_times=times)
        elif parts:  # the parts of an unreadable message still say something
            ids = {"id": message_id, "sessionID": session_id}
            yield NativeMessage(ids, parts, outcome_due=False, part_times=times)

    def todos(self) -> tuple[list[Any] | None, int | None]:
        """The ``todo`` rows as one list, and the latest ``time_updated`` among them."""
        if "todo" not in self.db.tables:
            return None, None
        rows = self.db.connection.execute(
            "SELECT content, status, priority, position, time_updated FROM todo WHERE session_id = ? ORDER BY position",
            (str(self.info["id"]),),
        ).fetchall()
        if not rows:
            return None, None
        self.context.accounting.native_items += 1  # the stored list is one item, as in the JSON tree
        times = [t for *_, t in rows if isinstance(t, int)]
        todos = [{"content": _text(c), "status": _text(s), "priority": _text(p)} for c, s, p, _, _ in rows]
        return todos, max(times) if times else None
