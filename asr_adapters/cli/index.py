"""The ``asr index`` command: thin over ``asr_adapters.index`` (``asr search`` shares its error lines)."""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import orjson

from ..core.errors import ASRError
from ..outputs import OutputError
from ..redact.options import finish, redact_options, write_report
from .params import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OUTPUT, EXIT_USAGE

INDEX_EXITS = """\b
Exit status:
  0    indexed (streams that could not be wholly read are warnings, listed on stderr)
  2    usage error: ARCHIVE is not a folder, the output is a link or not an asr index
  3    the index cannot be written (read-only place, full disk)
  130  interrupted: what was committed stays, a re-run indexes the rest
"""


def _fail(message: str, code: int) -> None:
    message = " ".join(message.split())
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)


@contextmanager
def index_errors() -> Iterator[None]:
    """Every failure as one ``asr: error:`` line and its exit status, never a traceback."""
    from ..index.search import QueryError
    from ..index.store import IndexFileError

    try:
        yield
    except (click.ClickException, click.exceptions.Exit):
        raise
    except (QueryError, IndexFileError) as exc:
        _fail(str(exc), EXIT_USAGE)
    except OutputError as exc:
        _fail(str(exc), EXIT_OUTPUT)
    except ASRError as exc:
        _fail(str(exc), EXIT_INPUT)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}", EXIT_OUTPUT)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # SQLite refusing a damaged file, and the like: still one line
        _fail(f"{type(exc).__name__}: {exc}", EXIT_OUTPUT)


def _progress(quiet: bool) -> Callable[[int, int], None] | None:
    if quiet or not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        click.echo(f"\rasr index: {done}/{total} streams", err=True, nl=done == total)

    return show


def index_archive(archive: str, index: str | None, quiet: bool, redactor: Any = None) -> Any:
    from ..index import build_index

    report = build_index(archive, index, progress=_progress(quiet), redactor=redactor)
    if not quiet:
        for problem in report.problems:
            click.echo(f"asr: warning: {terminal_safe(problem)}", err=True)
    return report


@click.command("index", epilog=INDEX_EXITS)
@click.argument("archive", type=click.Path(exists=True, file_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    help="The index file (default ARCHIVE/_index.sqlite); with --format parquet, the folder for the Parquet files.",
)
@click.option("--format", "fmt", type=click.Choice(["sqlite", "parquet"]), default="sqlite", show_default=True)
@click.option("--index", "index_file", type=click.Path(), help="With --format parquet: the SQLite index to build from.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary on stdout.")
@click.option("-q", "--quiet", is_flag=True, help="Print no progress, warnings or summary on stderr.")
@redact_options
def index_command(
    archive: str,
    output: str | None,
    fmt: str,
    index_file: str | None,
    as_json: bool,
    quiet: bool,
    redactor: Any,
    redact_report: str | None,
) -> None:
    """Index a folder of ASR streams (an asr batch archive) into a SQLite database.

    A re-run reads only the streams that changed and drops the rows of streams that are gone;
    a killed run leaves the index as its last transaction left it. The tables are documented
    in docs/index.md (sessions, messages, parts, tool_calls, plans, subagents, deliveries,
    usage, and the full-text table parts_fts). With --format parquet -o DIR/, the same tables
    are written as DIR/<table>.parquet (the SQLite index, ARCHIVE/_index.sqlite or --index,
    is brought up to date first).
    """
    with index_errors():
        if fmt == "parquet":
            if output is None:
                raise click.UsageError("--format parquet needs -o DIR/ (the folder for the Parquet files)")
            report = index_archive(archive, index_file, quiet, redactor)
            from ..index.parquet import write_parquet

            tables = write_parquet(report.index, output)
            summary = {**report.as_dict(), "parquet": str(output), "tables": tables}
        else:
            if index_file is not None:
                raise click.UsageError("--index is for --format parquet; give the index file with -o")
            report = index_archive(archive, output, quiet, redactor)
            summary = report.as_dict()
    if as_json:
        click.echo(orjson.dumps(summary).decode())
    elif not quiet:
        click.echo(
            f"asr index: {report.streams} streams ({report.indexed} read, {report.unchanged} unchanged, "
            f"{report.removed} removed), {report.records} records in {report.seconds:.2f} s -> {report.index}",
            err=True,
        )
    if redactor is not None and not quiet:
        finish(redactor, redact_report)
    elif redactor is not None and redact_report is not None:
        write_report(redactor, Path(redact_report))


_VISIBLE = {"\n": " ", "\r": " ", "\t": " "}


def terminal_safe(text: str) -> str:
    """Text from a session made safe for a terminal: no control characters (escape sequences)."""
    return "".join(
        _VISIBLE.get(c, "\ufffd") if unicodedata.category(c) in ("Cc", "Cf") and c not in "\u200d" else c for c in text
    )
