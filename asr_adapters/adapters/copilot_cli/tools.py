"""Tool calls and their results: starts joined to their requests, results with their binaries,
calls interrupted by an ``abort`` or left open by a ``session.shutdown``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .content import result_parts

#: ``tool.execution_start`` members that only repeat the tool request
_START_ECHO = frozenset({"toolCallId", "toolName", "arguments", "turnId", "parentToolCallId", "model", "interactionId"})


class ToolMixin:
    """The open calls of one stream (``Mapper``'s state), and the records of their events."""

    accounting: Any
    open_calls: dict[str, dict[str, Any]]
    aborted: set[str]
    _write: Callable[[dict[str, Any]], dict[str, Any]]
    _base: Callable[[str, dict[str, Any]], dict[str, Any]]
    _vendor: Callable[[Any, Any], dict[str, Any]]
    note_task_call: Callable[[dict[str, Any]], None]
    is_report: Callable[[str], bool]

    def tool_start(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The start of a call already written from its tool request is a duplicate unless it
        adds something (shell info, an MCP server): then it is kept as a vendor record."""
        call_id = data["toolCallId"]
        if call_id in self.open_calls:
            if _START_ECHO.issuperset(data):  # every member only repeats the request
                self.accounting.duplicates += 1
                return
            yield self._vendor(event.get("type"), event)
            return
        self.accounting.records += 1  # a call with no tool request (user-requested, resumed)
        call = self._base("tool_call", event)
        call["callId"] = call_id
        call["name"] = data.get("toolName")
        call_input(call, data.get("arguments"))
        if isinstance(data.get("model"), str):
            call["model"] = data["model"]
        native_of(call, rest(data, ("toolCallId", "toolName", "arguments", "model")))
        self.open_calls[call_id] = call
        self.note_task_call(call)
        yield self._write(call)

    def tool_result(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        call_id = data["toolCallId"]
        record = self._base("tool_result", event)
        record["callId"] = call_id
        if call_id in self.aborted:
            self.aborted.discard(call_id)
            record["status"] = "interrupted"  # an ``abort`` stopped the turn while it ran
        success = data.get("success")
        if isinstance(success, bool):
            record["isError"] = not success
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
            revision = {k: v for k, v in call.items() if k not in ("usage", "nativeUsage", "supersedes")}
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
            yield self._write(revision)
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


def call_input(call: dict[str, Any], arguments: Any) -> None:
    if isinstance(arguments, dict):
        call["input"] = arguments
    elif isinstance(arguments, str):
        call["arguments"] = arguments  # a custom tool's raw input
    elif arguments is not None:
        call["input"] = arguments
