# Whole, over 400 lines: one pass building a SessionSummary; its per-record steps share the stream's state.
"""One pass over a session's records, building its ``SessionSummary``.

The scanner keeps per stream only what the summary holds (responses, tool calls by
``callId``, prompt times): never the records. It reads the record model only: ``usage`` as
docs/format.md defines it, tool outcome as docs/semantics.md defines it, authors and origins
as ASR-224 resolves them.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable
from typing import IO, Any

from .activity import covered, intervals_of
from .prices import Prices, Tokens
from .responses import ResponseReader, is_model_record, record_time, tokens_of
from .summary import Response, SessionSummary, Subagent, ToolCall

#: A gap between two records longer than this counts as this long (docs/stats.md, "Active time").
IDLE_SECONDS = 600.0
#: Origins of text a person typed or chose (ASR origin values); ``injected`` and the rest are not.
PROMPT_ORIGINS = frozenset({"prompt", "queued", "steer", "command"})
#: The text kept of the first prompt (for an index's column).
FIRST_PROMPT_CHARS = 300

_DEFAULT_PRICES: Prices | None = None
#: Re-exported: the usage counts of one record (``stats.responses``).
__all__ = ["IDLE_SECONDS", "SessionScanner", "default_prices", "epoch", "session_summary", "tokens_of"]


def default_prices() -> Prices:
    """One ``Prices`` shared by every summary of this process (its caches are worth keeping)."""
    global _DEFAULT_PRICES
    if _DEFAULT_PRICES is None:
        _DEFAULT_PRICES = Prices()
    return _DEFAULT_PRICES


def _short(status: Any) -> str | None:
    """A status value without its registry namespace (``com.x/denied`` -> ``denied``)."""
    return status.rsplit("/", 1)[-1] if isinstance(status, str) else None


#: What a call keeps of its latest result: (isError, status, exitCode, ts, name).
Result = tuple[Any, Any, Any, Any, Any]


def outcome_of(call_status: Any, result: Result | None) -> str:
    """A call's outcome from its result (else its own status): docs/stats.md, "Tool calls"."""
    if result is not None and result[0] is True:
        return "failed"
    status = _short(result[1] if result is not None else call_status)
    if status == "error":
        return "failed"
    if status in ("denied", "cancelled", "interrupted"):
        return status
    return "ok" if result is not None else "no result"


def epoch(ts: Any) -> float | None:
    """Epoch seconds of a record's ``ts`` (RFC 3339), None when absent or unreadable."""
    return record_time(ts)


