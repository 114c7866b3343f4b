"""OTLP/JSON (``ExportTraceServiceRequest``: ids as hex, 64-bit integers and times as strings,
enums as numbers), written span by span as spans end, so spans are never all held in memory.

Two writers of one shape. ``PlainSpans`` makes the file export's spans itself (plain objects,
no SDK span per record: the SDK's span objects, locks and attribute cleaning cost more than the
rest of the export). ``OtlpJsonExporter`` is an SDK span exporter writing the SDK's finished
spans in the same shape; tests run both on every golden stream and require the same document,
so the file holds exactly the spans ``--endpoint`` sends through the SDK.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Any

import orjson
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import SpanContext, Status, StatusCode

from .sink import Write, byte_writer

#: OTLP's SPAN_KIND_INTERNAL (the SDK counts it 0): every span we make is internal.
KIND_INTERNAL = 1


def any_value(value: Any) -> dict[str, Any]:
    """An attribute value as OTLP/JSON ``AnyValue``."""
    if type(value) is str:  # most values: first
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    return {"stringValue": str(value)}


def key_values(attributes: Any) -> list[dict[str, Any]]:
    found = []
    for key, value in (attributes or {}).items():
        kind = type(value)  # strings and integers inline: most values are
        if kind is str:
            found.append({"key": key, "value": {"stringValue": value}})
        elif kind is int:
            found.append({"key": key, "value": {"intValue": str(value)}})
        else:
            found.append({"key": key, "value": any_value(value)})
    return found


def _status(code: int, message: str | None) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if code:
        status["code"] = code
    if message:
        status["message"] = message
    return status


def span_json(span: ReadableSpan) -> dict[str, Any]:
    """One finished SDK span as an OTLP/JSON ``Span``."""
    context = span.get_span_context()
    assert context is not None
    data: dict[str, Any] = {"traceId": f"{context.trace_id:032x}", "spanId": f"{context.span_id:016x}"}
    if span.parent is not None:
        data["parentSpanId"] = f"{span.parent.span_id:016x}"
    data["name"] = span.name
    data["kind"] = span.kind.value + 1  # OTLP counts SPAN_KIND_INTERNAL as 1, the SDK as 0
    data["startTimeUnixNano"] = str(span.start_time)
    data["endTimeUnixNano"] = str(span.end_time)
    data["attributes"] = key_values(span.attributes)
    if span.links:
        data["links"] = [
            {
                "traceId": f"{link.context.trace_id:032x}",
                "spanId": f"{link.context.span_id:016x}",
                "attributes": key_values(link.attributes),
            }
            for link in span.links
        ]
    data["status"] = _status(span.status.status_code.value, span.status.description)
    return data


class Document:
    """``{"resourceSpans": [{resource, scopeSpans: [{scope, spans: [...]}]}]}`` written into ``out``:
    the head with the first trace's resource, then spans one by one, then the tail."""

    def __init__(self, out: IO[str], resource: dict[str, Any], scope: str, version: str, schema_url: str) -> None:
        self.out = byte_writer(out)
        self.count = 0
        self.closed = False
        head = {
            "resource": {"attributes": key_values(resource)},
            "scopeSpans": [{"scope": {"name": scope, "version": version}, "schemaUrl": schema_url}],
            "schemaUrl": schema_url,
        }
        text = orjson.dumps(head)
        # open the spans array inside the only scopeSpans entry: ...,"schemaUrl":"..."}],...
        scope_end = text.index(b"}]", text.index(b'"scopeSpans"'))
        self.out(b'{"resourceSpans":[' + text[:scope_end] + b',"spans":[')
        self.tail = text[scope_end:] + b"]}"

    def write(self, span: dict[str, Any]) -> None:
        if self.count:
            self.out(b",")
        self.out(orjson.dumps(span))
        self.count += 1

    def close(self, tail: Callable[[Write], None] | None = None) -> None:
        """End the spans array (after ``tail(write)`` adds more) and the document."""
        if not self.closed:
            self.closed = True
            if tail is not None:
                tail(self.out)
            self.out(b"]" + self.tail)


class Fragment:
    """Spans as ``,{span}`` pieces (no head, no tail), to follow another document's spans."""

    def __init__(self, write: Write) -> None:
        self.out = write
        self.count = 0

    def write(self, span: dict[str, Any]) -> None:
        self.out(b"," + orjson.dumps(span))
        self.count += 1

    def close(self, tail: Callable[[Write], None] | None = None) -> None:
        pass


