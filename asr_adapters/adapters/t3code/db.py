# Whole, over 400 lines: every query of T3 Code's schema, in one read transaction, beside the checks they rely on.
"""Read-only access to T3 Code's ``state.sqlite``.

T3 Code keeps the database open in WAL mode while it runs. We never write, and read in one
read transaction for the whole conversion (core.sqlite_snapshot): every query sees the same
committed state, including committed rows still in the ``-wal`` (a WAL reader never blocks the
writer); an idle database (no ``-wal``/``-shm``) is read with ``immutable=1``, creating nothing
beside it. A write lock (a rollback-journal writer) is one error, never a read of the main file
under it. When the folder cannot be written (SQLite cannot create the ``-shm`` index) we fall
back to ``immutable=1``, which reads the main file only: reported when a ``-wal`` exists.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.spill import SpillMap, SpillSet
from ...core.sqlite_limits import check_schema
from ...core.sqlite_snapshot import open_snapshot

PAGE = 1000

#: The columns of one event row we read, in this order.
V1_COLUMNS = (
    "sequence, event_id, aggregate_kind, stream_id, event_type, occurred_at, command_id, "
    "causation_event_id, correlation_id, actor_kind, payload_json, metadata_json"
)
V2_COLUMNS = (
    "sequence, event_id, command_id, thread_id, run_id, node_id, provider, raw_event_id, event_type, "
    "occurred_at, payload_json"
)


#: The tables and columns the converter reads (``core.sqlite_limits.check_schema``).
READS: dict[str, frozenset[str]] = {
    "orchestration_events": frozenset(
        [*V1_COLUMNS.replace(" ", "").split(","), "application_event_version", "aggregate_kind"]
    ),
    "orchestration_v2_events": frozenset(V2_COLUMNS.replace(" ", "").split(",")),
    "projection_projects": frozenset({"project_id", "title", "workspace_root"}),
    "provider_session_runtime": frozenset({"thread_id", "provider_name", "provider_instance_id", "resume_cursor_json"}),
    "projection_turns": frozenset({"thread_id", "pending_message_id", "turn_id"}),
}


class Database:
    """One read-only connection and the few queries the converter needs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.projects: dict[str, dict[str, Any]] = {}
        self.connection = self._open(path)
        try:  # the tables read, as declared: a view, generated column or trigger there is refused
            self.declared = check_schema(self.connection, str(path), READS)
        except BaseException:
            self.connection.close()
            raise
        self.tables = {row[0] for row in self._all("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.has_v2 = "orchestration_v2_events" in self.tables
        self.has_app_version = "application_event_version" in self.declared.get("orchestration_events", ())

    def _open(self, path: Path) -> sqlite3.Connection:
        """One read snapshot for the whole conversion (core.sqlite_snapshot). A write lock is
        an error (reading the main file under it could return rows the writer rolls back)."""
        try:
            return open_snapshot(path, timeout=5.0)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                raise
            # a folder we may not write: SQLite cannot create the -shm index; read the main file
            wal = path.with_name(path.name + "-wal")
            connection = open_snapshot(path, timeout=5.0, immutable=True)
            if wal.exists():
                self.warnings.append(
                    f"read-only open failed ({exc}); read the main file only: "
                    f"committed changes still in {wal.name} are not included"
                )
            return connection

    def close(self) -> None:
        self.connection.close()

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """One statement run to completion, so no read transaction outlives the call.

        Text that is not UTF-8 makes SQLite's decoder fail the whole statement; only then is
        the statement run again with a decoder that marks such values (``UndecodableText``),
        so the common case keeps SQLite's own fast decoding."""
        try:
            return self.connection.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc).lower():
                raise
            self.connection.text_factory = _decode
            try:
                return self.connection.execute(sql, params).fetchall()
            finally:
                self.connection.text_factory = str

    def _load(self, sql: str, params: tuple[Any, ...], put: Callable[[tuple[Any, ...]], None]) -> None:
        """Every row of one statement handed to ``put`` (which stores it, e.g. in a ``SpillMap``)
        a page at a time, so the rows are never all in memory; like ``_all`` for text that is
        not UTF-8 (``put`` must then take the same rows again, so it only stores)."""
        try:
            self._feed(sql, params, put)
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc).lower():
                raise
            self.connection.text_factory = _decode
            try:
                self._feed(sql, params, put)
            finally:
                self.connection.text_factory = str

    def _feed(self, sql: str, params: tuple[Any, ...], put: Callable[[tuple[Any, ...]], None]) -> None:
        cursor = self.connection.execute(sql, params)
        try:
            while rows := cursor.fetchmany(PAGE):
                for row in rows:
                    put(row)
        finally:
            cursor.close()

    # -- threads -----------------------------------------------------------------------

    def thread_ids(self) -> list[str]:
        """Every thread, in order of its first event (V1 first, then V2-only threads)."""
        seen: dict[str, None] = {}
        rows = self._all(
            "SELECT stream_id, min(sequence) AS first FROM orchestration_events "
            "WHERE aggregate_kind = 'thread' GROUP BY stream_id ORDER BY first"
        )
        for thread_id, _first in rows:
            seen.setdefault(thread_id, None)
        if self.has_v2:
            rows = self._all(
                "SELECT thread_id, min(sequence) AS first FROM orchestration_v2_events "
                "GROUP BY thread_id ORDER BY first"
            )
            for thread_id, _first in rows:
                seen.setdefault(thread_id, None)
        return list(seen)

    def non_thread_event_count(self) -> int:
        return int(self._all("SELECT count(*) FROM orchestration_events WHERE aggregate_kind != 'thread'")[0][0])

    def v1_events(self, thread_id: str) -> Iterator[tuple[dict[str, Any], bool]]:
        """The thread's rows of ``orchestration_events`` in ``sequence`` order, a page at a time,
        each with whether it is a V2 event that ``orchestration_v2_events`` also holds (a copy
        made by T3's application event source: a duplicate there, asked per row, not kept)."""
        version = ", application_event_version" if self.has_app_version else ", 1"
        copied = ", 0"
        if self.has_v2 and self.has_app_version:
            copied = (
                ", CASE WHEN application_event_version = 2 THEN EXISTS (SELECT 1 FROM orchestration_v2_events v "
                "WHERE v.event_id = orchestration_events.event_id) ELSE 0 END"
            )
        sql = (
            f"SELECT {V1_COLUMNS}{version}{copied} FROM orchestration_events "
            "WHERE aggregate_kind = 'thread' AND stream_id = ? AND sequence > ? ORDER BY sequence LIMIT ?"
        )
        for row in self._paged(sql, thread_id):
            yield _unreadable(row) or _v1_row(row), row[13] == 1

    def v2_events(self, thread_id: str) -> Iterator[dict[str, Any]]:
        if not self.has_v2:
            return
        sql = (
            f"SELECT {V2_COLUMNS} FROM orchestration_v2_events "
            "WHERE thread_id = ? AND sequence > ? ORDER BY sequence LIMIT ?"
        )
        for row in self._paged(sql, thread_id):
            yield _unreadable(row) or _v2_row(row)

    def _paged(self, sql: str, thread_id: str) -> Iterator[Any]:
        """The rows of ``sql`` (sequence first, ``WHERE … sequence > ? ORDER BY sequence LIMIT
        ?``), a page at a time: a thread of any length holds one page in memory."""
        last = -1
        while True:
            rows = self._all(sql, (thread_id, last, PAGE))
            yield from rows
            if len(rows) < PAGE:
                return
            last = rows[-1][0]

    # -- header facts (small, filtered queries) ----------------------------------------

    def v1_fact_events(self, thread_id: str) -> list[tuple[int, str, str, Any]]:
        """(sequence, event_type, occurred_at, payload) of the events that feed the header."""
        rows = self._all(
            "SELECT sequence, event_type, occurred_at, payload_json FROM orchestration_events "
            "WHERE aggregate_kind = 'thread' AND stream_id = ? AND event_type IN "
            "('thread.created', 'thread.meta-updated', 'thread.session-set', 'thread.runtime-mode-set', "
            "'thread.interaction-mode-set') ORDER BY sequence",
            (thread_id,),
        )
        return [(n, t, at, loads(p)) for n, t, at, p in rows]

    def project_events(self, project_id: str) -> list[tuple[str, Any]]:
        rows = self._all(
            "SELECT event_type, payload_json FROM orchestration_events "
            "WHERE aggregate_kind = 'project' AND stream_id = ? ORDER BY sequence",
            (project_id,),
        )
        return [(t, loads(p)) for t, p in rows]

    def project_row(self, project_id: str) -> dict[str, Any] | None:
        if "projection_projects" not in self.tables:
            return None
        rows = self._all("SELECT title, workspace_root FROM projection_projects WHERE project_id = ?", (project_id,))
        return {"title": rows[0][0], "workspaceRoot": rows[0][1]} if rows else None

    def runtime_row(self, thread_id: str) -> dict[str, Any] | None:
        if "provider_session_runtime" not in self.tables:
            return None
        columns = self.declared.get("provider_session_runtime", ())
        instance = "provider_instance_id" if "provider_instance_id" in columns else "NULL"
        rows = self._all(
            f"SELECT provider_name, {instance}, resume_cursor_json FROM provider_session_runtime WHERE thread_id = ?",
            (thread_id,),
        )
        if not rows:
            return None
        name, inst, cursor = rows[0]
        return {"provider": name, "instance": inst, "resumeCursor": loads(cursor) if cursor else None}

    def user_message_turns(self, thread_id: str, into: SpillMap) -> None:
        """User message id -> turn id, from ``projection_turns.pending_message_id`` (the only
        place T3 links a user message to the provider turn it started), put into ``into``."""
        if "projection_turns" not in self.tables:
            return

        def put(row: tuple[Any, ...]) -> None:
            into[row[0]] = row[1]  # the last row of a message wins, as in a dict

        self._load(
            "SELECT pending_message_id, turn_id FROM projection_turns "
            "WHERE thread_id = ? AND pending_message_id IS NOT NULL AND turn_id IS NOT NULL",
            (thread_id,),
            put,
        )

    def event_message_turns(self, thread_id: str, into: SpillMap) -> None:
        """User message id -> turn id from the event log, for messages ``into`` lacks (a revert
        deletes a turn's ``projection_turns`` row): a ``thread.turn-start-requested`` names the
        message, and the next ``running`` session-set with a new ``activeTurnId`` names its turn."""
        pending: list[Any] = [None, None]  # message waiting for its turn, the last turn bound

        def put(row: tuple[Any, ...]) -> None:
            kind, message, status, turn = row
            if kind == "thread.turn-start-requested":
                pending[0] = message if isinstance(message, str) else None
            elif status == "running" and isinstance(turn, str) and turn != pending[1]:
                if pending[0] is not None and pending[0] not in into:
                    into[pending[0]] = turn
                pending[0], pending[1] = None, turn

        self._load(
            "SELECT event_type, json_extract(payload_json, '$.messageId'), "
            "json_extract(payload_json, '$.session.status'), json_extract(payload_json, '$.session.activeTurnId') "
            "FROM orchestration_events WHERE aggregate_kind = 'thread' AND stream_id = ? AND event_type IN "
            "('thread.turn-start-requested', 'thread.session-set') ORDER BY sequence",
            (thread_id,),
            put,
        )

    def plan_sources(self, thread_id: str, into: SpillMap) -> None:
        """User message id -> ``(threadId, planId)`` of the proposed plan its turn implements:
        the ``sourceProposedPlan`` a ``thread.turn-start-requested`` records (written after the
        message it names, so read before the thread's rows are replayed)."""

        def put(row: tuple[Any, ...]) -> None:
            message, thread, plan = row
            if isinstance(message, str) and isinstance(thread, str) and isinstance(plan, str):
                into[message] = [thread, plan]

        self._load(
            "SELECT json_extract(payload_json, '$.messageId'), "
            "json_extract(payload_json, '$.sourceProposedPlan.threadId'), "
            "json_extract(payload_json, '$.sourceProposedPlan.planId') "
            "FROM orchestration_events WHERE aggregate_kind = 'thread' AND stream_id = ? "
            "AND event_type = 'thread.turn-start-requested' "
            "AND json_extract(payload_json, '$.sourceProposedPlan') IS NOT NULL ORDER BY sequence",
            (thread_id,),
            put,
        )

    def first_user_message(self, thread_id: str) -> int | None:
        """The ``sequence`` of the thread's first user message (header settings stand as of it)."""
        rows = self._all(
            "SELECT sequence FROM orchestration_events WHERE aggregate_kind = 'thread' AND stream_id = ? "
            "AND event_type = 'thread.message-sent' AND json_extract(payload_json, '$.role') = 'user' "
            "ORDER BY sequence LIMIT 1",
            (thread_id,),
        )
        return rows[0][0] if rows else None

    def v2_fact_events(self, thread_id: str) -> list[tuple[int, str, Any]]:
        """(sequence, event_type, payload) of the V2 events that feed the header: the thread
        (every thread event carries the whole thread: title, branch, worktree, model, modes)
        and its provider sessions."""
        if not self.has_v2:
            return []
        rows = self._all(
            "SELECT sequence, event_type, payload_json FROM orchestration_v2_events WHERE thread_id = ? AND "
            "event_type IN ('thread.created', 'thread.metadata-updated', 'thread.runtime-mode-updated', "
            "'thread.interaction-mode-updated', 'thread.model-selection-updated', 'provider-session.attached', "
            "'provider-thread.updated') ORDER BY sequence",
            (thread_id,),
        )
        return [(n, t, loads(p)) for n, t, p in rows]

    def v2_first_user_message(self, thread_id: str) -> int | None:
        """The ``sequence`` of the thread's first V2 user message (a ``user_message`` turn item
        or a user ``message.updated``): the header's settings stand as of it."""
        if not self.has_v2:
            return None
        rows = self._all(
            "SELECT min(sequence) FROM orchestration_v2_events WHERE thread_id = ? AND ("
            "(event_type = 'turn-item.updated' AND json_extract(payload_json, '$.type') = 'user_message') OR "
            "(event_type = 'message.updated' AND json_extract(payload_json, '$.role') = 'user'))",
            (thread_id,),
        )
        return rows[0][0] if rows else None

    def v2_message_ids_with_items(self, thread_id: str, into: SpillSet) -> None:
        """Message ids that a user/assistant turn item carries (their message.updated copies are duplicates)."""
        self._v2_item_ids(thread_id, "$.messageId", into)

    def v2_plan_ids_with_items(self, thread_id: str, into: SpillSet) -> None:
        self._v2_item_ids(thread_id, "$.planId", into)

    def _v2_item_ids(self, thread_id: str, path: str, into: SpillSet) -> None:
        if not self.has_v2:
            return

        def put(row: tuple[Any, ...]) -> None:
            if isinstance(row[0], str):
                into.add(row[0])

        self._load(
            "SELECT DISTINCT json_extract(payload_json, ?) FROM orchestration_v2_events "
            "WHERE thread_id = ? AND event_type = 'turn-item.updated'",
            (path, thread_id),
            put,
        )


