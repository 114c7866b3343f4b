"""``subagent`` records: the link from a ``task`` call to the stream of the subagent it spawned.

The link is written where the file first shows the subagent: at its ``subagent.started``
(whose own ``toolCallId`` and envelope ``agentId`` pair the call with the child), or, when
the child's events come first or the file has none, at the child's first event (the main
pass puts a ``CHILD_SEEN`` line there). That early link names its call only when this stream
wrote a ``tool_call`` with the call id the child's events give (``parentToolCallId``, else
its ``agentId``), never a guessed one, and has no ``ts`` (the file has no time for it); the
``subagent.started`` that pairs them later supersedes it, so each child has one current link.
What the call asked for comes from the ``task`` call's input (``name`` -> ``address``,
``agent_type`` -> ``agentType``, ``description``), as the Claude Code adapter takes it from
its ``Task`` call; ``agentDescription`` is the agent type's generic blurb and stays under
``native``. A later ``subagent.started`` for a link
already written, a ``subagent.completed`` with ``cancelled: true`` (``status: interrupted``)
and a ``subagent.failed`` (``status: error``) write it again (``supersedes``), a complete
snapshot each time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...core.adapter import start
from ...core.refs import session_ref
from ...core.timestamps import from_iso, stamp

if TYPE_CHECKING:
    from ...core.adapter import Emitter
    from ...core.digests import RecordIds

AGENT = "copilot-cli"
#: the line the main pass puts in a stream where one of its subagents first shows up with no
#: ``subagent.started`` before it (not a native item: never accounted)
CHILD_SEEN = "asr.child_seen"
#: ``task`` input member -> ``subagent`` field
_SPAWN_FACTS = (("address", "name"), ("agentType", "agent_type"), ("description", "description"))


def child_key(session_id: str, agent_id: str) -> str:
    """The native-style id of a subagent's stream: ``<sessionId>/agent-<agentId>``."""
    return f"{session_id}/agent-{agent_id}"


class SubagentMixin:
    """The ``task`` calls and subagent links of one stream (bounded by its subagents)."""

    emit: Emitter
    accounting: Any
    session_key: str
    #: the agent whose stream this is (None: the session's)
    agent_id: str | None
    written: RecordIds
    _write: Callable[[dict[str, Any]], dict[str, Any]]  # Mapper's: emit, with supersedes
    _written: Callable[[str, str], bool]

    def init_subagents(self) -> None:
        #: ``task`` callId -> (its input, its timestamp)
        self.task_calls: dict[str, tuple[dict[str, Any], str | None]] = {}
        #: ``task`` callId -> the subagent record last written for it
        self.subagents: dict[str, dict[str, Any]] = {}
        #: child stream -> the id of a link written without a call (superseded when paired)
        self.unpaired: dict[str, str] = {}

    def note_task_call(self, call: dict[str, Any]) -> None:
        if call.get("name") == "task":
            arguments = call.get("input")
            self.task_calls[call["callId"]] = (arguments if isinstance(arguments, dict) else {}, call.get("ts"))

    def is_report(self, call_id: str) -> bool:
        """A ``task`` call's result is the subagent's final output unless the call started it in
        the background (``mode: background``): that result is the CLI's own "Agent started in
        background with agent_id: …", not the subagent's words."""
        task = self.task_calls.get(call_id)
        return task is not None and task[0].get("mode") != "background"

    def has_subagent(self, data: dict[str, Any]) -> bool:
        return isinstance(data.get("toolCallId"), str) and data["toolCallId"] in self.subagents

    def subagent_started(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """``subagent.started``: the child is the line's own ``agentId`` (CLI >= 1.0.32), else the
        call id (the events of older CLIs name their call in ``parentToolCallId``)."""
        self.accounting.records += 1
        call_id = data["toolCallId"]
        agent = event.get("agentId")
        child = agent if isinstance(agent, str) and agent and agent != self.agent_id else call_id
        record = self._link(call_id, child)
        early = self.unpaired.pop(record["session"], None)
        if early is not None and not self._written("subagent", call_id):
            record["supersedes"] = early  # the link written at the child's first event
        stamp(record, from_iso(event.get("timestamp")))
        if "agentType" not in record and isinstance(data.get("agentName"), str):
            record["agentType"] = data["agentName"]
        native = {k: v for k, v in data.items() if k != "toolCallId"}
        if native:
            record["native"] = native
        return self._remember(call_id, record)

    def child_seen(self, event: dict[str, Any]) -> dict[str, Any]:
        """A subagent whose events came with no ``subagent.started`` before them: linked at its
        first event, with no ``ts`` (no line records the delegation's time) and with its call
        only when this stream wrote that call. Not a native item."""
        call_id, agent = event["toolCallId"], event["agentId"]
        record = self._link(call_id, agent)
        if self._written("tool_call", call_id):
            return self._remember(call_id, record)
        del record["callId"]  # the call the child's events name is not in this stream
        written = self._write(record)
        self.unpaired[record["session"]] = written["id"]
        return written

    def subagent_ended(self, event: dict[str, Any], data: dict[str, Any], status: str, key: str) -> dict[str, Any]:
        """How a subagent ended, when it did not finish its work: ``subagent.completed`` with
        ``cancelled: true`` (torn down: ``status: interrupted``) or ``subagent.failed``
        (``status: error``, its ``error`` kept). The link is written again with the status,
        the event's data under ``native.<completed|failed>``."""
        self.accounting.records += 1
        earlier = self.subagents[data["toolCallId"]]
        record = {k: v for k, v in earlier.items() if k not in ("supersedes", "native")}
        record["seq"], record["id"] = 0, ""
        record.pop("ts", None)
        record.pop("tsPrecision", None)
        stamp(record, from_iso(event.get("timestamp")))
        record["status"] = status
        record["native"] = {**(earlier.get("native") or {}), key: data}
        return self._remember(data["toolCallId"], record)

    def _link(self, call_id: str, agent: str) -> dict[str, Any]:
        record = start("subagent")
        record["callId"] = call_id
        record["session"] = session_ref(AGENT, child_key(self.session_key, agent))
        task = self.task_calls.get(call_id)
        for field, member in _SPAWN_FACTS:
            value = task[0].get(member) if task is not None else None
            if isinstance(value, str):
                record[field] = value
        return record

    def _remember(self, call_id: str, record: dict[str, Any]) -> dict[str, Any]:
        written = self._write(record)
        self.subagents[call_id] = record
        return written
