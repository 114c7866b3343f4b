# Whole, over 400 lines: TraceWriter's one pass (turns, chats, tool spans) and the ids it derives belong together.
"""ASR stream -> OpenTelemetry trace (GenAI semantic conventions v1.44.0), through the official SDK.

One trace per session: a root span for the session, an ``invoke_agent`` span per turn, a
``chat`` span per model response (model, usage, finish reason), an ``execute_tool`` span per
tool call (ended by its result, error status when the result says so). Message content is
sensitive in the conventions and only written with ``include_content``. Times come from the
records; a span whose start or end the stream does not record is placed by order (the
previous record's time) and flagged ``asr.time.estimated``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import IO, Any

import orjson
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Status, StatusCode

from ..version import __version__
from .otlp_json import Fragment, OtlpJsonExporter, PlainSpans
from .report import APPROXIMATE, CARRIED, DROPPED, LossReport
from .sink import Write

NAME = "otel"
SCOPE = "asr_adapters.export"
VERSION = "gen_ai semconv 1.44.0"
SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_sha256 = hashlib.sha256
USAGE_ATTRIBUTES = (
    ("inputTokens", "gen_ai.usage.input_tokens"),
    ("outputTokens", "gen_ai.usage.output_tokens"),
    ("cacheReadTokens", "gen_ai.usage.cache_read.input_tokens"),
    ("cacheWriteTokens", "gen_ai.usage.cache_creation.input_tokens"),
    ("reasoningTokens", "gen_ai.usage.reasoning.output_tokens"),
)
CONTENT_HOW = "content is sensitive in the GenAI conventions: written only with --include-content"
#: Bytes (UTF-8) of one content attribute at most: a span stays well under the request limit
#: (``otlp_send.MAX_REQUEST_BYTES``, 4,000,000) with its two content attributes; longer text is
#: cut there and the cut counted in the loss report (issue 25.16).
MAX_CONTENT_BYTES = 1_000_000
CUT_HOW = (
    f"text past {MAX_CONTENT_BYTES:,} bytes (UTF-8) of one attribute is cut, so every span fits an OTLP request "
    "a collector takes"
)


def nanos(ts: Any) -> int | None:
    """An RFC 3339 time as Unix nanoseconds, or None."""
    if not isinstance(ts, str):
        return None
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    since = moment - EPOCH  # days, seconds, microseconds: exact, and cheaper than dividing timedeltas
    return (since.days * 86400 + since.seconds) * 1_000_000_000 + since.microseconds * 1000


def trace_id_of(session: str) -> int:
    """The trace id of a session's trace: known from its reference alone (links need that)."""
    return int.from_bytes(hashlib.sha256(b"trace:" + session.encode()).digest()[:16], "big") or 1


#: Odd, so ``base + n * STEP`` (mod 2**64) never repeats within a trace.
SPAN_STEP = 0x9E3779B97F4A7C15
SPAN_MASK = (1 << 64) - 1


def span_base(session: str) -> int:
    """A session's span-id origin (one hash per trace, not one per span)."""
    return int.from_bytes(_sha256(b"span:" + session.encode()).digest()[:8], "big")


def span_id_of(session: str, number: int) -> int:
    """The id of the ``number``-th span made for a session (1: its root span)."""
    return span_id_from(span_base(session), number)


def span_id_from(base: int, number: int) -> int:
    return ((base + number * SPAN_STEP) & SPAN_MASK) or 1


def root_context(session: str) -> trace.SpanContext:
    """The span context of a session's root span, for links between a parent and its subagents."""
    return trace.SpanContext(trace_id_of(session), span_id_of(session, 1), is_remote=True)


