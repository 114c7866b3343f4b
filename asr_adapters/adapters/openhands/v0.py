"""V0 events (``openhands-ai`` 0.x: ``action`` / ``observation`` JSON, ``events/<id>.json``)
into ASR records.

A function-calling action carries ``tool_call_metadata``: the call's id and name and the whole
LiteLLM response it came from (``model_response``, with that call's ``usage``); its
observation answers it by ``cause`` (the action's id) and repeats the metadata, which is not
a second call. The model's visible text for a call is the action's ``args.thought``.
``llm_metrics`` on agent actions is a running total, kept verbatim (docs/agents/openhands.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.outcome import not_a_failure
from .common import REGISTRY, EventMapper, image_parts, litellm_usage, obj

_ENVELOPE = ("id", "timestamp", "source", "action", "observation")
AUTHORS = {"user": "human", "agent": "model", "environment": "harness"}
#: actions that are bookkeeping, not conversation (vendor records)
_STATE_ACTIONS = frozenset({"change_agent_state", "recall", "pause", "resume", "stop", "null", "condensation_request"})


def _same_message(event: dict[str, Any], content: Any) -> tuple[str, ...]:
    """``("message",)`` when the event's display ``message`` only repeats its content (then it
    is not kept twice), else nothing."""
    return ("message",) if event.get("message") == content else ()


def _call_arguments(metadata: dict[str, Any]) -> Any:
    """The model's arguments for this call, from the response it came in."""
    response = metadata.get("model_response")
    call_id = metadata.get("tool_call_id")
    choices = response.get("choices") if isinstance(response, dict) else None
    for choice in choices if isinstance(choices, list) else ():
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict) and call.get("id") == call_id:
                function = obj(call.get("function"))
                return function.get("arguments")
    return None