class SessionScanner:
    """Feed it a stream's records in order (``observe``), then ``finish()`` for the summary.

    ``on_response(response)`` is called with each model response as it is counted (a response
    recorded without usage at ``finish``): the per-response hook for a pipeline that wants
    each response's tokens and cost as the records stream by. ``reader`` is the
    ``stats.responses.ResponseReader`` that applies the usage and price rules.
    """

    def __init__(
        self,
        prices: Prices | None = None,
        *,
        price: bool = True,
        idle_seconds: float = IDLE_SECONDS,
        on_response: Callable[[Response], None] | None = None,
    ):
        self.prices = (prices or default_prices()) if price else None
        self.idle = idle_seconds
        self.on_response = on_response
        self.summary = SessionSummary()
        self.reader = ResponseReader(self.prices)
        self._times = array("d")  # every record time: 8 bytes a record
        self._calls: dict[str, ToolCall] = {}
        self._call_status: dict[str, Any] = {}
        # callId -> the latest result's (isError, status, exitCode, ts, name)
        self._results: dict[str, Result] = {}
        self._lone_calls: list[ToolCall] = []
        # callId -> (inferenceId, turnId, the model named last before it, responses before it)
        self._call_context: dict[str, tuple[str | None, str | None, str | None, int]] = {}
        self._response_models: dict[str, str] = {}  # inferenceId or "turn:" + turnId -> model
        self._usage_responses: set[str] = set()
        self._responses_seen: dict[str, tuple[str | None, str | None, float | None, str | None]] = {}
        self._subagents: dict[str, Subagent] = {}

    def observe(self, record: dict[str, Any]) -> None:
        summary = self.summary
        summary.records += 1
        if "copiedFrom" in record:  # history replayed from another session: counted there, not again
            summary.copied_records += 1
            return
        get = record.get
        kind = get("type")
        ts = get("ts")
        now = record_time(ts)
        reader = self.reader
        reader.follow(record, now)
        if now is not None:
            if summary.first_time is None or now < summary.first_time:
                summary.first_time, summary.first_ts = now, ts
            if summary.last_time is None or now > summary.last_time:
                summary.last_time, summary.last_ts = now, ts
            self._times.append(now)
            when: float | None = now
        else:
            when = reader.last_time
        if kind == "message":
            self._message(record, when)
        elif kind == "tool_call":
            self._tool_call(record, ts, when)
        elif kind == "tool_result":
            call_id = get("callId")
            if call_id.__class__ is str:  # only what the join needs: never the result's content
                self._results[call_id] = (get("isError"), get("status"), get("exitCode"), ts, get("name"))
        elif kind == "session":
            self._header(record)
        elif kind == "subagent":
            self._subagent(record)
        if "usage" in record or "nativeUsage" in record:
            self._usage(record, ts, when)
        elif "inferenceId" in record:
            self._seen_response(record, ts, when)

    def _activity(self) -> None:
        """Active time: the stream's activity intervals (docs/stats.md, "Active time")."""
        summary = self.summary
        summary.activity = intervals_of(self._times, self.idle)
        summary.active_seconds = covered(summary.activity)
        self._times = array("d")

    def _header(self, record: dict[str, Any]) -> None:
        summary = self.summary
        summary.session = _text(record.get("session"))
        agent = record.get("agent")
        if isinstance(agent, dict):
            summary.agent = _text(agent.get("name"))
            summary.agent_version = _text(agent.get("version"))
        summary.title = _text(record.get("title"))
        summary.cwd = _text(record.get("cwd"))
        summary.parent = _text(record.get("parent"))
        source = record.get("source")
        if isinstance(source, dict):
            summary.file = _text(source.get("file"))

    def _message(self, record: dict[str, Any], when: float | None) -> None:
        summary = self.summary
        if record.get("status") == "error" and (record.get("author") == "model" or record.get("role") == "assistant"):
            summary.errors += 1
        author = record.get("author")
        origin = record.get("origin")
        if summary.opened_by is None and record.get("role") == "user":
            summary.opened_by = _opener(record, author)
        sender = record.get("from")
        child = sender.get("session") if isinstance(sender, dict) else None
        if isinstance(child, str) and child not in summary.reports_from and _reports(record, origin):
            summary.reports_from.append(child)
        typed = unattributed = False
        text: list[str] = []
        for member in ("content", "displayContent"):
            parts = record.get(member)
            if not isinstance(parts, list):
                continue
            for part in parts:
                if not isinstance(part, dict):
                    continue
                part_origin = part.get("origin", origin)
                if part_origin not in PROMPT_ORIGINS:
                    continue
                part_author = part.get("author", author)
                if part_author == "human":
                    typed = True
                    if summary.first_prompt is None and isinstance(part.get("text"), str):
                        text.append(part["text"])
                elif part_author is None and record.get("role") == "user":
                    unattributed = True
            if typed and member == "content":
                break  # displayContent repeats what the person typed: one prompt a message
        if not (typed or unattributed) and author == "human" and origin in PROMPT_ORIGINS:
            # a prompt whose words are gone (a sanitizer's marker taken out, capture redacted):
            # the record still says the person typed one
            typed = not record.get("content") and not record.get("displayContent")
        if typed:
            summary.prompt_times.append(when)
            joined = "".join(text).strip()
            if summary.first_prompt is None and joined:
                summary.first_prompt = joined[:FIRST_PROMPT_CHARS]
        elif unattributed:
            summary.unattributed_times.append(when)

    def _tool_call(self, record: dict[str, Any], ts: Any, when: float | None) -> None:
        call_id = record.get("callId")
        name = _text(record.get("name"))
        if not isinstance(call_id, str):
            status = record.get("status")
            lone = ToolCall(
                None, name, _text(ts), when, outcome_of(status, None), _text(status), model=self._model_of(record)
            )
            self._lone_calls.append(lone)
            return
        known = self._calls.get(call_id)
        if known is None:  # a revision (supersedes) keeps the first sighting's time
            self._calls[call_id] = ToolCall(call_id, name, _text(ts), when, model=self._model_of(record))
            self._call_context[call_id] = (
                _text(record.get("inferenceId")),
                _text(record.get("turnId")),
                self.reader.model,
                len(self.summary.responses),
            )
        elif name is not None:
            known.name = name
        if "status" in record:
            self._call_status[call_id] = record["status"]

    def _model_of(self, record: dict[str, Any]) -> str | None:
        model = record.get("model")
        return model if isinstance(model, str) and model else None

    def _subagent(self, record: dict[str, Any]) -> None:
        session = _text(record.get("session"))
        call_id = _text(record.get("callId"))
        key = session or call_id or f"#{len(self._subagents)}"
        self._subagents[key] = Subagent(  # a revision replaces the earlier state
            session, _text(record.get("agentType")), _text(record.get("description")), call_id
        )

    def _usage(self, record: dict[str, Any], ts: Any, when: float | None) -> None:
        response = self.reader.response(record, when)
        if response is None or (not response.has_usage and response.cost_by is None and "inferenceId" in record):
            # no response here, or one with unknown usage that another record of it may count
            self._seen_response(record, ts, when)
            return
        self._count(response)
        model = response.model
        inference = record.get("inferenceId")
        if isinstance(inference, str):
            self._usage_responses.add(inference)
            if model is not None:
                self._response_models[inference] = model
        turn = record.get("turnId")
        if isinstance(turn, str) and model is not None:
            self._response_models["turn:" + turn] = model

    def _count(self, response: Response) -> None:
        self.summary.responses.append(response)
        if self.on_response is not None:
            self.on_response(response)

    def _seen_response(self, record: dict[str, Any], ts: Any, when: float | None) -> None:
        """A record of a model response that carries no usage: counted once by its inferenceId
        at the end, unless another record of the response carries the usage."""
        inference = record.get("inferenceId")
        if not isinstance(inference, str) or inference in self._responses_seen:
            return
        if is_model_record(record):
            model = record.get("model")
            self._responses_seen[inference] = (
                _text(record.get("id")),
                _text(ts),
                when,
                model if isinstance(model, str) and model else self.reader.model,
            )

    def finish(self) -> SessionSummary:
        summary = self.summary
        self._activity()
        for inference, (record_id, ts, when, model) in self._responses_seen.items():
            if inference not in self._usage_responses:
                self._count(Response(record_id, ts, when, model, Tokens(), has_usage=False))
        fallback = summary.first_time
        for response in summary.responses:
            if response.time is None:
                response.time = fallback
        responses = summary.responses
        for call_id, call in self._calls.items():
            result = self._results.pop(call_id, None)
            self._join(call, self._call_status.get(call_id), result)
            if call.model is None:
                call.model = self._call_model(call_id, responses)
        for call_id, result in self._results.items():  # a result whose call the stream lacks
            call = ToolCall(call_id, _text(result[4]), None, None)
            self._join(call, None, result)
            self._lone_calls.append(call)
        summary.tool_calls = [*self._calls.values(), *self._lone_calls]
        for call in summary.tool_calls:
            if call.time is None:
                call.time = fallback
        summary.prompt_times = [fallback if when is None else when for when in summary.prompt_times]
        summary.unattributed_times = [fallback if when is None else when for when in summary.unattributed_times]
        summary.subagents = list(self._subagents.values())
        return summary

    def _call_model(self, call_id: str, responses: list[Response]) -> str | None:
        """The model of the response a call came with: the one with its inferenceId, else the
        last of its turn, else the model named before it, else the next response's."""
        inference, turn, before, count = self._call_context.get(call_id, (None, None, None, 0))
        models = self._response_models
        found = (models.get(inference) if inference else None) or (models.get("turn:" + turn) if turn else None)
        if found is not None or before is not None:
            return found or before
        return responses[min(count, len(responses) - 1)].model if responses else None

    @staticmethod
    def _join(call: ToolCall, call_status: Any, result: Result | None) -> None:
        call.outcome = outcome_of(call_status, result)
        if result is not None:
            is_error, status, exit_code, ts, name = result
            call.status = _text(status)
            call.is_error = is_error is True
            call.exit_code = exit_code if exit_code.__class__ is int else None
            call.result_ts = _text(ts)
            if call.name is None:
                call.name = _text(name)
        else:
            call.status = _text(call_status)