class SessionIds(IdGenerator):
    """Trace and span ids derived from the session reference: the same stream, the same ids."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.base = span_base(session)
        self.count = 0

    def generate_trace_id(self) -> int:
        return trace_id_of(self.session)

    def generate_span_id(self) -> int:
        self.count += 1
        return span_id_from(self.base, self.count)


def _json_text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # deeper than orjson writes: the stream's limit allows it
        from ..stream.writer import dumps

        return dumps(value).decode().rstrip("\n")


def cut_text(text: str, limit: int = MAX_CONTENT_BYTES) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` bytes of UTF-8 (at a character boundary); whether it was cut."""
    if len(text) <= limit // 4:
        return text, False
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def messages_json(messages: list[dict[str, Any]], limit: int = MAX_CONTENT_BYTES) -> tuple[str, bool]:
    """``gen_ai.*.messages`` as JSON of at most ``limit`` bytes, still JSON: the longest texts are
    cut (JSON escapes make text longer, so the result is measured, not planned); whether any was."""
    text = _json_text(messages)
    excess = len(text.encode("utf-8", "surrogatepass")) - limit
    if excess <= 0:
        return text, False
    cut = [{**message, "parts": [{**part} for part in message["parts"]]} for message in messages]
    texts = sorted((p for m in cut for p in m["parts"]), key=lambda p: len(p["content"]), reverse=True)
    for part in texts:
        content = part["content"]
        part["content"] = content[: max(0, len(content) - excess)]
        text = _json_text(cut)
        excess = len(text.encode("utf-8", "surrogatepass")) - limit
        if excess <= 0:
            break
    return text, True


def _texts(parts: Any, *, reasoning: bool = False) -> list[dict[str, str]]:
    """Text (and full reasoning) parts in the conventions' message-part shape."""
    found = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            found.append({"type": "text", "content": part["text"]})
        elif reasoning and part.get("type") == "reasoning" and part.get("visibility") == "full" and "text" in part:
            found.append({"type": "reasoning", "content": part["text"]})
    return found


class SdkSpans:
    """Spans made by the SDK, one tracer provider per trace; ``exporter_for(resource)`` gives the
    exporter (each span exported as it ends) or a span processor of the caller's."""

    def __init__(self, exporter_for: Any) -> None:
        self.exporter_for = exporter_for
        self.provider: TracerProvider | None = None
        self.tracer: Any = None

    def begin(self, session: str, resource_attributes: dict[str, Any]) -> None:
        resource = Resource(resource_attributes)
        self.provider = TracerProvider(resource=resource, id_generator=SessionIds(session), shutdown_on_exit=False)
        made: SpanExporter | SpanProcessor = self.exporter_for(resource)
        self.provider.add_span_processor(made if isinstance(made, SpanProcessor) else SimpleSpanProcessor(made))
        self.tracer = self.provider.get_tracer(SCOPE, __version__, schema_url=SCHEMA_URL)

    def start(self, name: str, parent: Span | None, at: int, attributes: dict[str, Any]) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        span: Span = self.tracer.start_span(name, context=context, start_time=at, attributes=attributes)
        return span

    def finish(self) -> None:
        assert self.provider is not None
        self.provider.shutdown()


class FileSpans(PlainSpans):
    """Plain spans written straight into one OTLP/JSON document, with the ids the SDK path gives."""

    def __init__(self, out: IO[str] | None) -> None:
        super().__init__(out, SCOPE, __version__, SCHEMA_URL)

    def begin(self, session: str, resource_attributes: dict[str, Any]) -> None:
        self.begin_trace(trace_id_of(session), functools.partial(span_id_from, span_base(session)), resource_attributes)

    def finish(self) -> None:
        pass


