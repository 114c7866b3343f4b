"""One native ``MessageRecord`` -> ASR records, with revisions for records written again.

The same message id can arrive several times (the JSONL era rewrites a message as tokens
and tool calls arrive, and ``$set.messages`` rewrites history). Each ASR record built from
a message has an identity (message, tool call, tool result, plan, subagent); the mapper
keeps a digest per identity, writes a record the first time, writes a revision with
``supersedes`` when it changed, and writes nothing when it is a repeat. Memory: one small
entry per identity, never the messages themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...core.adapter import Emitter
from ...core.timestamps import from_iso, stamp
from .parts import (
    SESSION_CONTEXT,
    STATE_SNAPSHOT,
    attribute_prompt,
    first_text,
    is_synthetic_reply,
    map_part,
    native_parts,
    output_capture,
    thought_part,
)
from .tools import (
    call_body,
    function_call_body,
    plan_document,
    response_parts,
    result_body,
    subagent_body,
    todo_plan,
)

_MESSAGE_KEYS = frozenset(
    {"id", "timestamp", "type", "content", "displayContent", "thoughts", "tokens", "model", "toolCalls"}
)
NOTICE_TYPES = ("info", "warning", "error")
Key = tuple[str, str]
#: ``Mapper.seen`` packs an identity's digest and its last record's ``seq`` into one int
_SEQ_BITS = 40
_SEQ_MASK = (1 << _SEQ_BITS) - 1
_DIGEST_MASK = (1 << 64) - 1
#: ``Mapper.calls`` owner of a call id that more than one message has mapped
SHARED = ""


def _digest(body: dict[str, Any]) -> int:
    """A fingerprint of a body built by this module (same builder, same key order), for one run."""
    return hash(orjson.dumps(body)) & _DIGEST_MASK


def native_digest(value: Any) -> int | None:
    """A fingerprint of native JSON (one ``dumps``); None when it cannot be serialised."""
    try:
        return hash(orjson.dumps(value))
    except orjson.JSONEncodeError:
        return None


class Mapper:
    """Builds and emits the records of native messages for one stream."""

    def __init__(
        self,
        emit: Emitter,
        vendor: Callable[[str, Any], dict[str, Any]],
        session_id: str,
        subagent: bool,
        repeats: bool = True,
    ):
        self.emit = emit
        #: whether a native item can repeat an earlier one (the JSONL era); without repeats
        #: nothing is fingerprinted and an identity seen again is simply a revision
        self.repeats = repeats
        self.vendor = vendor
        self.session_id = session_id
        self.subagent = subagent
        #: identity (kind, id) -> its digest << _SEQ_BITS | the seq of its last record, one
        #: table per kind (m message, v vendor, c call, s subagent, r result, rc the content
        #: a function-response turn is compared with, p plan) so no key tuple is kept
        self.seen: dict[str, dict[str, int]] = {kind: {} for kind in ("m", "v", "c", "s", "r", "rc", "p")}
        #: plan chains (planId) -> the seq of their last record
        self.chains: dict[Key, int] = {}
        self.with_message: set[str] = set()
        self.task_id: str | None = None  # a subagent's first prompt: its parent's task
        # Skipping unchanged native items (JSONL era). A native message or toolCalls[] entry
        # mapped before is skipped when its native digest is the one recorded for it *and no
        # record identity it reads changed since*. Identities are keyed by message id or call
        # id; a message id is mapped only by its message, but a call id can be read by
        # several messages (a reply's toolCalls[], a later function-response turn, raw
        # functionCall parts). ``calls`` names the one message that mapped a call id, or
        # SHARED; a write to a shared call id's identities (or by a message with a derived
        # id) moves ``epoch`` on, which voids every recorded native digest.
        self.epoch = 0
        #: call id -> (hash of its toolCalls[] entry, context and epoch, or None; owner)
        self.calls: dict[str, tuple[int | None, str]] = {}
        #: whether the message being mapped wrote a record that is never a repeat
        self.volatile = False

    # -- emission -------------------------------------------------------------------

    def put(
        self,
        key: Key,
        kind: str,
        body: dict[str, Any],
        out: list[dict[str, Any]],
        force: bool = False,
        chain: Key | None = None,
    ) -> bool:
        """Emit ``body`` as a ``kind`` record unless ``key`` was already written identically.

        A changed (or ``force``d) identity is written again with ``supersedes`` naming the
        last record of ``chain`` (default: of ``key`` itself), so plan revisions chain by planId.
        """
        body["type"] = kind  # the emitter puts it first
        repeats = self.repeats
        digest = _digest(body) if repeats else 0
        table = self.seen[key[0]]
        previous = table.get(key[1])
        if previous is not None and repeats and previous >> _SEQ_BITS == digest and not force:
            return False
        last = self.chains.get(chain) if chain is not None else None if previous is None else previous & _SEQ_MASK
        if last is not None:
            body["supersedes"] = f"r{last}"
        record = self.emit(body)
        seq = record["seq"]
        table[key[1]] = digest << _SEQ_BITS | seq
        if chain is not None:
            self.chains[chain] = seq
        out.append(record)
        return True

    def put_vendor(self, kind: str, data: Any, out: list[dict[str, Any]], **extra: Any) -> None:
        """A vendor record that is never a repeat (bookkeeping lines, malformed entries)."""
        record = self.vendor(kind, data)
        record.update(extra)
        out.append(self.emit(record))
        self.volatile = True

    def put_native(self, message_id: str, msg: Any, out: list[dict[str, Any]], force: bool) -> None:
        """A message with no ASR home, kept verbatim (once per distinct version)."""
        record = self.vendor("message", msg)
        del record["type"]
        self.put(("v", message_id), "vendor", record, out, force)

    # -- messages ---------------------------------------------------------------------

    def message(self, msg: Any, position: str, force: bool = False) -> list[dict[str, Any]]:
        """All records of one native message (empty when it repeats what was written)."""
        out: list[dict[str, Any]] = []
        self.volatile = False
        if not isinstance(msg, dict):
            self.put_vendor("message", msg, out)
            return out
        kind = msg.get("type")
        if isinstance(msg.get("id"), str) and msg["id"]:
            message_id, derived = msg["id"], False
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

    def _touch(self, call_id: str, message_id: str) -> bool:
        """Note that ``message_id`` maps ``call_id``; whether the call id is now shared."""
        entry = self.calls.get(call_id)
        if entry is None:
            self.calls[call_id] = (None, message_id)
            return False
        owner = entry[1]
        if owner == message_id:
            return False
        if owner != SHARED:
            self.calls[call_id] = (entry[0], SHARED)
        return True

    def _head(self, msg: dict[str, Any], message_id: str, derived: bool) -> dict[str, Any]:
        body: dict[str, Any] = stamp({}, from_iso(msg.get("timestamp")))
        body["messageId"] = message_id
        if derived:
            body["idSource"] = "derived"
        return body

    def _tail(self, body: dict[str, Any], msg: dict[str, Any]) -> dict[str, Any]:
        if isinstance(msg.get("model"), str):
            body["model"] = msg["model"]
        if msg.get("tokens") is not None:
            body["usage"] = msg["tokens"]
        extra = {k: v for k, v in msg.items() if k not in _MESSAGE_KEYS}
        if extra:
            body["gemini"] = extra
        if "timestamp" in msg and "ts" not in body:
            body.setdefault("gemini", {})["timestamp"] = msg["timestamp"]
        return body

    def _display(self, body: dict[str, Any], msg: dict[str, Any], author: str | None, origin: str | None) -> None:
        """``displayContent``: what the CLI showed, linked by the source itself (ASR-207, ASR-208)."""
        if "displayContent" not in msg or msg["displayContent"] is None:
            return
        parts = [map_part(p) for p in native_parts(msg["displayContent"])]
        if author is not None:
            parts = [{**p, "author": author, **({"origin": origin} if origin else {})} for p in parts]
        body["displayContent"] = parts
        if body.get("content") and parts:  # a link needs two non-empty sides (ASR-208)
            body["displayCorrespondence"] = "native"
        elif parts:  # only the shown text was kept (ASR-207)
            capture = body.setdefault("capture", {})
            capture["content"] = {"state": "absent", "reason": "Gemini CLI recorded only what it displayed"}

    def _gemini(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        ts = msg.get("timestamp")
        thoughts = msg.get("thoughts")
        content: list[dict[str, Any]] = [thought_part(t) for t in thoughts] if isinstance(thoughts, list) else []
        calls: list[dict[str, Any]] = []
        for part in native_parts(msg.get("content")):
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                calls.append(part)
            else:
                content.append(map_part(part))
        body = self._head(msg, message_id, derived)
        body["role"] = "assistant"
        if is_synthetic_reply(msg):
            body.update(author="harness", origin="injected")
        else:
            body["author"] = "model"
        body["content"] = content
        self._display(body, msg, None, None)
        shown = bool(content or body.get("displayContent"))
        if shown:
            self._tail(body, msg)
            if self.put(("m", message_id), "message", body, out, force):
                self.with_message.add(message_id)
        link = {"messageId": message_id} if message_id in self.with_message else {"inferenceId": message_id}
        first = not content
        tool_calls = msg.get("toolCalls")
        known: set[str] = set()
        epoch = self.epoch
        for index, call in enumerate(tool_calls if isinstance(tool_calls, list) else ()):
            if not isinstance(call, dict):
                self.put_vendor("toolCall", call, out)
                continue
            call_id, call_derived = self._call_id(call.get("id"), message_id, f"toolCalls[{index}]")
            known.add(call_id)
            response = msg if first else None
            if self.repeats:
                self._repeated_call(call, call_id, call_derived, ts, link, response, out, force, message_id, epoch)
            else:
                self._tool_call(call, call_id, call_derived, ts, link, response, out, force)
            first = False
        for index, part in enumerate(calls):
            call_id, call_derived = self._call_id(part["functionCall"].get("id"), message_id, f"content[{index}]")
            if call_id in known or call_id in self.seen["c"]:
                continue  # the same call as a toolCalls[] entry: that record is richer
            call_record = function_call_body(part, call_id, call_derived, ts, link)
            if first:
                self._tail(call_record, {k: v for k, v in msg.items() if k in ("model", "tokens")})
                first = False
            if self.repeats and self._touch(call_id, message_id):
                self.epoch += 1  # put below always writes: the call id is new to ``seen``
            self.put(("c", call_id), "tool_call", call_record, out, force)
        if not shown and not tool_calls and not calls:
            self.put_native(message_id, msg, out, force)

    def _call_id(self, native: Any, message_id: str, where: str) -> tuple[str, bool]:
        if isinstance(native, str) and native:
            return native, False
        return f"{message_id}:{where}", True

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
    ) -> None:
        """A toolCalls[] entry of the JSONL era: skipped when it and what it is mapped with
        (the reply's time, link, model and usage) are as when last mapped, and no identity
        of its call id changed since (``epoch`` as the message started)."""
        tail = None if response is None else (response.get("model"), response.get("tokens"))
        native = native_digest((call, call_id, derived, ts, link, tail))
        entry = self.calls.get(call_id)
        if native is not None and not force and entry is not None and entry[0] == hash((native, epoch)):
            return
        shared = self._touch(call_id, message_id)
        before = len(out)
        self._tool_call(call, call_id, derived, ts, link, response, out, force)
        if shared and len(out) > before:
            self.epoch += 1
        owner = SHARED if shared else message_id
        self.calls[call_id] = (None if native is None else hash((native, self.epoch)), owner)

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
    ) -> None:
        body = call_body(call, call_id, derived, ts, link)
        if response is not None:  # a response with no text of its own: its model and usage ride here
            self._tail(body, {k: v for k, v in response.items() if k in ("model", "tokens")})
        self.put(("c", call_id), "tool_call", body, out, force)
        subagent = subagent_body(call, call_id)
        if subagent is not None:
            self.put(("s", call_id), "subagent", subagent, out, force)
        result = result_body(call, call_id)
        if self.put(("r", call_id), "tool_result", result, out, force):
            # a function-response user turn (v0.44+) repeats this output: recognised by it
            self.seen["rc"][call_id] = _digest({"content": result["content"]}) << _SEQ_BITS
        for plan in (todo_plan(call, call_id), plan_document(call, call_id)):
            if plan is not None:
                self.put(("p", f"{plan['planId']}@{call_id}"), "plan", plan, out, force, chain=("p", plan["planId"]))

    def _user(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        parts = native_parts(msg.get("content"))
        content: list[dict[str, Any]] = []
        responses = False
        index = 0
        while index < len(parts):
            part = parts[index]
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(response, dict):
                content.append(map_part(part))
                index += 1
                continue
            end = index + 1
            while end < len(parts) and not (isinstance(parts[end], dict) and "functionResponse" in parts[end]):
                end += 1
            self._response(msg, parts[index:end], response, message_id, out, force)
            responses = True
            index = end
        body = self._head(msg, message_id, derived)
        body["role"] = "user"
        text = first_text(parts)
        display_author: str | None = None
        if text.startswith((SESSION_CONTEXT, STATE_SNAPSHOT)):
            body.update(author="harness", origin="injected")
        elif self.subagent:
            if self.task_id is None and content:
                self.task_id = message_id
            if message_id == self.task_id:
                body.update(author="agent", origin="prompt")  # the parent's task prompt
            else:
                body.update(author="harness", origin="injected")
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
            body.update(author="human", origin="prompt")
            content = attribute_prompt(content)
        body["content"] = content
        self._display(body, msg, display_author, None)
        if content or body.get("displayContent"):
            self._tail(body, msg)
            if self.put(("m", message_id), "message", body, out, force):
                self.with_message.add(message_id)
        elif not responses:
            self.put_native(message_id, msg, out, force)

    def _response(
        self, msg: dict[str, Any], group: list[Any], response: dict[str, Any], message_id: str, out: list, force: bool
    ) -> None:
        """A function response sent back as a user turn (v0.44+) -> its tool_result, unless already written."""
        call_id, derived = self._call_id(response.get("id"), message_id, "functionResponse")
        content, failed = response_parts(group, call_id, response.get("name"))
        digest = _digest({"content": content})
        shared = self.repeats and self._touch(call_id, message_id)
        previous = self.seen["rc"].get(call_id)
        if previous is not None and previous >> _SEQ_BITS == digest and not force:
            return
        if shared:
            self.epoch += 1
        body: dict[str, Any] = stamp({}, from_iso(msg.get("timestamp")))
        body["callId"] = call_id
        if isinstance(response.get("name"), str):
            body["name"] = response["name"]
        if failed:
            body["isError"] = True
        body["content"] = content
        capture = output_capture(content)
        if capture is not None:
            body["capture"] = {"content": capture}
        if derived:
            body["idSource"] = "derived"
        self.put(("r", call_id), "tool_result", body, out, force=True)
        self.seen["rc"][call_id] = digest << _SEQ_BITS

    def _notice(self, msg: dict[str, Any], message_id: str, derived: bool, out: list, force: bool) -> None:
        body = self._head(msg, message_id, derived)
        parts = native_parts(msg.get("content"))
        content = [map_part(p) for p in parts]
        if isinstance(msg.get("content"), list) and msg.get("type") == "info":
            # v0.44+ binary tool output: an ``info`` record that is the next request to the model
            body.update(role="user", author="tool", origin="injected", audience="model", content=content)
        else:
            body.update(author="harness", origin="notice", audience="user", content=content)
            body["capture"] = {"role": {"state": "absent", "reason": "a CLI notice; Gemini CLI gives it no role"}}
        self._display(body, msg, None, None)
        self._tail(body, msg)
        body["nativeType"] = msg["type"]  # info, warning or error
        if content or body.get("displayContent"):
            if self.put(("m", message_id), "message", body, out, force):
                self.with_message.add(message_id)
        else:
            self.put_native(message_id, msg, out, force)


def _typed_text(parts: list[dict[str, Any]]) -> str:
    """The text of the parts that carry no author of their own."""
    return "".join(p["text"] for p in parts if p.get("type") == "text" and "author" not in p)


def _display_text(display: Any) -> str:
    return "".join(p["text"] for p in native_parts(display) if isinstance(p, dict) and isinstance(p.get("text"), str))
