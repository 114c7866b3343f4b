# Whole, over 400 lines: StreamRows maps every record type to its rows over one call/result pairing state.
"""One stream's records as rows of the index's tables, a record at a time.

No per-agent code: every value comes from the ASR record model. A part's author, origin and
phase are its effective values (ASR-224: the part's own, else its message's). Text comes from
``texts`` (opaque content never). The only state kept across records is what pairs a tool
result with its call: the calls still waiting for a result and the latest results (each
bounded by ``MAX_PENDING``: past it, the oldest waiting call is written as it is and a later
result updates it).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from . import texts

#: Calls kept in memory while they wait for their result; older ones are written and updated later.
MAX_PENDING = 4096
#: Tool result statuses that mean the tool failed (as the viewer reads them).
FAILED_STATUSES = frozenset({"error", "failed", "failure"})
OK_STATUSES = frozenset({"complete", "completed", "success", "succeeded", "ok"})

Row = list[Any]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63 else None


def _json(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return None


def effective(part: dict[str, Any], message: dict[str, Any], key: str) -> str | None:
    """ASR-224: a part's own value, else the message's; None means unknown."""
    value = part.get(key)
    if isinstance(value, str):
        return value
    return _str(message.get(key))


def outcome(is_error: Any, status: Any, exit_code: Any) -> str | None:
    """A tool call's outcome from what its result records: ``denied`` / ``cancelled`` (a
    ``<registry>/denied`` or ``<registry>/cancelled`` status), ``error`` (``isError``, a failed
    status, a non-zero ``exitCode``), ``ok`` (``isError: false``, a complete status, exit 0),
    else None (the result does not say)."""
    tail = status.rsplit("/", 1)[-1] if isinstance(status, str) else None
    if tail in ("denied", "cancelled", "canceled"):
        return "cancelled" if tail == "canceled" else tail
    code = _int(exit_code)
    if is_error is True or tail in FAILED_STATUSES or (code is not None and code != 0):
        return "error"
    if is_error is False or tail in OK_STATUSES or code == 0:
        return "ok"
    return None


@dataclass
class SessionFacts:
    """What the ``sessions`` row says beyond the file's fingerprint."""

    session: str | None = None
    agent: str | None = None
    agent_version: str | None = None
    parent: str | None = None
    title: str | None = None
    cwd: str | None = None
    started: str | None = None
    ended: str | None = None
    models: list[str] = field(default_factory=list)
    records: int = 0
    messages: int = 0
    error: str | None = None

    @property
    def project(self) -> str | None:
        if not self.cwd:
            return None
        name = self.cwd.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return name or None


@dataclass
class ResultFacts:
    seq: int | None
    ts: str | None
    status: str | None
    is_error: int | None
    exit_code: int | None
    outcome: str | None

    def values(self) -> list[Any]:
        return [self.seq, self.ts, self.status, self.is_error, self.exit_code, self.outcome]


