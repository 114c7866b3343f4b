"""GitHub Copilot CLI ``events.jsonl`` -> ASR streams: the session, then one per subagent.

Subagent events are written inline in the parent's file, marked by the envelope's
``agentId`` (CLI >= 1.0.32) or ``data.parentToolCallId`` (before). The main pass maps the
session's own events and notes only the line numbers of each subagent's; each subagent's
stream then re-reads its lines (a pipe, which cannot be read twice, keeps them parsed).
``subagent.*`` lifecycle events belong to the stream that made the ``task`` call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

import orjson

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.errors import InputError
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .mapper import AGENT, Mapper, child_key

FORMAT = "copilot-cli-events"
_START = re.compile(rb'"type"\s*:\s*"session\.start"')
_COPILOT = re.compile(rb'"producer"\s*:\s*"copilot-agent"|"copilotVersion"\s*:')
_EVENT = re.compile(rb'"type"\s*:\s*"(?:user\.message|assistant\.(?:message|turn_start)|tool\.execution_start)"')
_ENVELOPE = re.compile(rb'"parentId"\s*:')


@register
class CopilotCliAdapter(Adapter):
    name: ClassVar[str] = "copilot-cli"
    registry_name: ClassVar[str] = "com.github.copilot-cli"
    description: ClassVar[str] = "GitHub Copilot CLI session event logs (~/.copilot/session-state/<id>/events.jsonl)"
    discovery = discover

    def detect(self, source: Source) -> int:
        if source.is_sqlite:
            return 0
        head = source.head()
        if _START.search(head) and _COPILOT.search(head):
            return 100
        if _EVENT.search(head) and _ENVELOPE.search(head) and b'"data"' in head:
            return 70
        return 0

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        first = _first_event(source)
        session_id = _session_id(first, source)
        main_key = session_ref(AGENT, session_id)
        groups = _Groups(source.path is not None or getattr(source, "_bytes", None) is not None)
        facts: dict[str, Any] = {}

        def main_records() -> Iterator[dict[str, Any]]:
            emit = Emitter(context.accounting)
            mapper = Mapper(self, emit, context, session_id)
            lines = context.json_lines()
            started = False
            for number, event in lines:
                if not started:
                    started = True
                    record = self._header(source, session_id, event)
                    facts.update(version=record["agent"].get("version"), cwd=record.get("cwd"))
                    yield emit(record)
                    if _is_start(event):
                        context.accounting.records += 1
                        continue
                owner = groups.owner_of(number, event)
                if owner is not None:
                    continue
                yield from mapper.feed(number, event)
            if not started:
                raise InputError(source.display, "empty file: no Copilot CLI events to convert")
            unlinked = [(agent, child_key(session_id, agent)) for agent in groups.order if agent not in mapper.linked]
            unlinked = [u for u in unlinked if groups.parent.get(u[0]) is None]
            yield from mapper.finish(unlinked)

        yield Stream(main_key, main_records())
        for agent in groups.order:
            parent_agent = groups.parent.get(agent)
            parent_key = main_key if parent_agent is None else session_ref(AGENT, child_key(session_id, parent_agent))
            yield Stream(
                session_ref(AGENT, child_key(session_id, agent)),
                self._child(source, context, session_id, agent, parent_key, facts, groups),
                main=False,
                parent_key=parent_key,
            )

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
        groups: _Groups,
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
        mapper = Mapper(self, emit, context, session_id)
        for number, event in groups.lines(source, agent):
            yield from mapper.feed(number, event)
        nested = [(a, child_key(session_id, a)) for a in groups.order if groups.parent.get(a) == agent]
        yield from mapper.finish([n for n in nested if n[0] not in mapper.linked])


def _is_start(event: Any) -> bool:
    return isinstance(event, dict) and event.get("type") == "session.start"


def _first_event(source: Source) -> Any:
    head = source.head()
    line = head.split(b"\n", 1)[0]
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def _session_id(first: Any, source: Source) -> str:
    data = first.get("data") if _is_start(first) else None
    if isinstance(data, dict) and isinstance(data.get("sessionId"), str) and data["sessionId"]:
        return data["sessionId"]
    named = discover.session_id(source.path)
    if named:
        return named
    return source.name[: -len(".jsonl")] if source.name.endswith(".jsonl") else source.name


class _Groups:
    """Which stream each event belongs to, and the line numbers of every subagent's events.

    Per subagent: its line numbers (its parsed events when the source cannot be re-read),
    the first timestamp, and the agent whose ``task`` call spawned it (None: the session).
    """

    def __init__(self, rereadable: bool) -> None:
        self.rereadable = rereadable
        self.order: list[str] = []
        self.numbers: dict[str, list[Any]] = {}
        self.first_ts: dict[str, Any] = {}
        self.parent: dict[str, str | None] = {}
        #: ``task`` call id -> the subagent that made it (nested subagents)
        self._task_owner: dict[str, str] = {}

    def owner_of(self, number: int, event: Any) -> str | None:
        """The subagent this event belongs to (None: the session's own stream), noted."""
        agent = _agent_of(event)
        kind = event.get("type") if isinstance(event, dict) else None
        if isinstance(kind, str) and kind.startswith("subagent."):
            data = event.get("data")
            call = data.get("toolCallId") if isinstance(data, dict) else None
            agent = self._task_owner.get(call) if isinstance(call, str) else agent
            if isinstance(call, str) and call not in self.parent:
                self._add(call, self._task_owner.get(call))
        if agent is None:
            return None
        if agent not in self.numbers:
            self._add(agent, None)
        if agent not in self.first_ts and isinstance(event, dict):
            self.first_ts[agent] = event.get("timestamp")
        self.numbers[agent].append(number if self.rereadable else (number, event))
        data = event.get("data") if kind == "assistant.message" else None
        requests = data.get("toolRequests") if isinstance(data, dict) else None
        for request in requests if isinstance(requests, list) else ():
            call = request.get("toolCallId") if isinstance(request, dict) else None
            if isinstance(call, str) and request.get("name") == "task":
                self._task_owner[call] = agent
        return agent

    def _add(self, agent: str, parent: str | None) -> None:
        if agent not in self.numbers:
            self.order.append(agent)
            self.numbers[agent] = []
        self.parent[agent] = parent

    def lines(self, source: Source, agent: str) -> Iterator[tuple[int, Any]]:
        wanted = self.numbers.get(agent, [])
        if not self.rereadable:
            yield from wanted
            return
        todo = set(wanted)
        if not todo:
            return
        for number, raw in source.lines():
            if number in todo:
                try:
                    yield number, orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue  # counted unreadable in the main pass
                todo.discard(number)
                if not todo:
                    return


def _agent_of(event: Any) -> str | None:
    if not isinstance(event, dict):
        return None
    agent = event.get("agentId")
    if isinstance(agent, str) and agent:
        return agent
    data = event.get("data")
    parent = data.get("parentToolCallId") if isinstance(data, dict) else None
    return parent if isinstance(parent, str) and parent else None
