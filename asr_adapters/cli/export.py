"""The ``asr export`` command: thin over ``asr_adapters.export``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import orjson

from ..export import FORMATS, EndpointError, export_path, send_path
from ..export.report import LossReport
from ..outputs import as_output_error, refuse_same_file, text_output, text_stdout, write_whole
from ..redact.options import finish, redact_options
from .params import one_line_errors


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=True, allow_dash=False))
@click.option("--to", "to", type=click.Choice(sorted(FORMATS)), required=True, help="The format to write.")
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    help="The document to write (stdout if absent); for a folder PATH, the folder to write documents into.",
)
@click.option("--report", "report_path", type=click.Path(dir_okay=False), help="Write the loss report here as JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Print the loss report's every field not carried whole (stderr).")
@click.option("--agent", help="The agent that wrote PATH, when PATH is a native file (default: detect it).")
@click.option(
    "--include-content",
    is_flag=True,
    help="otel: write message, tool argument and result text (sensitive in the GenAI conventions).",
)
@click.option(
    "--endpoint",
    metavar="URL",
    help="otel: send the traces to this OTLP endpoint instead of writing a file (e.g. http://127.0.0.1:4318; "
    "/v1/traces is added to a URL without a path; with --protocol grpc: http://127.0.0.1:4317).",
)
@click.option(
    "--protocol",
    type=click.Choice(["http/protobuf", "grpc"]),
    help="--endpoint: OTLP over HTTP with protobuf bodies (default) or over gRPC (http://host:4317).",
)
@redact_options
def export(
    path: str,
    to: str,
    output: str | None,
    report_path: str | None,
    verbose: bool,
    agent: str | None,
    include_content: bool,
    endpoint: str | None,
    protocol: str | None,
    redactor: Any,
    redact_report: str | None,
) -> None:
    """Export a session to another format, saying what the format cannot hold.

    PATH is an ASR stream or any native file the converters read (converted on the fly; its
    subagent streams become embedded subagent trajectories), or a folder of ASR streams (a batch
    archive) with -o OUTDIR: one document per session, subagent streams in their parent's.
    --to otel writes the streams as OpenTelemetry traces in OTLP/JSON (GenAI semantic
    conventions), or with --endpoint sends them through the SDK's OTLP/HTTP exporter. The loss
    report (per record type and field: carried, approximate, dropped) goes to --report as JSON;
    else stderr gets its totals in one line (-v: and a line per field not carried whole).

    Exit codes: 0 written (or sent); 1 the source (or, for a folder, any stream in it) could not
    be read or converted; 2 usage error (the output is the input, a block device); 3 the output
    cannot be written (read-only place, full disk, a link inside OUTDIR), or the endpoint refused
    the trace or could not be reached.
    """
    if endpoint is not None:
        _check_endpoint(to, output, endpoint, protocol or "http/protobuf")
    elif protocol is not None:
        raise click.UsageError("--protocol is how --endpoint sends: give --endpoint URL")
    if Path(path).is_dir():
        _export_folder(path, to, output, report_path, agent, include_content, endpoint, redactor, verbose)
        finish(redactor, redact_report, path)
        return
    if output is not None and Path(output).is_dir():
        raise click.BadParameter(f"{output!r} is a folder; a folder is written only for a folder PATH", param_hint="-o")
    with one_line_errors(path):
        try:
            if endpoint is not None:
                report = send_path(
                    path,
                    endpoint,
                    agent,
                    include_content=include_content,
                    protocol=protocol or "http/protobuf",
                    redactor=redactor,
                )
            elif output is None:
                with text_stdout() as stream:
                    report = export_path(path, stream, to, agent, include_content=include_content, redactor=redactor)
                    stream.write("\n")
            else:
                with text_output(Path(output), Path(path)) as handle:  # whole or nothing, never the input
                    report = export_path(path, handle, to, agent, include_content=include_content, redactor=redactor)
                    handle.write("\n")
        except EndpointError as exc:
            click.echo(f"asr: error: {exc}", err=True)
            sys.exit(3)
        finish(redactor, redact_report, path)  # first: a report that fails is the one line said
        _write_report(report, report_path, path, verbose)


def _export_folder(
    path: str,
    to: str,
    output: str | None,
    report_path: str | None,
    agent: str | None,
    include_content: bool,
    endpoint: str | None,
    redactor: Any = None,
    verbose: bool = False,
) -> None:
    """A folder of streams into the folder OUTPUT: one error line per stream not exported, exit 1
    then; an output that cannot be written stops it with one line, exit 3."""
    from ..export.folder import export_folder

    if endpoint is not None:
        raise click.UsageError("--endpoint takes one file, not a folder (send each file, or export to files)")
    if output is None:
        raise click.UsageError("a folder is exported into a folder: give -o OUTDIR")
    if agent is not None:
        raise click.UsageError("a folder is read as ASR streams (*.asr.jsonl): --agent is for one native file")
    if Path(output).exists() and not Path(output).is_dir():
        raise click.BadParameter(f"{output!r} is a file; a folder PATH is exported into a folder", param_hint="-o")
    with one_line_errors(path):
        result = export_folder(path, output, to, include_content=include_content, redactor=redactor)
        for line in result.errors:
            click.echo(f"asr: error: {line}", err=True)
        _write_report(result.report, report_path, path, verbose)
    if result.errors:
        sys.exit(1)


def _check_endpoint(to: str, output: str | None, endpoint: str, protocol: str) -> None:
    """--endpoint is for --to otel, instead of -o, and takes an http(s) URL."""
    if to != "otel":
        raise click.UsageError("--endpoint sends OpenTelemetry traces: use it with --to otel")
    if output is not None:
        raise click.UsageError("--endpoint and -o are exclusive: the trace is sent or written, not both")
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.BadParameter(f"{endpoint!r} is not an http(s) URL", param_hint="--endpoint")
    if protocol == "grpc" and parts.path not in ("", "/"):
        raise click.BadParameter(f"{endpoint!r}: OTLP/gRPC takes http(s)://host:port, no path", param_hint="--endpoint")


def _write_report(report: LossReport, report_path: str | None, source: str, verbose: bool = False) -> None:
    if report_path is None:
        click.echo(report.summary(fields=verbose), err=True)
        return
    data = orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2) + b"\n"
    target = Path(report_path)
    refuse_same_file(Path(source), target)
    try:
        write_whole(target, data, direct=True)  # whole or nothing, or into a FIFO the user named
    except OSError as exc:
        raise as_output_error(exc, target) from exc