class TraceWriter:
    """Turns one stream's records into spans (``SdkSpans`` or ``FileSpans``), each handed on as it ends."""

    def __init__(self, spans: Any, report: LossReport, include_content: bool) -> None:
        self.spans = spans
        self.report = report
        self.content = include_content
        self.root: Span | None = None
        self.turn: Span | None = None
        self.turn_key: Any = None
        self.chat: Span | None = None
        self.chat_key: Any = None
        self.tools: dict[str, Span] = {}
        self.last: int | None = None
        self.agent = "unknown"
        self.last_ts: Any = None
        # the notes each record kind meets, counted by index (report.counter)
        self.counts = report.batch_counts
        content = (CARRIED, "") if include_content else (DROPPED, CONTENT_HOW)
        message = (APPROXIMATE, "text parts as gen_ai.*.messages") if include_content else (DROPPED, CONTENT_HOW)
        self.message_notes = report.counter(("message", "content", *message))
        self.call_notes = report.counter(("tool_call", "callId/name", CARRIED, ""), ("tool_call", "input", *content))
        self.result_notes = report.counter(
            ("tool_result", "status/isError", CARRIED, ""), ("tool_result", "content", *content)
        )
        self.turn_messages: list[dict[str, Any]] = []
        self.usage_notes: dict[tuple[str, tuple[str, ...]], int] = {}

    def _time(self, record: dict[str, Any]) -> tuple[int, bool]:
        ts = record.get("ts")
        if ts is not None and ts == self.last_ts:  # records of one moment: parsed once
            return self.last or 0, False
        moment = nanos(ts)
        if moment is None:
            return (self.last or 0), True
        self.last = moment
        self.last_ts = ts
        return moment, False

    def _start(self, name: str, parent: Span | None, at: int, estimated: bool, attributes: dict[str, Any]) -> Span:
        span: Span = self.spans.start(name, parent, at, attributes)
        if estimated:
            span.set_attribute("asr.time.estimated", True)
        return span

    def _end(self, span: Span | None, at: int | None = None) -> None:
        if span is not None and span.end_time is None:
            end = max(at if at is not None else (self.last or 0), span.start_time or 0)
            span.end(end_time=end)

    def _begin(self, header: dict[str, Any]) -> None:
        session = str(header.get("session") or "unknown")
        agent: dict[str, Any] = header["agent"] if isinstance(header.get("agent"), dict) else {}
        self.agent = str(agent.get("name") or "unknown")
        self.spans.begin(session, {"service.name": self.agent, "service.version": str(agent.get("version") or "")})
        at, estimated = self._time(header)
        attributes = {"gen_ai.conversation.id": session, "gen_ai.agent.name": self.agent}
        if agent.get("version"):
            attributes["gen_ai.agent.version"] = str(agent["version"])
        self.root = self._start(f"session {self.agent}", None, at, estimated, attributes)
        parent = header.get("parent")
        if isinstance(parent, str):  # a subagent's or fork's trace links to its parent session's root
            self.root.add_link(root_context(parent.split("#", 1)[0]), {"asr.link": "parent_session"})
            self.report.note("session", "parent", CARRIED, "")
        for name in header:
            if name in ("session", "agent"):
                self.report.note("session", name, CARRIED)
            elif name not in ("type", "seq", "id", "parent"):
                self.report.note("session", name, DROPPED, "no GenAI attribute")

    def add(self, record: dict[str, Any]) -> None:
        kind = str(record.get("type"))
        self.report.records[kind] += 1
        if kind == "session":
            self._begin(record)
            return
        if self.root is None:
            self._begin({})
        at, estimated = self._time(record)
        self._turn(record, at, estimated)
        if kind == "message":
            self._message(record, at, estimated)
        elif kind == "tool_call":
            self._tool_call(record, at, estimated)
        elif kind == "tool_result":
            self._tool_result(record, at)
        elif kind == "subagent" and isinstance(record.get("session"), str):
            self._subagent(record)
        else:
            self.report.note(kind, "*", DROPPED, "no span or GenAI attribute for this record type")

    def _turn(self, record: dict[str, Any], at: int, estimated: bool) -> None:
        key = record.get("turnId")
        starts = (key is not None and key != self.turn_key) or (
            key is None and record.get("type") == "message" and record.get("role") == "user" and self.turn_key is None
        )
        if record.get("type") == "message" and record.get("role") == "user" and key is None and self.turn is not None:
            starts = self.turn_key is None and bool(_texts(record.get("content")))
        if not starts:
            return
        self._close_turn(at)
        attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": self.agent}
        self.turn = self._start(f"invoke_agent {self.agent}", self.root, at, estimated, attributes)
        self.turn_messages = []
        self.turn_key = key

    def _close_turn(self, at: int | None) -> None:
        for span in self.tools.values():
            span.set_attribute("asr.tool.result_missing", True)
            self._end(span, at)
        self.tools.clear()
        self._end(self.chat, at)
        self.chat, self.chat_key = None, None
        self._end(self.turn, at)
        self.turn = None

    def _parent(self) -> Span | None:
        return self.turn or self.root

    def _chat(self, record: dict[str, Any], at: int, estimated: bool) -> Span:
        key = record.get("inferenceId")
        if self.chat is not None and key is not None and key == self.chat_key:
            return self.chat
        self._end(self.chat)
        model = record.get("model")
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat"}
        if isinstance(model, str):
            attributes["gen_ai.request.model"] = model
            attributes["gen_ai.response.model"] = model
        if key is not None:
            attributes["gen_ai.response.id"] = str(key)
        name = f"chat {model}" if isinstance(model, str) else "chat"
        self.chat = self._start(name, self._parent(), at, estimated, attributes)
        self.chat_key = key
        return self.chat

    def _usage(self, span: Span, record: dict[str, Any]) -> None:
        usage = record.get("usage")
        if not isinstance(usage, dict):
            return
        found = tuple(asr for asr, _ in USAGE_ATTRIBUTES if isinstance(usage.get(asr), int))
        for asr, name in USAGE_ATTRIBUTES:
            if asr in found:
                span.set_attribute(name, usage[asr])
        if usage.get("partial") is True:  # the source kept only a running count (docs/format.md)
            span.set_attribute("asr.usage.partial", True)
        kind = str(record.get("type"))
        index = self.usage_notes.get((kind, found))
        if index is None:
            notes = tuple((kind, f"usage.{asr}", CARRIED, "") for asr in found)
            index = self.usage_notes[(kind, found)] = self.report.counter(*notes)
        self.counts[index] += 1

    def _message(self, record: dict[str, Any], at: int, estimated: bool) -> None:
        role = record.get("role")
        if role == "assistant":
            span = self._chat(record, at, estimated)
            self._usage(span, record)
            if isinstance(record.get("stopReason"), str):
                span.set_attribute("gen_ai.response.finish_reasons", [record["stopReason"]])
            if record.get("status") == "error":
                span.set_status(Status(StatusCode.ERROR, self._error_text(record)))
            if self.content:
                parts = _texts(record.get("content"), reasoning=True)
                value, was_cut = messages_json([{"role": "assistant", "parts": parts}])
                span.set_attribute("gen_ai.output.messages", value)
                self._count_cut(was_cut, "message", "content")
            self._end(span, at)
        elif role == "user" and self.turn is not None and self.content and record.get("status") != "withdrawn":
            parts = _texts(record.get("content"))
            if parts:
                self.turn_messages.append({"role": "user", "parts": parts})
                value, was_cut = messages_json(self.turn_messages)
                self.turn.set_attribute("gen_ai.input.messages", value)
                self._count_cut(was_cut, "message", "content")
        self.counts[self.message_notes] += 1

    def _count_cut(self, was_cut: bool, kind: str, field: str) -> None:
        if was_cut:
            self.report.note(kind, field, DROPPED, CUT_HOW)

    def _error_text(self, record: dict[str, Any]) -> str:
        """A failed response's status message: the source's error text is content (it quotes
        prompts, keys, paths), so without ``include_content`` it is only ``error`` (issue 25.17)."""
        error = record.get("error")
        if error is None:
            return "error"
        if not self.content:
            self.report.note("message", "error", DROPPED, CONTENT_HOW)
            return "error"
        self.report.note("message", "error", APPROXIMATE, "the span's status message (an object: its message, or JSON)")
        if isinstance(error, str):
            return error or "error"
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        return _json_text(error)

    def _tool_call(self, record: dict[str, Any], at: int, estimated: bool) -> None:
        if isinstance(record.get("usage"), dict):
            chat = self._chat(record, at, estimated)
            self._usage(chat, record)
            self._end(chat, at)
        name = str(record.get("name"))
        attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        call_id = record.get("callId")
        if isinstance(call_id, str):
            attributes["gen_ai.tool.call.id"] = call_id
        if self.content and ("input" in record or "arguments" in record):
            value = record.get("input", record.get("arguments"))
            arguments, was_cut = cut_text(value if isinstance(value, str) else _json_text(value))
            attributes["gen_ai.tool.call.arguments"] = arguments
            self._count_cut(was_cut, "tool_call", "input")
        span = self._start(f"execute_tool {name}", self._parent(), at, estimated, attributes)
        self.counts[self.call_notes] += 1
        if isinstance(call_id, str):
            self._end(self.tools.pop(call_id, None), at)
            self.tools[call_id] = span
        else:
            self._end(span, at)

    def _subagent(self, record: dict[str, Any]) -> None:
        """Link the spawning span (the call's execute_tool span, else the turn) to the child's trace."""
        spawning = self.tools.get(str(record.get("callId"))) or self._parent()
        if spawning is not None:
            attributes = {"asr.link": "subagent"}
            if isinstance(record.get("agentType"), str):
                attributes["gen_ai.agent.name"] = record["agentType"]
            spawning.add_link(root_context(record["session"]), attributes)
        self.report.note("subagent", "session", CARRIED, "")
        self.report.note("subagent", "*", DROPPED, "only the link to the child's trace is kept")

    def _tool_result(self, record: dict[str, Any], at: int) -> None:
        span = self.tools.pop(str(record.get("callId")), None)
        if span is None:
            self.report.note("tool_result", "*", DROPPED, "its tool call is not in the stream or already ended")
            return
        if record.get("isError") is True or record.get("status") in ("error", "failed"):
            span.set_status(Status(StatusCode.ERROR, str(record.get("status") or "error")))
        if self.content:
            texts = [p["content"] for p in _texts(record.get("content"))]
            result, was_cut = cut_text("".join(texts))
            span.set_attribute("gen_ai.tool.call.result", result)
            self._count_cut(was_cut, "tool_result", "content")
        self.counts[self.result_notes] += 1
        self._end(span, at)

    def finish(self) -> None:
        if self.root is None:
            self._begin({})
        self._close_turn(self.last)
        self._end(self.root, self.last)
        self.spans.finish()


