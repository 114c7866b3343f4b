"""Which stream each event belongs to, and where each subagent's events wait for their stream.

Subagent events are interleaved with the parent's in one file, but a stream must be readable
whole before the next starts. The main pass therefore sets each subagent's lines aside, as
they were read, and its stream parses them back: every line is read from the input once,
whatever the number of subagents. Set-aside lines stay in memory up to ``_MEMORY`` bytes in
all; past that the largest subagents' lines move to files of their own in a private
temporary folder (deleted when the conversion is done or dropped), so memory is bounded by
that budget and a few facts per subagent, never by the file. At most ``_OPEN`` of those
files are open at a time.
"""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from ...core.lenient import loads_with_lone_surrogates

#: spill files kept open at once (others are closed and reopened for appending)
_OPEN = 16
#: bytes of subagent lines held in memory in all before the largest move to files
_MEMORY = 8 << 20


class Groups:
    """Per subagent: its order of first appearance, first timestamp, the agent whose ``task``
    call spawned it (None: the session) and its spilled events."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.first_ts: dict[str, Any] = {}
        self.parent: dict[str, str | None] = {}
        self._index: dict[str, int] = {}
        #: ``task`` call id -> the subagent whose message made the call (nested subagents)
        self._task_owner: dict[str, str] = {}
        #: the subagents that made each agent's ``task`` calls, in order (None: the session)
        self.children: dict[str | None, list[str]] = {}
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._handles: OrderedDict[str, IO[bytes]] = OrderedDict()
        self._buffers: dict[str, list[bytes]] = {}
        self._sizes: dict[str, int] = {}
        self._buffered = 0
        self._on_disk: set[str] = set()

    def owner_of(self, number: int, event: Any, raw: bytes) -> str | None:
        """The subagent this event belongs to (None: the session's own stream); a subagent's
        line (``raw``, as read) is set aside for its stream."""
        if type(event) is not dict:
            return None
        kind = event.get("type")
        agent = agent_of(event)
        if agent is None and not (isinstance(kind, str) and kind.startswith("subagent.")):
            return None  # the session's own event: the common case, decided first
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
        if agent not in self.first_ts:
            self.first_ts[agent] = event.get("timestamp")
        self._keep(agent, b"%d\t%s" % (number, raw))
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
        else:
            self.children[self.parent[agent]].remove(agent)
        self.parent[agent] = parent
        self.children.setdefault(parent, []).append(agent)

    def _path(self, agent: str) -> Path:
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="asr-copilot-")
        return Path(self._folder.name) / f"{self._index[agent]}.jsonl"

    def _keep(self, agent: str, line: bytes) -> None:
        if agent in self._on_disk:
            self._append(agent, [line])
            return
        self._buffers.setdefault(agent, []).append(line)
        self._sizes[agent] = self._sizes.get(agent, 0) + len(line)
        self._buffered += len(line)
        if self._buffered > _MEMORY:
            for largest in sorted(self._sizes, key=self._sizes.__getitem__, reverse=True):
                self._append(largest, self._buffers.pop(largest))
                self._buffered -= self._sizes.pop(largest)
                self._on_disk.add(largest)
                if self._buffered <= _MEMORY // 2:
                    break

    def _append(self, agent: str, lines: list[bytes]) -> None:
        handle = self._handles.get(agent)
        if handle is None:
            if len(self._handles) >= _OPEN:
                self._handles.popitem(last=False)[1].close()
            handle = self._handles[agent] = open(self._path(agent), "ab")  # noqa: SIM115 - kept open across lines
        else:
            self._handles.move_to_end(agent)
        for line in lines:
            handle.write(line + b"\n")

    def lines(self, agent: str) -> Iterator[tuple[int, Any]]:
        """The subagent's events as ``(line number, event)``, in file order; its lines are
        dropped (its file deleted) once read."""
        handle = self._handles.pop(agent, None)
        if handle is not None:
            handle.close()
        if agent in self._on_disk:
            path = self._path(agent)
            with open(path, "rb") as spilled:
                for line in spilled:
                    yield _parse(line.rstrip(b"\n"))
            path.unlink(missing_ok=True)
            return
        kept = self._buffers.pop(agent, [])
        self._buffered -= self._sizes.pop(agent, 0)
        for line in kept:
            yield _parse(line)

    def close(self) -> None:
        """Close and delete every spill file."""
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()
        self._buffers.clear()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def _parse(line: bytes) -> tuple[int, Any]:
    number, _, raw = line.partition(b"\t")
    try:
        return int(number), orjson.loads(raw)
    except orjson.JSONDecodeError:  # JavaScript's lone surrogates, as the main pass read them
        return int(number), loads_with_lone_surrogates(raw)


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
