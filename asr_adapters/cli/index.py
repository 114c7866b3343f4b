"""The ``asr index`` and ``asr search`` commands: thin over ``asr_adapters.index``."""

from __future__ import annotations

import os
import shlex
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import orjson

from ..cli_params import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OUTPUT, EXIT_USAGE
from ..core.errors import ASRError
from ..outputs import OutputError
from ..redact.options import finish, redact_options, write_report

INDEX_EXITS = """\b
Exit status:
  0    indexed (streams that could not be wholly read are warnings, listed on stderr)
  2    usage error: ARCHIVE is not a folder, the output is a link or not an asr index
  3    the index cannot be written (read-only place, full disk)
  130  interrupted: what was committed stays, a re-run indexes the rest
"""
SEARCH_EXITS = """\b
Exit status:
  0    something found
  1    nothing found
  2    usage error: a malformed query, no index, a bad date or filter
  130  interrupted
"""


def _fail(message: str, code: int) -> None:
    message = " ".join(message.split())
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    """Every failure as one ``asr: error:`` line and its exit status, never a traceback."""
    from .search import QueryError
    from .store import IndexFileError

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


def _index(archive: str, index: str | None, quiet: bool, redactor: Any = None) -> Any:
    from . import build_index

    report = build_index(archive, index, progress=_progress(quiet), redactor=redactor)
    if not quiet:
        for problem in report.problems:
            click.echo(f"asr: warning: {_clean(problem)}", err=True)
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
    with _errors():
        if fmt == "parquet":
            if output is None:
                raise click.UsageError("--format parquet needs -o DIR/ (the folder for the Parquet files)")
            report = _index(archive, index_file, quiet, redactor)
            from .parquet import write_parquet

            tables = write_parquet(report.index, output)
            summary = {**report.as_dict(), "parquet": str(output), "tables": tables}
        else:
            if index_file is not None:
                raise click.UsageError("--index is for --format parquet; give the index file with -o")
            report = _index(archive, output, quiet, redactor)
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


def _when(text: str | None, hint: str) -> str | None:
    """A ``--since``/``--until`` value as the UTC text the index compares (``asr batch``'s forms)."""
    if text is None:
        return None
    from ..batch.commands import parse_since

    try:
        epoch = parse_since(text)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param_hint=hint) from None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S")


_VISIBLE = {"\n": " ", "\r": " ", "\t": " "}


def _clean(text: str) -> str:
    """Text from a session made safe for a terminal: no control characters (escape sequences)."""
    return "".join(
        _VISIBLE.get(c, "\ufffd") if unicodedata.category(c) in ("Cc", "Cf") and c not in "\u200d" else c for c in text
    )


def _who(hit: Any) -> str:
    from ..view.reading import author_label

    who = author_label(hit.author)
    extra = [v for v in (hit.origin, hit.phase) if v]
    if hit.part_type == "reasoning":
        extra.append(f"reasoning, {hit.visibility or 'visibility unknown'}")
    if hit.status and hit.status != "complete":
        extra.append(hit.status)
    if hit.tool:
        extra.append(f"{hit.tool}" + (f", {hit.outcome}" if hit.outcome else ""))
    return who + (f" ({', '.join(extra)})" if extra else "")


def _print_hit(hit: Any, color: bool) -> None:
    snippet = hit.snippet
    if color and hit.highlights:
        pieces, last = [], 0
        for start, end in hit.highlights:
            pieces += [_clean(snippet[last:start]), "\x1b[1;33m", _clean(snippet[start:end]), "\x1b[0m"]
            last = end
        pieces.append(_clean(snippet[last:]))
        shown = "".join(pieces)
    else:
        shown = _clean(snippet)
    click.echo(
        f"{_clean(hit.session or hit.path)}  {_clean(hit.record_id or '')}  {hit.ts or '-'}  {_clean(_who(hit))}"
    )
    click.echo(f"  {shown}")
    click.echo(f"  asr show {_clean(shlex.quote(hit.link))} --open")


