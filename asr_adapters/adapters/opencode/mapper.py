"""One OpenCode session (from any store) -> the records of its ASR stream.

Each message is one ``message`` record (its text, reasoning, file and mention parts as
content), followed by the records of its other parts in part order: a ``tool`` part is a
``tool_call`` and its ``tool_result`` (OpenCode keeps both in one part, in its last state), a
``task`` call also a ``subagent`` record naming the child session, a ``todowrite`` call also a
``plan``; parts we have no record for are ``vendor`` records. Step boundaries are folded into
the message; their usage is placed once per model call (``place_usage``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.refs import session_ref
from ...core.spill import SpillMap
from ...core.timestamps import from_epoch_millis, stamp
from .parts import (
    CONTENT_TYPES,
    REGISTRY,
    STEP_TYPES,
    data_part,
    file_part,
    leftover,
    native_usage,
    normalized_usage,
    obj,
    reasoning_part,
    text_of,
    tool_content,
)
from .plans import TodoPlans
from .store import NativeMessage
from .usage import Usage, place_usage

AGENT = "opencode"
_INFO_MOVED = ("id", "sessionID", "role", "parentID", "modelID", "tokens", "cost", "error", "summary")
_ABORTED = "MessageAbortedError"


def _time(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


class SessionMapper:
    """Maps the messages of one session; ``records`` yields them lazily."""

    def __init__(self, emit: Emitter, accounting: Accounting, info: dict[str, Any], vendor: Any) -> None:
        self.emit = emit
        self.accounting = accounting
        self.vendor = vendor
        parent = info.get("parentID")
        #: In a child session every prompt comes from the parent session's task tool.
        self.parent_session = session_ref(AGENT, parent) if isinstance(parent, str) and parent else None
        self.plans = TodoPlans(emit, accounting)
        #: call id -> the id of the tool_call record written for it (grows with the session: spilled)
        self.calls = SpillMap()
        #: ``session.revert``: what ``/undo`` hid (from a message, or a part of it, onward)
        self.revert = obj(info.get("revert"))
        self.revert_start: int | None = None  # the seq of the first record it hides

    def count(self, outcome: str, n: int = 1) -> None:
        setattr(self.accounting, outcome, getattr(self.accounting, outcome) + n)

    # -- messages --------------------------------------------------------------------------

    def message(self, native: NativeMessage) -> Iterator[dict[str, Any]]:
        info = native.info
        if self.revert and self.revert_start is None and info.get("id") == self.revert.get("messageID"):
            part = self.revert.get("partID")
            own = {p.get("id") for p in native.parts if p.get("type") not in CONTENT_TYPES | STEP_TYPES}
            if part is None or part not in own:  # hidden from the message on (a folded part: the message)
                self.revert_start = self.emit.seq + 1
        role = info.get("role")
        if native.outcome_due and role not in ("user", "assistant"):
            self.count("vendor")
            yield self.emit(self.vendor(f"message/{role}", info))
            native = NativeMessage(info, native.parts, outcome_due=False)
        if role == "user":
            yield from self._user(native)
        else:
            yield from self._assistant(native)

    def _user(self, native: NativeMessage) -> Iterator[dict[str, Any]]:
        info, parts = native.info, native.parts
        person = (
            {"author": "agent", "origin": "inter_session"}
            if self.parent_session
            else {"author": "human", "origin": "prompt"}
        )
        content: list[dict[str, Any]] = []
        display: list[dict[str, Any]] = []
        kept: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        has_ignored = False
        for part in parts:
            kind = part.get("type")
            if kind not in CONTENT_TYPES or kind == "reasoning":
                others.append(part)
                continue
            self.count("folded")
            if kind == "text":
                text = text_of(part) or ""
                kept.append(leftover(part, ("text",)))
                if part.get("ignored") is True:  # shown in the UI, never sent to the model
                    has_ignored = True
                    display.append({"type": "text", "text": text})
                elif part.get("synthetic") is True:  # put there by OpenCode, not typed
                    content.append({"type": "text", "text": text, "author": "harness", "origin": "injected"})
                else:
                    content.append({"type": "text", "text": text, **person})
                    display.append({"type": "text", "text": text, **person})
            elif kind == "file":
                kept.append(leftover(part, ("url",)))
                converted = file_part(part) or data_part(part)
                content.append({**converted, **person})
                display.append({**converted, **person})
            else:
                kept.append({"id": part.get("id"), "type": kind})
                converted = data_part(part)
                if kind == "compaction":
                    converted.update(author="harness", origin="injected")
                elif kind == "subtask":
                    converted["origin"] = "command"
                else:
                    converted.update(person)
                content.append(converted)
        if native.outcome_due or content or display:
            record = start("message")
            stamp(record, from_epoch_millis(_time(info.get("time"), "created")))
            record["turnId"] = info.get("id")
            record["messageId"] = info.get("id")
            record["role"] = "user"
            if self.parent_session:
                record["from"] = {"session": self.parent_session}
            record["content"] = content
            if has_ignored:
                record["displayContent"] = display
            if not content:
                reason = (
                    "every part is UI-only (ignored): nothing was sent to the model"
                    if has_ignored
                    else "OpenCode stored no part for this message"
                )
                record["capture"] = {"content": {"state": "absent", "reason": reason}}
            if not native.outcome_due:
                record["capture"] = {
                    **record.get("capture", {}),
                    "role": {"state": "absent", "reason": "the message's own file or row is unreadable"},
                }
                del record["role"]
            record[AGENT] = {"info": leftover(info, _INFO_MOVED), "parts": kept}
            if native.outcome_due:
                self.count("records")
            yield self.emit(record)
        for part in others:
            yield from self._other(part, None, info)

    def _assistant(self, native: NativeMessage) -> Iterator[dict[str, Any]]:
        info, parts = native.info, native.parts
        content: list[dict[str, Any]] = []
        kept: list[dict[str, Any]] = []
        steps: list[dict[str, Any]] = []
        step_of_tool: dict[int, int] = {}
        tools = 0
        for index, part in enumerate(parts):
            kind = part.get("type")
            if kind in STEP_TYPES:
                self.count("folded")
                kept.append(leftover(part))
                if kind == "step-finish":
                    steps.append(part)
            elif kind == "text":
                self.count("folded")
                content.append({"type": "text", "text": text_of(part) or ""})
                kept.append(leftover(part, ("text",)))
            elif kind == "reasoning":
                self.count("folded")
                content.append(reasoning_part(part))
                kept.append(leftover(part, ("text", "metadata")))
            elif kind in CONTENT_TYPES:
                self.count("folded")
                kept.append(leftover(part, ("url",)) if kind == "file" else {"id": part.get("id"), "type": kind})
                content.append(file_part(part) or data_part(part) if kind == "file" else data_part(part))
            elif kind == "tool":
                step_of_tool[index] = len(steps)
                tools += 1
        status = self._status(info)
        # a message with text, or with nothing else to carry its facts, or cut short (its status)
        write_message = bool(content) or tools == 0 or status != "complete"
        usages = self._usages(info, steps)
        message_usage, tool_usage = place_usage(usages, step_of_tool, write_message)
        if write_message:
            record = start("message")
            stamp(record, from_epoch_millis(_time(info.get("time"), "created")))
            self._turn(record, info)
            record["messageId"] = info.get("id")
            record["role"] = "assistant"
            record["author"] = "model"
            record["status"] = status
            record["content"] = content
            if not content:
                record["capture"] = {
                    "content": {"state": "absent", "reason": "OpenCode stored no text for this message"}
                }
            if not native.outcome_due:
                record["capture"] = {
                    **record.get("capture", {}),
                    "role": {"state": "absent", "reason": "the message's own file or row is unreadable"},
                }
                del record["role"]
            self._facts(record, info, message_usage, kept)
            if native.outcome_due:
                self.count("records")
            yield self.emit(record)
        elif native.outcome_due:
            self.count("folded")  # only tool calls: its facts ride on its first call
        first_tool = True
        for index, part in enumerate(parts):
            kind = part.get("type")
            if kind == "tool":
                facts = None
                if not write_message and first_tool:
                    facts = (info, kept)
                first_tool = False
                yield from self._tool(part, info, bool(content), tool_usage.get(index), facts)
            elif kind not in CONTENT_TYPES and kind not in STEP_TYPES:
                yield from self._other(part, None, info)

    def _usages(self, info: dict[str, Any], steps: list[dict[str, Any]]) -> list[Usage]:
        """One (usage, native usage) per model call of the message: each ``step-finish`` part
        (OpenCode overwrites the message's ``tokens`` with the last step's, so they are not
        added), or the message's own ``tokens`` when it has no step parts."""
        holders = steps if steps else [info]
        usages = []
        for holder in holders:
            usage = normalized_usage(holder.get("tokens"))
            if usage is not None:
                usages.append((usage, native_usage(holder)))
            else:
                usages.append(({}, {}))
        return usages

    def _status(self, info: dict[str, Any]) -> str:
        error = info.get("error")
        if isinstance(error, dict):
            return "interrupted" if error.get("name") == _ABORTED else "error"
        if _time(info.get("time"), "completed") is None:
            return "partial"
        return "complete"

    def _turn(self, record: dict[str, Any], info: dict[str, Any]) -> None:
        parent = info.get("parentID")
        if isinstance(parent, str) and parent:
            record["turnId"] = parent

    def _facts(
        self,
        record: dict[str, Any],
        info: dict[str, Any],
        usage: Usage | None,
        kept: list[dict[str, Any]],
    ) -> None:
        """The members every assistant holder carries: model, usage, error, summary, parent."""
        model = info.get("modelID")
        if isinstance(model, str):
            record["model"] = model
        if usage is not None and usage[0]:
            record["usage"], record["nativeUsage"] = usage
        if "error" in info:
            record["error"] = info["error"]
        if info.get("summary") is True:
            record["summaryOf"] = "compaction"
        parent = info.get("parentID")
        if isinstance(parent, str) and parent:
            record["parent"] = f"messageId={parent}"
        record[AGENT] = {"info": leftover(info, _INFO_MOVED), "parts": kept}

    # -- tools and other parts ---------------------------------------------------------------

    def _tool(
        self,
        part: dict[str, Any],
        info: dict[str, Any],
        in_message: bool,
        usage: Usage | None,
        facts: tuple[dict[str, Any], list[dict[str, Any]]] | None,
    ) -> Iterator[dict[str, Any]]:
        self._revert_from(part)
        self.count("records")
        state = obj(part.get("state"))
        status = state.get("status")
        native_call = part.get("callID")
        call_id: str = native_call if isinstance(native_call, str) else f"part:{part.get('id')}"
        name = part.get("tool") if isinstance(part.get("tool"), str) else "unknown"
        call = start("tool_call")
        stamp(call, from_epoch_millis(_time(state.get("time"), "start")))
        self._turn(call, info)
        if not in_message:
            call["inferenceId"] = info.get("id")
        call["callId"] = call_id
        call["name"] = name
        if in_message:
            call["messageId"] = info.get("id")
        if status == "pending" and isinstance(state.get("raw"), str):
            call["arguments"] = state["raw"]  # still streaming: ``input`` is a placeholder, ``raw`` the text so far
        elif "input" in state:
            call["input"] = state["input"]
        if not isinstance(part.get("callID"), str):
            call["idSource"] = "derived"
        if facts is not None:
            self._facts(call, facts[0], usage, facts[1])
        elif usage is not None and usage[0]:
            call["usage"], call["nativeUsage"] = usage
        earlier = self.calls.get(call_id)
        if earlier is not None:  # a second part with the same call id: it revises the first
            call["supersedes"] = earlier
        call[AGENT] = {**call.get(AGENT, {}), "part": leftover(part, ("callID", "tool", "state"))}
        call_record = self.emit(call)
        self.calls[call_id] = call_record["id"]
        yield call_record
        if name == "task":
            child = obj(state.get("metadata")).get("sessionId")
            if isinstance(child, str) and child:
                yield self.emit(self._subagent(call_id, child, state, call_record["id"]))
        if name == "todowrite" and isinstance(state.get("input"), dict):
            plan = self.plans.from_call(call_id, state)
            if plan is not None:
                yield plan
        result = start("tool_result")
        stamp(result, from_epoch_millis(_time(state.get("time"), "end")))
        self._turn(result, info)
        result["callId"] = call_id
        result["name"] = name
        if status == "completed":
            result["status"] = "complete"
            result["content"] = tool_content(state)
        elif status == "error":
            result["status"] = "error"
            result["isError"] = True
            result["content"] = tool_content(state)
        else:  # pending / running in a stored session: the call never finished
            result["status"] = "interrupted"
            result["content"] = []
            result["capture"] = {
                "content": {"state": "absent", "reason": f"the call was left {status}: OpenCode stored no result"}
            }
        if not isinstance(part.get("callID"), str):
            result["idSource"] = "derived"
        result[AGENT] = {"state": leftover(state, ("input", "output", "error", "attachments", "raw"))}
        yield self.emit(result)

    def _subagent(self, call_id: str, child: str, state: dict[str, Any], parent_id: str) -> dict[str, Any]:
        record = start("subagent")
        stamp(record, from_epoch_millis(_time(state.get("time"), "start")))
        record["callId"] = call_id
        record["session"] = session_ref(AGENT, child)
        arguments = obj(state.get("input"))
        if isinstance(arguments.get("subagent_type"), str):
            record["agentType"] = arguments["subagent_type"]
        if isinstance(arguments.get("description"), str):
            record["description"] = arguments["description"]
        record["parent"] = parent_id
        return record

    def _revert_from(self, part: dict[str, Any]) -> None:
        if self.revert and self.revert_start is None and part.get("id") == self.revert.get("partID"):
            self.revert_start = self.emit.seq + 1

    def _other(self, part: dict[str, Any], _unused: Any, info: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A part no ASR record carries (``patch``, ``snapshot``, ``retry``, new kinds): vendor,
        verbatim, stamped with its own time when it has one."""
        self._revert_from(part)
        self.count("vendor")
        record = self.vendor(str(part.get("type")), part)
        time = part.get("time")
        stamp(record, from_epoch_millis(_time(time, "created") or _time(time, "start")))
        yield self.emit(record)

    def finish(self, todos: list[Any] | None) -> Iterator[dict[str, Any]]:
        if self.revert:
            yield self.emit(self._reverted())
        if todos is not None:
            yield from self.plans.from_store(todos)
        self.calls.close()

    def _reverted(self) -> dict[str, Any]:
        """The pending ``/undo`` (``session.revert``) as a vendor record naming the records it
        hides (``reverted``, as Gemini CLI's rewind): OpenCode deletes them only when the next
        prompt is sent, so they are still stored and still converted."""
        record = start("vendor")
        record["schema"] = f"{REGISTRY}/revert"
        record["data"] = self.revert
        first = self.revert_start
        record["reverted"] = [] if first is None else [f"r{n}" for n in range(first, self.emit.seq + 1)]
        return record