class Pending:
    """Rows waiting to be written, table by table, from one stream or several (the builder writes
    them in batches); ``updates`` are results that came after their call was handed over."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Row]] = {
            t: [] for t in ("messages", "parts", "tool_calls", "plans", "subagents", "deliveries", "usage")
        }
        self.updates: list[Row] = []  # [*ResultFacts.values(), sid, call_id]
        self.text_chars = 0  # characters of text held

    def size(self) -> int:
        return sum(map(len, self.rows.values())) + len(self.updates)

    def take(self) -> Iterable[tuple[str, list[Row]]]:
        """The rows held, table by table, emptied as they are handed over."""
        for table, rows in self.rows.items():
            if rows:
                self.rows[table] = []
                yield table, rows
        self.text_chars = 0


class StreamRows:
    """One stream's (session ``sid``) records as rows, appended to ``pending``."""

    def __init__(self, sid: int, pending: Pending | None = None) -> None:
        self.sid = sid
        self.facts = SessionFacts()
        self.pending = pending if pending is not None else Pending()
        self.rows = self.pending.rows
        self._pending: OrderedDict[str, list[Row]] = OrderedDict()  # call_id -> its call rows awaiting a result
        self._results: OrderedDict[str, ResultFacts] = OrderedDict()  # recent results, for calls after them
        self._models: set[str] = set()
        self._position = 0

    # -- the records ---------------------------------------------------------------------------

    def add(self, record: dict[str, Any]) -> None:
        self._position += 1
        facts = self.facts
        facts.records += 1
        kind = record.get("type")
        seq = _int(record.get("seq"))
        ts = _str(record.get("ts"))
        base = [self.sid, seq if seq is not None else self._position, _str(record.get("id")), ts]
        if ts is not None:
            if facts.started is None or ts < facts.started:
                facts.started = ts
            if facts.ended is None or ts > facts.ended:
                facts.ended = ts
        model = _str(record.get("model"))
        if model is not None and model not in self._models:
            self._models.add(model)
            facts.models.append(model)
        copied = _str(record.get("copiedFrom"))
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, record, base, copied)
        usage = record.get("usage")
        if isinstance(usage, dict) and kind in ("message", "tool_call"):
            self.rows["usage"].append(
                [
                    *base,
                    kind,
                    _str(record.get("inferenceId")),
                    model,
                    *(
                        _int(usage.get(k))
                        for k in (
                            "inputTokens",
                            "outputTokens",
                            "cacheReadTokens",
                            "cacheWriteTokens",
                            "reasoningTokens",
                            "totalTokens",
                        )
                    ),
                    copied,
                ]
            )

    def _session(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        if self.facts.records != 1:
            return  # a header is the first record; a later one is not this stream's header
        facts = self.facts
        facts.session = _str(record.get("session"))
        agent = record.get("agent")
        if isinstance(agent, dict):
            facts.agent = _str(agent.get("name"))
            facts.agent_version = _str(agent.get("version"))
        facts.parent = _str(record.get("parent"))
        facts.title = _str(record.get("title"))
        facts.cwd = _str(record.get("cwd"))

    def _message(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        self.facts.messages += 1
        count = 0
        for name in ("content", "displayContent"):
            count += self._parts(record, base, copied, "message", name, record, None)
        self.rows["messages"].append(
            [
                *base,
                _str(record.get("messageId")),
                _str(record.get("role")),
                _str(record.get("author")),
                _str(record.get("origin")),
                _str(record.get("phase")),
                _str(record.get("audience")),
                _str(record.get("status")),
                _str(record.get("model")),
                _str(record.get("turnId")),
                _str(record.get("inferenceId")),
                _str(record.get("summaryOf")),
                _str(record.get("conversation")),
                _json(record.get("from")) if isinstance(record.get("from"), dict) else None,
                copied,
                count,
            ]
        )

    def _parts(
        self,
        record: dict[str, Any],
        base: Row,
        copied: str | None,
        record_type: str,
        name: str,
        defaults: dict[str, Any],
        call_id: str | None,
    ) -> int:
        parts = record.get(name)
        if not isinstance(parts, list):
            return 0
        audience = _str(defaults.get("audience"))
        count = 0
        for index, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            count += 1
            kind = _str(part.get("type"))
            self._part(
                base,
                record_type,
                name,
                index,
                kind,
                effective(part, defaults, "author"),
                effective(part, defaults, "origin"),
                effective(part, defaults, "phase"),
                audience,
                _str(part.get("visibility")) if kind == "reasoning" else None,
                call_id,
                copied,
                texts.part_text(part),
            )
        return count

    def _part(
        self,
        base: Row,
        record_type: str,
        name: str,
        index: int,
        kind: str | None,
        author: str | None,
        origin: str | None,
        phase: str | None,
        audience: str | None,
        visibility: str | None,
        call_id: str | None,
        copied: str | None,
        text: str | None,
    ) -> None:
        chars = len(text) if text is not None else None
        self.pending.text_chars += chars or 0
        self.rows["parts"].append(
            [
                None,
                *base,
                record_type,
                name,
                index,
                kind,
                author,
                origin,
                phase,
                audience,
                visibility,
                call_id,
                int(copied is not None),
                chars,
                text,
            ]
        )

    def _text_row(
        self,
        base: Row,
        record_type: str,
        name: str,
        kind: str,
        text: str | None,
        copied: str | None,
        call_id: str | None = None,
    ) -> None:
        if text:
            self._part(base, record_type, name, 0, kind, None, None, None, None, None, call_id, copied, text)

    def _tool_call(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        call_id = _str(record.get("callId"))
        sealed = texts.sealed_input(record["input"], record.get("opaqueInput")) if "input" in record else None
        self._text_row(base, "tool_call", "input", "input", texts.input_text(record), copied, call_id)
        row = [
            *base,
            call_id,
            _str(record.get("name")),
            _json(sealed) if "input" in record else None,
            _str(record.get("arguments")),
            _str(record.get("status")),
            copied,
            None,
            None,
            None,
            None,
            None,
            None,
        ]
        if call_id is None:
            self.rows["tool_calls"].append(row)
            return
        known = self._results.get(call_id)
        if known is not None:  # its result came first, or this call revises one already answered
            row[-6:] = known.values()
            self.rows["tool_calls"].append(row)
            return
        self._pending.setdefault(call_id, []).append(row)
        self._pending.move_to_end(call_id)
        while len(self._pending) > MAX_PENDING:  # the oldest waiting call is written as it is
            self.rows["tool_calls"].extend(self._pending.popitem(last=False)[1])

    def _tool_result(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        call_id = _str(record.get("callId"))
        for name in ("content", "displayContent"):
            self._parts(record, base, copied, "tool_result", name, record, call_id)
        if call_id is None:
            return
        is_error = record.get("isError")
        facts = ResultFacts(
            base[1],
            base[3],
            _str(record.get("status")),
            int(is_error) if isinstance(is_error, bool) else None,
            _int(record.get("exitCode")),
            outcome(is_error, record.get("status"), record.get("exitCode")),
        )
        waiting = self._pending.pop(call_id, None)
        if waiting is not None:
            for row in waiting:
                row[-6:] = facts.values()
            self.rows["tool_calls"].extend(waiting)
        elif call_id not in self._results:  # a call written before its result (or none): the
            self.pending.updates.append([*facts.values(), self.sid, call_id])  # update finds it, if any
        if call_id not in self._results:  # a second result for one call changes nothing
            self._results[call_id] = facts
            while len(self._results) > MAX_PENDING:
                self._results.popitem(last=False)

    def _plan(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        entries = record.get("entries")
        listed = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
        self.rows["plans"].append(
            [
                *base,
                _str(record.get("planId")),
                _str(record.get("planType")),
                _str(record.get("status")),
                _str(record.get("supersedes")),
                _str(record.get("callId")),
                _json(entries) if isinstance(entries, list) else None,
                len(listed) if isinstance(entries, list) else None,
                sum(1 for e in listed if e.get("status") == "completed") if isinstance(entries, list) else None,
                copied,
            ]
        )
        self._parts(record, base, copied, "plan", "content", {}, None)
        lines = [e["content"] for e in listed if isinstance(e.get("content"), str) and e["content"]]
        self._text_row(base, "plan", "entries", "entries", "\n".join(lines), copied)

    def _subagent(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        description = _str(record.get("description"))
        self.rows["subagents"].append(
            [
                *base,
                _str(record.get("callId")),
                _str(record.get("session")),
                _str(record.get("address")),
                _str(record.get("agentType")),
                description,
                copied,
            ]
        )
        self._text_row(base, "subagent", "description", "description", description, copied)

    def _delivery(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        ids = record.get("platformMessageIds")
        self.rows["deliveries"].append(
            [
                *base,
                _str(record.get("message")),
                _str(record.get("conversation")),
                _str(record.get("status")),
                _str(record.get("reason")),
                _int(record.get("attempt")),
                _json(ids) if isinstance(ids, list) else None,
                _str(record.get("supersedes")),
            ]
        )

    def _input_request(self, record: dict[str, Any], base: Row, copied: str | None) -> None:
        for name in ("content", "answer"):
            self._parts(record, base, copied, "input_request", name, {}, _str(record.get("callId")))

    # -- handing rows over ----------------------------------------------------------------------

    def finish(self) -> None:
        """The stream ended: calls still waiting have no result."""
        for waiting in self._pending.values():
            self.rows["tool_calls"].extend(waiting)
        self._pending.clear()
        self._results.clear()


_HANDLERS = {
    "session": StreamRows._session,
    "message": StreamRows._message,
    "tool_call": StreamRows._tool_call,
    "tool_result": StreamRows._tool_result,
    "plan": StreamRows._plan,
    "subagent": StreamRows._subagent,
    "delivery": StreamRows._delivery,
    "input_request": StreamRows._input_request,
}
