"""Tool calls and their results: starts joined to their requests, results with their binaries,
calls interrupted by an ``abort`` or left open by a ``session.shutdown``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...core.digests import DigestMap
from ...core.spill import SpillMap
from .content import result_parts

#: ``tool.execution_start`` members that can repeat what its tool request's response said
_START_ECHO = ("toolName", "arguments", "turnId", "parentToolCallId", "model", "interactionId")
#: the members that define the call: a start that gives them other values revises it
_CALL_DEFINING = ("toolName", "arguments", "model")


class ToolMixin:
    """The open calls of one stream (``Mapper``'s state), and the records of their events."""

    accounting: Any
    open_calls: dict[str, dict[str, Any]]
    #: toolCallId -> [its tool_call as last written, what its request said]; whether it has a
    #: result is ``finished`` alone (kept apart so a result never rewrites the spilled call)
    calls: SpillMap
    finished: DigestMap
    aborted: set[str]
    _write: Callable[[dict[str, Any]], dict[str, Any]]
    _base: Callable[[str, dict[str, Any]], dict[str, Any]]
    _vendor: Callable[[Any, Any], dict[str, Any]]
    note_task_call: Callable[[dict[str, Any]], None]
    is_report: Callable[[str], bool]
    result_outcome: Callable[[dict[str, Any], dict[str, Any]], None]

    def open_call(self, call: dict[str, Any]) -> None:
        """The call waits for its result, unless the result came first (lines out of order)."""
        if self.finished.get(call["callId"]) is None:
            self.open_calls[call["callId"]] = call

    def remember_call(self, call: dict[str, Any], said: dict[str, Any]) -> None:
        """Keep what a written call said, to compare a later start of it by value."""
        self.calls[call["callId"]] = [call, {k: v for k, v in said.items() if k in _START_ECHO}]

    def tool_start(
        self, event: dict[str, Any], data: dict[str, Any], *, by_user: bool = False
    ) -> Iterator[dict[str, Any]]:
        """The start of a call already written (from its tool request, or an earlier start),
        compared by value: the same values are a duplicate; other values for the tool, its
        arguments or model revise the call (``supersedes``); anything else it adds (shell
        info, an MCP server, another turn id) is kept as a vendor record. A start after the
        call's result never reopens it.

        ``by_user``: a ``tool.user_requested`` (the SDK: "user-initiated tool invocation", a
        ``!`` shell command): the call no model requested, written with ``author: "human"``
        so its result has the call it answers."""
        call_id = data["toolCallId"]
        known = self.calls.get(call_id)
        if known is not None:
            call, said = known
            done = self.finished.get(call_id) is not None
            said = {**said, "arguments": call.get("input", call.get("arguments"))}
            stated = {k: v for k, v in data.items() if k != "toolCallId"}
            if any(k in stated and k in said and stated[k] != said[k] for k in _CALL_DEFINING):
                yield self._revise_call(event, data, call, said, done)
            elif all(k in said and said[k] == v for k, v in stated.items()):
                self.accounting.duplicates += 1
            else:
                yield self._vendor(event.get("type"), event)
            return
        self.accounting.records += 1  # a call with no tool request (user-requested, resumed)
        call = self._base("tool_call", event)
        call["callId"] = call_id
        named = tool_name(call, data.get("toolName"))
        call_input(call, data.get("arguments"))
        if by_user:
            call["author"] = "human"  # the source's own mark: the person asked for this call
        if isinstance(data.get("model"), str):
            call["model"] = data["model"]
        native_of(call, rest(data, ("toolCallId", "toolName", "arguments", "model") if named else _UNNAMED))
        self.open_call(call)
        self.note_task_call(call)
        written = self._write(call)
        self.remember_call(call, data)
        yield written

    def _revise_call(
        self, event: dict[str, Any], data: dict[str, Any], call: dict[str, Any], said: dict[str, Any], done: bool
    ) -> dict[str, Any]:
        """The call written again as its start states it: same ``callId``, ``inferenceId`` and
        ``native.messageId``, the start's tool, arguments and model, the start's data under
        ``native.executionStart``; its ``usage`` stays on the record that counted it."""
        self.accounting.records += 1
        revision = {k: v for k, v in call.items() if k not in ("seq", "id", "ts", "tsPrecision", "usage", "supersedes")}
        revision = {**self._base("tool_call", event), **revision}
        if "toolName" in data and not tool_name(revision, data["toolName"]):
            revision.pop("name", None)  # not a name: the start's data keeps it (native.executionStart)
        if "arguments" in data:
            revision.pop("input", None)
            revision.pop("arguments", None)
            call_input(revision, data["arguments"])
        if isinstance(data.get("model"), str):
            revision["model"] = data["model"]
        native = dict(revision.get("native") or {})
        native["executionStart"] = {"id": event.get("id"), "data": data}
        revision["native"] = native
        written = self._write(revision)
        if not done:
            self.open_call(revision)
        self.remember_call(revision, {**said, **data})
        return written

    def tool_result(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        call_id = data["toolCallId"]
        record = self._base("tool_result", event)
        record["callId"] = call_id
        known = self.calls.get(call_id)
        if known is not None and isinstance(known[0].get("name"), str):
            record["name"] = known[0]["name"]  # the result names no tool: its call does
        if call_id in self.aborted:
            self.aborted.discard(call_id)
            record["status"] = "interrupted"  # an ``abort`` stopped the turn while it ran
        success = data.get("success")
        if isinstance(success, bool):
            record["isError"] = not success
        self.result_outcome(record, data)
        if record.get("status") == "interrupted":
            record.pop("isError", None)  # stopped, not failed (docs/semantics.md, Tool outcome)
        content, display, partial = result_parts(data)
        if success is not False and self.is_report(call_id):
            content = [{**part, "author": "agent", "origin": "subagent_report"} for part in content]
        record["content"] = content
        if display is not None:
            record["displayContent"] = display
        if not content:
            record["capture"] = {"content": {"state": "absent"}}
        elif partial is not None:
            record["capture"] = {"content": {"state": "truncated", "reason": partial}}
        self.open_calls.pop(call_id, None)
        self.finished[call_id] = 1
        native = rest(data, ("toolCallId", "success", "result", "error"))
        result = data.get("result")
        if isinstance(result, dict):
            others = rest(result, ("content", "detailedContent"))
            if others:
                native["result"] = others
        if "error" in data:
            native["error"] = data["error"]
        native_of(record, native)
        return self._write(record)

    def close_open_calls(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """``session.shutdown``: the run ended with calls still open; each call is written again
        (a complete snapshot, ``supersedes``) with ``status: interrupted``."""
        for call_id, call in list(self.open_calls.items()):
            revision = {k: v for k, v in call.items() if k not in ("usage", "supersedes")}
            revision["seq"], revision["id"] = 0, ""
            revision["status"] = "interrupted"
            native = dict(revision.get("native") or {})
            native["closedBy"] = {
                "type": "session.shutdown",
                "id": event.get("id"),
                "shutdownType": data.get("shutdownType"),
            }
            revision["native"] = native
            self.aborted.discard(call_id)
            written = self._write(revision)
            known = self.calls.get(call_id)
            self.remember_call(revision, known[1] if known is not None else {})
            yield written
        self.open_calls.clear()


def rest(data: dict[str, Any], taken: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    """``data`` without the ``taken`` members, the others in their order. A copy with the few
    taken members deleted: about half the cost of filtering every member (once per record)."""
    kept = data.copy()
    for key in taken:
        if key in kept:
            del kept[key]
    return kept


def native_of(record: dict[str, Any], native: dict[str, Any]) -> None:
    if native:
        record["native"] = native


_UNNAMED = ("toolCallId", "arguments", "model")


def tool_name(call: dict[str, Any], name: Any) -> bool:
    """``call["name"]`` set from a native tool name; False when it is no string (an array, an
    object): then there is no name, and the native value stays with the call's native data."""
    if isinstance(name, str):
        call["name"] = name
        return True
    return name is None


def call_input(call: dict[str, Any], arguments: Any) -> None:
    if isinstance(arguments, dict):
        call["input"] = arguments
    elif isinstance(arguments, str):
        call["arguments"] = arguments  # a custom tool's raw input
    elif arguments is not None:
        call["input"] = arguments