def write_trace(
    records: Iterable[dict[str, Any]],
    report: LossReport,
    exporter_for: Any,
    *,
    include_content: bool = False,
) -> None:
    """Make one stream's spans through the SDK; ``exporter_for(resource)`` gives the exporter (each
    span exported as it ends) or a span processor of the caller's (``otlp_send`` batches)."""
    _write(records, SdkSpans(exporter_for), report, include_content)


def _write(records: Iterable[dict[str, Any]], spans: Any, report: LossReport, include_content: bool) -> None:
    writer = TraceWriter(spans, report, include_content)
    for record in records:
        writer.add(record)
    writer.finish()
    report.trajectories += 1


def write_otlp_json(
    streams: Iterable[Iterable[dict[str, Any]]],
    out: IO[str],
    report: LossReport,
    *,
    include_content: bool = False,
    tail: Callable[[Write], None] | None = None,
) -> None:
    """Streams (a session and its subagents) as one OTLP/JSON document (``ExportTraceServiceRequest``),
    one trace each, linked parent to child; spans are written to ``out`` as they end. The spans are
    the SDK path's (``write_otlp_json_via_sdk``), made without SDK span objects. ``tail(write)``
    adds spans (``,{span}`` pieces, see ``write_fragment``) after them."""
    spans = FileSpans(out)
    for records in streams:
        _write(records, spans, report, include_content)
    spans.close({}, tail)