class UndecodableText(str):
    """A column value that is not UTF-8, decoded with replacement characters. Its row is
    reported as unreadable instead of converted: replaced characters are not the source's."""


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return UndecodableText(raw.decode("utf-8", "replace"))


def _unreadable(row: tuple[Any, ...]) -> dict[str, Any] | None:
    """A marker for a row holding text that is not UTF-8, or a BLOB where T3 Code writes text
    (``adapter`` counts it unreadable, with the reason)."""
    types = set(map(type, row))  # one C loop, no generator per row
    if UndecodableText in types:
        return {"unreadable": True, "sequence": row[0], "eventId": row[1], "reason": "text is not UTF-8"}
    if bytes in types:
        return {"unreadable": True, "sequence": row[0], "eventId": row[1], "reason": "a BLOB in a text column"}
    return None


def verbatim(event: dict[str, Any]) -> dict[str, Any]:
    """The row as a vendor record keeps it: every column, JSON columns parsed."""
    metadata = event.get("metadata")
    if isinstance(metadata, str):
        return {**event, "metadata": loads(metadata)}
    return event


#: Set on an event row whose payload held lone surrogate escapes, repaired (``core.items``);
#: the adapter takes it off and reports it before the row is mapped.
REPAIRED = "\x00repaired"


def loads(text: Any) -> Any:
    """A JSON column (lone surrogate escapes repaired, ``core.items``); text that does not parse
    (or would take more than ``core.items.MAX_PARSED_BYTES`` parsed) is kept as the raw string."""
    try:
        return _parsed(text)[0]
    except items.ItemTooLarge:
        return text


