"""The OpenClaw adapter: chat sessions with participants, conversations and deliveries.

Two storage eras share one entry grammar (pi's ``FileEntry``): JSONL transcripts (file era,
read line by line) and ``transcript_events`` rows of ``openclaw-agent.sqlite`` (SQLite era,
one stream per session, read in batches). See ``docs/agents/openclaw.md``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any, ClassVar

from ...core.accounting import Diagnostic
from ...core.adapter import Adapter, Context, Emitter, Lines, Stream, header
from ...core.companion import report_skip
from ...core.errors import InputError
from ...core.items import misplaced, names
from ...core.lenient import REPLACED
from ...core.refs import session_ref
from ...core.source import Source
from ...core.sqlite_limits import check_schema
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import sidefiles, store
from .index import SessionInfo, from_key, load_index, lookup, trajectory_key
from .mapper import Mapper
from .routing import Routing

FORMAT = "openclaw-transcript"
SQLITE_FORMAT = "openclaw-agent-sqlite"
#: Members an entry is dispatched on by name (``core.items``): an array or object there is one
#: unreadable entry.
DISPATCH = names("type", "message.role", "message.provider", "message.model", "message.api", "customType")
_HEADER_KNOWN = frozenset({"type", "id", "version", "timestamp", "cwd", "parentSession"})


@register
class OpenClawAdapter(Adapter):
    name: ClassVar[str] = "openclaw"
    description: ClassVar[str] = (
        "OpenClaw (Clawdbot, Moltbot) chat-agent transcripts: JSONL files and openclaw-agent.sqlite"
    )

    # -- conversion --------------------------------------------------------------------

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        if source.is_sqlite:
            yield from self._database(source, context)
            return
        lines = context.first_line(DISPATCH, "empty file: no OpenClaw session header")
        yield Stream(f"openclaw:{_session_id(source, lines.first[1])}", self._file(source, context, lines))

    def _file(self, source: Source, context: Context, lines: Lines) -> Iterator[dict[str, Any]]:
        session_id = _session_id(source, lines.first[1])
        index = load_index(
            source.path,
            lambda exc: report_skip(context.accounting, exc, "session index"),
            lambda path: context.accounting.diagnostics.append(Diagnostic(str(path), None, REPLACED)),
        )
        info = lookup(index, session_id)
        if info is None and (key := trajectory_key(source.path, session_id)) is not None:
            info = from_key(key)
        if info is not None and info.agent_id is None and source.path is not None:
            info.agent_id = _agent_from_path(source.path)
        routing = Routing(info)
        emit = Emitter(context.accounting)
        line = lines.first[1]
        is_header = isinstance(line, dict) and line.get("type") == "session"
        variant = _variant(line) if is_header else None
        header_line = line if is_header else {}
        yield emit(
            self._header(source.name, FORMAT, variant, session_id, header_line, info, routing, source, not is_header)
        )
        mapper = Mapper(self, context, emit, routing, lambda key: _index_session(index, key))
        for number, item in lines.entries(is_header, context.accounting):
            yield from mapper.entry(number, item)
        yield from sidefiles.failed_deliveries(source.path, info, routing, emit, context)
        yield from sidefiles.cron_deliveries(source.path, session_id, info, mapper.cron_job, emit, context)
        pending = sidefiles.pending_delivery(info, routing)
        if pending is not None:
            yield emit(pending)

    def _header(
        self,
        file: str,
        source_format: str,
        variant: str | None,
        session_id: str,
        line: dict[str, Any],
        info: SessionInfo | None,
        routing: Routing,
        source: Source,
        derived_id: bool = False,
    ) -> dict[str, Any]:
        record = header(
            self.name, session_id, agent_version=None, source_format=source_format, variant=variant, file=file
        )
        stamp(record, from_iso(line.get("timestamp")))
        if info is not None and info.title:
            record["title"] = info.title
        if isinstance(line.get("cwd"), str):
            record["cwd"] = line["cwd"]
        parent = _parent(line, info)
        if parent is not None:
            record["parent"] = parent
        if routing.header_participants:
            record["participants"] = routing.header_participants
        if routing.header_conversations:
            record["conversations"] = routing.header_conversations
        if info is not None:
            for key, value in (
                ("sessionKey", info.key),
                ("agentId", info.agent_id),
                ("channel", info.channel),
                ("chatType", info.chat_type),
            ):
                if value:
                    record[key] = value
        elif source.path is not None and (agent := _agent_from_path(source.path)) is not None:
            record["agentId"] = agent
        if derived_id:
            record["idSource"] = "derived"  # the session id came from the file name
        for key, value in line.items():
            if key not in _HEADER_KNOWN:
                record[key] = value
        if "version" in line:
            record["formatVersion"] = line["version"]
        if isinstance(line.get("parentSession"), str):
            record["parentSession"] = line["parentSession"]
        return record

    # -- SQLite era --------------------------------------------------------------------

    def _database(self, source: Source, context: Context) -> Iterator[Stream]:
        if source.path is None:
            raise InputError(source.display, "an OpenClaw SQLite database must be read from a file")
        try:
            connection = store.connect(source.path)
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:  # locked by a writer, not a database, unreadable: say which
            raise InputError(source.display, f"cannot read the OpenClaw database: {exc}") from None
        try:  # the tables read, as declared (OpenClaw's own schema has triggers: they never fire on a read)
            check_schema(connection, source.display, store.READS, triggers=True)
        except BaseException:
            connection.close()
            raise
        if store.TABLE not in tables:
            connection.close()
            raise InputError(source.display, "no transcript_events table: not an OpenClaw agent database")
        try:
            ids = store.session_ids(connection)
            if not ids:
                raise InputError(source.display, "the database holds no transcript events")
            for index, session_id in enumerate(ids):
                records = self._db_session(source, context, connection, session_id, tables)
                yield Stream(f"openclaw:{session_id}", records, main=index == 0)
        finally:
            connection.close()

    def _db_session(
        self, source: Source, context: Context, connection: Any, session_id: str, tables: set[str]
    ) -> Iterator[dict[str, Any]]:
        info = store.session_info(connection, session_id, tables)
        if info is not None and info.spawned_by and info.parent_session_id is None:
            info.parent_session_id = store.session_for_key(connection, info.spawned_by, tables)
        routing = Routing(info)
        emit = Emitter(context.accounting)
        mapper = Mapper(self, context, emit, routing, lambda key: store.session_for_key(connection, key, tables))
        started = False
        accounting = context.accounting
        for seq, raw in store.events(connection, session_id):
            accounting.native_items += 1
            try:
                item, repaired = store.parse(raw)
            except ValueError as exc:
                context.unreadable(None, f"session {session_id} event {seq} unreadable: {exc}")
                continue
            if repaired:
                context.warn(None, f"session {session_id} event {seq}: {REPLACED}")
            problem = misplaced(item, DISPATCH)
            if problem is not None:
                context.unreadable(None, f"session {session_id} event {seq} unreadable: {problem}")
                continue
            if not started:
                started = True
                is_header = isinstance(item, dict) and item.get("type") == "session"
                line = item if is_header else {}
                variant = _variant(item) if is_header else None
                yield emit(self._header(source.name, SQLITE_FORMAT, variant, session_id, line, info, routing, source))
                if is_header:
                    accounting.records += 1
                    continue
            yield from mapper.entry(seq, item)
        if not started:
            yield emit(self._header(source.name, SQLITE_FORMAT, None, session_id, {}, info, routing, source))


def _index_session(index: dict[str, Any], key: str) -> str | None:
    entry = index.get(key)
    session_id = entry.get("sessionId") if isinstance(entry, dict) else None
    return session_id if isinstance(session_id, str) and session_id else None


def _variant(line: dict[str, Any]) -> str:
    version = line.get("version")
    return f"v{version}" if isinstance(version, int) else "v1"


def _session_id(source: Source, line: Any) -> str:
    if isinstance(line, dict) and line.get("type") == "session" and isinstance(line.get("id"), str):
        return line["id"]
    return source.name.split(".", 1)[0]


def _agent_from_path(path: Path) -> str | None:
    parts = path.resolve().parts
    if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "agents":
        return parts[-3]
    return None


def _parent(line: dict[str, Any], info: SessionInfo | None) -> str | None:
    """The parent session: a fork's ``parentSession`` file, or the session that spawned this one."""
    for key in ("parentSession", "branchedFrom"):
        value = line.get(key)
        if isinstance(value, str) and value:
            stem = PurePath(value.replace("\\", "/")).name.split(".jsonl", 1)[0]
            stem = stem.rsplit("_", 1)[-1]
            if stem:
                return session_ref("openclaw", stem)
    if info is not None and info.parent_session_id:
        return session_ref("openclaw", info.parent_session_id)
    return None
