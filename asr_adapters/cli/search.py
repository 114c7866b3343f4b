"""The ``asr search`` command: thin over ``asr_adapters.index.search`` (its index built or
brought up to date as ``asr index`` does)."""

from __future__ import annotations

import os
import shlex
import sys
from datetime import UTC, datetime
from typing import Any

import click
import orjson

from .index import index_archive, index_errors, terminal_safe
from .params import parse_since

SEARCH_EXITS = """\b
Exit status:
  0    something found
  1    nothing found
  2    usage error: a malformed query, no index, a bad date or filter
  130  interrupted
"""


def _when(text: str | None, hint: str) -> str | None:
    """A ``--since``/``--until`` value as the UTC text the index compares (``asr batch``'s forms)."""
    if text is None:
        return None
    try:
        epoch = parse_since(text)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param_hint=hint) from None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S")


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
            pieces += [terminal_safe(snippet[last:start]), "\x1b[1;33m", terminal_safe(snippet[start:end]), "\x1b[0m"]
            last = end
        pieces.append(terminal_safe(snippet[last:]))
        shown = "".join(pieces)
    else:
        shown = terminal_safe(snippet)
    session, record, who = (terminal_safe(text) for text in (hit.session or hit.path, hit.record_id or "", _who(hit)))
    click.echo(f"{session}  {record}  {hit.ts or '-'}  {who}")
    click.echo(f"  {shown}")
    click.echo(f"  asr show {terminal_safe(shlex.quote(hit.link))} --open")


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
    from ..index.search import Search, literal_query, run_search

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
    with index_errors():
        if archive is not None:  # brought up to date first (into --index FILE when given)
            index_file = str(index_archive(archive, index_file, quiet=True).index)
        assert index_file is not None
        hits = run_search(index_file, search)
    color = not as_json and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    for hit in hits:
        if as_json:
            click.echo(orjson.dumps(hit.as_dict()).decode())
        else:
            _print_hit(hit, color)
    if open_it and hits:
        from ..view.browse import show_at
        from .params import one_line_errors

        with one_line_errors(hits[0].path):
            show_at(hits[0].path, hits[0].record_id)
    sys.exit(0 if hits else 1)
