"""Which stream each event belongs to, and where each subagent's events wait for their stream.

Subagent events are interleaved with the parent's in one file, but a stream must be readable
whole before the next starts. The main pass therefore writes each subagent's events, in
order, to a file of its own in a private temporary folder (deleted when the conversion is
done or dropped) and its stream reads that file back: every line is read from the input
once, whatever the number of subagents, and memory holds only a few facts per subagent
(never its events). At most ``_OPEN`` of those files are open at a time.
"""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

#: spill files kept open at once (others are closed and reopened for appending)
_OPEN = 16


class Groups:
    """Per subagent: its order of first appearance, first timestamp, the agent whose ``task``
    call spawned it (None: the session) and its spilled events."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.first_ts: dict[str, Any] = {}
        self.parent: dict[str, str | None] = {}
        self._counts: dict[str, int] = {}
        self._index: dict[str, int] = {}
        #: ``task`` call id -> the subagent whose message made the call (nested subagents)
        self._task_owner: dict[str, str] = {}
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._handles: OrderedDict[str, IO[bytes]] = OrderedDict()

    def owner_of(self, number: int, event: Any) -> str | None:
        """The subagent this event belongs to (None: the session's own stream); a subagent's
        event is spilled for its stream."""
        agent = agent_of(event)
        kind = event.get("type") if isinstance(event, dict) else None
        if isinstance(kind, str) and kind.startswith("subagent."):
            data = event.get("data")
            call = data.get("toolCallId") if isinstance(data, dict) else None
            agent = self._task_owner.get(call) if isinstance(call, str) else agent
            if isinstance(call, str) and call not in self.parent:
                self._add(call, self._task_owner.get(call))
        if agent is None:
            return None
        if agent not in self.parent:
            self._add(agent, None)
        if agent not in self.first_ts and isinstance(event, dict):
            self.first_ts[agent] = event.get("timestamp")
        self._spill(agent, number, event)
        data = event.get("data") if kind == "assistant.message" else None
        requests = data.get("toolRequests") if isinstance(data, dict) else None
        for request in requests if isinstance(requests, list) else ():
            call = request.get("toolCallId") if isinstance(request, dict) else None
            if isinstance(call, str) and request.get("name") == "task":
                self._task_owner[call] = agent
        return agent

    def _add(self, agent: str, parent: str | None) -> None:
        if agent not in self.parent:
            self._index[agent] = len(self.order)
            self.order.append(agent)
            self._counts[agent] = 0
        self.parent[agent] = parent

    def _path(self, agent: str) -> Path:
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="asr-copilot-")
        return Path(self._folder.name) / f"{self._index[agent]}.jsonl"

    def _spill(self, agent: str, number: int, event: Any) -> None:
        handle = self._handles.get(agent)
        if handle is None:
            if len(self._handles) >= _OPEN:
                self._handles.popitem(last=False)[1].close()
            handle = self._handles[agent] = open(self._path(agent), "ab")  # noqa: SIM115 - kept open across lines
        else:
            self._handles.move_to_end(agent)
        handle.write(b"%d\t%s\n" % (number, orjson.dumps(event)))
        self._counts[agent] += 1

    def lines(self, agent: str) -> Iterator[tuple[int, Any]]:
        """The subagent's events as ``(line number, event)``, in file order; its file is
        deleted once read."""
        handle = self._handles.pop(agent, None)
        if handle is not None:
            handle.close()
        if not self._counts.get(agent) or self._folder is None:
            return
        path = self._path(agent)
        with open(path, "rb") as spilled:
            for line in spilled:
                number, _, raw = line.partition(b"\t")
                yield int(number), orjson.loads(raw)
        path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close and delete every spill file."""
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def agent_of(event: Any) -> str | None:
    """The subagent an event is marked with: the envelope's ``agentId`` (CLI >= 1.0.32), else
    ``data.parentToolCallId``."""
    if not isinstance(event, dict):
        return None
    agent = event.get("agentId")
    if isinstance(agent, str) and agent:
        return agent
    data = event.get("data")
    parent = data.get("parentToolCallId") if isinstance(data, dict) else None
    return parent if isinstance(parent, str) and parent else None