class OtlpJsonExporter(SpanExporter):
    """An SDK span exporter writing finished SDK spans as one OTLP/JSON document into ``out``."""

    def __init__(self, out: IO[str], resource: Resource, scope: str, version: str, schema_url: str) -> None:
        #: The first write error: the SDK only logs an exporter's exceptions, the caller re-raises it.
        self.error: OSError | None = None
        self.document = Document(out, dict(resource.attributes), scope, version, schema_url)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            for span in spans:
                self.document.write(span_json(span))
        except OSError as exc:
            self.error = self.error or exc
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        try:
            self.document.close()
        except OSError as exc:
            self.error = self.error or exc


class PlainSpan:
    """A span of the file export: what the SDK's span records, with the SDK's rules for what
    changes after the start (an ended span takes no attribute, status or link; a set attribute
    moves to the end; an error status replaces another; links beyond the limit drop the oldest)."""

    __slots__ = ("attributes", "end_time", "links", "name", "parent_id", "sink", "span_id", "start_time", "status")

    def __init__(
        self, sink: PlainSpans, name: str, span_id: int, parent_id: int | None, at: int, attributes: dict[str, Any]
    ) -> None:
        self.sink = sink
        self.name = name
        self.span_id = span_id
        self.parent_id = parent_id
        self.start_time = at
        self.end_time: int | None = None
        self.attributes = attributes
        self.links: deque[tuple[int, int, dict[str, Any]]] | None = None
        self.status: Status | None = None

    def set_attribute(self, key: str, value: Any) -> None:
        if self.end_time is None:
            self.attributes.pop(key, None)
            self.attributes[key] = value

    def set_status(self, status: Status) -> None:
        settable = self.end_time is None and status.status_code is not StatusCode.UNSET
        if settable and (self.status is None or self.status.status_code is not StatusCode.OK):
            self.status = status

    def add_link(self, context: SpanContext, attributes: dict[str, Any]) -> None:
        if self.end_time is None:
            if self.links is None:
                self.links = deque(maxlen=self.sink.max_links)
            self.links.append((context.trace_id, context.span_id, dict(attributes)))

    def end(self, end_time: int) -> None:
        if self.end_time is None:
            self.end_time = end_time
            self.sink.write(self)

    def as_json(self, trace_hex: str) -> dict[str, Any]:
        data: dict[str, Any] = {"traceId": trace_hex, "spanId": f"{self.span_id:016x}"}
        if self.parent_id is not None:
            data["parentSpanId"] = f"{self.parent_id:016x}"
        data["name"] = self.name
        data["kind"] = KIND_INTERNAL
        data["startTimeUnixNano"] = str(self.start_time)
        data["endTimeUnixNano"] = str(self.end_time)
        data["attributes"] = key_values(self.attributes)
        if self.links:
            data["links"] = [
                {"traceId": f"{trace:032x}", "spanId": f"{span:016x}", "attributes": key_values(attributes)}
                for trace, span, attributes in self.links
            ]
        status = self.status
        data["status"] = _status(status.status_code.value, status.description) if status is not None else {}
        return data


class PlainSpans:
    """Makes ``PlainSpan``s for one trace at a time and writes each into one OTLP/JSON document as
    it ends. ``ids(n)`` gives the n-th span id of the trace (as the SDK's id generator does)."""

    def __init__(self, out: IO[str] | None, scope: str, version: str, schema_url: str) -> None:
        self.out = out
        self.scope = (scope, version, schema_url)
        self.document: Document | Fragment | None = None
        self.max_links = SpanLimits().max_links  # the SDK's limit (OTEL_SPAN_LINK_COUNT_LIMIT), to match it
        self.trace_hex = ""
        self.ids: Any = None
        self.count = 0

    def begin_trace(self, trace_id: int, ids: Any, resource: dict[str, Any]) -> None:
        if self.document is None:
            assert self.out is not None
            self.document = Document(self.out, resource, *self.scope)
        self.trace_hex = f"{trace_id:032x}"
        self.ids = ids
        self.count = 0

    def start(self, name: str, parent: PlainSpan | None, at: int, attributes: dict[str, Any]) -> PlainSpan:
        self.count += 1
        parent_id = parent.span_id if parent is not None else None
        return PlainSpan(self, name, self.ids(self.count), parent_id, at, attributes)

    def write(self, span: PlainSpan) -> None:
        assert self.document is not None
        self.document.write(span.as_json(self.trace_hex))

    def close(self, resource: dict[str, Any], tail: Callable[[Write], None] | None = None) -> None:
        """End the document (the head first, with ``resource``, when no trace was begun)."""
        if self.document is None:
            assert self.out is not None
            self.document = Document(self.out, resource, *self.scope)
        self.document.close(tail)
