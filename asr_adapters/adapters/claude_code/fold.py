# Whole, over 400 lines: the one open fold of an API response and every content block kind it folds.
"""Assistant lines: one content block per line, folded back into one message per API response.

All lines of one response share ``message.id``. The fold stays open while consecutive
assistant lines carry that id and closes on any other line, so at most one message is held.
Text and thinking blocks make the message; each ``tool_use`` block becomes a ``tool_call``
record after it. A response that was only tool calls is not a message (profile): its calls
carry ``inferenceId`` (the request id), and the first one keeps the response's model, usage
and stop reason. A block of the same response arriving after an interleaved line (a lagging
tool result, a hook line) continues it: tool calls name the earlier message, and a higher
usage count on it replaces the one already written while that record is still held.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ...core.digests import RecordIds
from ...core.spill import SpillMap
from ...core.usage import normalized_usage as normalized
from ...model.order import canonical_order
from .info import opened
from .parts import data_part, reasoning_part
from .tools import PLAN_TOOLS

_BODY = frozenset({"id", "model", "role", "content", "stop_reason", "usage", "type"})
_COMPLETE = frozenset({"end_turn", "tool_use", "stop_sequence", "pause_turn"})
_CALL_FIELDS = frozenset({"type", "id", "name", "input"})  # tool_use members a tool_call carries
_CALLS = itemgetter(3)  # a fold line's tool_use blocks
_ERRORS = ("error", "apiError", "apiErrorStatus")  # a synthetic response's error members
#: The input counts every line of one response repeats: a recorded usage with the same ones
#: is that response's.
_INPUT_COUNTS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
#: Lines held while a response is open, at most: past this the response is closed early.
HELD_LIMIT = 32


class UsageHold:
    """The record carrying a response's usage, not yet handed out: a later line of the same
    response (after a tool result) may carry a higher count. It waits until the response is
    over (a line of it with the final count, another response, the end of the file)."""

    __slots__ = ("best", "message_id", "synthetic")

    def __init__(self, message_id: str, best: int, synthetic: bool) -> None:
        self.message_id = message_id
        self.best = best
        self.synthetic = synthetic


class Fold:
    """One API response being folded: its lines so far and what its message will carry."""

    __slots__ = (
        "best_tokens",
        "continues",
        "final",
        "first",
        "held",
        "line",
        "lines",
        "message_id",
        "model",
        "parts",
        "request_id",
        "rest",
        "stop_reason",
        "usage",
    )

    def __init__(self, message_id: str | None, request_id: str | None, first: dict[str, Any], line: int = 0) -> None:
        self.message_id = message_id
        self.request_id = request_id
        self.first = first
        self.parts: list[dict[str, Any]] = []
        #: Per line: (uuid, parentUuid, contributed parts?, its tool_use blocks, timestamp,
        #: line number)
        self.lines: list[tuple[Any, Any, bool, list[dict[str, Any]], Any, int]] = []
        self.usage: Any = None
        self.best_tokens = -1
        self.final = False  # a line of it carries the response's final count
        self.stop_reason: Any = None
        #: The ``message`` members no field carries, from every line of the response (a
        #: later line's non-null value wins: the final line has ``context_management``)
        self.rest: dict[str, Any] = {}
        self.model: Any = None
        self.continues: str | None = None  # id of the earlier message of the same response
        self.line = line  # the first line's number, for a derived id when the line has none
        #: Lines outside the conversation chain (progress, snapshots, titles, queue operations)
        #: that arrived while the response was open: handled once it closes, so they never
        #: split one response into two messages.
        self.held: list[tuple[int, Any]] = []


def normalized_usage(native: Any, final: bool = True) -> dict[str, Any] | None:
    """The response's usage under the one definition (core.usage): Anthropic's
    ``input_tokens`` counts only the input not read from or written to the cache, so
    ``inputTokens`` adds the cache counts to it; ``output_tokens`` already counts thinking.
    ``final`` False: the count is a running one (``partial``)."""
    if not isinstance(native, dict):
        return None
    read = native.get("cache_read_input_tokens")
    write = native.get("cache_creation_input_tokens")
    return normalized(
        input=native.get("input_tokens"),
        input_parts=(read, write),
        cache_read=read,
        cache_write=write,
        output=native.get("output_tokens"),
        partial=not final,
    )


def final_count(message: dict[str, Any], usage: Any) -> bool:
    """Whether a line's usage is the response's final count: the API sends the stop reason
    and the final output count together (``message_delta``), so a line with a stop reason has
    it; so has a usage object with ``iterations``, a member only the usage Claude Code builds
    at the end of a response carries (the running lines of 2.1.x builds lack it)."""
    return message.get("stop_reason") is not None or (isinstance(usage, dict) and "iterations" in usage)


def status_of(stop_reason: Any) -> str | None:
    if not isinstance(stop_reason, str):
        return None
    if stop_reason in _COMPLETE:
        return "complete"
    if stop_reason == "max_tokens":
        return "partial"
    return None


class FoldMixin:
    """Needs: ``out``, ``uuid_rec``, ``info``, ``calls``, ``_parent``, ``_copied``."""

    fold: Fold | None
    extras_for: str | None  # the response whose model/usage a tool call already carries
    last_message: tuple[str | None, str | None]  # (message.id, record id of its message)
    usage_for: str | None  # the response whose usage a record already carries
    usage_hold: UsageHold | None
    busy: bool  # whether a turn is running

    def _assistant(self, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        if not isinstance(message, dict):
            message = {}
        mid = message.get("id")
        if type(mid) is not str:
            mid = None
        hold = self.usage_hold
        if hold is not None and hold.message_id != mid:
            self.release_usage()  # another response: the held one is over
            hold = None
        fold = self.fold
        if fold is None or mid is None or fold.message_id != mid:
            if fold is not None:
                self._close_fold()
            rid = obj.get("requestId")
            fold = self.fold = Fold(mid, rid if isinstance(rid, str) else None, obj, self.line)
            if mid is not None and self.last_message[0] == mid:
                fold.continues = self.last_message[1]
            fold.model = message.get("model")
        content = message.get("content")
        blocks = content if isinstance(content, list) else ([] if content is None else [content])
        calls: list[dict[str, Any]] = []
        added = False
        parts = fold.parts
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_use":
                calls.append(block)
                continue
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append({"type": "text", "text": block["text"]})
            elif kind in ("thinking", "redacted_thinking"):
                parts.append(reasoning_part(block))
            elif isinstance(block, str):
                parts.append({"type": "text", "text": block})
            else:
                parts.append(data_part(block, f"block/{kind or 'unknown'}"))
            added = True
        fold.lines.append((obj.get("uuid"), obj.get("parentUuid"), added, calls, obj.get("timestamp"), self.line))
        if not message.keys() <= _BODY:
            rest = {k: v for k, v in message.items() if k not in _BODY and v is not None}
            if rest:
                fold.rest.update(rest)
                if hold is not None:  # the same response (another one released it above)
                    self._raise_rest(rest)
        usage = message.get("usage")
        final = final_count(message, usage)
        if isinstance(usage, dict):
            tokens = usage.get("output_tokens")
            tokens = tokens if isinstance(tokens, int) else 0
            if tokens >= fold.best_tokens:
                fold.best_tokens, fold.usage = tokens, usage
            if hold is not None and (tokens > hold.best or final):
                self._raise_usage(hold, usage if tokens > hold.best else None, tokens, final)
        if final:
            fold.final = True
        stop_reason = message.get("stop_reason")
        if stop_reason is not None:
            fold.stop_reason = stop_reason

    def _close_fold(self) -> None:
        fold = self.fold
        if fold is None:
            return
        self.fold = None
        out = self.out
        uuid_rec = self.uuid_rec
        first = fold.first
        lines = fold.lines
        synthetic = fold.model == "<synthetic>" or first.get("isApiErrorMessage") is True
        message_rid = None
        content_lines = [line for line in lines if line[2]]
        if content_lines or not _has_calls(lines):
            message_rid = self._fold_message(fold, content_lines, synthetic)
            if fold.message_id:
                self.last_message = (fold.message_id, message_rid)
            for line in content_lines:
                if type(line[0]) is str:
                    uuid_rec[line[0]] = message_rid
        elif fold.message_id:
            self.last_message = (fold.message_id, fold.continues)
        message_line = -1
        if message_rid is not None:
            message_line = lines.index(content_lines[0]) if content_lines else 0
        first_call = True
        acc = out.acc
        held = fold.held
        for index, (uuid, parent_uuid, added, calls, ts, line_number) in enumerate(lines):
            if held and held[0][0] < line_number:
                # lines written between the response's lines come before the calls after them:
                # a call whose native parent is such a line (hook progress) finds its record
                held = self._handle_held(held, line_number)
            line_rid = message_rid if added else None
            for number, block in enumerate(calls):
                call = self._tool_call(block, fold, ts, uuid if added else parent_uuid, uuid, number)
                carries = False
                if message_rid is None and first_call and fold.continues is None and self.extras_for != fold.message_id:
                    carries = self._extras(call, fold, first, synthetic)
                    self.extras_for = fold.message_id
                first_call = False
                rid = out.put(call)
                if carries:
                    self._hold_usage(fold, synthetic)
                line_rid = line_rid or rid
            if type(uuid) is str and not (added and message_rid is not None):  # else mapped above
                uuid_rec[uuid] = line_rid or message_rid or ""
            if calls or index == message_line:
                acc.records += 1
            else:
                acc.folded += 1
        if synthetic or (first_call and fold.stop_reason != "tool_use"):
            self.busy = False  # a response without tool calls ends the turn
        if held:
            self._handle_held(held, None)

    def _handle_held(self, held: list[tuple[int, Any]], before: int | None) -> list[tuple[int, Any]]:
        """Handle the held lines written before line ``before`` (None: all); returns the rest."""
        current = self.line
        index = 0
        for number, obj in held:
            if before is not None and number >= before:
                break
            self._line(number, obj, obj.get("type"))
            index += 1
        self.line = current
        return held[index:]

    def _fold_message(self, fold: Fold, content_lines: list[Any], synthetic: bool) -> str:
        """The response's message record (its text and reasoning parts); returns its id."""
        first = fold.first
        # the message's time is its first content line's (a call-only line before it has its own)
        record = opened("message", (content_lines or fold.lines)[0][4])
        if fold.request_id:
            record["inferenceId"] = fold.request_id
        uuid = first.get("uuid")
        message_id = fold.message_id or (uuid if isinstance(uuid, str) and uuid else "")
        derived = not message_id
        if derived:
            message_id = f"{self.info.session_id}:L{fold.line}"
        record["messageId"] = message_id
        record["role"] = "assistant"
        record["author"] = "harness" if synthetic else "model"
        status = "error" if synthetic else status_of(fold.stop_reason)
        if status:
            record["status"] = status
        record["content"] = fold.parts
        if not fold.parts:
            record["capture"] = {"content": {"state": "absent", "reason": "the line holds no content block"}}
        if derived:
            record["idSource"] = "derived"
        parent = (content_lines or fold.lines)[0][1]
        self._link(record, parent)
        if self.info.parent_refs is not None:
            self._copied(record, first, "messageId", message_id)
        source_ids = [line[0] for line in content_lines if isinstance(line[0], str)]
        earlier = self.message_heads.get(fold.message_id) if fold.message_id else None
        if earlier is not None:
            # A later part of a response whose message was already written (its lines were
            # split by a line of the chain, or a line was re-appended out of order): the
            # message as now known, a revision of the earlier record, never a second record
            # with the same messageId.
            record["supersedes"] = earlier[0]
            record["content"] = [*earlier[1], *fold.parts]
            if record["content"] and "capture" in record:
                del record["capture"]  # the absent-content state of a part with no block
            source_ids = [*earlier[2], *source_ids]
        if (len(content_lines) > 1 or earlier is not None) and source_ids:
            record["assembly"] = {"mode": "folded", "sourceIds": source_ids}
        carries = self._extras(record, fold, first, synthetic)
        rid = self.out.put(record)
        if fold.message_id:
            self.message_heads[fold.message_id] = [rid, record["content"], source_ids]
        if carries:
            self._hold_usage(fold, synthetic)
        return rid

    def _hold_usage(self, fold: Fold, synthetic: bool) -> None:
        """The record just written carries the usage of a response that may go on after a tool
        result (its count is not final yet; 2.0 and most 2.1 builds never write a stop reason):
        hold it until the response is over, so that a later line can raise its count."""
        if fold.final or fold.message_id is None:
            return
        if self.usage_hold is not None:
            self.release_usage()
        self.usage_hold = UsageHold(fold.message_id, fold.best_tokens, synthetic)
        self.out.hold()

    def _raise_usage(
        self, hold: UsageHold, native: dict[str, Any] | None, tokens: int, final: bool, keep_native: bool = False
    ) -> None:
        """A later line of the held response counts more (``native``, its usage, replaces the
        held one), or has the final count (the hold ends). ``keep_native``: ``native`` is
        another file's count, which sets ``usage`` only."""
        out = self.out
        record = out.held
        if native is None:
            native = record.get("nativeUsage")
        else:
            hold.best = tokens
        if not hold.synthetic:
            usage = normalized_usage(native, final)
            if usage is not None:
                record["usage"] = usage
        if not keep_native:
            record["nativeUsage"] = native
        out.held = canonical_order(record)
        if final:
            self.release_usage()

    def _raise_rest(self, rest: dict[str, Any]) -> None:
        """A later line of the held response carries leftover ``message`` members: the held
        record (its message or first call) keeps them under ``native.message`` too."""
        record = self.out.held
        native = record.setdefault("native", {})
        native["message"] = {**native.get("message", {}), **rest}
        self.out.held = canonical_order(record)

    def _take_parent_usage(self, recorded: dict[str, Any]) -> None:
        """A subagent's file ended with its last response holding only a running count: the
        parent's spawn result records that response's usage as Claude Code saw it at the end
        (``toolUseResult.usage``). Taken when it is that response (the same input counts) and
        counts at least as many output tokens (counts only grow)."""
        hold = self.usage_hold
        if hold is None or hold.synthetic:
            return
        held = self.out.held.get("nativeUsage")
        tokens = recorded.get("output_tokens")
        if not isinstance(held, dict) or type(tokens) is not int or tokens < hold.best:
            return
        if any(recorded.get(key) != held.get(key) for key in _INPUT_COUNTS):
            return  # another response (the file was cut, or the parent names another one)
        # ``usage`` is the parent's count; ``nativeUsage`` stays the line's own object (the
        # parent's is kept verbatim as its tool result's ``toolUseResult``)
        self._raise_usage(hold, recorded, tokens, final_count({}, recorded), keep_native=True)

    def release_usage(self) -> None:
        """The held response is over (its final count came, another began, the file ended)."""
        self.usage_hold = None
        self.out.release()

    def _tool_call(
        self, block: dict[str, Any], fold: Fold, ts: Any, parent: Any, line_uuid: Any, index: int
    ) -> dict[str, Any]:
        """One ``tool_use`` block's record, with the time of its own line (``ts``)."""
        call = opened("tool_call", ts)
        if fold.request_id:
            call["inferenceId"] = fold.request_id
        native_id: Any = block.get("id")
        derived = not (isinstance(native_id, str) and native_id)
        call_id: str = f"{line_uuid}:call-{index}" if derived else native_id
        call["callId"] = call_id
        name = block.get("name")
        if isinstance(name, str):
            call["name"] = name
        message_id = fold.message_id
        if message_id and self.last_message[0] == message_id and self.last_message[1]:
            call["messageId"] = message_id
        call["input"] = block.get("input")
        if derived:
            call["idSource"] = "derived"
        self._link(call, parent)
        if self.info.parent_refs is not None:
            self._copied(call, {"uuid": line_uuid}, "callId", call_id)
        for key, value in block.items():
            if key not in _CALL_FIELDS:
                call[key] = value
        if isinstance(name, str):
            self.call_names[call_id] = name  # its tool_result names no tool: the call does
            if name in PLAN_TOOLS:
                self._remember_call(call, {"timestamp": ts})
        return call

    def _extras(self, record: dict[str, Any], fold: Fold, first: dict[str, Any], synthetic: bool) -> bool:
        """Profile members: model, usage, stopReason, error; the response's own extras.
        Returns whether the record carries the response's usage."""
        carries = False
        if fold.model is not None:
            record["model"] = fold.model
        if fold.usage is not None and (fold.message_id is None or fold.message_id != self.usage_for):
            carries = True
            self.usage_for = fold.message_id  # one response's usage on one record (HELPERS)
            if not synthetic:  # a harness-written error is no model response: nothing to add up
                usage = normalized_usage(fold.usage, fold.final)
                if usage is not None:
                    record["usage"] = usage
            record["nativeUsage"] = fold.usage
        if fold.stop_reason is not None:
            record["stopReason"] = fold.stop_reason
        if synthetic:
            for key in _ERRORS:
                if key in first:
                    record[key] = first[key]
        self._native(record, first, _ERRORS if synthetic else ())
        if fold.rest:
            record.setdefault("native", {})["message"] = dict(fold.rest)
        return carries

    if TYPE_CHECKING:  # provided by the builder and the tool mixin
        out: Any
        uuid_rec: RecordIds
        info: Any
        line: int

        def _link(self, record: dict[str, Any], parent_uuid: Any) -> None: ...

        def _copied(self, record: dict[str, Any], obj: dict[str, Any], field_name: str, value: str) -> None: ...

        message_heads: SpillMap
        call_names: SpillMap

        def _remember_call(self, call: dict[str, Any], obj: dict[str, Any]) -> None: ...

        def _native(self, record: dict[str, Any], obj: dict[str, Any], skip: Any = ()) -> None: ...

        def _line(self, line: int, obj: dict[str, Any], kind: Any) -> None: ...


def _has_calls(lines: list[tuple[Any, Any, bool, list[dict[str, Any]], Any, int]]) -> bool:
    return any(map(_CALLS, lines))
