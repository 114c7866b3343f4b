"""Tool calls and their outputs, for ``Mapper``: ``toolCalls[]`` entries (and whether one
repeats what was written), function-response turns, and the plan texts calls record."""

from __future__ import annotations

from typing import Any

from ...core.adapter import Emitter
from .identities import (
    CALL,
    CONTENT,
    KEPT,
    KEPT_KEYS,
    NATIVE,
    RESULT,
    SUBAGENT,
    CallState,
    Identities,
    content_digest,
    native_digest,
    new_call_state,
    share,
)
from .parts import output_capture
from .tools import (
    NOT_RUN,
    call_body,
    plan_document,
    response_parts,
    result_body,
    same_file,
    stamped,
    subagent_body,
    todo_plan,
    written_markdown,
)
from .usage import put_usage

_MESSAGE_KEYS = frozenset(
    {"id", "timestamp", "type", "content", "displayContent", "thoughts", "tokens", "model", "toolCalls"}
)
#: how many Markdown files' last recorded text is kept (a plan document's text, see
#: ``plan_document``): the most recently written ones
PLAN_TEXTS = 16


class CallMapper(Identities):
    """The tool-call half of ``Mapper`` (and the reply tail both halves write)."""

    def __init__(self, emit: Emitter, registry_name: str, repeats: bool) -> None:
        super().__init__(emit, registry_name, repeats)
        # Skipping unchanged native items (JSONL era). A native message or toolCalls[] entry
        # mapped before is skipped when its native digest is the one recorded for it *and no
        # record identity it reads changed since*. Identities are keyed by message id or call
        # id; a message id is mapped only by its message, but a call id can be read by
        # several messages (a reply's toolCalls[], a later function-response turn, raw
        # functionCall parts). ``CallState.owner`` names the one message that mapped a call
        # id, or SHARED; a write to a shared call id's identities (or by a message with a
        # derived id) moves ``epoch`` on, which voids every recorded native digest.
        self.epoch = 0
        #: path -> the last whole text of a Markdown file a call wrote, newest last (bounded)
        self.markdown: dict[str, str] = {}

    def _tail(self, body: dict[str, Any], msg: dict[str, Any], produced: bool = False) -> dict[str, Any]:
        """``produced``: ``msg`` is a model reply with output (text, thoughts or tool calls)."""
        model = msg.get("model")
        if isinstance(model, str):
            body["model"] = model
        tokens = msg.get("tokens")
        if tokens is not None:
            put_usage(body, tokens, produced)
        extra = {k: v for k, v in msg.items() if k not in _MESSAGE_KEYS}
        if extra:
            body["gemini"] = extra
        if "timestamp" in msg and "ts" not in body:
            body.setdefault("gemini", {})["timestamp"] = msg["timestamp"]
        return body

    def _repeated_call(
        self,
        call: dict[str, Any],
        call_id: str,
        derived: bool,
        ts: Any,
        link: dict[str, str],
        response: dict[str, Any] | None,
        out: list,
        force: bool,
        message_id: str,
        epoch: int,
        position: int,
    ) -> None:
        """A toolCalls[] entry of the JSONL era: skipped when it and what it is mapped with
        (the reply's time, link, model and usage) are as when last mapped, and no identity
        of its call id changed since (``epoch`` as the message started)."""
        tail = None if response is None else (response.get("model"), response.get("tokens"))
        native = native_digest((call, call_id, derived, ts, link, tail, position))
        state: CallState | None = self.calls.get(call_id)
        if state is None:
            state, shared = new_call_state(message_id), False
        elif native is not None and not force and state[NATIVE] == hash((native, epoch)):
            self.touch(state)
            return
        else:
            shared = share(state, message_id)
        before = len(out)
        self._tool_call(call, call_id, derived, ts, link, response, out, force, state, position)
        if shared and len(out) > before:
            self.epoch += 1
        state[NATIVE] = None if native is None else hash((native, self.epoch))
        self.calls[call_id] = state

    def _tool_call(
        self,
        call: dict[str, Any],
        call_id: str,
        derived: bool,
        ts: Any,
        link: dict[str, str],
        response: dict[str, Any] | None,
        out: list,
        force: bool,
        state: CallState,
        position: int,
    ) -> None:
        """The records of one toolCalls[] entry (the ``position``-th of its reply), compared
        with (and noted in) ``state``."""
        body = call_body(call, call_id, derived, ts, link)
        if response is not None:  # a response with no text of its own: its model and usage ride here
            self._tail(body, {k: v for k, v in response.items() if k in ("model", "tokens")}, produced=True)
        entry = self.revise(body, state[CALL], out, force)
        if entry is not None:
            state[CALL] = entry
        subagent = subagent_body(call, call_id)
        if subagent is not None:
            entry = self.revise(subagent, state[SUBAGENT], out, force)
            if entry is not None:
                state[SUBAGENT] = entry
        result = result_body(call, call_id, position)
        entry = self.revise(result, state[RESULT], out, force)
        if entry is not None:
            state[RESULT] = entry
            # a function-response user turn (v0.44+) repeats this output: recognised by it
            state[CONTENT] = content_digest(result["content"])
            kept = {key: result[key] for key in KEPT_KEYS if key in result}
            state[KEPT] = kept or None
        written = written_markdown(call)
        if written is not None:
            markdown = self.markdown
            markdown.pop(written[0], None)
            markdown[written[0]] = written[1]
            if len(markdown) > PLAN_TEXTS:
                del markdown[next(iter(markdown))]
        args = call.get("args")
        if isinstance(args, dict) and ("todos" in args or "plan_path" in args):
            for plan in (todo_plan(call, call_id), plan_document(call, call_id, self._plan_text(args))):
                if plan is not None:
                    key = f"{plan['planId']}@{call_id}"
                    entry = self.revise(plan, self.plans.get(key), out, force, chain=plan["planId"])
                    if entry is not None:
                        self.plans[key] = entry

    def _plan_text(self, args: dict[str, Any]) -> str | None:
        """The last text the session recorded for the plan file ``args.plan_path`` names."""
        path = args.get("plan_path")
        if not isinstance(path, str) or not path:
            return None
        text = self.markdown.get(path)
        if text is None:
            for recorded in reversed(self.markdown):
                if same_file(recorded, path):
                    return self.markdown[recorded]
        return text

    def _response(
        self, msg: dict[str, Any], group: list[Any], response: dict[str, Any], message_id: str, out: list, force: bool
    ) -> None:
        """A function response sent back as a user turn (v0.44+) -> its tool_result, unless already written."""
        native_id = response.get("id")
        if isinstance(native_id, str) and native_id:
            call_id, derived = native_id, False
        else:
            call_id, derived = f"{message_id}:functionResponse", True
        content, failed = response_parts(group, call_id, response.get("name"))
        digest = content_digest(content)
        state, shared = self.call_state(call_id, message_id)
        if state[CONTENT] == digest and not force:
            self.calls[call_id] = state  # its owner may have changed
            return
        if shared:
            self.epoch += 1
        body = stamped("tool_result", msg.get("timestamp"))
        body["callId"] = call_id
        name = response.get("name")
        if isinstance(name, str):
            body["name"] = name
        kept = state[KEPT] or {}  # what the call's toolCalls[] entry recorded beside the output
        if "status" in kept:
            body["status"] = kept["status"]
        if (failed or "isError" in kept) and kept.get("status") not in NOT_RUN:
            body["isError"] = failed or kept["isError"]
        if "exitCode" in kept:
            body["exitCode"] = kept["exitCode"]
        body["content"] = content
        capture = output_capture(content)
        if capture is not None:
            body["capture"] = {"content": capture}
        if "displayContent" in kept:
            body["displayContent"] = kept["displayContent"]
        if "nativeStatus" in kept:
            body["nativeStatus"] = kept["nativeStatus"]
        if derived:
            body["idSource"] = "derived"
        state[RESULT] = self.revise(body, state[RESULT], out, True)
        state[CONTENT] = digest
        self.calls[call_id] = state
