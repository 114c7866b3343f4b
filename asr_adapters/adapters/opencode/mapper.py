"""One OpenCode session (from any store) -> the records of its ASR stream.

A user message is one ``message`` record (its text, file and other parts as content, what
only the UI showed as ``displayContent``). An assistant message is cut at its stored part
order (``assistant.AssistantMapping``): each reasoning part is a reasoning-only ``message``
with its own id, runs of other content are ``message`` records, a
``tool`` part is a ``tool_call`` and its ``tool_result`` (OpenCode keeps both in one part, in
its last state), a ``task`` call also a ``subagent`` record naming the child session, a
completed ``todowrite`` call also a ``plan``; parts we have no record for are ``vendor``
records.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.digests import RecordIds
from ...core.outcome import denied, set_exit_code
from ...core.refs import session_ref
from ...core.timestamps import from_epoch_millis, stamp
from .assistant import AGENT, INFO_MOVED, AssistantMapping, time_of
from .parts import CONTENT_TYPES, REGISTRY, data_part, file_part, leftover, obj, text_of, tool_content
from .plans import TodoPlans
from .steps import Item
from .store import NativeMessage
from .usage import Usage

#: a user message's ``summary`` ({diffs, title, body}) moves nowhere: it stays in ``opencode.info``
USER_INFO_MOVED = tuple(k for k in INFO_MOVED if k != "summary")

#: file parts OpenCode never sends as files: it reads them and sends the text (a synthetic part)
_READ_AS_TEXT = ("text/plain", "application/x-directory")


class SessionMapper:
    """Maps the messages of one session; ``records`` yields them lazily."""

    def __init__(
        self,
        emit: Emitter,
        accounting: Accounting,
        info: dict[str, Any],
        vendor: Any,
        todos: tuple[list[Any] | None, Any] = (None, None),
    ) -> None:
        self.emit = emit
        self.accounting = accounting
        self.vendor = vendor
        #: the last record before the latest compaction request (``compaction.through``)
        self.compacted_through: str | None = None
        parent = info.get("parentID")
        #: In a child session every prompt comes from the parent session's task tool.
        self.parent_session = session_ref(AGENT, parent) if isinstance(parent, str) and parent else None
        self.plans = TodoPlans(emit, accounting)
        #: the stored todo list and its ``time_updated`` (None: written at the end)
        self.todos, self.todo_time = todos
        #: call id -> the id of the tool_call record written for it (core.digests: 16 bytes a call)
        self.calls = RecordIds()
        #: ``session.revert``: what ``/undo`` hid (from a message onward)
        self.revert = obj(info.get("revert"))
        self.revert_start: int | None = None  # the seq of the first record it hides

    def count(self, outcome: str, n: int = 1) -> None:
        setattr(self.accounting, outcome, getattr(self.accounting, outcome) + n)

    # -- messages --------------------------------------------------------------------------

    def message(self, native: NativeMessage) -> Iterator[dict[str, Any]]:
        info = native.info
        created = time_of(info.get("time"), "created")
        written = self.todo_time
        if self.todos is not None and isinstance(written, int) and isinstance(created, int) and created > written:
            yield from self._stored_todos()  # the stored list was last written before this message
        if self.revert and self.revert_start is None and info.get("id") == self.revert.get("messageID"):
            self.revert_start = self.emit.seq + 1
        role = info.get("role")
        if native.outcome_due and role not in ("user", "assistant"):
            # a role this reader does not know: the message and its parts verbatim, nothing claimed
            self.count("vendor")
            yield self.emit(stamp(self.vendor(f"message/{role}", info), from_epoch_millis(created)))
            for part in native.parts:
                yield from self.other(part, native)
            return
        if role == "user":
            yield from self._user(native)
        else:
            yield from self._assistant(native)

    def _user_part(
        self, part: dict[str, Any], person: dict[str, str]
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any]]:
        """(model-facing part, user-facing part, leftover) of one user-side content part."""
        kind = part.get("type")
        if kind == "text":
            text = text_of(part) or ""
            kept = leftover(part, ("text",))
            if part.get("ignored") is True:  # shown in the UI, never sent to the model
                return None, {"type": "text", "text": text}, kept
            if part.get("synthetic") is True:  # put there by OpenCode, not typed
                return {"type": "text", "text": text, "author": "harness", "origin": "injected"}, None, kept
            typed = {"type": "text", "text": text, **person}
            return typed, typed, kept
        if kind == "file":
            # ASR-203: a file part OpenCode marks ``synthetic`` (the image it attaches after
            # reading a file the person named, beside its synthetic Read text) is the harness's
            who = {"author": "harness", "origin": "injected"} if part.get("synthetic") is True else person
            converted = {**(file_part(part) or data_part(part)), **who}
            if part.get("mime") in _READ_AS_TEXT:  # the model got the synthetic Read text instead
                return None, converted, leftover(part, ("url",))
            return converted, converted, leftover(part, ("url",))
        kept = {"id": part.get("id"), "type": kind}
        converted = data_part(part)
        if kind == "agent":  # an @agent mention: OpenCode sends a synthetic instruction instead
            return None, {**converted, **person}, kept
        if kind == "compaction":
            if part.get("auto") is False:  # the person's /compact
                converted.update(author="human", origin="command")
            else:
                converted.update(author="harness", origin="injected")
        elif kind == "subtask":
            converted["origin"] = "command"
        else:
            converted.update(person)
        return converted, None, kept

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
        display_only = False
        for part in parts:
            if part.get("type") not in CONTENT_TYPES or part.get("type") == "reasoning":
                others.append(part)
                continue
            self.count("folded")
            model_part, user_part, left = self._user_part(part, person)
            kept.append(left)
            if model_part is not None:
                content.append(model_part)
            if user_part is not None:
                display.append(user_part)
                display_only = display_only or model_part is None
        if any(part.get("type") == "compaction" for part in parts):
            # the summary that answers this request replaces every record before it
            # (OpenCode's filterCompacted keeps the request and what follows)
            self.compacted_through = f"r{self.emit.seq}" if self.emit.seq > 1 else None
        if native.outcome_due or content or display:
            record = start("message")
            stamp(record, from_epoch_millis(time_of(info.get("time"), "created")))
            record["turnId"] = info.get("id")
            record["messageId"] = info.get("id")
            record["role"] = "user"
            if self.parent_session:
                record["from"] = {"session": self.parent_session}
            record["content"] = content
            if display_only:
                record["displayContent"] = display
            if not content:
                reason = (
                    "every part is UI-only: nothing was sent to the model as stored"
                    if display_only
                    else "OpenCode stored no part for this message"
                )
                record["capture"] = {"content": {"state": "absent", "reason": reason}}
            if not native.outcome_due:
                record["capture"] = {
                    **record.get("capture", {}),
                    "role": {"state": "absent", "reason": "the message's own file or row is unreadable"},
                }
                del record["role"]
            record[AGENT] = {"info": leftover(info, USER_INFO_MOVED), "parts": kept}
            if native.outcome_due:
                self.count("records")
            yield self.emit(record)
        for part in others:
            yield from self.other(part, native)

    def _assistant(self, native: NativeMessage) -> Iterator[dict[str, Any]]:
        yield from AssistantMapping(self, native).records()

    def part_time(self, part: dict[str, Any], native: NativeMessage) -> Any:
        """A part's own time (``time.start``/``time.created``), else its row's ``time_created``."""
        time = part.get("time")
        own = time_of(time, "start") or time_of(time, "created")
        return own if own is not None else native.part_times.get(str(part.get("id")))

    # -- tools and other parts ---------------------------------------------------------------

    def tool(
        self,
        item: Item,
        native: NativeMessage,
        in_message: str | None,
        usage: Usage | None,
        facts: dict[str, Any] | None,
        finished: bool,
    ) -> Iterator[dict[str, Any]]:
        """A tool part: its ``tool_call`` (with a ``subagent`` and a ``plan`` when it is a
        ``task`` or a completed ``todowrite``), then its ``tool_result``."""
        part, info = item.parts[0], native.info
        self.count("records")
        state = obj(part.get("state"))
        status = state.get("status")
        native_call = part.get("callID")
        call_id: str = native_call if isinstance(native_call, str) else f"part:{part.get('id')}"
        tool = part.get("tool")
        name: str = tool if isinstance(tool, str) else "unknown"
        call = start("tool_call")
        stamp(call, from_epoch_millis(time_of(state.get("time"), "start") or self.part_time(part, native)))
        self._turn(call, info)
        if in_message is None:
            call["inferenceId"] = info.get("id")
        call["callId"] = call_id
        call["name"] = name
        if in_message is not None:
            call["messageId"] = in_message
        if status == "pending" and isinstance(state.get("raw"), str):
            call["arguments"] = state["raw"]  # still streaming: ``input`` is a placeholder, ``raw`` the text so far
        elif "input" in state:
            call["input"] = state["input"]
        if not isinstance(part.get("callID"), str):
            call["idSource"] = "derived"
        if facts is not None:
            call.update({k: v for k, v in facts.items() if k != AGENT})
        elif usage is not None:
            call["usage"], call["nativeUsage"] = usage
        earlier = self.calls.get(call_id)
        if earlier is not None:  # a second part with the same call id: it revises the first
            call["supersedes"] = earlier
        own: dict[str, Any] = dict(facts.get(AGENT, {})) if facts is not None else {}
        own["part"] = leftover(part, ("callID", "tool", "state"))
        if item.steps_kept:
            own["steps"] = [leftover(p) for p in item.steps_kept]
        call[AGENT] = own
        call_record = self.emit(call)
        self.calls[call_id] = call_record["id"]
        yield call_record
        if name == "task":
            child = obj(state.get("metadata")).get("sessionId")
            if isinstance(child, str) and child:
                yield self.emit(self._subagent(call_id, child, state, info))
        if name == "todowrite" and status == "completed" and isinstance(state.get("input"), dict):
            plan = self.plans.from_call(call_id, state, call.get("turnId"))
            if plan is not None:
                yield plan
        yield self.emit(self._result(part, state, call_id, name, info, finished))

    def _result(
        self, part: dict[str, Any], state: dict[str, Any], call_id: str, name: str, info: dict[str, Any], finished: bool
    ) -> dict[str, Any]:
        status = state.get("status")
        result = start("tool_result")
        stamp(result, from_epoch_millis(time_of(state.get("time"), "end")))
        self._turn(result, info)
        result["callId"] = call_id
        result["name"] = name
        metadata = obj(state.get("metadata"))
        if status == "completed":
            result["status"] = "complete"
            if isinstance(metadata.get("exit"), int):  # bash: the command's exit code
                set_exit_code(result, metadata["exit"])
            result["content"] = tool_content(state)
        elif status == "error" and is_permission_refusal(state.get("error")):
            # PermissionNext's Rejected / Corrected / Denied errors: the person (or a rule the
            # person set) refused the call; it never ran, so it is no failure
            result["status"] = denied(REGISTRY)
            result["content"] = tool_content(state)
        elif status == "error" and metadata.get("interrupted") is True:
            # OpenCode's own abort cleanup: the call was stopped, not failed. The model is given
            # the output so far when there is one, else the error text (message-v2 toModelMessages)
            result["status"] = "interrupted"
            output = metadata.get("output")
            result["content"] = [{"type": "text", "text": output}] if isinstance(output, str) else tool_content(state)
        elif status == "error":
            result["status"] = "error"
            result["isError"] = True
            result["content"] = tool_content(state)
        elif finished:  # pending / running in a message OpenCode finished: the call never ended
            result["status"] = "interrupted"
            result["content"] = []
            result["capture"] = {
                "content": {"state": "absent", "reason": f"the call was left {status}: OpenCode stored no result"}
            }
        else:  # the message is still being generated: the call may still finish
            result["content"] = []
            result["capture"] = {
                "content": {"state": "absent", "reason": f"the call was {status} and its message not finished"}
            }
        if not isinstance(part.get("callID"), str):
            result["idSource"] = "derived"
        result[AGENT] = {"state": leftover(state, ("input", "output", "error", "attachments", "raw"))}
        return result

    def _turn(self, record: dict[str, Any], info: dict[str, Any]) -> None:
        parent = info.get("parentID")
        if isinstance(parent, str) and parent:
            record["turnId"] = parent

    def _subagent(self, call_id: str, child: str, state: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """The child session a ``task`` call started, in the call's turn."""
        record = start("subagent")
        stamp(record, from_epoch_millis(time_of(state.get("time"), "start")))
        self._turn(record, info)
        record["callId"] = call_id
        record["session"] = session_ref(AGENT, child)
        arguments = obj(state.get("input"))
        if isinstance(arguments.get("subagent_type"), str):
            record["agentType"] = arguments["subagent_type"]
        if isinstance(arguments.get("description"), str):
            record["description"] = arguments["description"]
        return record

    def other(self, part: dict[str, Any], native: NativeMessage) -> Iterator[dict[str, Any]]:
        """A part no ASR record carries (``patch``, ``snapshot``, ``retry``, new kinds): vendor,
        verbatim, stamped with its own time (or its row's) when it has one."""
        self.count("vendor")
        record = self.vendor(str(part.get("type")), part)
        stamp(record, from_epoch_millis(self.part_time(part, native)))
        yield self.emit(record)

    def _stored_todos(self) -> Iterator[dict[str, Any]]:
        """The stored todo list, once, where its ``time_updated`` puts it (or at the end)."""
        todos, self.todos = self.todos, None
        if todos is not None:
            yield from self.plans.from_store(todos, self.todo_time)

    def finish(self) -> Iterator[dict[str, Any]]:
        yield from self._stored_todos()
        if self.revert:
            yield self.emit(self._reverted())
        self.calls.close()

    def _reverted(self) -> dict[str, Any]:
        """The pending ``/undo`` (``session.revert``) as a vendor record naming the records it
        hides (``reverted``, as Gemini CLI's rewind): OpenCode deletes them only when the next
        prompt is sent, so they are still stored and still converted. What it deletes then
        (``SessionRevert.cleanup``): the message ``revert.messageID`` and every later one,
        whole, whether or not ``revert.partID`` is set."""
        record = start("vendor")
        record["schema"] = f"{REGISTRY}/revert"
        record["data"] = self.revert
        first = self.revert_start
        record["reverted"] = [] if first is None else [f"r{n}" for n in range(first, self.emit.seq + 1)]
        return record


#: how OpenCode's permission errors begin (PermissionNext.RejectedError, CorrectedError,
#: DeniedError in packages/opencode/src/permission), as the tool part's ``state.error`` keeps them
_REFUSALS = (
    "The user rejected permission to use this specific tool call",
    "The user has specified a rule which prevents you from using this specific tool call",
)


def is_permission_refusal(error: Any) -> bool:
    if not isinstance(error, str):
        return False
    return error.removeprefix("Error: ").startswith(_REFUSALS)
