"""Send traces to an OTLP endpoint (``--endpoint``): OTLP/HTTP with protobuf bodies by our own
sender (``otlp_http``: 2xx only, one deadline, a capped reply), or OTLP/gRPC through the SDK's
exporter (``--protocol grpc``).

The SDK's ``BatchSpanProcessor`` drops spans when its queue is full and only logs failed
exports; an export must send every span or say it did not. So spans go through a small
synchronous batching processor: it holds at most ``BATCH`` spans and at most
``MAX_REQUEST_BYTES`` of encoded request (collectors refuse larger ones: 4 MiB is the
OpenTelemetry Collector's gRPC default), hands each batch on before more records are read, and
the first failure stops the send and is raised with its reason.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ..core.errors import InputError
from . import EndpointError
from .otel import write_trace
from .otlp_http import MAX_REPLY_BYTES, HttpSpanExporter
from .report import LossReport

#: Spans per OTLP request at most (the SDK batch processor's default export size).
BATCH = 512
#: Bytes of one encoded request at most (before compression): under 4 MiB and 4 MB, the limits
#: collectors use by default (the Collector's gRPC receiver: 4 MiB). A span's content attributes
#: are cut to ``otel.MAX_CONTENT_BYTES`` so that any span fits.
MAX_REQUEST_BYTES = 4_000_000
#: What a request holds besides its spans (resource, scope) and each span besides its
#: attributes, over-estimated: batches are planned from these, then checked encoded.
_REQUEST_OVERHEAD = 4096
_SPAN_OVERHEAD = 160
_ATTRIBUTE_OVERHEAD = 16
TRACES_PATH = "/v1/traces"
#: The gRPC exporter logs under it (``…proto.grpc.exporter``).
EXPORTER_LOGGER = "opentelemetry.exporter.otlp.proto"
PROTOCOLS = ("http/protobuf", "grpc")

__all__ = ["BATCH", "MAX_REPLY_BYTES", "MAX_REQUEST_BYTES", "BatchSender", "Sending", "send_otlp"]


def traces_url(endpoint: str) -> str:
    """The URL spans are posted to: ``endpoint`` as given, or with ``/v1/traces`` when it has no path."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{endpoint}: not an http(s) URL")
    if parts.path in ("", "/"):
        parts = parts._replace(path=TRACES_PATH)
    return urlunsplit(parts)