def _opener(record: dict[str, Any], author: Any) -> str | None:
    """``human`` or ``agent``: who wrote the first such part of a user-role message (the
    harness's preamble before it aside); None when neither did."""
    parts = record.get("content")
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, dict):
            who = part.get("author", author)
            if who in ("human", "agent"):
                return str(who)
    return str(author) if author in ("human", "agent") else None


def _reports(record: dict[str, Any], origin: Any) -> bool:
    """Whether a message holds a subagent's report (origin ``subagent_report``, its own or a part's)."""
    if origin == "subagent_report":
        return True
    parts = record.get("content")
    return any(isinstance(p, dict) and p.get("origin") == "subagent_report" for p in parts or ())


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


StreamLike = Iterable[Any] | str | os.PathLike[str] | bytes | IO[bytes]


def session_summary(
    stream: StreamLike,
    *,
    prices: Prices | None = None,
    price: bool = True,
    idle_seconds: float = IDLE_SECONDS,
) -> SessionSummary:
    """Sum up one session stream: tokens, cost, tool calls joined with their results, failures,
    the person's prompts, duration and active time, models, subagents (docs/stats.md).

    ``stream`` is an ASR stream (a path, bytes or a binary file) or its records (dicts or
    pydantic models) in order. ``price=False`` skips pricing (every cost then None, except
    costs the agent recorded itself). ``idle_seconds`` caps each gap counted as active time.
    """
    if isinstance(stream, str | os.PathLike | bytes) or hasattr(stream, "read"):
        from ..stream.reader import read_records

        records: Iterable[Any] = read_records(stream)  # type: ignore[arg-type]
    else:
        records = stream
    scanner = SessionScanner(prices, price=price, idle_seconds=idle_seconds)
    for record in records:
        if not isinstance(record, dict):
            from ..model.api import to_dict

            record = to_dict(record)
        scanner.observe(record)
    return scanner.finish()