@click.command("search", epilog=SEARCH_EXITS)
@click.argument("query")
@click.argument("archive", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--index", "index_file", type=click.Path(), help="The index to search (default ARCHIVE/_index.sqlite).")
@click.option(
    "--author",
    "authors",
    multiple=True,
    type=click.Choice(["human", "model", "harness", "hook", "agent", "tool"]),
    help="Only text these wrote (repeatable). A tool result counts as the tool's, a tool call's input as the model's.",
)
@click.option("--origin", "origins", multiple=True, help="Only parts with this origin (prompt, injected, memory, …).")
@click.option("--agent", "agents", multiple=True, help="Only sessions of this agent (repeatable).")
@click.option(
    "--session", "sessions", multiple=True, help="Only this session (a session reference, or its id's start)."
)
@click.option("--since", help="Only records at or after DATE (2026-01-31, 2026-01-31T12:00, 7d, 12h).")
@click.option("--until", help="Only records before DATE.")
@click.option("--tool", "tools", multiple=True, help="Only the calls and results of this tool (repeatable).")
@click.option("--failed", is_flag=True, help="Only tool calls and results whose outcome is an error.")
@click.option("--include-retrieved", is_flag=True, help="Also content with origin retrieval or memory.")
@click.option("--include-copies", is_flag=True, help="Also records copied from another session (copiedFrom).")
@click.option("--literal", is_flag=True, help="Search QUERY's words as they are, not as FTS5 syntax.")
@click.option("--newest", is_flag=True, help="Newest first, rather than best match first.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Records shown at most.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line per record found.")
@click.option("--open", "open_it", is_flag=True, help="Open the first record found in its session page.")
def search_command(
    query: str,
    archive: str | None,
    index_file: str | None,
    authors: tuple[str, ...],
    origins: tuple[str, ...],
    agents: tuple[str, ...],
    sessions: tuple[str, ...],
    since: str | None,
    until: str | None,
    tools: tuple[str, ...],
    failed: bool,
    include_retrieved: bool,
    include_copies: bool,
    literal: bool,
    newest: bool,
    limit: int,
    as_json: bool,
    open_it: bool,
) -> None:
    """Search an index for QUERY (FTS5 syntax: words, "a phrase", OR, NOT, prefix*).

    With ARCHIVE, its index (ARCHIVE/_index.sqlite, or --index FILE) is built or brought up
    to date first; --index FILE alone searches that index as it is. QUERY '' finds every part the filters keep,
    newest first. Content with origin retrieval or memory and records copied from other
    sessions are left out unless asked for, so nothing is found twice. Each result names the
    session, the record, its time, who wrote the text, a snippet, and the link asr show opens.
    """
    from .search import Search, literal_query, run_search

    if archive is None and index_file is None:
        raise click.UsageError("give an ARCHIVE folder or --index FILE to search")
    text = literal_query(query) if literal else query
    if not text.strip() and query.strip():
        raise click.UsageError("QUERY has no words to search")
    search = Search(
        text=text,
        authors=list(authors),
        origins=list(origins),
        agents=list(agents),
        sessions=list(sessions),
        tools=list(tools),
        since=_when(since, "--since"),
        until=_when(until, "--until"),
        failed=failed,
        include_retrieved=include_retrieved,
        include_copies=include_copies,
        newest_first=newest,
        limit=limit,
    )
    with _errors():
        if archive is not None:  # brought up to date first (into --index FILE when given)
            index_file = str(_index(archive, index_file, quiet=True).index)
        assert index_file is not None
        hits = run_search(index_file, search)
    color = not as_json and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    for hit in hits:
        if as_json:
            click.echo(orjson.dumps(hit.as_dict()).decode())
        else:
            _print_hit(hit, color)
    if open_it and hits:
        from ..cli_params import one_line_errors
        from ..view.command import show_at

        with one_line_errors(hits[0].path):
            show_at(hits[0].path, hits[0].record_id)
    sys.exit(0 if hits else 1)