def grpc_target(endpoint: str) -> str:
    """The endpoint for OTLP/gRPC: ``http(s)://host:port`` (http: no TLS); gRPC has no path."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{endpoint}: not an http(s) URL")
    if parts.path not in ("", "/"):
        raise ValueError(f"{endpoint}: OTLP/gRPC takes http(s)://host:port, without a path")
    return urlunsplit(parts._replace(path=""))


def _exporter(protocol: str, url: str, timeout: float | None) -> SpanExporter:
    if protocol == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
        except ImportError as exc:
            raise InputError(
                "otel", f"--protocol grpc needs the OTLP/gRPC exporter: pip install 'asr-adapters[otel]' ({exc})"
            ) from None

        return GrpcSpanExporter(endpoint=url, timeout=timeout)
    if protocol != "http/protobuf":
        raise ValueError(f"{protocol}: unknown OTLP protocol (known: {', '.join(PROTOCOLS)})")
    return HttpSpanExporter(url, timeout=timeout)


def span_bytes(span: ReadableSpan) -> int:
    """About how many bytes a span adds to an encoded request (never much less)."""
    size = _SPAN_OVERHEAD + len(span.name)
    for key, value in (span.attributes or {}).items():
        size += _ATTRIBUTE_OVERHEAD + len(key)
        if isinstance(value, str):
            size += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, Sequence):
            size += sum(len(str(item)) + _ATTRIBUTE_OVERHEAD for item in value)
        else:
            size += 10
    size += 64 * len(span.links) + 64 * len(span.events)
    return size


class Sending:
    """What one send has done: spans sent, spans made, the first failure (and why)."""

    def __init__(self, exporter: SpanExporter, max_request_bytes: int = MAX_REQUEST_BYTES) -> None:
        self.exporter = exporter
        self.max_request_bytes = max_request_bytes
        self.sent = 0
        self.made = 0
        self.requests = 0
        self.failed = False
        self.reason: str | None = None


class BatchSender(SpanProcessor):
    """Hands ended spans to the exporter in batches of at most ``BATCH`` spans and
    ``max_request_bytes`` encoded, in the caller's thread; never drops one silently (after a
    failure nothing more is sent, and the caller raises)."""

    def __init__(self, sending: Sending) -> None:
        self.sending = sending
        self.held: list[ReadableSpan] = []
        self.held_bytes = _REQUEST_OVERHEAD

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        self.sending.made += 1
        size = span_bytes(span)
        if self.held and self.held_bytes + size > self.sending.max_request_bytes:
            self.force_flush()
        self.held.append(span)
        self.held_bytes += size
        if len(self.held) >= BATCH:
            self.force_flush()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        batch, self.held, self.held_bytes = self.held, [], _REQUEST_OVERHEAD
        if batch and not self.sending.failed:
            self._send(batch)
        return not self.sending.failed

    def _send(self, batch: list[ReadableSpan]) -> None:
        """One request, or (when the estimate was short) the two halves of it, recursively."""
        sending = self.sending
        exporter = sending.exporter
        request = encode_spans(batch) if isinstance(exporter, HttpSpanExporter) or len(batch) > 1 else None
        size = request.ByteSize() if request is not None else 0
        if size > sending.max_request_bytes:
            if len(batch) > 1:
                half = len(batch) // 2
                self._send(batch[:half])
                if not sending.failed:
                    self._send(batch[half:])
                return
            sending.failed = True
            sending.reason = f"a span of {size} bytes is larger than the {sending.max_request_bytes}-byte request limit"
            return
        sending.requests += 1
        if isinstance(exporter, HttpSpanExporter) and request is not None:
            ok = exporter.deliver(request.SerializeToString())
        else:
            ok = exporter.export(batch) is SpanExportResult.SUCCESS
        if ok:
            sending.sent += len(batch)
        else:
            sending.failed = True
            sending.reason = getattr(exporter, "failure", None)

    def shutdown(self) -> None:  # the provider's shutdown: send what is held; the exporter is shared
        self.force_flush()


def _root_cause(error: BaseException) -> str:
    """The innermost OS-level reason (``Connection refused``, a DNS failure), else the error itself."""
    seen: set[int] = set()
    queue: list[BaseException] = [error]
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and current.strerror:
            return current.strerror
        found = [current.__cause__, current.__context__, getattr(current, "reason", None), *current.args]
        queue.extend(item for item in found if isinstance(item, BaseException))
    return str(error)


class _Reasons(logging.Handler):
    """Keeps the exporter's log records (the only place it says why an export failed)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def reason(self) -> str:
        for record in self.records:  # the gRPC exporter's final word, after its transient errors
            args = record.args if isinstance(record.args, tuple) else ()
            if record.msg.startswith("Failed to export %s to %s, error code:") and len(args) == 4:
                return f"gRPC {getattr(args[2], 'name', args[2])}: {args[3]}"
        for record in self.records:
            if record.levelno < logging.WARNING:
                continue
            args = record.args if isinstance(record.args, tuple) else ()
            errors = [arg for arg in args if isinstance(arg, BaseException)]
            if errors:
                return _root_cause(errors[0])
            if record.msg.startswith("Failed to export %s batch code:") and len(args) == 3:
                return f"HTTP {args[1]} {args[2]}".strip()
            if record.msg.startswith("Transient error") and len(args) == 5:  # gRPC: code, ..., details
                return f"gRPC {getattr(args[0], 'name', args[0])}: {args[4]}"
            if record.msg.startswith("Transient error") and args:
                return str(args[0])
        return self.records[-1].getMessage() if self.records else "no reason given"


@contextmanager
def _quiet_exporter() -> Iterator[_Reasons]:
    """The exporter's warnings and retries are summed up in one error line instead of logged."""
    logger = logging.getLogger(EXPORTER_LOGGER)
    handler = _Reasons()
    saved = (logger.propagate, logger.level)
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.propagate, logger.level = saved


def send_otlp(
    streams: Iterable[Iterable[dict[str, Any]]],
    endpoint: str,
    report: LossReport,
    *,
    include_content: bool = False,
    timeout: float | None = None,
    protocol: str = "http/protobuf",
    max_request_bytes: int = MAX_REQUEST_BYTES,
) -> int:
    """Streams (a session and its subagents) as traces sent to an OTLP/HTTP ``endpoint``, the same
    spans as the OTLP/JSON file. Returns the number of spans sent; raises ``EndpointError`` when
    the endpoint refused a batch or could not be reached (``timeout``: seconds per request with
    its retries, default ``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`` or 10; ``max_request_bytes``: the
    largest encoded request sent)."""
    url = traces_url(endpoint) if protocol == "http/protobuf" else grpc_target(endpoint)
    with _quiet_exporter() as reasons:
        sending = Sending(_exporter(protocol, url, timeout), max_request_bytes)
        try:

            def exporter_for(resource: Resource) -> SpanProcessor:
                return BatchSender(sending)

            for records in streams:
                write_trace(records, report, exporter_for, include_content=include_content)
                if sending.failed:
                    break
        finally:
            sending.exporter.shutdown()
    if sending.failed:
        reason = sending.reason or reasons.reason()
        raise EndpointError(f"{url}: OTLP export failed: {reason} ({sending.sent} spans accepted before the failure)")
    return sending.sent
