"""GitHub Copilot CLI ``events.jsonl`` -> ASR streams: the session, then one per subagent.

Subagent events are written inline in the parent's file, marked by the envelope's
``agentId`` (CLI >= 1.0.32) or ``data.parentToolCallId`` (before). The main pass maps the
session's own events and sets each subagent's aside (``groups``); each subagent's stream
then reads them back, after the session's.
``subagent.*`` lifecycle events belong to the stream that made the ``task`` call, which also
gets the ``subagent`` link where the file first shows the subagent (``subagents``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.digests import DigestMap, value_digest
from ...core.errors import InputError
from ...core.items import first_value, names
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .groups import Groups
from .mapper import AGENT, Mapper, child_key
from .sniff import is_start as _is_start

FORMAT = "copilot-cli-events"
#: Members an event is dispatched or deduplicated on (``core.items``): an array or object there
#: is one unreadable line.
DISPATCH = names("type", "id", "agentId", "data.parentToolCallId")


@register
class CopilotCliAdapter(Adapter):
    name: ClassVar[str] = "copilot-cli"
    description: ClassVar[str] = "GitHub Copilot CLI session event logs (~/.copilot/session-state/<id>/events.jsonl)"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        first = _first_event(source)
        session_id = _session_id(first, source)
        main_key = session_ref(AGENT, session_id)
        groups = Groups()
        facts: dict[str, Any] = {}

        def main_records() -> Iterator[dict[str, Any]]:
            emit = Emitter(context.accounting)
            mapper = Mapper(self, emit, context, session_id)
            previous = b""  # a line with no event id written twice in a row is a duplicate
            seen = DigestMap()  # event id -> digest of its line: the same line again is a duplicate
            started = False
            owner_of, unstarted, feed = groups.owner_of, groups.unstarted, mapper.feed  # per line
            for number, event, raw in context.parsed_lines(DISPATCH):
                if not started:
                    started = True
                    _seen_before(seen, event, raw)
                    record = self._header(source, session_id, event)
                    facts.update(version=record["agent"].get("version"), cwd=record.get("cwd"))
                    yield emit(record)
                    if _is_start(event):
                        context.accounting.records += 1
                        continue
                if raw == previous or _seen_before(seen, event, raw):
                    context.accounting.duplicates += 1
                    continue
                previous = raw
                owner = owner_of(number, event, raw)
                while unstarted:  # a subagent first seen by its own event: linked here
                    yield from feed(number, unstarted.pop(0))
                if owner is not None:
                    continue
                yield from feed(number, event)
            if not started:
                raise InputError(source.display, "empty file: no Copilot CLI events to convert")

        yield Stream(main_key, main_records())
        yield from self._children(source, context, session_id, main_key, facts, groups)

    def _children(
        self,
        source: Source,
        context: Context,
        session_id: str,
        main_key: str,
        facts: dict[str, Any],
        groups: Groups,
    ) -> Iterator[Stream]:
        """One stream per subagent, in order of first appearance; the spill files are
        deleted when the last is done (or the conversion is dropped)."""
        try:
            for agent in groups.order:
                parent_agent = groups.parent.get(agent)
                parent_key = (
                    main_key if parent_agent is None else session_ref(AGENT, child_key(session_id, parent_agent))
                )
                yield Stream(
                    session_ref(AGENT, child_key(session_id, agent)),
                    self._child(source, context, session_id, agent, parent_key, facts, groups),
                    main=False,
                    parent_key=parent_key,
                )
        finally:
            groups.close()

    def _header(self, source: Source, session_id: str, event: Any) -> dict[str, Any]:
        data = event.get("data") if _is_start(event) else None
        data = data if isinstance(data, dict) else {}
        version = data.get("copilotVersion")
        layout = "folder" if source.name == discover.EVENTS_FILE else "file"
        record = header(
            AGENT,
            session_id,
            agent_version=version if isinstance(version, str) else None,
            source_format=FORMAT,
            variant=layout,
            file=source.name,
        )
        if data:
            stamp(record, from_iso(event.get("timestamp")))
            context = data.get("context")
            if isinstance(context, dict) and isinstance(context.get("cwd"), str):
                record["cwd"] = context["cwd"]
            record["native"] = {k: v for k, v in data.items() if k not in ("sessionId", "copilotVersion")}
        if not isinstance(data.get("sessionId"), str) and discover.session_id(source.path) is None:
            record["idSource"] = "derived"
        return record

    def _child(
        self,
        source: Source,
        context: Context,
        session_id: str,
        agent: str,
        parent_key: str,
        facts: dict[str, Any],
        groups: Groups,
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        record = header(
            AGENT,
            child_key(session_id, agent),
            agent_version=facts.get("version"),
            source_format=FORMAT,
            variant="subagent",
            file=source.name,
        )
        stamp(record, from_iso(groups.first_ts.get(agent)))
        if facts.get("cwd") is not None:
            record["cwd"] = facts["cwd"]
        record["parent"] = parent_key
        record["idSource"] = "derived"
        yield emit(record)
        mapper = Mapper(self, emit, context, session_id, parent_key, agent)
        for number, event in groups.lines(agent):
            yield from mapper.feed(number, event)


def _seen_before(seen: DigestMap, event: Any, raw: bytes) -> bool:
    """Whether this exact line (same event id, same bytes) was read before, anywhere in the
    file; a line under an id already seen but with other bytes is a new version, mapped."""
    event_id = event.get("id") if type(event) is dict else None
    if not isinstance(event_id, str):
        return False
    digest = value_digest(raw)
    return seen.swap(event_id, digest) == digest


def _first_event(source: Source) -> Any:
    """The first line of the head that parses (a garbage line before ``session.start`` does not
    hide it)."""
    values = source.head_lines().values
    if values:
        return values[0]
    return first_value(source.head())  # one line longer than the head


def _session_id(first: Any, source: Source) -> str:
    data = first.get("data") if _is_start(first) else None
    if isinstance(data, dict) and isinstance(data.get("sessionId"), str) and data["sessionId"]:
        return data["sessionId"]
    named = discover.session_id(source.path)
    if named:
        return named
    return source.name[: -len(".jsonl")] if source.name.endswith(".jsonl") else source.name
