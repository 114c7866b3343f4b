"""OpenCode (anomalyco/opencode, formerly sst/opencode): its SQLite database, JSON trees and exports.

Three kinds of input. The database ``opencode.db`` holds every session: one stream per session,
a child session (``parentID``, a subagent run by the ``task`` tool) linked to its parent's
stream. A session info file of a JSON tree (``storage/session/<projectID>/<ses>.json``, or the
older ``project/<slug>/storage/session/info/<ses>.json``) is one session: its message, part and
todo files are read from the tree around it. The document ``opencode export`` prints is one
session with its messages and parts. All give the mapper the same objects
(``store.SessionStore``), so the records do not depend on the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.errors import InputError
from ...core.refs import session_ref
from ...core.source import Source
from ...core.sqlite_limits import open_store
from ...core.timestamps import from_epoch_millis, stamp
from ...registry import register
from . import discover
from .db import REQUIRED, Database, DbSession, session_info
from .export import ExportSession, is_export
from .jsontree import JsonSession
from .mapper import AGENT, SessionMapper
from .store import SessionStore, readable

_HEADER_MOVED = ("id", "title", "directory", "parentID", "version")


@register
class OpenCodeAdapter(Adapter):
    name: ClassVar[str] = "opencode"
    description: ClassVar[str] = (
        "OpenCode opencode.db (one stream per session) and JSON-tree session files (storage/session/…/ses_*.json)"
    )

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        if source.is_sqlite:
            yield from self._database(source, context)
            return
        info = context.document("not an OpenCode session file")
        if not isinstance(info, dict):
            raise InputError(source.display, "not an OpenCode session file: not a JSON object")
        if is_export(info):
            context.accounting.native_items += 1  # the session info: the header
            exported = ExportSession(info, source.name, context)
            yield Stream(session_ref(AGENT, self._session_id(source, exported.info)), self._records(exported, context))
            return
        if "role" in info or "messageID" in info:
            raise InputError(
                source.display,
                "an OpenCode message or part file: convert its session's info file "
                "(storage/session/<project>/<ses>.json)",
            )
        context.accounting.native_items += 1
        tree = discover.tree_of(source.path, info.get("id")) if source.path is not None else None
        store = JsonSession(info, tree, source.name, context)
        key = session_ref(AGENT, self._session_id(source, store.info))
        yield Stream(key, self._records(store, context))

    @staticmethod
    def _session_id(source: Source, info: dict[str, Any]) -> str:
        """The session's id, or an error: a JSON file with none is no OpenCode storage file."""
        session_id = info.get("id")
        if not isinstance(session_id, str) or not session_id:
            raise InputError(
                source.display,
                "not an OpenCode storage file or export: no session id (a string `id` in the session info)",
            )
        return session_id

    def _database(self, source: Source, context: Context) -> Iterator[Stream]:
        db = open_store(Database, source.path, source.display, "an OpenCode database")
        try:
            missing = [t for t in REQUIRED if t not in db.tables]
            if missing:
                raise InputError(source.display, f"not an OpenCode database: no {', '.join(missing)} table")
            ids = {str(r[0], "utf-8", "replace") for r in db.connection.execute("SELECT id FROM session")}
            for row in db.sessions():
                context.accounting.native_items += 1
                info = session_info(row, context)
                parent = info.get("parentID")
                parent_key = session_ref(AGENT, parent) if parent in ids else None
                store = DbSession(db, info, source.name, context)
                yield Stream(
                    session_ref(AGENT, info["id"]), self._records(store, context), main=False, parent_key=parent_key
                )
        finally:
            db.close()

    def _records(self, store: SessionStore, context: Context) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        accounting = context.accounting
        accounting.folded += 1  # the session info: the header
        yield emit(self._header(store))
        mapper = SessionMapper(emit, accounting, store.info, self.vendor, store.todos())
        where = f"session {store.info.get('id')}"
        for message in store.messages():
            yield from mapper.message(readable(message, f"{where} message {message.info.get('id')}", context))
        yield from mapper.finish()

    def _header(self, store: SessionStore) -> dict[str, Any]:
        info = store.info
        version = info.get("version")
        record = header(
            AGENT,
            str(info.get("id")),
            agent_version=version if isinstance(version, str) and version else None,
            source_format=store.format,
            variant=store.variant,
            file=store.file,
        )
        time = info.get("time")
        stamp(record, from_epoch_millis(time.get("created") if isinstance(time, dict) else None))
        if isinstance(info.get("title"), str):
            record["title"] = info["title"]
        if isinstance(info.get("directory"), str) and info["directory"]:
            record["cwd"] = info["directory"]
        parent = info.get("parentID")
        if isinstance(parent, str) and parent:
            record["parent"] = session_ref(AGENT, parent)
        record[AGENT] = {k: v for k, v in info.items() if k not in _HEADER_MOVED}
        return record
