"""``asr convert``: one native session file to ASR JSONL (the writing is ``convert_output``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson

from ..convert import Conversion
from ..core.errors import ASRError, UsageProblem
from ..outputs import OutputError, PipeClosed, SameFileError, UnusableOutput, pipe_closed
from ..redact.options import finish as finish_redaction
from ..redact.options import redact_options
from .convert_output import Report, copy_note, to_file, to_folder, to_stdout
from .params import CONVERT_EXITS, EXIT_INTERRUPTED, EXIT_OUTPUT, EXIT_USAGE, AgentChoice, InputPath, fail

if TYPE_CHECKING:
    from ..redact import Redactor


@click.command(epilog=CONVERT_EXITS)
@click.argument("path", type=InputPath(dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    help="A file for the main stream (- for stdout), or a folder (an existing one, or ending in /) for every "
    "stream, named as asr batch names them: DIR/<agent>/<session id>.asr.jsonl.",
)
@click.option("--agent", "agent", type=AgentChoice(), help="The agent that wrote PATH (default: detect it).")
@click.option("--thread", "thread", help="Convert only the stream of this session or thread id (multi-thread inputs).")
@click.option("--stats", is_flag=True, help="Print what was written and what became of every native item (stderr).")
@click.option(
    "--no-check",
    is_flag=True,
    help="Do not validate the streams as they are written (about a quarter less CPU and no index of ids held; "
    "exit 0 then does not promise that asr validate accepts the output).",
)
@redact_options
def convert(
    path: str,
    output: str | None,
    agent: str | None,
    thread: str | None,
    stats: bool,
    no_check: bool,
    redactor: Redactor | None,
    redact_report: str | None,
) -> None:
    """Convert one native session file to ASR JSONL (stdout by default; PATH - reads stdin).

    A file output appears only once complete (written beside it, then renamed). On stdout or
    in a file, the main stream is written and stderr says how many other streams (subagents,
    threads) the input holds; -o DIR/ writes them all, --thread ID picks one. Every stream is
    validated as it is written: one that asr validate would reject is an error (exit 1), not
    written under its name.
    """
    source_path = None if path == "-" else Path(path)
    output = None if output == "-" else output  # -o - is stdout
    report = Report(check=not no_check)
    conversion: Conversion | None = None
    try:
        source: Any = sys.stdin.buffer if path == "-" else path
        conversion = Conversion(source, agent, as_dicts=True, select=thread, redactor=redactor)
        if output is not None and (Path(output).is_dir() or output.endswith(("/", os.sep))):
            to_folder(conversion, Path(output), source_path, report)
        elif output is not None:
            to_file(conversion, Path(output), source_path, report)
        else:
            to_stdout(conversion, report)
    except PipeClosed:
        pipe_closed()
    except (UsageProblem, SameFileError, UnusableOutput) as exc:
        fail(str(exc), EXIT_USAGE)
    except OutputError as exc:
        fail(str(exc), EXIT_OUTPUT)
    except ASRError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or path}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # never a traceback for bad input (docs/reliability.md)
        fail(f"{path}: conversion stopped: {type(exc).__name__}: {exc}")
    assert conversion is not None
    diagnostics = conversion.accounting.diagnostics
    for diagnostic in diagnostics:
        click.echo(f"asr: warning: {diagnostic.describe()}", err=True)
    if diagnostics.omitted:  # capped (core.accounting.MAX_DIAGNOSTICS): the rest only counted
        click.echo(
            f"asr: warning: {conversion.source.display}: {diagnostics.omitted} more warnings not shown"
            f" ({diagnostics.total} in all)",
            err=True,
        )
    note = copy_note(report, conversion.source.display)
    if note is not None:
        click.echo(f"asr: note: {note}", err=True)
    if stats:
        click.echo(orjson.dumps(stats_of(conversion, report)).decode(), err=True)
    finish_redaction(redactor, redact_report, path)


def stats_of(conversion: Conversion, report: Report) -> dict[str, Any]:
    """``--stats``: what was written, per stream, and what became of every native item
    (docs/library.md lists the names)."""
    counts = conversion.accounting
    written = [entry for entry in report.streams if entry.written_to is not None]
    return {
        "input": conversion.source.display,
        "agent": conversion.adapter.name,
        "streams_found": counts.streams,
        "streams_written": len(written),
        "records_written": sum(entry.records for entry in written),
        "streams": [{"stream": e.key, "records": e.records, "written_to": e.written_to} for e in report.streams],
        "native_items": {
            "total": counts.native_items,
            "converted": counts.records,
            "kept_as_vendor": counts.vendor,
            "folded": counts.folded,
            "duplicates": counts.duplicates,
            "unreadable": counts.unreadable,
        },
        "records_by_type": dict(sorted(report.types.items())),
        "warnings": counts.diagnostics.total,
    }
