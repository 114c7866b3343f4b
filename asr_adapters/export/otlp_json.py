"""An OpenTelemetry SDK span exporter that writes one OTLP/JSON document, span by span.

The SDK has no file exporter for OTLP/JSON; this one writes the ``ExportTraceServiceRequest``
JSON shape (ids as hex, 64-bit integers and times as strings, enums as numbers) as each span
ends, so spans are never all held in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import orjson
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


def any_value(value: Any) -> dict[str, Any]:
    """An attribute value as OTLP/JSON ``AnyValue``."""
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
    return [{"key": key, "value": any_value(value)} for key, value in (attributes or {}).items()]


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
    status: dict[str, Any] = {}
    if span.status.status_code.value:
        status["code"] = span.status.status_code.value
    if span.status.description:
        status["message"] = span.status.description
    data["status"] = status
    return data


class OtlpJsonExporter(SpanExporter):
    """Writes ``{"resourceSpans": [{resource, scopeSpans: [{scope, spans: [...]}]}]}`` to ``out``."""

    def __init__(self, out: IO[str], resource: Resource, scope: str, version: str, schema_url: str) -> None:
        self.out = out
        self.count = 0
        self.closed = False
        #: The first write error: the SDK only logs an exporter's exceptions, the caller re-raises it.
        self.error: OSError | None = None
        head = {
            "resource": {"attributes": key_values(resource.attributes)},
            "scopeSpans": [{"scope": {"name": scope, "version": version}, "schemaUrl": schema_url}],
            "schemaUrl": schema_url,
        }
        text = orjson.dumps(head).decode()
        # open the spans array inside the only scopeSpans entry: ...,"schemaUrl":"..."}],...
        scope_end = text.index("}]", text.index('"scopeSpans"'))
        self.out.write('{"resourceSpans":[' + text[:scope_end] + ',"spans":[')
        self.tail = text[scope_end:] + "]}"

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            for span in spans:
                self.out.write(("," if self.count else "") + orjson.dumps(span_json(span)).decode())
                self.count += 1
        except OSError as exc:
            self.error = self.error or exc
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.out.write("]" + self.tail)
        except OSError as exc:
            self.error = self.error or exc
