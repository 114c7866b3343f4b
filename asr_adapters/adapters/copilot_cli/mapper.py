"""One stream's events -> ASR records, in file order.

The main session and each subagent get their own ``Mapper``. State held between lines is
bounded by what is open, never by the file: the tool calls still waiting for their result,
the reasoning event waiting for the message it belongs to, the last reasoning block (to spot
a repeat) and the inference ids whose usage was written (a small ring).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ...core.adapter import Context, Emitter, start
from ...core.refs import session_ref
from ...core.spill import SpillMap
from ...core.timestamps import from_iso, stamp
from .content import opaque_key, prompt_author, prompt_parts, reasoning_part, result_parts, text_part

if TYPE_CHECKING:
    from .adapter import CopilotCliAdapter

AGENT = "copilot-cli"
#: ``tool.execution_start`` members that only repeat the tool request
_START_ECHO = frozenset({"toolCallId", "toolName", "arguments", "turnId", "parentToolCallId", "model", "interactionId"})
#: notices the CLI shows the user (ASR-205)
_NOTICES = {"session.info": "info", "session.warning": "warning", "session.error": "error"}
#: how many inference ids to remember for "usage written once" (chunked messages are adjacent)
_RECENT_INFERENCES = 64


def child_key(session_id: str, agent_id: str) -> str:
    """The native-style id of a subagent's stream: ``<sessionId>/agent-<agentId>``."""
    return f"{session_id}/agent-{agent_id}"


