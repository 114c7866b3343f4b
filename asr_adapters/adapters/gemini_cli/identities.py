"""What the mapper remembers of the records it wrote, and how it writes, revises or skips one.

Each ASR record built from a native message has an identity (the message, or a call id's
tool_call, subagent, tool_result or plan). Per identity one int is kept: a digest of the
last body written packed with that record's ``seq``. A body is written the first time,
written again with ``supersedes`` when it changed, and not at all when it is a repeat.

Memory: one entry per message id and per call id, never the messages, in ``SpillMap``s
(the newest entries in a dict, older ones in a temporary SQLite file, values plain data), so state does not
grow with the file. Most lookups are of recent ids (a reply and its rewrites, a call and
its function-response turn), which stay in the dict.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...core.adapter import Emitter, start
from ...core.refs import schema_name
from ...core.spill import SpillMap

_SEQ_BITS = 40
_SEQ_MASK = (1 << _SEQ_BITS) - 1
_DIGEST_MASK = (1 << 64) - 1
#: ``CallState.owner`` of a call id that more than one message has mapped
SHARED = ""
_dumps = orjson.dumps
_NO_ENTRIES: tuple[int | None, int | None, int | None] = (None, None, None)


def native_digest(value: Any) -> int | None:
    """A fingerprint of native JSON (one ``dumps``); None when it cannot be serialised."""
    try:
        return hash(_dumps(value))
    except orjson.JSONEncodeError:
        return None


def content_digest(content: list[dict[str, Any]]) -> int:
    """A fingerprint of a tool_result's content: a function-response turn repeating it adds nothing."""
    return hash(_dumps(content))


#: A call id's state is a plain list (``SpillMap`` values are plain data): the packed entry
#: of each of its record identities (tool_call, subagent, tool_result), the content digest
#: of its tool_result, the fingerprint of the ``toolCalls[]`` entry last mapped
#: (``Mapper._repeated_call``), the message that maps it (or SHARED) and what its
#: ``toolCalls[]`` entry recorded beside the output (``status``, ``isError``,
#: ``displayContent``, ``nativeStatus`` of its tool_result), which a revision written from a
#: function-response turn keeps. Who changes one stores it again: a state read back from
#: disk is a copy.
CALL, SUBAGENT, RESULT, CONTENT, NATIVE, OWNER, KEPT = range(7)
#: the tool_result members a function-response turn does not restate
KEPT_KEYS = ("status", "isError", "exitCode", "displayContent", "nativeStatus")
CallState = list[Any]


def new_call_state(owner: str) -> CallState:
    return [None, None, None, None, None, owner, None]


def share(state: CallState, message_id: str) -> bool:
    """Note that ``message_id`` maps the call; whether another message mapped it too."""
    owner = state[OWNER]
    if owner == message_id:
        return False
    if owner != SHARED:
        state[OWNER] = SHARED
    return True