class V0Mapper(EventMapper):
    """The events of one V0 conversation, in id order."""

    def __init__(self, emit: Emitter, accounting: Accounting, vendor: Callable[[str, Any], dict[str, Any]]) -> None:
        self.emit = emit
        self.accounting = accounting
        self.vendor = vendor
        self.calls: dict[int, tuple[str, str | None]] = {}  # action id -> (callId, name)
        self.responses: set[str] = set()  # model_response ids whose usage is written
        self.record_of: dict[int, str] = {}
        self.snapshot: dict[str, Any] | None = None  # the last ``llm_metrics`` running total
        self.previous: dict[str, Any] | None = None  # the one before the current event
        self.index = 0  # the current event file's number

    def event(self, event: dict[str, Any], index: int) -> Iterator[dict[str, Any]]:
        """One event file's records; ``index`` is the number in its name, which the derived
        message id uses (an event's own ``id`` equals it unless the file was altered)."""
        self.index = index
        previous = self.snapshot
        metrics = event.get("llm_metrics")
        total = metrics.get("accumulated_token_usage") if isinstance(metrics, dict) else None
        if isinstance(total, dict):
            self.snapshot = total
        self.previous = previous
        if isinstance(event.get("action"), str):
            kind = f"action/{event['action']}"
            records = self._action(event)
        elif isinstance(event.get("observation"), str):
            kind = f"observation/{event['observation']}"
            records = self._observation(event)
        else:
            kind, records = "unknown", None
        yield from self._emitted(kind, event, records, event["id"] if isinstance(event.get("id"), int) else None)

    def _native(self, record: dict[str, Any], event: dict[str, Any], known: tuple[str, ...] = ()) -> None:
        """The event's members no ASR member carries, under ``openhands``: its ``id`` and its
        ``action`` or ``observation`` type first (``run`` and ``run_ipython`` are different
        tools, whatever the call is named), a zoneless ``timestamp`` among them."""
        rest: dict[str, Any] = {"id": event.get("id")}
        for kind in ("action", "observation"):
            if kind in event:
                rest[kind] = event[kind]
        if "ts" not in record and "timestamp" in event:
            rest["timestamp"] = event["timestamp"]
        rest.update((k, v) for k, v in event.items() if k not in _ENVELOPE and k not in known)
        rest["source"] = event.get("source")
        record["openhands"] = rest

    def _message(self, event: dict[str, Any], role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
        record = self._base(start("message"), event)
        record["messageId"] = f"event:{self.index}"
        record["idSource"] = "derived"
        record["role"] = role
        return record

    # -- actions -------------------------------------------------------------------------

    def _action(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        action = event["action"]
        args = obj(event.get("args"))
        source = event.get("source")
        metadata = event.get("tool_call_metadata")
        if action == "system":
            record = self._message(event, "system", [])
            record["author"] = "harness"
            record["origin"] = "injected"
            content = args.get("content")
            record["content"] = [{"type": "text", "text": content}] if isinstance(content, str) else []
            if not record["content"]:
                record["capture"] = {"content": {"state": "absent", "reason": "the event stored no text content"}}
            self._native(record, event, _same_message(event, content))
            record["openhands"]["args"] = {k: v for k, v in args.items() if k != "content"}
            return [record]
        if isinstance(metadata, dict) and isinstance(metadata.get("tool_call_id"), str):
            return self._tool_action(event, args, metadata)
        if action == "message":
            role = "assistant" if source == "agent" else "user"
            record = self._message(event, role, [])
            author = AUTHORS.get(source) if isinstance(source, str) else None
            if author is not None:
                record["author"] = author
            if role == "user" and author is not None:
                record["origin"] = "prompt" if author == "human" else "injected"
            content = args.get("content")
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else []
            parts.extend(image_parts(args.get("image_urls")))
            record["content"] = parts
            if not parts:
                record["capture"] = {"content": {"state": "absent", "reason": "the event stored no content"}}
            derived = self._usage_from_totals() if role == "assistant" else None
            if derived is not None:
                record["usage"] = derived
            self._native(record, event, _same_message(event, content))
            if derived is not None:
                record["openhands"]["usageFrom"] = (
                    "llm_metrics: the change of accumulated_token_usage since the previous action"
                )
            record["openhands"]["args"] = {k: v for k, v in args.items() if k != "content"}
            return [record]
        if (
            action == "condensation"
            and isinstance(args.get("summary"), str)
            and args.get("summary_offset").__class__ is int  # View.from_events needs both
        ):
            return [self._condensation(event, args)]
        return None  # state changes, recall requests, actions with no call: vendor records

    def _usage_from_totals(self) -> dict[str, Any] | None:
        """A reply with no ``model_response`` (a ``message`` action) has its usage only inside
        the running total: the change since the previous snapshot, taken only when it is one
        response's (prompt + completion equal the snapshot's ``per_turn_token``, the last
        call's own count) and no count went down."""
        now, before = self.snapshot, self.previous
        if now is None or before is None or now is before:
            return None
        names = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
        change: dict[str, int] = {}
        for name in names:
            a, b = now.get(name), before.get(name)
            if a.__class__ is not int or b.__class__ is not int or a < b:
                return None
            change[name] = a - b
        turn = now.get("per_turn_token")
        if turn.__class__ is not int or turn <= 0 or change["prompt_tokens"] + change["completion_tokens"] != turn:
            return None
        return litellm_usage(change)

    def _tool_action(
        self, event: dict[str, Any], args: dict[str, Any], metadata: dict[str, Any]
    ) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        response = obj(metadata.get("model_response"))
        response_id = response.get("id") if isinstance(response.get("id"), str) else None
        first = response_id is None or response_id not in self.responses
        thought = args.get("thought")
        usage_target: dict[str, Any] | None = None
        if isinstance(thought, str) and thought:
            message = self._message(event, "assistant", [])
            if response_id:
                message["inferenceId"] = response_id
            message["author"] = "model"
            message["content"] = [{"type": "text", "text": thought}]
            records.append(message)
            usage_target = message
        call = self._base(start("tool_call"), event)
        call["callId"] = metadata["tool_call_id"]
        if response_id:
            call["inferenceId"] = response_id
        name = metadata.get("function_name") if isinstance(metadata.get("function_name"), str) else None
        if name is not None:
            call["name"] = name
        if records:
            call["messageId"] = records[0]["messageId"]
        arguments = _call_arguments(metadata)
        if isinstance(arguments, str):
            try:
                call["input"] = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                call["arguments"] = arguments
        else:  # the response did not keep the call: the executed action's arguments
            call["input"] = {k: v for k, v in args.items() if k != "thought"}
        records.append(call)
        if usage_target is None:
            usage_target = call
        if first and response_id:
            self.responses.add(response_id)
        usage = response.get("usage")
        if first and isinstance(usage, dict):
            normalized = litellm_usage(usage)
            if isinstance(response.get("model"), str):
                usage_target["model"] = response["model"]
            if normalized is not None:
                usage_target["usage"] = normalized
                usage_target["nativeUsage"] = usage
        self._native(call, event)
        self.calls[event["id"]] = (metadata["tool_call_id"], name) if isinstance(event.get("id"), int) else ("", None)
        return records

    def _condensation(self, event: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        record = self._message(event, "user", [])
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [{"type": "text", "text": args["summary"]}]
        record["summaryOf"] = "compaction"
        ids = args.get("forgotten_event_ids")
        if not isinstance(ids, list):
            low, high = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
            ids = list(range(low, high + 1)) if isinstance(low, int) and isinstance(high, int) else []
        forgotten = sorted(
            (self.record_of[i] for i in ids if type(i) is int and i in self.record_of), key=lambda r: int(r[1:])
        )
        record["compaction"] = {"from": forgotten[0], "through": forgotten[-1]} if forgotten else {}
        self._native(record, event)
        return record

    # -- observations --------------------------------------------------------------------

    def _observation(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        observation = event["observation"]
        cause = event.get("cause")
        metadata = event.get("tool_call_metadata")
        call = self.calls.get(cause) if isinstance(cause, int) else None
        if call is None and isinstance(metadata, dict) and isinstance(metadata.get("tool_call_id"), str):
            call = (metadata["tool_call_id"], metadata.get("function_name"))
        if observation == "recall":
            return [self._recall(event)]
        if call is None:
            return None  # agent state changes, errors answering no call: vendor records
        record = self._base(start("tool_result"), event)
        record["callId"] = call[0]
        if isinstance(call[1], str):
            record["name"] = call[1]
        extras = obj(event.get("extras"))
        metadata_extra = obj(extras.get("metadata"))
        exit_code = metadata_extra.get("exit_code")
        success = event.get("success")
        if observation == "user_rejected":
            record["status"] = f"{REGISTRY}/denied"
        elif observation == "error":
            record["isError"] = True
        elif exit_code.__class__ is int and exit_code >= 0:
            record["exitCode"] = exit_code
            record["isError"] = exit_code != 0
        elif isinstance(success, bool):
            record["isError"] = not success
        if record.get("status"):
            not_a_failure(record)
        content = event.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else []
        parts.extend(image_parts(extras.get("image_urls")))
        record["content"] = parts
        self._native(record, event, ("content", "tool_call_metadata"))
        return [record]

    def _recall(self, event: dict[str, Any]) -> dict[str, Any]:
        """What a ``recall`` found (workspace context, repository instructions, knowledge):
        inserted for the model by the harness, kept as the data it stored (the text the
        model received is rendered at send time and not stored)."""
        record = self._message(event, "user", [])
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [{"type": "data", "data": event.get("extras"), "schema": f"{REGISTRY}/recall"}]
        self._native(record, event, ("extras",))
        return record
