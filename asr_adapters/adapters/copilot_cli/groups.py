"""Which stream each event belongs to, and where each subagent's events wait for their stream.

Subagent events are interleaved with the parent's in one file, but a stream must be readable
whole before the next starts. The main pass therefore sets each subagent's lines aside, as
they were read, and its stream parses them back: every line is read from the input once,
whatever the number of subagents. Set-aside lines stay in memory up to ``_MEMORY`` bytes in
all; past that the largest subagents' lines move, as one chunk each, to an anonymous
temporary file (gone when closed), so memory is bounded by that budget and a few facts per
subagent and chunk, never by the file. The file has no name: nothing derived from the input
is ever opened.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ...core import items
from .subagents import CHILD_SEEN

#: bytes of subagent lines held in memory in all before the largest move to the spill file
_MEMORY = 8 << 20


class Groups:
    """Per subagent: its order of first appearance, first timestamp, the agent whose ``task``
    call spawned it (None: the session) and its spilled events."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.first_ts: dict[str, Any] = {}
        self.parent: dict[str, str | None] = {}
        #: ``task`` call id -> the subagent whose message made the call (nested subagents)
        self._task_owner: dict[str, str] = {}
        #: the subagents that made each agent's ``task`` calls, in order (None: the session)
        self.children: dict[str | None, list[str]] = {}
        #: ``CHILD_SEEN`` lines for the session's stream, taken by the main pass as they come
        self.unstarted: list[dict[str, Any]] = []
        #: agent -> its set-aside lines in memory, as ``(line number, the line as read)``
        self._buffers: dict[str, list[tuple[int, bytes]]] = {}
        self._sizes: dict[str, int] = {}
        self._buffered = 0
        self._disk: IO[bytes] | None = None
        #: agent -> (offset, length) of its chunks in the spill file, in order
        self._chunks: dict[str, list[tuple[int, int]]] = {}

    def owner_of(self, number: int, event: Any, raw: bytes) -> str | None:
        """The subagent this event belongs to (None: the session's own stream); a subagent's
        line (``raw``, as read) is set aside for its stream. A subagent first seen by one of
        its own events (no ``subagent.started`` before it) is announced to the stream that
        made its ``task`` call: a ``CHILD_SEEN`` line in that subagent's lines, or, for the
        session's stream, in ``unstarted`` for the main pass to map at once."""
        if type(event) is not dict:
            return None
        kind = event.get("type")
        lifecycle = type(kind) is str and kind.startswith("subagent.")
        agent = event.get("agentId")
        if not (agent and isinstance(agent, str)):  # ``agent_of``, inlined: runs on every line
            data = event.get("data")
            agent = data.get("parentToolCallId") if type(data) is dict else None
            if not (agent and isinstance(agent, str)):
                if not lifecycle:
                    return None  # the session's own event: the common case, decided first
                agent = None
        if lifecycle:
            data = event.get("data")
            call = data.get("toolCallId") if isinstance(data, dict) else None
            if isinstance(call, str):
                owner = self._task_owner.get(call)
                if kind == "subagent.started":
                    # the line's own ``agentId`` names the child; older lines have only the
                    # call, and an ``agentId`` naming the calling agent itself is not the child
                    child = agent if agent is not None and agent != owner else call
                    if child not in self.parent or self.parent[child] != owner:
                        self._add(child, owner)
                    self.first_ts.setdefault(child, event.get("timestamp"))
                agent = owner  # lifecycle events belong to the stream that made the call
        if agent is None:
            return None
        if agent not in self.parent:
            self._unstarted(number, agent, event)
        self._keep(agent, number, raw)
        data = event.get("data") if kind == "assistant.message" else None
        requests = data.get("toolRequests") if isinstance(data, dict) else None
        for request in requests if isinstance(requests, list) else ():
            call = request.get("toolCallId") if isinstance(request, dict) else None
            if isinstance(call, str) and request.get("name") == "task":
                self._task_owner[call] = agent
        return agent

    def _unstarted(self, number: int, agent: str, event: dict[str, Any]) -> None:
        """A subagent's first event, with no ``subagent.started`` before it: its call is the
        event's ``parentToolCallId``, else (all there is) its ``agentId``."""
        data = event.get("data")
        call = data.get("parentToolCallId") if isinstance(data, dict) else None
        call = call if isinstance(call, str) and call else agent
        owner = self._task_owner.get(call)
        self._add(agent, owner)
        self.first_ts[agent] = event.get("timestamp")
        seen = {"type": CHILD_SEEN, "toolCallId": call, "agentId": agent, "timestamp": event.get("timestamp")}
        if owner is None:
            self.unstarted.append(seen)
        else:
            self._keep(owner, number, orjson.dumps(seen))

    def _add(self, agent: str, parent: str | None) -> None:
        if agent not in self.parent:
            self.order.append(agent)
        else:
            self.children[self.parent[agent]].remove(agent)
        self.parent[agent] = parent
        self.children.setdefault(parent, []).append(agent)

    def _keep(self, agent: str, number: int, raw: bytes) -> None:
        """Set a line aside; it is joined to its number (``number\traw``) only if it moves to
        disk, so a line that stays in memory is never copied."""
        self._buffers.setdefault(agent, []).append((number, raw))
        size = len(raw) + 8  # about the bytes it takes on disk: number, tab, line, newline
        self._sizes[agent] = self._sizes.get(agent, 0) + size
        self._buffered += size
        if self._buffered > _MEMORY:
            for largest in sorted(self._sizes, key=self._sizes.__getitem__, reverse=True):
                self._move_to_disk(largest)
                if self._buffered <= _MEMORY // 2:
                    break

    def _move_to_disk(self, agent: str) -> None:
        lines = self._buffers.pop(agent)
        self._buffered -= self._sizes.pop(agent)
        if self._disk is None:
            self._disk = tempfile.TemporaryFile(prefix="asr-copilot-")  # noqa: SIM115 - closed by close()
        chunk = b"".join(b"%d\t%s\n" % line for line in lines)
        offset = self._disk.seek(0, 2)
        self._disk.write(chunk)
        self._chunks.setdefault(agent, []).append((offset, len(chunk)))

    def lines(self, agent: str) -> Iterator[tuple[int, Any]]:
        """The subagent's events as ``(line number, event)``, in file order; its lines are
        dropped from memory once read."""
        for offset, length in self._chunks.pop(agent, []):
            assert self._disk is not None
            self._disk.seek(offset)
            for line in self._disk.read(length).split(b"\n")[:-1]:
                yield _parse(line)
        kept = self._buffers.pop(agent, [])
        self._buffered -= self._sizes.pop(agent, 0)
        for number, raw in kept:
            yield number, _loads(raw)

    def close(self) -> None:
        """Drop every set-aside line and the spill file."""
        self._buffers.clear()
        self._sizes.clear()
        self._chunks.clear()
        if self._disk is not None:
            self._disk.close()
            self._disk = None


def _parse(line: bytes) -> tuple[int, Any]:
    number, _, raw = line.partition(b"\t")
    return int(number), _loads(raw)


def _loads(raw: bytes) -> Any:
    return items.parse(raw)  # as the main pass read it (lone surrogates repaired, size bounded)


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
