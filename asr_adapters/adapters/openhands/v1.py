"""V1 events (``openhands-sdk``: ``kind``-tagged JSON, one file each) into ASR records.

One event is one native item. A tool call is an ``ActionEvent`` (its visible ``thought`` and
reasoning become an assistant message before the call, on the first call of a response only);
its result is the ``ObservationEvent``, ``UserRejectObservation`` or ``AgentErrorEvent`` with
the same ``tool_call_id``. Usage is not on events: ``base_state.json`` keeps one ``TokenUsage``
per model response, keyed by the events' ``llm_response_id`` (docs/agents/openhands.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.outcome import not_a_failure
from ...model.vocab import ROLES
from .common import REGISTRY, EventMapper, content_parts, litellm_usage, obj, stamp_event

_ENVELOPE = ("kind", "id", "timestamp", "source")
#: text the SDK and the CLI write as ``source: user`` messages: the critic's iterative-refinement
#: follow-up (``CriticBase.get_followup_prompt``; real CLI 1.12 sample, events 3, 5, 11) and the
#: corrective nudge after a response with no call and no text (``source: user`` from 2026-03-20
#: to SDK 8e7e7859, 2026-07-28; ``source: environment`` since): the harness's, not the person's
HARNESS_PROMPTS = re.compile(
    r"The task appears incomplete \(iteration \d+|Your last response did not include a function call or a message"
)
_MESSAGE_KNOWN = ("llm_message", "llm_response_id", "extended_content")
_ACTION_KNOWN = (
    "thought", "reasoning_content", "thinking_blocks", "responses_reasoning_item",
    "tool_name", "tool_call_id", "llm_response_id",
)  # fmt: skip
_RESULT_KNOWN = ("tool_name", "tool_call_id")
NO_CONTENT = {"state": "absent", "reason": "the event stored no content"}
AUTHORS = {"user": "human", "agent": "model", "environment": "harness", "hook": "hook"}


def reasoning_parts(item: dict[str, Any]) -> list[dict[str, Any]]:
    """Reasoning as the SDK stores it: Anthropic ``thinking_blocks`` (signed; redacted ones
    opaque), OpenAI ``responses_reasoning_item`` (summary, ciphertext), and the provider's plain
    ``reasoning_content`` unless it only repeats the thinking blocks' text."""
    parts: list[dict[str, Any]] = []
    thinking_text = []
    for block in item.get("thinking_blocks") or ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "redacted_thinking":
            opaque: dict[str, Any] = {"format": "anthropic.redacted_thinking"}
            if isinstance(block.get("data"), str):
                opaque["data"] = block["data"]
            parts.append({"type": "reasoning", "visibility": "redacted", "opaque": opaque})
            continue
        thinking = block.get("thinking")
        part: dict[str, Any] = {"type": "reasoning", "text": thinking if isinstance(thinking, str) else ""}
        thinking_text.append(part["text"])
        if isinstance(block.get("signature"), str):
            part["signature"] = block["signature"]
        parts.append(part)
    plain = item.get("reasoning_content")
    if isinstance(plain, str) and plain and plain != "".join(thinking_text) and plain != "\n".join(thinking_text):
        parts.insert(0, {"type": "reasoning", "text": plain})
    responses = item.get("responses_reasoning_item")
    if isinstance(responses, dict) and not _nonempty(responses.get("id")):
        parts.append(responses_part(responses))
    return parts