def write_fragment(
    records: Iterable[dict[str, Any]], write: Write, report: LossReport, *, include_content: bool = False
) -> None:
    """One stream's spans as ``,{span}`` pieces, to follow another document's spans (a folder's
    child stream in its parent's file)."""
    spans = FileSpans(None)
    spans.document = Fragment(write)
    _write(records, spans, report, include_content)


def write_otlp_json_via_sdk(
    streams: Iterable[Iterable[dict[str, Any]]], out: IO[str], report: LossReport, *, include_content: bool = False
) -> None:
    """``write_otlp_json`` through SDK spans and an SDK exporter (slower): the same document, byte for
    byte; the tests hold the two together."""
    made: list[OtlpJsonExporter] = []

    def exporter_for(resource: Resource) -> SpanExporter:
        if not made:
            made.append(OtlpJsonExporter(out, resource, SCOPE, __version__, SCHEMA_URL))
        return Shared(made[0])

    for records in streams:
        write_trace(records, report, exporter_for, include_content=include_content)
    if not made:
        exporter_for(Resource({}))
    made[0].shutdown()
    if made[0].error is not None:
        raise made[0].error


class Shared(SpanExporter):
    """One exporter used by several tracer providers (one per trace): their shutdowns do not close it."""

    def __init__(self, target: OtlpJsonExporter) -> None:
        self.target = target

    def export(self, spans: Any) -> Any:
        return self.target.export(spans)

    def shutdown(self) -> None:
        pass
