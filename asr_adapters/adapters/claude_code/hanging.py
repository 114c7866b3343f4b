"""Context the main model saw that only a compaction agent's transcript records.

Claude Code's compaction agent (``subagents/agent-acompact-<hex>.jsonl``) starts with the
``isMeta`` lines of hook context injected into the main conversation (``<system-reminder>
PostToolUse:Edit hook additional context…``) whose ``parentUuid`` names a line of the main
file, which has no such lines (research note §7, sample 2.1.39). The main model received
them, so the main stream writes them too, on its path after the line they hang from; the
compaction agent's stream then marks its own records of them ``copiedFrom`` the main ones.
Only the leading lines of such a file are read, at most ``LIMIT``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...core.companion import CompanionSkipped, open_companion
from ...core.digests import RecordIds
from ...core.spill import SpillSet
from ...core.timestamps import from_iso, stamp

#: Leading lines of one compaction agent's file read at most.
LIMIT = 16
_LINE_BYTES = 1 << 20


def compaction_agent(agent_id: str) -> bool:
    return agent_id.startswith("acompact")


def hanging_lines(path: Path) -> list[dict[str, Any]]:
    """The leading ``isMeta`` user lines of a compaction agent's file whose ``parentUuid`` is
    not a line of the file itself (it names a line of the main session), or is the previous
    such line: they end at the first other line."""
    found: list[dict[str, Any]] = []
    try:
        handle = open_companion(path, None, None)
        if handle is None:
            return found
        with handle:
            for raw in handle:
                if len(found) >= LIMIT or len(raw) > _LINE_BYTES:
                    break
                if not raw.strip():
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    break
                if not _hangs(obj):
                    break
                found.append(obj)
    except (OSError, CompanionSkipped):
        return []
    return found


def agent_request(path: Path) -> dict[str, Any] | None:
    """The compaction agent's own request: the last user line of its file that is not a tool
    result (the history it replays comes first, its request and answer last). Its
    ``parentUuid`` is the main leaf the compaction continued from. Reads the file once,
    keeping one line."""
    request: dict[str, Any] | None = None
    try:
        handle = open_companion(path, None, None)
        if handle is None:
            return None
        with handle:
            for raw in handle:
                if b'"type":"user"' not in raw or b'"tool_result"' in raw or len(raw) > _LINE_BYTES:
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and obj.get("type") == "user" and isinstance(obj.get("parentUuid"), str):
                    request = obj
    except (OSError, CompanionSkipped):
        return None
    return request


def _hangs(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("type") != "user" or obj.get("isMeta") is not True:
        return False
    # its parent is a line of the main file or the previous such line (``own``): both strings
    return isinstance(obj.get("uuid"), str) and isinstance(obj.get("parentUuid"), str)


class CompactionAgentMixin:
    """The builder's side of the compaction agents: their hanging lines written in the main
    stream, their subagent records placed before the boundary they produced."""

    #: parentUuid -> lines of a compaction agent's file that hang from that main line
    hanging: dict[str, list[dict[str, Any]]]
    #: (stream, its own request line) of the compaction agents not placed yet
    compaction_agents: list[tuple[str, dict[str, Any]]]
    uuid_rec: RecordIds
    linked_agents: SpillSet
    out: Any
    line: int

    if TYPE_CHECKING:

        def _feed(self, line: int, obj: Any) -> None: ...

    def _take_hanging(self, line: int) -> None:
        """Write the hanging lines whose main parent now has its record, on the path after
        it (the next main line continuing from that parent continues from them). Each is a
        native item of the compaction agent's file, counted there, not here."""
        hanging = self.hanging
        acc = self.out.acc
        roots: dict[str, str] = {}  # a hanging line's uuid -> the main line its chain hangs from
        ready = [p for p in hanging if self.uuid_rec.get(p)]
        while ready:
            parent = ready.pop(0)
            root = roots.get(parent, parent)
            for obj in hanging.pop(parent, ()):
                uuid = obj["uuid"]
                if uuid in self.uuid_rec:
                    continue  # the main file has it after all
                before = acc.outcome_total()
                current = self.line
                self._feed(line, obj)
                self.line = current
                acc.records -= acc.outcome_total() - before
                rid = self.uuid_rec.get(uuid)
                if rid:
                    self.uuid_rec[root] = rid  # the main line's continuation follows it
                    roots[uuid] = root
                    if uuid in hanging:
                        ready.append(uuid)

    def _place_compaction_agent(self, leaf: str) -> None:
        """The subagent record of the compaction agent that continued from ``leaf``, written
        just before the boundary of the compaction it produced, with the time of the agent's
        own first line (issue 27.7: it came last, without a time). No ``parent``: the boundary
        continues from the leaf; its ``session`` links it."""
        for index, (key, start) in enumerate(self.compaction_agents):
            if start.get("parentUuid") != leaf or start.get("uuid") in self.uuid_rec:
                continue
            del self.compaction_agents[index]
            record: dict[str, Any] = {"type": "subagent", "seq": 0, "id": ""}
            stamp(record, from_iso(start.get("timestamp")))
            record["session"] = key
            self.linked_agents.add(key)
            self.out.put(record)
            return
