"""Send traces to an OTLP endpoint through the SDK's own exporters (``--endpoint``): OTLP/HTTP
with protobuf bodies, or OTLP/gRPC (``--protocol grpc``).

The SDK's ``BatchSpanProcessor`` drops spans when its queue is full and only logs failed
exports; an export must send every span or say it did not. So spans go through a small
synchronous batching processor: at most ``BATCH`` spans are held, each batch is handed to the
``OTLPSpanExporter`` (protobuf over HTTP, the SDK's retries and timeout) before more records
are read, and the first failure stops the send and is raised with the exporter's reason.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from . import EndpointError
from .otel import write_trace
from .report import LossReport

#: Spans per OTLP request (the SDK batch processor's default export size).
BATCH = 512
TRACES_PATH = "/v1/traces"
#: Both exporters log under it (``…proto.http.trace_exporter``, ``…proto.grpc.exporter``).
EXPORTER_LOGGER = "opentelemetry.exporter.otlp.proto"
PROTOCOLS = ("http/protobuf", "grpc")


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
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter

        return GrpcSpanExporter(endpoint=url, timeout=timeout)
    if protocol != "http/protobuf":
        raise ValueError(f"{protocol}: unknown OTLP protocol (known: {', '.join(PROTOCOLS)})")
    return OTLPSpanExporter(endpoint=url, timeout=timeout)


class Sending:
    """What one send has done: spans sent, spans made, the first failure."""

    def __init__(self, exporter: SpanExporter) -> None:
        self.exporter = exporter
        self.sent = 0
        self.made = 0
        self.failed = False


class BatchSender(SpanProcessor):
    """Hands ended spans to the exporter ``BATCH`` at a time, in the caller's thread; never drops one
    silently (after a failure nothing more is sent, and the caller raises)."""

    def __init__(self, sending: Sending) -> None:
        self.sending = sending
        self.held: list[ReadableSpan] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        self.sending.made += 1
        self.held.append(span)
        if len(self.held) >= BATCH:
            self.force_flush()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        batch, self.held = self.held, []
        if batch and not self.sending.failed:
            if self.sending.exporter.export(batch) is SpanExportResult.SUCCESS:
                self.sending.sent += len(batch)
            else:
                self.sending.failed = True
        return not self.sending.failed

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
) -> int:
    """Streams (a session and its subagents) as traces sent to an OTLP/HTTP ``endpoint``, the same
    spans as the OTLP/JSON file. Returns the number of spans sent; raises ``EndpointError`` when
    the endpoint refused a batch or could not be reached (``timeout``: seconds per request with
    the SDK's retries, default ``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`` or 10)."""
    url = traces_url(endpoint) if protocol == "http/protobuf" else grpc_target(endpoint)
    with _quiet_exporter() as reasons:
        sending = Sending(_exporter(protocol, url, timeout))
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
        raise EndpointError(
            f"{url}: OTLP export failed: {reasons.reason()} ({sending.sent} spans accepted before the failure)"
        )
    return sending.sent
