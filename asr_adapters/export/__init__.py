"""``asr export``: ASR streams into the formats other tools read (ATIF today), with a loss report.

Writers sit beside the readers of the stream (``asr_adapters.view``): records in, another
format out, no per-agent code. ``asr_adapters.export(records, to="atif")`` is this module
called as its function (see ``asr_adapters._callable``).
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from .._callable import make_callable
from ..core.errors import ASRError, InputError
from . import atif
from .report import LossReport
from .sink import Write, byte_writer

#: Export formats by name: ATIF writes one stream's records as one document; "otel" is the
#: OpenTelemetry trace (``export_otel``), whose SDK is the optional ``otel`` extra.
FORMATS: dict[str, Any] = {atif.NAME: atif, "otel": None}

__all__ = [
    "FORMATS",
    "EndpointError",
    "Export",
    "LossReport",
    "export",
    "export_otel",
    "export_path",
    "export_streams",
    "send_otel",
    "send_path",
]


#: An input of several threads and no main stream is not one document.
SEVERAL_THREADS = (
    "the input holds {count} and no main stream: convert it with asr batch (one stream per thread) "
    "and export that folder"
)


class EndpointError(ASRError):
    """The OTLP endpoint refused the trace or could not be reached (``send_otel``)."""


@dataclass
class Export:
    """What an export gave: the document (None when it was written to ``out``) and its loss report."""

    document: str | None
    report: LossReport


def _writer(to: str) -> Any:
    if FORMATS.get(to) is None:
        raise InputError(to, f"unknown export format for this call (known: {', '.join(sorted(FORMATS))})")
    return FORMATS[to]


def export(records: Iterable[Any], to: str = "atif", *, out: IO[str] | None = None) -> Export:
    """Export one stream's records (dicts or models) as one document, into ``out`` or returned."""
    from ..model.api import to_dict

    target = out if out is not None else io.StringIO()
    dicts = (record if isinstance(record, dict) else to_dict(record) for record in records)
    if to == "otel":
        report = export_otel([dicts], target)
    else:
        writer = _writer(to)
        report = LossReport(to, writer.VERSION)
        writer.write_trajectory(dicts, target, report)
    return Export(target.getvalue() if out is None and isinstance(target, io.StringIO) else None, report)


def export_streams(
    streams: Iterator[tuple[str, bool, Iterable[dict[str, Any]]]], out: IO[str], to: str = "atif"
) -> LossReport:
    """Export an input's streams as one document: the main stream's trajectory, with every other
    stream (subagents, threads) embedded as a subagent trajectory. Streams read before the main
    one wait in temporary files; the rest are written straight after the main one's steps."""
    writer = _writer(to)
    report = LossReport(to, writer.VERSION)
    waiting: list[IO[bytes]] = []
    seen = 0

    def children(write: Write) -> None:
        first = True
        for spool in waiting:
            spool.seek(0)
            write(b',"subagent_trajectories":[' if first else b",")
            first = False
            while chunk := spool.read(1 << 16):
                write(chunk)
            spool.close()
        for key, _main, records in streams:
            write(b',"subagent_trajectories":[' if first else b",")
            first = False
            writer.write_trajectory(records, write, report, default_id=key)
        if not first:
            write(b"]")

    for key, main, records in streams:
        if main:
            seen += 1
            writer.write_trajectory(records, byte_writer(out), report, children, default_id=key)
            break
        spool = tempfile.TemporaryFile("w+b")  # noqa: SIM115 - closed once copied
        writer.write_trajectory(records, spool.write, report, default_id=key)
        waiting.append(spool)
    if not seen and len(waiting) == 1:  # one thread of a database (T3 Code): that is the document
        write = byte_writer(out)
        waiting[0].seek(0)
        while chunk := waiting[0].read(1 << 16):
            write(chunk)
        waiting[0].close()
    elif not seen:
        for left in waiting:
            left.close()
        raise InputError("export", SEVERAL_THREADS.format(count=f"{len(waiting)} threads"))
    return report


