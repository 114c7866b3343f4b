# Whole, over 400 lines: one Mapper per stream writes every Copilot CLI event kind at its event from shared state.
"""One stream's events -> ASR records, in file order.

The main session and each subagent get their own ``Mapper``. Every event's records are
written at the event, never held for a later line, so a file that grows only adds records
(profile §1). State held between lines is bounded by what is open, never by the file: the
tool calls still waiting for their result, the ``task`` calls and subagents of this stream,
the last reasoning event and block (to spot a repeat); per response and per call, what was
written is kept in ``SpillMap``s (memory bounded, nothing forgotten).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...core.adapter import Context, Emitter, start
from ...core.digests import DigestMap, RecordIds
from ...core.refs import schema_name, session_ref
from ...core.spill import SpillMap
from ...core.timestamps import from_iso
from .content import attachment_parts, opaque_key, prompt_author, prompt_parts, reasoning_parts, text_part
from .outcomes import OutcomeMixin
from .subagents import AGENT, CHILD_SEEN, SubagentMixin, child_key
from .tools import ToolMixin, call_input, native_of, rest, tool_name

__all__ = ["AGENT", "CHILD_SEEN", "Mapper", "child_key"]

if TYPE_CHECKING:
    from .adapter import CopilotCliAdapter

#: calls (with their inputs) kept in memory before the oldest move to the spill file
_CALLS_IN_MEMORY = 512
#: notices the CLI shows the user (ASR-205)
_NOTICES = {"session.info": "info", "session.warning": "warning", "session.error": "error"}


class Mapper(ToolMixin, SubagentMixin, OutcomeMixin):
    """Maps one stream's events: ``feed`` yields the records of one event.
    ``parent_key``: the parent stream of a subagent's stream, ``agent_id`` its agent (None:
    the session's)."""

    def __init__(
        self,
        adapter: CopilotCliAdapter,
        emit: Emitter,
        context: Context,
        session_key: str,
        parent_key: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.adapter = adapter
        self.emit = emit
        self.accounting = context.accounting
        self.context = context
        self.session_key = session_key
        self.parent_key = parent_key
        self.agent_id = agent_id
        #: toolCallId -> its tool_call record as written, until the result arrives
        self.open_calls: dict[str, dict[str, Any]] = {}
        #: calls open when an ``abort`` came: their result is interrupted
        self.aborted: set[str] = set()
        #: the last ``assistant.reasoning`` written, until the next message: (text, its ref)
        self.reasoning_event: tuple[str, str] | None = None
        self.last_reasoning: tuple[Any, Any] | None = None  # (opaque key, messageId)
        #: the responses (inference id, else messageId) whose ``usage`` was written
        self.usage_written = DigestMap()
        #: native id -> the record that last wrote it: a later record with it revises that one
        self.written = RecordIds()
        #: toolCallId -> its call as written (input and all): few kept in memory, starts follow
        #: their requests closely
        self.calls = SpillMap(limit=_CALLS_IN_MEMORY)
        #: toolCallIds whose result was written: a request or start arriving later never reopens them
        self.finished = DigestMap()
        self.init_subagents()
        self.init_outcomes()

    # -- dispatch -------------------------------------------------------------------------

    def feed(self, number: int, event: Any) -> Iterator[dict[str, Any]]:
        if type(event) is not dict:
            yield self._vendor("line", event)
            return
        kind = event.get("type")
        data = event.get("data")
        if not isinstance(data, dict):
            data = {}
        if kind == CHILD_SEEN:
            yield self.child_seen(event)
        elif kind not in _MAPPED:
            yield self._vendor(kind, event)
        elif kind == "assistant.message":
            yield from self._assistant(event, data)
        elif kind == "assistant.reasoning" and isinstance(data.get("content"), str):
            yield self._reasoning_event(event, data)
        elif kind == "user.message" and isinstance(data.get("content"), str):
            yield self._user(event, data)
        elif kind == "system.message" and isinstance(data.get("content"), str):
            yield self._system(event, data)
        elif kind == "system.notification" and isinstance(data.get("content"), str):
            yield self._notification(event, data)
        elif kind in _NOTICES and isinstance(data.get("message"), str):
            yield self._notice(event, data, _NOTICES[kind])
        elif kind == "tool.execution_start" and isinstance(data.get("toolCallId"), str):
            yield from self.tool_start(event, data)
        elif kind == "tool.user_requested" and isinstance(data.get("toolCallId"), str):
            yield from self.tool_start(event, data, by_user=True)  # a `!` command the person ran
        elif kind == "tool.execution_complete" and isinstance(data.get("toolCallId"), str):
            yield self.tool_result(event, data)
        elif kind == "subagent.started" and isinstance(data.get("toolCallId"), str):
            yield self.subagent_started(event, data)
        elif kind == "subagent.completed" and data.get("cancelled") is True and self.has_subagent(data):
            yield self.subagent_ended(event, data, "interrupted", "completed")
        elif kind == "subagent.failed" and self.has_subagent(data):
            yield self.subagent_ended(event, data, "error", "failed")
        elif kind == "permission.completed" and isinstance(data.get("toolCallId"), str):
            yield self.permission(event, data)
        elif kind == "session.compaction_start":
            yield self.compaction_start(event)
        elif kind == "session.compaction_complete":
            yield self.compaction_complete(event, data)
        elif kind == "abort":
            self.aborted.update(self.open_calls)  # the turn was stopped: its open calls with it
            yield self._vendor(kind, event)
        elif kind == "session.shutdown":
            yield self._vendor(kind, event)
            yield from self.close_open_calls(event, data)
        else:
            yield self._vendor(kind, event)

    # -- records --------------------------------------------------------------------------

    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        """Emit ``record``; one whose native id (``messageId``, a tool call's or subagent's
        ``callId``) an earlier record wrote (a resumed run writing an event again with a new
        envelope id; a call's status known later) ``supersedes`` it, so no native id is claimed
        twice."""
        kind = record["type"]
        field = _NATIVE_ID.get(kind)
        native = record.get(field) if field is not None else None
        if type(native) is str:
            key = f"{kind}:{native}"
            written = self.written
            earlier = written.get(key)
            if earlier is not None:
                record["supersedes"] = earlier
            written[key] = self.emit.next_id
        return self.emit(record)

    def _written(self, kind: str, native: str) -> bool:
        return self.written.get(f"{kind}:{native}") is not None

    def _base(self, kind: str, event: dict[str, Any]) -> dict[str, Any]:
        """``start(kind)`` stamped with the event's time (``stamp``, inlined: once per record)."""
        record = {"type": kind, "seq": 0, "id": ""}
        ts, precision = from_iso(event.get("timestamp"))
        if ts is not None:
            record["ts"] = ts
            if precision is not None:
                record["tsPrecision"] = precision
        return record

    def _vendor(self, kind: Any, event: Any) -> dict[str, Any]:
        """The event kept verbatim (``Adapter.vendor``); a vendor record has no native id, so
        it is emitted without ``_write``'s look-up."""
        self.accounting.vendor += 1
        record = self._base("vendor", event) if isinstance(event, dict) else start("vendor")
        name = kind if isinstance(kind, str) else "unknown"
        schema = _SCHEMAS.get(name)
        if schema is None:
            schema = schema_name(self.adapter.registry_name, name)
            if len(_SCHEMAS) < _SCHEMA_LIMIT:  # event types are few; a hostile file's are not kept
                _SCHEMAS[name] = schema
        record["schema"] = schema
        record["data"] = event
        return self.emit(record)

    def _user(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        self.accounting.records += 1
        self.reasoning_event = None
        record = self._base("message", event)
        record["messageId"] = event.get("id") if isinstance(event.get("id"), str) else f"line-{self.emit.seq + 1}"
        if not isinstance(event.get("id"), str):
            record["idSource"] = "derived"
        record["role"] = "user"
        author, origin = prompt_author(data, in_subagent=self.parent_key is not None)
        sender = self._sender(data.get("source"))
        if sender is not None:
            record["from"] = {"session": sender}
        content, display = prompt_parts(data["content"], data.get("transformedContent"), author, origin)
        partial = None
        if content:  # bytes sent natively beside the model-facing text (kept under native too)
            attached, partial = attachment_parts(data.get("attachments"))
            content.extend(attached)
        record["content"] = content
        if display is not None:
            record["displayContent"] = display
            if content:
                record["displayCorrespondence"] = "native"
        if not content:
            record["capture"] = {
                "content": {
                    "state": "absent",
                    "reason": "the CLI kept only the text as displayed (no transformedContent)",
                }
            }
        elif partial is not None:
            record["capture"] = {"content": {"state": "truncated", "reason": partial}}
        native_of(record, rest(data, ("content", "transformedContent")))
        return self._write(record)

    def _sender(self, source: Any) -> str | None:
        """The stream of the agent a prompt's ``source: agent-<agentId>`` names, when that
        agent is one this conversion writes: this subagent's parent, or a subagent this stream
        linked. ASR-226: ``from`` comes from the source, never from the author, and never
        names a stream that is not there (an agent id the file shows nowhere else)."""
        if not (isinstance(source, str) and source.startswith("agent-") and len(source) > len("agent-")):
            return None
        ref = session_ref(AGENT, child_key(self.session_key, source[len("agent-") :]))
        if ref == self.parent_key or any(link.get("session") == ref for link in self.subagents.values()):
            return ref
        return None

    def _system(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        role = data.get("role")
        return self._injected(event, data, role if role in ("system", "developer") else "system", ("content", "role"))

    def _notification(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """A runtime notice the CLI puts in the model's context (agent finished, shell done)."""
        return self._injected(event, data, "user", ("content",))

    def _injected(
        self, event: dict[str, Any], data: dict[str, Any], role: str, taken: tuple[str, ...]
    ) -> dict[str, Any]:
        """A message the harness put in the model's context, under the event's id."""
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id")
        record["role"] = role
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [text_part(data["content"])]
        native_of(record, rest(data, taken))
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
        record["native"] = {"level": level, **rest(data, ("message",))}
        return self._write(record)

    def _assistant(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """One model response (or one chunk of it): a message when it has text or reasoning,
        then one ``tool_call`` per tool request. Usage (``outputTokens``) goes on the first
        record of the response, once per inference id."""
        self.accounting.records += 1
        inference = data.get("apiCallId")  # the first non-empty string of the two
        if not (inference and isinstance(inference, str)):
            inference = data.get("requestId")
            if not (inference and isinstance(inference, str)):
                inference = None
        text = data.get("content")
        reasoning_text = data.get("reasoningText")
        native_extra: dict[str, Any] = {}
        event_reasoning, self.reasoning_event = self.reasoning_event, None
        if event_reasoning is not None and reasoning_text == event_reasoning[0]:
            # the text the ``assistant.reasoning`` just before already wrote, as a reasoning-only
            # message under its own id (ASR-219): named here, not written twice
            reasoning_text = None
            native_extra["reasoningTextIn"] = event_reasoning[1]
        message_id = data.get("messageId")
        if not isinstance(message_id, str):
            message_id = event.get("id")
        parts: list[Any] = []
        key = opaque_key(data)
        if key is not None and self.last_reasoning is not None and self.last_reasoning[0] == key:
            native_extra["reasoningRepeatsMessage"] = f"messageId={self.last_reasoning[1]}"  # the same block again
        else:
            reasoning = reasoning_parts(reasoning_text, data)
            if reasoning and "reasoningTextIn" in native_extra:
                del reasoning[0]["visibility"]  # not ciphertext alone: its text is in the named record
            if reasoning:
                parts.extend(reasoning)
                if key is not None:
                    self.last_reasoning = (key, message_id)
        if isinstance(text, str) and text:
            parts.append(text_part(text))
        requests = data.get("toolRequests")
        calls = (
            [r for r in requests if isinstance(r, dict) and isinstance(r.get("toolCallId"), str)]
            if isinstance(requests, list)
            else []
        )
        if not parts and not calls and isinstance(text, str):
            parts.append(text_part(text))  # an empty response: the source kept it empty
        revises = isinstance(message_id, str) and self._written("message", message_id)
        usage = self._usage(inference, message_id, data, revises)
        taken = _MESSAGE_FIELDS_AND_REQUEST if inference == data.get("requestId") else _MESSAGE_FIELDS
        response_native = rest(data, taken)
        if native_extra:
            response_native.update(native_extra)
        if parts or not calls:
            record = self._base("message", event)
            if inference is not None:
                record["inferenceId"] = inference
            record["messageId"] = message_id
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = parts
            if not parts:
                record["capture"] = {"content": {"state": "absent", "reason": "the event holds no content"}}
            self._model_and_usage(record, data, usage)
            native_of(record, response_native)
            yield self._write(record)
        for index, request in enumerate(calls):
            call = self._base("tool_call", event)
            if inference is not None:
                call["inferenceId"] = inference
            call["callId"] = request["toolCallId"]
            named = tool_name(call, request.get("name"))
            if parts:
                call["messageId"] = message_id
            call_input(call, request.get("arguments"))
            native: dict[str, Any] = {}
            if not parts:
                # a tools-only response has no message record: its ids ride on its calls
                native["messageId"] = message_id
                self._model_and_usage(call, data, usage if index == 0 else None, native_count=index == 0)
                if index == 0:
                    native.update(response_native)
            native.update(rest(request, ("toolCallId", "name", "arguments") if named else ("toolCallId", "arguments")))
            native_of(call, native)
            self.open_call(call)
            self.note_task_call(call)
            written = self._write(call)
            self.remember_call(call, {**rest(data, ()), "toolName": request.get("name")})
            yield written

    def _usage(
        self, inference: str | None, message_id: Any, data: dict[str, Any], revises: bool
    ) -> dict[str, int] | None:
        """``usage`` for this record, or None: a record revising an earlier record of the same
        message never carries it, nor does a later chunk of a response already counted (the
        same inference id), however far apart the two lines are."""
        tokens = data.get("outputTokens")
        if type(tokens) is not int or tokens < 0 or revises:
            return None
        response = inference if inference is not None else message_id
        if isinstance(response, str):
            key = ("i:" if inference is not None else "m:") + response
            if self.usage_written.get(key) is not None:
                return None
            self.usage_written[key] = 1
        return {"outputTokens": tokens}

    @staticmethod
    def _model_and_usage(
        record: dict[str, Any], data: dict[str, Any], usage: dict[str, int] | None, native_count: bool = True
    ) -> None:
        """``model``, ``usage`` once per response and the record's own count (``nativeUsage``).
        A message written again (``supersedes``) or a later chunk of a response keeps its
        native count while ``usage`` stays on the record that first counted the response, so
        summing ``usage`` over a stream counts each response once (docs/format.md)."""
        if isinstance(data.get("model"), str):
            record["model"] = data["model"]
        if usage is not None:
            record["usage"] = usage
        tokens = data.get("outputTokens")
        if native_count and type(tokens) is int and tokens >= 0:
            record["nativeUsage"] = {"outputTokens": tokens}

    def _reasoning_event(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """``assistant.reasoning``: a reasoning-only message under its ``reasoningId``
        (ASR-219), written at once whatever follows it."""
        self.accounting.records += 1
        record = self._base("message", event)
        reasoning_id = data.get("reasoningId")
        record["messageId"] = reasoning_id if isinstance(reasoning_id, str) else event.get("id")
        record["role"] = "assistant"
        record["author"] = "model"
        record["content"] = [{"type": "reasoning", "text": data["content"]}]
        native_of(record, rest(data, ("reasoningId", "content")))
        self.reasoning_event = (data["content"], f"messageId={record['messageId']}")
        return self._write(record)


_NATIVE_ID = {"message": "messageId", "tool_call": "callId", "tool_result": "callId", "subagent": "callId"}
#: event type -> its vendor schema name (``schema_name``), for the first event types seen
_SCHEMAS: dict[str, str] = {}
_SCHEMA_LIMIT = 512
#: the event types mapped to records of their own (every other type is a vendor record)
_MAPPED = frozenset(
    {
        "user.message",
        "system.message",
        "system.notification",
        *_NOTICES,
        "tool.execution_start",
        "tool.user_requested",
        "tool.execution_complete",
        "subagent.started",
        "subagent.completed",
        "subagent.failed",
        "assistant.message",
        "assistant.reasoning",
        "abort",
        "session.shutdown",
        "permission.completed",
        "session.compaction_start",
        "session.compaction_complete",
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
_MESSAGE_FIELDS_AND_REQUEST = (*_MESSAGE_FIELDS, "requestId")
