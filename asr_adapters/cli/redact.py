"""``asr redact STREAM``: an ASR stream already written, redacted (thin over ``asr_adapters.redact``)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import IO, Any

import click

from ..outputs import binary_output
from ..redact.options import finish, redact_options, usable
from .params import one_line_errors


@click.command("redact")
@click.argument("stream", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="The redacted stream (stdout if absent or -).")
@click.option(
    "--report", "report", type=click.Path(dir_okay=False), help="Write what was redacted here as JSON (never a secret)."
)
@functools.partial(redact_options, always=True)
def redact_command(stream: str, output: str | None, report: str | None, **options: Any) -> None:
    """Replace the secrets of an ASR stream (STREAM, or - for stdin) by placeholders.

    The same policy as --redact on asr convert: secrets always; --redact-paths,
    --redact-emails and --redact-pattern add kinds; --drop-opaque leaves ciphertext out. The
    output is written whole or not at all, never over the input. One summary line goes to
    stderr (docs/redaction.md).

    Exit codes: 0 written; 1 STREAM is not a readable ASR stream; 2 usage error (the output is
    the input); 3 the output cannot be written.
    """
    _run(stream, output, report or options.pop("redact_report"), options["redactor"])


def _run(stream: str, output: str | None, report: str | None, redactor: Any) -> None:
    from ..core.errors import InputError
    from ..core.source import Source
    from ..stream.reader import read_records
    from ..stream.sniff import is_asr_stream

    if report is not None:
        usable(Path(report))
    with one_line_errors(stream):
        source: Any = sys.stdin.buffer if stream == "-" else stream
        opened = Source(source)
        if not is_asr_stream(opened.head()):
            raise InputError(opened.display, "not an ASR stream (asr convert makes one from a native file)")
        records = redactor.records(read_records(opened.open() if stream == "-" else stream))
        if output is None or output == "-":
            _write(records, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            with binary_output(Path(output), None if stream == "-" else Path(stream)) as handle:
                _write(records, handle)
        finish(redactor, report, stream)


def _write(records: Any, handle: IO[bytes]) -> None:
    from ..stream.writer import StreamWriter

    StreamWriter(handle).write_all(records)