class Mapper:
    """Maps one stream's events. ``feed`` yields the records of one event; ``finish`` the rest."""

    def __init__(self, adapter: CopilotCliAdapter, emit: Emitter, context: Context, session_key: str) -> None:
        self.adapter = adapter
        self.emit = emit
        self.accounting = context.accounting
        self.context = context
        self.session_key = session_key
        #: toolCallId -> id of its tool_call record, until the result arrives
        self.open_calls: dict[str, str] = {}
        #: the agent ids whose ``subagent.started`` this stream linked
        self.linked: set[str] = set()
        self.pending_reasoning: tuple[int, dict[str, Any]] | None = None
        self.last_reasoning: tuple[str, Any] | None = None  # (key, messageId)
        self.usage_written: deque[str] = deque(maxlen=_RECENT_INFERENCES)
        #: native id -> the record that last wrote it: a later record with it revises that one
        self.written = SpillMap()

    # -- dispatch -------------------------------------------------------------------------

    def feed(self, number: int, event: Any) -> Iterator[dict[str, Any]]:
        if type(event) is not dict:
            yield from self._vendor("line", event)
            return
        kind = event.get("type")
        data = event.get("data")
        if not isinstance(data, dict):
            data = {}
        if kind == "assistant.reasoning" and isinstance(data.get("content"), str):
            yield from self._flush_reasoning()
            self.pending_reasoning = (number, event)
            return
        if kind == "assistant.message":
            yield from self._assistant(event, data)
            return
        if self.pending_reasoning is not None:
            yield from self._flush_reasoning()
        if kind not in _MAPPED:
            yield from self._vendor(kind, event)
        elif kind == "user.message" and isinstance(data.get("content"), str):
            yield self._user(event, data)
        elif kind == "system.message" and isinstance(data.get("content"), str):
            yield self._system(event, data)
        elif kind == "system.notification" and isinstance(data.get("content"), str):
            yield self._notification(event, data)
        elif kind in _NOTICES and isinstance(data.get("message"), str):
            yield self._notice(event, data, _NOTICES[kind])
        elif kind == "tool.execution_start" and isinstance(data.get("toolCallId"), str):
            yield from self._tool_start(event, data)
        elif kind == "tool.execution_complete" and isinstance(data.get("toolCallId"), str):
            yield self._tool_result(event, data)
        elif kind == "subagent.started" and isinstance(data.get("toolCallId"), str):
            yield self._subagent(event, data)
        else:
            yield from self._vendor(kind, event)

    def finish(self, unlinked: Sequence[tuple[str, str]] = ()) -> Iterator[dict[str, Any]]:
        """The held reasoning event, and a ``subagent`` link for every child stream whose
        ``subagent.started`` the file lacks (``unlinked``: (agent id, stream key))."""
        yield from self._flush_reasoning()
        for agent_id, key in unlinked:
            record = start("subagent")
            record["callId"] = agent_id
            record["session"] = session_ref(AGENT, key)
            if agent_id in self.open_calls:
                record["parent"] = self.open_calls[agent_id]
            yield self._write(record)

    # -- records --------------------------------------------------------------------------

    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        """Emit ``record``; one whose native id (``messageId``, a tool call's ``callId``) an
        earlier record wrote (a resumed run writing an event again with a new envelope id)
        ``supersedes`` it, so no native id is claimed twice."""
        field = _NATIVE_ID.get(record["type"])
        native = record.get(field) if field is not None else None
        if isinstance(native, str):
            key = f"{field}:{native}"
            earlier = self.written.get(key)
            if earlier is not None:
                record["supersedes"] = earlier
            self.written[key] = self.emit.next_id
        return self.emit(record)

    def _base(self, kind: str, event: dict[str, Any]) -> dict[str, Any]:
        record = start(kind)
        stamp(record, from_iso(event.get("timestamp")))
        return record

    def _vendor(self, kind: Any, event: Any) -> Iterator[dict[str, Any]]:
        self.accounting.vendor += 1
        record = self._base("vendor", event) if isinstance(event, dict) else start("vendor")
        vendor = self.adapter.vendor(kind if isinstance(kind, str) else "unknown", event)
        record["schema"], record["data"] = vendor["schema"], vendor["data"]
        yield self._write(record)

    def _user(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id") if isinstance(event.get("id"), str) else f"line-{self.emit.seq + 1}"
        if not isinstance(event.get("id"), str):
            record["idSource"] = "derived"
        record["role"] = "user"
        author, origin = prompt_author(data)
        content, display = prompt_parts(data["content"], data.get("transformedContent"), author, origin)
        record["content"] = content
        if display is not None:
            record["displayContent"] = display
            record["displayCorrespondence"] = "native"
        _native(record, _rest(data, ("content", "transformedContent")))
        return self._write(record)

    def _system(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id")
        role = data.get("role")
        record["role"] = role if role in ("system", "developer") else "system"
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [text_part(data["content"])]
        _native(record, _rest(data, ("content", "role")))
        return self._write(record)

    def _notification(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """A runtime notice the CLI puts in the model's context (agent finished, shell done)."""
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id")
        record["role"] = "user"
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [text_part(data["content"])]
        _native(record, _rest(data, ("content",)))
        return self._write(record)

    def _notice(self, event: dict[str, Any], data: dict[str, Any], level: str) -> dict[str, Any]:
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id")
        record["author"] = "harness"
        record["origin"] = "notice"
        record["audience"] = "user"
        record["content"] = [text_part(data["message"])]
        record["capture"] = {"role": {"state": "absent"}}
        record["native"] = {"level": level, **_rest(data, ("message",))}
        return self._write(record)

    def _assistant(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """One model response (or one chunk of it): a message when it has text or reasoning,
        then one ``tool_call`` per tool request. Usage (``outputTokens``) goes on the first
        record of the response, once per inference id."""
        self.accounting.records += 1
        inference = _first_str(data, "apiCallId", "requestId")
        text = data.get("content")
        reasoning_text = data.get("reasoningText")
        pending, self.pending_reasoning = self.pending_reasoning, None
        if pending is not None:
            pending_text = pending[1]["data"]["content"]
            if not isinstance(reasoning_text, str) or not reasoning_text:
                reasoning_text = pending_text  # the reasoning event holds this response's reasoning
                self.accounting.folded += 1
            elif pending_text == reasoning_text:
                self.accounting.duplicates += 1
            else:
                yield from self._reasoning_event(pending[1])
        message_id = data.get("messageId") if isinstance(data.get("messageId"), str) else event.get("id")
        parts: list[Any] = []
        repeated_from = None
        key = opaque_key({**data, "reasoningText": reasoning_text})
        if key is not None and self.last_reasoning is not None and self.last_reasoning[0] == key:
            repeated_from = self.last_reasoning[1]  # the same block again: written once
        else:
            part = reasoning_part(reasoning_text, data)
            if part is not None:
                parts.append(part)
                self.last_reasoning = (key, message_id) if key is not None else None
        if isinstance(text, str) and text:
            parts.append(text_part(text))
        usage = self._usage(inference, data)
        message_written = False
        if parts:
            record = self._base("message", event)
            if inference is not None:
                record["inferenceId"] = inference
            record["messageId"] = message_id
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = parts
            _model_and_usage(record, data, usage)
            native = _rest(data, _MESSAGE_FIELDS + (("requestId",) if inference == data.get("requestId") else ()))
            if repeated_from is not None:
                native["reasoningRepeatsMessage"] = repeated_from
            if native:
                record["native"] = native
            message_written = True
            yield self._write(record)
        requests = data.get("toolRequests")
        for request in requests if isinstance(requests, list) else ():
            if not isinstance(request, dict) or not isinstance(request.get("toolCallId"), str):
                continue
            call = self._base("tool_call", event)
            if inference is not None:
                call["inferenceId"] = inference
            call["callId"] = request["toolCallId"]
            call["name"] = request.get("name")
            if message_written:
                call["messageId"] = message_id
            _call_input(call, request.get("arguments"))
            if not message_written:
                _model_and_usage(call, data, usage)
                usage = None  # on the first tool_call only
                if repeated_from is not None:
                    call["native"] = {"reasoningRepeatsMessage": repeated_from}
            extra = _rest(request, ("toolCallId", "name", "arguments"))
            if extra:
                call.setdefault("native", {}).update(extra)
            self.open_calls[call["callId"]] = self.emit.next_id
            yield self._write(call)
        if not parts and not (isinstance(requests, list) and requests):
            record = self._base("message", event)  # an empty response: kept, content absent
            if inference is not None:
                record["inferenceId"] = inference
            record["messageId"] = message_id
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = []
            record["capture"] = {"content": {"state": "absent"}}
            _model_and_usage(record, data, usage)
            _native(record, _rest(data, _MESSAGE_FIELDS))
            yield self._write(record)

    def _usage(self, inference: str | None, data: dict[str, Any]) -> dict[str, int] | None:
        tokens = data.get("outputTokens")
        if type(tokens) is not int or tokens < 0:
            return None
        if inference is not None:
            if inference in self.usage_written:
                return None  # a later chunk of a response already counted
            self.usage_written.append(inference)
        return {"outputTokens": tokens}

    def _reasoning_event(self, event: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """An ``assistant.reasoning`` not repeated on the next message: a message of its own."""
        self.accounting.records += 1
        data = event["data"]
        record = self._base("message", event)
        record["messageId"] = data.get("reasoningId") if isinstance(data.get("reasoningId"), str) else event.get("id")
        record["role"] = "assistant"
        record["author"] = "model"
        record["content"] = [{"type": "reasoning", "text": data["content"]}]
        yield self._write(record)

    def _flush_reasoning(self) -> Iterator[dict[str, Any]]:
        pending, self.pending_reasoning = self.pending_reasoning, None
        if pending is not None:
            yield from self._reasoning_event(pending[1])

    def _tool_start(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The start of a call already written from its tool request is a duplicate unless it
        adds something (shell info, an MCP server): then it is kept as a vendor record."""
        call_id = data["toolCallId"]
        if call_id in self.open_calls:
            if set(data) <= _START_ECHO:
                self.accounting.duplicates += 1
                return
            yield from self._vendor(event.get("type"), event)
            return
        self.accounting.records += 1  # a call with no tool request (user-requested, resumed)
        call = self._base("tool_call", event)
        call["callId"] = call_id
        call["name"] = data.get("toolName")
        _call_input(call, data.get("arguments"))
        if isinstance(data.get("model"), str):
            call["model"] = data["model"]
        extra = _rest(data, ("toolCallId", "toolName", "arguments", "model"))
        if extra:
            call["native"] = extra
        self.open_calls[call_id] = self.emit.next_id
        yield self._write(call)

    def _tool_result(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        call_id = data["toolCallId"]
        record = self._base("tool_result", event)
        record["callId"] = call_id
        success = data.get("success")
        if isinstance(success, bool):
            record["isError"] = not success
        content, display = result_parts(data)
        if call_id in self.linked and success is not False:  # a ``task`` call's answer: the subagent's report
            content = [{**part, "author": "agent", "origin": "subagent_report"} for part in content]
        record["content"] = content
        if display is not None:
            record["displayContent"] = display
        if not content:
            record["capture"] = {"content": {"state": "absent"}}
        parent = self.open_calls.pop(call_id, None)
        if parent is not None:
            record["parent"] = parent
        native = _rest(data, ("toolCallId", "success", "result", "error"))
        result = data.get("result")
        if isinstance(result, dict):
            rest = _rest(result, ("content", "detailedContent"))
            if rest:
                native["result"] = rest
        if "error" in data:
            native["error"] = data["error"]
        if native:
            record["native"] = native
        return self._write(record)

    def _subagent(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """``subagent.started``: the link from the ``task`` call to the child's stream."""
        self.accounting.records += 1
        call_id = data["toolCallId"]
        record = self._base("subagent", event)
        record["callId"] = call_id
        record["session"] = session_ref(AGENT, child_key(self.session_key, call_id))
        self.linked.add(call_id)
        if isinstance(data.get("agentName"), str):
            record["agentType"] = data["agentName"]
        if isinstance(data.get("agentDescription"), str):
            record["description"] = data["agentDescription"]
        if call_id in self.open_calls:
            record["parent"] = self.open_calls[call_id]
        native = _rest(data, ("toolCallId", "agentName", "agentDescription"))
        if native:
            record["native"] = native
        return self._write(record)


_NATIVE_ID = {"message": "messageId", "tool_call": "callId"}
#: the event types mapped to records of their own (every other type is a vendor record)
_MAPPED = frozenset(
    {
        "user.message",
        "system.message",
        "system.notification",
        *_NOTICES,
        "tool.execution_start",
        "tool.execution_complete",
        "subagent.started",
    }
)
_MESSAGE_FIELDS = (
    "messageId",
    "content",
    "toolRequests",
    "reasoningText",
    "reasoningOpaque",
    "encryptedContent",
    "model",
    "outputTokens",
)


def _rest(data: dict[str, Any], taken: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in taken}


def _native(record: dict[str, Any], native: dict[str, Any]) -> None:
    if native:
        record["native"] = native


def _first_str(data: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _call_input(call: dict[str, Any], arguments: Any) -> None:
    if isinstance(arguments, dict):
        call["input"] = arguments
    elif isinstance(arguments, str):
        call["arguments"] = arguments  # a custom tool's raw input
    elif arguments is not None:
        call["input"] = arguments


def _model_and_usage(record: dict[str, Any], data: dict[str, Any], usage: dict[str, int] | None) -> None:
    if isinstance(data.get("model"), str):
        record["model"] = data["model"]
    if usage is not None:
        record["usage"] = usage
        record["nativeUsage"] = {"outputTokens": usage["outputTokens"]}
