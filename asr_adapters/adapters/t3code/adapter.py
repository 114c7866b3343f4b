"""T3 Code: one ``state.sqlite`` holds every thread; each thread becomes its own stream.

A thread's native items are its event rows: ``orchestration_events`` rows whose stream is the
thread (V1, and V2 events copied there with ``application_event_version = 2``) and
``orchestration_v2_events`` rows of the thread. They are replayed in ``sequence`` order (V1
table first, then the V2 table). Project events are header facts of every thread of the
project; they are counted once, as folded.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Adapter, Context, Stream
from ...core.errors import InputError
from ...core.lenient import REPLACED
from ...core.source import Source
from ...core.sqlite_limits import open_store
from ...registry import register
from . import header, tools, v1, v2
from .db import REPAIRED, Database, loads
from .state import ThreadState, obj

OUTCOMES = ("records", "vendor", "folded", "duplicates")


def thread_accounting(context: Context) -> dict[str, Accounting]:
    """Per-thread accounting of a finished conversion (thread id -> counts)."""
    return vars(context).get("t3code_threads", {})


@register
class T3CodeAdapter(Adapter):
    name = "t3code"
    description = "T3 Code state.sqlite (orchestration V1 and V2): one stream per thread"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        path, scratch = _database_path(source)
        try:
            db = open_store(Database, path, source.display, "a T3 Code database")
            if "orchestration_events" not in db.tables:
                db.close()
                raise InputError(source.display, "no orchestration_events table: not a T3 Code state.sqlite")
            try:
                for warning in db.warnings:
                    context.warn(None, warning)
                others = db.non_thread_event_count()
                context.accounting.native_items += others
                context.accounting.folded += others
                folder = path.parent / "attachments" if source.path is not None else None
                attachments = folder if folder is not None and folder.is_dir() else None
                v1.check_attachments(attachments, context.accounting)
                for thread_id in db.thread_ids():
                    yield Stream(
                        f"t3code:{thread_id}",
                        self._thread(db, thread_id, source.name, context, attachments),
                        main=False,
                    )
            finally:
                db.close()
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)

    def _thread(
        self, db: Database, thread_id: str, file: str, context: Context, attachments: Path | None
    ) -> Iterator[dict[str, Any]]:
        accounting = Accounting()
        st = ThreadState(thread_id, accounting)
        db.user_message_turns(thread_id, st.user_turns)
        db.event_message_turns(thread_id, st.user_turns)
        db.plan_sources(thread_id, st.plan_sources)
        db.v2_message_ids_with_items(thread_id, st.v2_item_messages)
        db.v2_plan_ids_with_items(thread_id, st.v2_item_plans)
        yield st.emit(header.build(db, thread_id, file))
        out = st.out
        for event, copied in db.v1_events(thread_id):
            if event.get("applicationEventVersion") == 2:
                if copied:
                    accounting.native_items += 1
                    accounting.duplicates += 1  # the same event is read from orchestration_v2_events
                    continue
                self._one(st, context, _as_v2(event), v2.handle, attachments)
            else:
                self._one(st, context, event, v1.handle, attachments)
            if out:
                yield from out
                out.clear()
        for event in db.v2_events(thread_id):
            self._one(st, context, event, v2.handle, attachments)
            if out:
                yield from out
                out.clear()
        tools.end_turn(st)
        v1.flush(st, "partial")
        v2.flush_open(st, attachments)
        yield from out
        out.clear()
        context.accounting.merge(accounting)
        vars(context).setdefault("t3code_threads", {})[thread_id] = accounting

    def _one(
        self, st: ThreadState, context: Context, event: dict[str, Any], handler: Any, attachments: Path | None
    ) -> None:
        """Convert one row into ``st.out`` and count its single outcome."""
        accounting = st.accounting
        accounting.native_items += 1
        if event.pop(REPAIRED, False):
            context.warn(None, f"event {event.get('sequence')} ({event.get('eventId')}): {REPLACED}")
        if event.get("unreadable"):
            accounting.unreadable += 1
            reason = event.get("reason", "text is not UTF-8")
            context.warn(None, f"event {event.get('sequence')} ({event.get('eventId')}): {reason}; skipped")
            return
        try:
            outcome = handler(st, event, attachments)
        except Exception as exc:  # one odd event must not stop the thread
            context.warn(None, f"event {event.get('sequence')} ({event.get('type')}) kept verbatim: {exc!r}")
            outcome = "records" if st.out else v1.vendor(st, str(event.get("type")), event)
        setattr(accounting, outcome, getattr(accounting, outcome) + 1)


def _as_v2(event: dict[str, Any]) -> dict[str, Any]:
    """A V2 event stored in ``orchestration_events`` (its metadata holds the V2 envelope ids)."""
    meta = obj(loads(event.get("metadata")))
    converted = {
        "sequence": event["sequence"],
        "eventId": event["eventId"],
        "commandId": event.get("commandId"),
        "threadId": event.get("streamId"),
        "runId": meta.get("runId"),
        "nodeId": meta.get("nodeId"),
        "provider": meta.get("driver"),
        "rawEventId": meta.get("rawEventId"),
        "type": event["type"],
        "occurredAt": event.get("occurredAt"),
        "payload": event.get("payload"),
    }
    if REPAIRED in event:
        converted[REPAIRED] = event[REPAIRED]
    return converted


def _database_path(source: Source) -> tuple[Path, str | None]:
    """The database file; a database given as bytes or a stream is copied to a scratch folder."""
    if source.path is not None:
        return source.path, None
    scratch = tempfile.mkdtemp(prefix="asr-t3code-")
    target = Path(scratch) / "state.sqlite"
    with source.open() as stream, open(target, "wb") as handle:
        shutil.copyfileobj(stream, handle)
    os.chmod(target, 0o400)
    return target, scratch