def export_otel(
    streams: Iterable[Iterable[dict[str, Any]]], out: IO[str], *, include_content: bool = False
) -> LossReport:
    """Streams (a session, then any subagent streams) as one OTLP/JSON document, one trace each
    (needs the ``otel`` extra: opentelemetry-sdk)."""
    try:
        from . import otel
    except ImportError as exc:
        raise InputError("otel", f"needs the OpenTelemetry SDK: pip install 'asr-adapters[otel]' ({exc})") from None
    report = LossReport(otel.NAME, otel.VERSION)
    otel.write_otlp_json(streams, out, report, include_content=include_content)
    return report


def send_otel(
    streams: Iterable[Iterable[dict[str, Any]]],
    endpoint: str,
    *,
    include_content: bool = False,
    timeout: float | None = None,
    protocol: str = "http/protobuf",
    max_request_bytes: int | None = None,
) -> LossReport:
    """Streams as traces sent to an OTLP endpoint (``protocol``: ``http/protobuf`` or ``grpc``),
    the same spans as ``export_otel`` writes (needs the ``otel`` extra), in requests of at most
    ``max_request_bytes`` (default ``otlp_send.MAX_REQUEST_BYTES``, 4,000,000). Raises
    ``EndpointError`` when the endpoint refuses the trace or cannot be reached."""
    try:
        from . import otel, otlp_send
    except ImportError as exc:
        raise InputError("otel", f"needs the OTLP exporter: pip install 'asr-adapters[otel]' ({exc})") from None
    report = LossReport(otel.NAME, otel.VERSION)
    limit = otlp_send.MAX_REQUEST_BYTES if max_request_bytes is None else max_request_bytes
    otlp_send.send_otlp(
        streams,
        endpoint,
        report,
        include_content=include_content,
        timeout=timeout,
        protocol=protocol,
        max_request_bytes=limit,
    )
    return report


def _otel_streams(
    path: str | os.PathLike[str], agent: str | None, redactor: Any = None
) -> Iterable[Iterable[dict[str, Any]]]:
    """An input's streams for the OpenTelemetry export: an ASR stream as it is, a native file converted."""
    from ..stream.opening import is_asr_file, open_records

    if agent is None and is_asr_file(path):
        return [open_records(path, redactor=redactor)]
    from ..convert import Conversion

    conversion = Conversion(str(path), agent, as_dicts=True, redactor=redactor)
    return (stream.records for stream in conversion.streams())


def export_path(
    path: str | os.PathLike[str],
    out: IO[str],
    to: str = "atif",
    agent: str | None = None,
    *,
    include_content: bool = False,
    redactor: Any = None,
) -> LossReport:
    """Export an ASR stream, or a native source converted on the fly (every stream it holds),
    redacted by ``redactor`` (an ``asr_adapters.redact.Redactor``) when given."""
    from ..stream.opening import is_asr_file, open_records

    if to == "otel":
        return export_otel(_otel_streams(path, agent, redactor), out, include_content=include_content)
    if agent is None and is_asr_file(path):
        return export_streams(iter([(str(path), True, open_records(path, redactor=redactor))]), out, to)
    from ..convert import Conversion

    conversion = Conversion(str(path), agent, as_dicts=True, redactor=redactor)
    if conversion.source.is_sqlite:
        return _export_thread(conversion, out, to)
    streams = ((stream.key, stream.main, stream.records) for stream in conversion.streams())
    return export_streams(streams, out, to)


def _export_thread(conversion: Any, out: IO[str], to: str) -> LossReport:
    """A database (T3 Code) holds threads and no main stream: its one thread is the document,
    written straight out (no temporary file); a second thread is an error."""
    writer = _writer(to)
    report = LossReport(to, writer.VERSION)
    streams = conversion.streams()
    first = next(streams, None)
    if first is None:
        raise InputError(conversion.source.display, "the database holds no thread")
    writer.write_trajectory(first.records, out, report, default_id=first.key)
    if next(streams, None) is not None:
        raise InputError(conversion.source.display, SEVERAL_THREADS.format(count="more than one thread"))
    return report


def send_path(
    path: str | os.PathLike[str],
    endpoint: str,
    agent: str | None = None,
    *,
    include_content: bool = False,
    timeout: float | None = None,
    protocol: str = "http/protobuf",
    redactor: Any = None,
) -> LossReport:
    """``send_otel`` for an ASR stream or a native source (every stream it holds, one trace each)."""
    streams = _otel_streams(path, agent, redactor)
    return send_otel(streams, endpoint, include_content=include_content, timeout=timeout, protocol=protocol)


make_callable(__name__, "export")