def _parsed(text: Any) -> tuple[Any, bool]:
    if text is None:
        return None, False
    try:
        return items.loads(text)
    except items.ItemTooLarge:
        raise
    except orjson.JSONDecodeError:
        return text, False


def _with_payload(event: dict[str, Any], text: Any) -> dict[str, Any]:
    """``event`` with its payload parsed; a payload too large to parse makes it unreadable."""
    try:
        event["payload"], repaired = _parsed(text)
    except items.ItemTooLarge as exc:
        return {"unreadable": True, "sequence": event["sequence"], "eventId": event["eventId"], "reason": exc.reason}
    if repaired:
        event[REPAIRED] = True
    return event


def _v1_row(row: tuple[Any, ...]) -> dict[str, Any]:
    event = {
        "sequence": row[0],
        "eventId": row[1],
        "aggregateKind": row[2],
        "streamId": row[3],
        "type": row[4],
        "occurredAt": row[5],
        "commandId": row[6],
        "causationEventId": row[7],
        "correlationId": row[8],
        "actorKind": row[9],
        "payload": None,
        "metadata": row[11],  # raw JSON text: parsed only when the row is kept verbatim
        "applicationEventVersion": row[12],
    }
    return _with_payload(event, row[10])


def _v2_row(row: tuple[Any, ...]) -> dict[str, Any]:
    event = {
        "sequence": row[0],
        "eventId": row[1],
        "commandId": row[2],
        "threadId": row[3],
        "runId": row[4],
        "nodeId": row[5],
        "provider": row[6],
        "rawEventId": row[7],
        "type": row[8],
        "occurredAt": row[9],
        "payload": None,
    }
    return _with_payload(event, row[10])