def responses_part(responses: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Responses reasoning item as one reasoning part: its summary segments, its
    plain content, its ciphertext; its other members (``status``) under ``_meta``."""
    part: dict[str, Any] = {"type": "reasoning"}
    summary = [s for s in responses.get("summary") or () if isinstance(s, str)]
    content = [s for s in responses.get("content") or () if isinstance(s, str)]
    encrypted = responses.get("encrypted_content")
    if content:
        part["visibility"] = "full"
        part["text"] = "".join(content)
    elif summary:
        part["visibility"] = "summary"
    elif isinstance(encrypted, str):
        part["visibility"] = "encrypted"
    part["summary"] = summary
    if isinstance(encrypted, str):
        part["opaque"] = {"format": "openai.encrypted_content", "data": encrypted}
    rest = {k: v for k, v in responses.items() if k not in ("summary", "content", "encrypted_content")}
    if rest:
        part["_meta"] = {f"{REGISTRY}/item": rest}
    return part


def reasoning_item_message(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any] | None:
    """A Responses reasoning item with its own id as a reasoning-only message with that id
    (ASR-219), not folded into the event's message."""
    responses = item.get("responses_reasoning_item")
    if not isinstance(responses, dict) or not _nonempty(responses.get("id")):
        return None
    record = start("message")
    stamp_event(record, event.get("timestamp"))
    record["messageId"] = responses["id"]
    if _nonempty(event.get("llm_response_id")):
        record["inferenceId"] = event["llm_response_id"]
    record["role"] = "assistant"
    record["author"] = "model"
    part = responses_part({k: v for k, v in responses.items() if k != "id"})
    record["content"] = [part]
    record["openhands"] = {"id": event.get("id"), "kind": event.get("kind")}
    if "ts" not in record and "timestamp" in event:
        record["openhands"]["timestamp"] = event["timestamp"]
    return record


class V1Mapper(EventMapper):
    """The events of one V1 conversation, in index order."""

    def __init__(
        self,
        emit: Emitter,
        accounting: Accounting,
        vendor: Callable[[str, Any], dict[str, Any]],
        usages: dict[str, dict[str, Any]],
        delegated: bool = False,
    ) -> None:
        self.emit = emit
        # A sub-agent conversation (``<parent>/subagents/<hex>/``): its ``source: user`` messages
        # are the parent's DelegateTool sending the task (``send_message``), not a person's words.
        self.delegated = delegated
        self.accounting = accounting
        self.vendor = vendor
        self.usages = usages  # llm_response_id -> TokenUsage, from base_state.json
        self.used: set[str] = set()
        self.record_of: dict[str, str] = {}  # event id -> the first record it became

    def event(self, event: dict[str, Any]) -> Iterator[dict[str, Any]]:
        kind = event.get("kind")
        event_id = event.get("id")
        fresh = _nonempty(event_id) and event_id not in self.record_of  # a repeated id: vendor
        handler = _HANDLERS.get(kind) if isinstance(kind, str) and fresh else None
        records = handler(self, event) if handler is not None else None
        name = kind if isinstance(kind, str) else "unknown"
        yield from self._emitted(name, event, records, event_id if isinstance(event_id, str) else None)

    # -- helpers -------------------------------------------------------------------------

    def _native(self, record: dict[str, Any], event: dict[str, Any], known: tuple[str, ...]) -> None:
        """The event's members no ASR member carries, verbatim, under ``openhands``: its ``id``
        and ``kind`` first (other events name it by id: ``forgotten_event_ids``, a critic's
        ``event_ids``), a zoneless ``timestamp`` among them."""
        rest = {"id": event.get("id"), "kind": event.get("kind")}
        rest.update((k, v) for k, v in event.items() if k not in known and k not in _ENVELOPE)
        if "ts" not in record and "timestamp" in event:
            rest["timestamp"] = event["timestamp"]
        rest["source"] = event.get("source")
        record["openhands"] = rest

    def _usage(self, record: dict[str, Any], response: Any) -> None:
        """The response's usage, on its first record only."""
        if not isinstance(response, str) or response in self.used:
            return
        self.used.add(response)
        token_usage = self.usages.get(response)
        if token_usage is None:
            return
        if isinstance(token_usage.get("model"), str):
            record["model"] = token_usage["model"]
        usage = litellm_usage(token_usage)
        if usage is not None:
            record["usage"] = usage
            record["nativeUsage"] = token_usage

    # -- kinds ---------------------------------------------------------------------------

    def _system(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        record = self._base(start("message"), event)
        record["messageId"] = event.get("id")
        record["role"] = "system"
        record["author"] = "harness"
        record["origin"] = "injected"
        parts = content_parts([event["system_prompt"]] if isinstance(event.get("system_prompt"), dict) else [])
        if isinstance(event.get("dynamic_context"), dict):
            parts.extend(content_parts([event["dynamic_context"]]))
        record["content"] = parts
        self._native(record, event, ("system_prompt", "dynamic_context"))
        return [record]

    def _message(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        message = event.get("llm_message")
        if not isinstance(message, dict) or not _nonempty(message.get("role")):
            return None  # no role to give it: a vendor record
        source = event.get("source")
        record = self._base(start("message"), event)
        record["messageId"] = event.get("id")
        response = event.get("llm_response_id")
        if isinstance(response, str):
            record["inferenceId"] = response
        role = message.get("role")
        record["role"] = role if role in ROLES else f"{REGISTRY}/{role}"
        parts: list[dict[str, Any]] = reasoning_parts(message) if role == "assistant" else []
        parts.extend(content_parts(message.get("content")))
        author = AUTHORS.get(source) if isinstance(source, str) else None
        text = parts[0].get("text") if parts and parts[0].get("type") == "text" else None
        if source == "user" and isinstance(text, str) and HARNESS_PROMPTS.match(text):
            author = "harness"
        if author == "human" and self.delegated:
            author = "agent"  # the parent agent's task (ASR-202), as a Droid or Cursor child's
        if author is not None:
            record["author"] = author
        if role == "user" and author is not None:
            record["origin"] = "prompt" if author in ("human", "agent") else "injected"
        for item in event.get("extended_content") or ():  # skill and rule text sent with it
            for part in content_parts([item]):
                parts.append({**part, "author": "harness", "origin": "injected"})
        record["content"] = parts
        if not parts:  # an empty response (the SDK answers it with its corrective nudge)
            record["capture"] = {"content": dict(NO_CONTENT)}
        if role == "assistant":
            self._usage(record, response)
        self._native(record, event, _MESSAGE_KNOWN)
        extra = {
            k: v
            for k, v in message.items()
            if k not in ("role", "content", "reasoning_content", "thinking_blocks", "responses_reasoning_item")
        }
        if extra:
            record["openhands"]["llm_message"] = extra
        reasoning_item = reasoning_item_message(message, event) if role == "assistant" else None
        return [reasoning_item, record] if reasoning_item is not None else [record]

    def _action(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        native_call = obj(event.get("tool_call"))
        call_id = event.get("tool_call_id") if _nonempty(event.get("tool_call_id")) else native_call.get("id")
        if not _nonempty(call_id):
            return []  # a call with no id cannot be answered: a vendor record
        reasoning_item = reasoning_item_message(event, event)
        records: list[dict[str, Any]] = [reasoning_item] if reasoning_item is not None else []
        response = event.get("llm_response_id")
        parts = reasoning_parts(event)
        parts.extend(p for p in content_parts(event.get("thought")) if p.get("type") != "text" or p["text"])
        call = start("tool_call")
        self._base(call, event)
        if parts:
            message = self._base(start("message"), event)
            message["messageId"] = event.get("id")
            if isinstance(response, str):
                message["inferenceId"] = response
            message["role"] = "assistant"
            message["author"] = "model"
            message["content"] = parts
            self._usage(message, response)
            records.append(message)
        call["callId"] = call_id
        if isinstance(response, str):
            call["inferenceId"] = response
        name = event.get("tool_name") if _nonempty(event.get("tool_name")) else native_call.get("name")
        if _nonempty(name):
            call["name"] = name
        if parts:
            call["messageId"] = event.get("id")
        arguments = native_call.get("arguments")
        if isinstance(arguments, str):
            try:
                call["input"] = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                call["arguments"] = arguments
        elif isinstance(event.get("action"), dict):
            call["input"] = {k: v for k, v in event["action"].items() if k != "kind"}
        self._usage(call, response)
        self._native(call, event, _ACTION_KNOWN)
        if native_call:
            call["openhands"]["tool_call"] = {
                k: v for k, v in native_call.items() if k not in ("id", "name", "arguments")
            }
        records.append(call)
        return records

    def _result(self, event: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        if not _nonempty(event.get("tool_call_id")):
            return []  # answers no call it names: a vendor record
        record = self._base(start("tool_result"), event)
        record["callId"] = event.get("tool_call_id")
        if isinstance(event.get("tool_name"), str):
            record["name"] = event["tool_name"]
        known: tuple[str, ...] = _RESULT_KNOWN
        if kind == "ObservationEvent":
            observation = obj(event.get("observation"))
            error = observation.get("is_error")
            exit_code = observation.get("exit_code")
            if exit_code.__class__ is int and exit_code >= 0:
                record["exitCode"] = exit_code
                record["isError"] = error is True or exit_code != 0
            elif isinstance(error, bool):
                record["isError"] = error
            record["content"] = content_parts(observation.get("content"))
            self._native(record, event, known)
            record["openhands"]["observation"] = {k: v for k, v in observation.items() if k != "content"}
            return [record]
        if kind == "UserRejectObservation":
            record["status"] = f"{REGISTRY}/denied"
            not_a_failure(record)
            reason = event.get("rejection_reason")
            record["content"] = [{"type": "text", "text": reason}] if isinstance(reason, str) else []
            known = (*known, "rejection_reason")
        else:  # AgentErrorEvent: the scaffold's error, sent back to the model as the result
            record["isError"] = True
            error = event.get("error")
            record["content"] = [{"type": "text", "text": error}] if isinstance(error, str) else []
            known = (*known, "error")
        self._native(record, event, known)
        return [record]

    def _condensation(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        """A condensation with a summary and its ``summary_offset``: the summary the model sees
        instead of the forgotten events (they stay on disk, so ``from`` / ``through`` name their
        records). ``Condensation.apply`` inserts the summary only when both are set."""
        summary = event.get("summary")
        if not isinstance(summary, str) or event.get("summary_offset").__class__ is not int:
            return None  # no summary, or one the SDK never puts in the view (no offset): a vendor record
        record = self._base(start("message"), event)
        record["messageId"] = f"{event.get('id')}-summary"  # the SDK's CondensationSummaryEvent id
        record["idSource"] = "derived"
        record["role"] = "user"
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [{"type": "text", "text": summary}]
        record["summaryOf"] = "compaction"
        ids = event.get("forgotten_event_ids")
        forgotten = (
            [self.record_of[i] for i in ids if isinstance(i, str) and i in self.record_of]
            if isinstance(ids, list)
            else []
        )
        replaced: dict[str, str] = {}
        if forgotten:
            ordered = sorted(forgotten, key=lambda r: int(r[1:]))
            replaced = {"from": ordered[0], "through": ordered[-1]}
        record["compaction"] = replaced
        self._usage(record, event.get("llm_response_id"))  # the condenser's own model call
        self._native(record, event, ("summary",))
        return [record]


_HANDLERS: dict[str, Callable[[V1Mapper, dict[str, Any]], list[dict[str, Any]] | None]] = {
    "SystemPromptEvent": V1Mapper._system,
    "MessageEvent": V1Mapper._message,
    "ActionEvent": V1Mapper._action,
    "ObservationEvent": lambda m, e: m._result(e, "ObservationEvent"),
    "UserRejectObservation": lambda m, e: m._result(e, "UserRejectObservation"),
    "AgentErrorEvent": lambda m, e: m._result(e, "AgentErrorEvent"),
    "Condensation": V1Mapper._condensation,
}


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def token_usages(state: Any) -> dict[str, dict[str, Any]]:
    """``response_id`` -> its ``TokenUsage``, over every usage id of ``stats.usage_to_metrics``
    (pre-2025-10-19 ``service_to_metrics``)."""
    found: dict[str, dict[str, Any]] = {}
    stats = state.get("stats") if isinstance(state, dict) else None
    if not isinstance(stats, dict):
        return found
    metrics = stats.get("usage_to_metrics") or stats.get("service_to_metrics")
    for entry in metrics.values() if isinstance(metrics, dict) else ():
        for usage in entry.get("token_usages") or () if isinstance(entry, dict) else ():
            response = usage.get("response_id") if isinstance(usage, dict) else None
            if isinstance(response, str) and response and response not in found:
                found[response] = usage
    return found
