"""One native ``MessageRecord`` -> ASR records, with revisions for records written again.

The same message id can arrive several times (the JSONL era rewrites a message as tokens
and tool calls arrive, and ``$set.messages`` rewrites history). Each record built from a
message is written against its identity (see ``identities``): new, a revision, or nothing.
"""

from __future__ import annotations

from typing import Any

from ...core.adapter import Emitter
from ...core.refs import session_ref
from ...core.timestamps import from_iso, stamp
from .calls import CallMapper
from .identities import (
    CALL,
    new_call_state,
    share,
)
from .parts import (
    SESSION_CONTEXT,
    STATE_SNAPSHOT,
    attribute_prompt,
    first_text,
    fold_thought,
    is_synthetic_reply,
    map_part,
    native_parts,
    thought_part,
    thought_text_matches,
)
from .tools import (
    function_call_body,
    stamped,
)

NOTICE_TYPES = ("info", "warning", "error")
#: the vendor kind of a function-response turn kept beside its tool_result records
RESPONSE_TURN = "functionResponseTurn"


class Mapper(CallMapper):
    """Builds and emits the records of native messages for one stream."""

    def __init__(self, emit: Emitter, registry_name: str, session_id: str, subagent: bool, repeats: bool = True):
        super().__init__(emit, registry_name, repeats)
        self.session_id = session_id
        self.subagent = subagent
        self.task_id: str | None = None  # a subagent's first prompt: its parent's task
        self.copied_from: str | None = None  # copiedFrom of the message being mapped
        #: a compression summary's ``compaction.through``, by message id (a few per session)
        self.compacted_through: dict[str, str] = {}

    # -- messages ---------------------------------------------------------------------

    def message(
        self, msg: Any, position: str, force: bool = False, copied_from: str | None = None
    ) -> list[dict[str, Any]]:
        """All records of one native message (empty when it repeats what was written).

        ``copied_from``: the id of the message this one copies (history written again under
        new ids, see ``copies``): its message record carries ``copiedFrom``.
        """
        out: list[dict[str, Any]] = []
        self.volatile = False
        self.touched = []
        self.copied_from = (
            None if copied_from is None else f"{session_ref('gemini-cli', self.session_id)}#messageId={copied_from}"
        )
        if not isinstance(msg, dict):
            self.put_vendor("message", msg, out)
            return out
        kind = msg.get("type")
        native_id = msg.get("id")
        if isinstance(native_id, str) and native_id:
            message_id, derived = native_id, False
        else:
            message_id, derived = f"{self.session_id}:{position}", True
        if kind == "gemini":
            self._gemini(msg, message_id, derived, out, force)
        elif kind == "user":
            self._user(msg, message_id, derived, out, force)
        elif kind in NOTICE_TYPES:
            self._notice(msg, message_id, derived, out, force)
        else:
            self.put_native(message_id, msg, out, force)
        if derived and out:
            self.epoch += 1  # a derived id could name what a native id names
        return out

    def _head(self, msg: dict[str, Any], message_id: str, derived: bool) -> dict[str, Any]:
        body = stamped("message", msg.get("timestamp"))
        body["messageId"] = message_id
        if derived:
            body["idSource"] = "derived"
        if self.copied_from is not None:
            body["copiedFrom"] = self.copied_from
        return body

    def _display(self, body: dict[str, Any], msg: dict[str, Any], author: str | None) -> None:
        """``displayContent``: what the CLI showed, linked by the source itself (ASR-207, ASR-208)."""
        display = msg.get("displayContent")
        if display is None:
            return
        parts = [map_part(p) for p in native_parts(display)]
        if author is not None:
            parts = [{**p, "author": author} for p in parts]
        body["displayContent"] = parts
        if body.get("content") and parts:  # a link needs two non-empty sides (ASR-208)
            body["displayCorrespondence"] = "native"
        elif parts:  # only the shown text was kept (ASR-207)
            capture = body.setdefault("capture", {})
            capture["content"] = {"state": "absent", "reason": "Gemini CLI recorded only what it displayed"}

    def _gemini(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        ts = msg.get("timestamp")
        thoughts = msg.get("thoughts")
        thoughts = thoughts if isinstance(thoughts, list) else []
        content: list[dict[str, Any]] = [thought_part(t) for t in thoughts]
        folded = [False] * len(thoughts)
        calls: list[dict[str, Any]] = []
        for part in native_parts(msg.get("content")):
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                calls.append(part)
                continue
            if (
                thoughts
                and isinstance(part, dict)
                and part.get("thought") is True
                and isinstance(part.get("text"), str)
            ):
                # a raw thought part that renders a thoughts[] entry (history rebuilt on resume
                # or after compression): the same reasoning, folded into that entry's part
                at = next(
                    (i for i, t in enumerate(thoughts) if not folded[i] and thought_text_matches(part["text"], t)),
                    None,
                )
                if at is not None and content[at].get("type") == "reasoning":
                    folded[at] = True
                    content[at] = fold_thought(content[at], part)
                    continue
            content.append(map_part(part))
        if content or msg.get("displayContent") is not None:
            body = self._head(msg, message_id, derived)
            body["role"] = "assistant"
            if is_synthetic_reply(msg):
                body["author"] = "harness"
                body["origin"] = "injected"
            else:
                body["author"] = "model"
            body["content"] = content
            self._display(body, msg, None)
            shown = bool(content or body.get("displayContent"))
        else:
            shown = False
        tool_calls = msg.get("toolCalls")
        if shown:
            self._tail(body, msg, produced=bool(content or tool_calls or calls))
            self.put_message(message_id, body, out, force)
        link = {"messageId": message_id} if self.written(message_id) else {"inferenceId": message_id}
        first = not content
        known: set[str] = set()
        epoch = self.epoch
        repeats = self.repeats
        for index, call in enumerate(tool_calls if isinstance(tool_calls, list) else ()):
            if not isinstance(call, dict):
                self.put_vendor("toolCall", call, out)
                continue
            native_id = call.get("id")
            if isinstance(native_id, str) and native_id:
                call_id, call_derived = native_id, False
            else:
                call_id, call_derived = f"{message_id}:toolCalls[{index}]", True
            known.add(call_id)
            response = msg if first else None
            if repeats:
                self._repeated_call(
                    call, call_id, call_derived, ts, link, response, out, force, message_id, epoch, index
                )
            else:
                state = self.call_state(call_id, message_id)[0]
                self._tool_call(call, call_id, call_derived, ts, link, response, out, force, state, index)
                self.calls[call_id] = state
            first = False
        for index, part in enumerate(calls):
            native_id = part["functionCall"].get("id")
            if isinstance(native_id, str) and native_id:
                call_id, call_derived = native_id, False
            else:
                call_id, call_derived = f"{message_id}:content[{index}]", True
            if call_id in known:
                continue  # the same call as a toolCalls[] entry: that record is richer
            state = self.calls.get(call_id)
            if state is not None and state[CALL] is not None:
                self.touch(state)  # a copy of the reply that wrote it stands for it too
                continue  # a call already written (another message's toolCalls[] entry)
            shared = False
            if state is None:
                state = new_call_state(message_id)
            elif repeats:
                shared = share(state, message_id)
            call_record = function_call_body(part, call_id, call_derived, ts, link)
            if first:
                self._tail(call_record, {k: v for k, v in msg.items() if k in ("model", "tokens")}, produced=True)
                first = False
            if shared:
                self.epoch += 1  # the record below is always written: the call id had no tool_call
            state[CALL] = self.revise(call_record, None, out, force)
            self.calls[call_id] = state
        if not shown and not tool_calls and not calls:
            self.put_native(message_id, msg, out, force)

    def _user(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        parts = native_parts(msg.get("content"))
        content: list[dict[str, Any]] = []
        responses = False
        index = 0
        count = len(parts)
        while index < count:
            part = parts[index]
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(response, dict):
                content.append(map_part(part))
                index += 1
                continue
            end = index + 1
            while end < count and not (isinstance(parts[end], dict) and "functionResponse" in parts[end]):
                end += 1
            self._response(msg, parts[index:end], response, message_id, out, force)
            responses = True
            index = end
        if not content and msg.get("displayContent") is None:
            if responses:
                self.put_response_turn(message_id, derived, msg, out, force)
            else:
                self.put_native(message_id, msg, out, force)
            return
        body = self._head(msg, message_id, derived)
        body["role"] = "user"
        text = first_text(parts)
        display_author: str | None = None
        if text.startswith((SESSION_CONTEXT, STATE_SNAPSHOT)):
            body["author"] = "harness"
            body["origin"] = "injected"
            if text.startswith(STATE_SNAPSHOT):  # /compress's summary: it replaces the history before it
                body["summaryOf"] = "compaction"
                body["compaction"] = self._compacted(message_id)
        elif self.subagent:
            if self.task_id is None and content:
                self.task_id = message_id
            if message_id == self.task_id:
                body["author"] = "agent"  # the parent's task prompt
                body["origin"] = "prompt"
            else:
                body["author"] = "harness"
                body["origin"] = "injected"
        elif msg.get("displayContent") is not None:
            # content is what the model received (an expansion); the display is the typed text.
            # The typed text reached the model unchanged when content's own parts (those the
            # CLI or a hook did not insert) hold it, up to the whitespace the CLI trims.
            shown = first_text(native_parts(msg["displayContent"]))
            body["origin"] = "command" if shown.startswith("/") else "prompt"
            content = attribute_prompt(content)
            display_author = "human"
            if _typed_text(content).strip() == _display_text(msg["displayContent"]).strip() and content:
                body["author"] = "human"
        else:
            body["author"] = "human"
            body["origin"] = "prompt"
            content = attribute_prompt(content)
        body["content"] = content
        self._display(body, msg, display_author)
        if content or body.get("displayContent"):
            self._tail(body, msg)
            self.put_message(message_id, body, out, force)
        elif responses:
            self.put_response_turn(message_id, derived, msg, out, force)
        else:
            self.put_native(message_id, msg, out, force)

    def put_response_turn(self, message_id: str, derived: bool, msg: dict[str, Any], out: list, force: bool) -> None:
        """A function-response turn (v0.44+) with no text of its own: its outputs are tool_result
        records (written from ``toolCalls[]``, or by ``_response``), and the turn itself is kept
        verbatim as a vendor record with its time and ``messageId``, so its native id and
        timestamp stay in the stream, ``messageId=<id>`` refs (a copy's ``copiedFrom``) resolve,
        and a rewind or reset that removes it names a record (issue 27.11)."""
        extra: dict[str, Any] = {}
        stamp(extra, from_iso(msg.get("timestamp")))
        extra["messageId"] = message_id
        if derived:
            extra["idSource"] = "derived"
        if self.copied_from is not None:
            extra["copiedFrom"] = self.copied_from
        self.put_native(message_id, msg, out, force, kind=RESPONSE_TURN, **extra)

    def _compacted(self, message_id: str) -> dict[str, str]:
        """``compaction`` of a summary: the records before it when it was first written (the
        turns compression kept are written again after it, as copies or revisions); the same
        for every later version of the message, so a re-recorded summary is no revision."""
        through = self.compacted_through.get(message_id)
        if through is None:
            through = self.compacted_through[message_id] = f"r{self.emit.seq}" if self.emit.seq > 1 else ""
        return {"through": through} if through else {}

    def _notice(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        body = self._head(msg, message_id, derived)
        native = msg.get("content")
        content = [map_part(p) for p in native_parts(native)]
        if content and isinstance(native, list) and msg.get("type") == "info":
            # v0.44+ binary tool output: an ``info`` record that is the next request to the model
            body.update(role="user", author="tool", origin="injected", audience="model", content=content)
        else:
            if not content and native in ("", [], None):
                # an empty notice is still a notice the CLI showed (ASR-205): one empty text part
                content = [{"type": "text", "text": ""}]
            body.update(author="harness", origin="notice", audience="user", content=content)
            body["capture"] = {"role": {"state": "absent", "reason": "a CLI notice; Gemini CLI gives it no role"}}
        self._display(body, msg, None)
        self._tail(body, msg)
        body["nativeType"] = msg["type"]  # info, warning or error
        if content or body.get("displayContent"):
            self.put_message(message_id, body, out, force)
        else:
            self.put_native(message_id, msg, out, force)


def _typed_text(parts: list[dict[str, Any]]) -> str:
    """The text of the parts that carry no author of their own."""
    return "".join(p["text"] for p in parts if p.get("type") == "text" and "author" not in p)


def _display_text(display: Any) -> str:
    return "".join(p["text"] for p in native_parts(display) if isinstance(p, dict) and isinstance(p.get("text"), str))