class Identities:
    """The written identities of one stream, and the emission of bodies against them."""

    def __init__(self, emit: Emitter, registry_name: str, repeats: bool) -> None:
        self.emit = emit
        self.registry_name = registry_name
        self._schemas: dict[str, str] = {}
        #: whether a native item can repeat an earlier one (the JSONL era); without repeats
        #: nothing is fingerprinted and an identity seen again is simply a revision
        self.repeats = repeats
        #: message id -> (packed entry of its message record, of its vendor record, digest of
        #: the tokens its normalized ``usage`` was written with); a message entry means the
        #: message was written, so its tool calls link by messageId. One map for all, so one
        #: more map does not spill (each spilled map has a fixed cost). The usage digest lets
        #: a revision of the same response leave ``usage`` out: never counted twice.
        self.messages = SpillMap()
        #: call id -> its CallState
        self.calls = SpillMap()
        #: "<planId>@<call id>" -> packed entry; plan chains (planId) -> the seq of their last record
        self.plans = SpillMap()
        self.chains: dict[str, int] = {}
        #: whether the message being mapped wrote a record that is never a repeat
        self.volatile = False
        #: the seq of every record the message being mapped wrote or found unchanged: what
        #: that message stands for in the stream, named when a rewind or reset removes it
        self.touched: list[int] = []

    def revise(
        self, body: dict[str, Any], previous: int | None, out: list[dict[str, Any]], force: bool, chain: str = ""
    ) -> int | None:
        """Emit ``body`` unless it is what the identity's entry ``previous`` recorded; the new entry, or None.

        A changed (or ``force``d) identity is written again with ``supersedes`` naming its last
        record, or the last record of plan ``chain``, so plan revisions chain by planId.
        """
        if self.repeats:
            digest = hash(_dumps(body)) & _DIGEST_MASK
            if previous is not None and previous >> _SEQ_BITS == digest and not force:
                self.touched.append(previous & _SEQ_MASK)
                return None
        else:
            digest = 0
        last = self.chains.get(chain) if chain else None if previous is None else previous & _SEQ_MASK
        if last is not None:
            body["supersedes"] = f"r{last}"
        if "usage" in body:
            self._credit(body)
        record = self.emit(body)
        seq: int = record["seq"]
        self.touched.append(seq)
        if chain:
            self.chains[chain] = seq
        out.append(record)
        return digest << _SEQ_BITS | seq

    def _credit(self, body: dict[str, Any]) -> None:
        """Keep ``usage`` only on the first record written with these tokens for its response.

        A response's usage rides on its message, or on its first tool_call when it has no
        message (``inferenceId``); revisions and rewrites keep ``nativeUsage`` only, even
        should the tokens change, so that summing ``usage`` over all records counts each
        response once (the superseded record keeps the count).
        """
        response = body.get("messageId") if body["type"] == "message" else body.get("inferenceId")
        if not isinstance(response, str):
            return
        entries = self.messages.get(response, _NO_ENTRIES)
        if entries[2] is not None:  # already counted: a consumer sums usage over all records
            del body["usage"]
        else:
            self.messages[response] = (entries[0], entries[1], native_digest(body.get("nativeUsage")) or 1)

    def vendor(self, kind: str, data: Any) -> dict[str, Any]:
        """A ``vendor`` record body keeping a native item verbatim."""
        schema = self._schemas.get(kind)
        if schema is None:
            schema = self._schemas[kind] = schema_name(self.registry_name, kind)
        body = start("vendor")
        body["schema"] = schema
        body["data"] = data
        return body

    def put_vendor(self, kind: str, data: Any, out: list[dict[str, Any]], **extra: Any) -> None:
        """A vendor record that is never a repeat (bookkeeping lines, malformed entries)."""
        record = self.vendor(kind, data)
        if extra:
            record.update(extra)
        out.append(self.emit(record))
        self.touched.append(record["seq"])
        self.volatile = True

    def put_native(
        self, message_id: str, msg: Any, out: list[dict[str, Any]], force: bool, kind: str = "message", **extra: Any
    ) -> None:
        """A message with no ASR home, kept verbatim (once per distinct version); ``extra``
        members (``ts``, ``copiedFrom``) go on the vendor record beside the data."""
        body = self.vendor(kind, msg)
        if extra:
            body.update(extra)
        entry = self.revise(body, self.messages.get(message_id, _NO_ENTRIES)[1], out, force)
        if entry is not None:
            entries = self.messages.get(message_id, _NO_ENTRIES)  # revise may have noted usage
            self.messages[message_id] = (entries[0], entry, entries[2])

    def put_message(self, message_id: str, body: dict[str, Any], out: list[dict[str, Any]], force: bool) -> None:
        """A message record of ``message_id``, unless it repeats the last one written."""
        entry = self.revise(body, self.messages.get(message_id, _NO_ENTRIES)[0], out, force)
        if entry is not None:
            entries = self.messages.get(message_id, _NO_ENTRIES)  # revise may have noted usage
            self.messages[message_id] = (entry, entries[1], entries[2])

    def written(self, message_id: str) -> bool:
        """Whether a message record of ``message_id`` was written."""
        entries = self.messages.get(message_id)
        return entries is not None and entries[0] is not None

    def touch(self, state: CallState) -> None:
        """Note the records of a call the message maps without writing them again."""
        for index in (CALL, SUBAGENT, RESULT):
            entry = state[index]
            if entry is not None:
                self.touched.append(entry & _SEQ_MASK)

    def call_state(self, call_id: str, message_id: str) -> tuple[CallState, bool]:
        """The call id's state, noting that ``message_id`` maps it; whether it is now shared."""
        state: CallState | None = self.calls.get(call_id)
        if state is None:
            return new_call_state(message_id), False
        return state, self.repeats and share(state, message_id)
