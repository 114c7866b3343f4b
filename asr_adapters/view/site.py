"""A folder of ASR streams (a batch archive) as a static site: an index and a page a stream.

Two passes: the first reads only each stream's header line to learn which page holds which
session, so a subagent record can link to its child's page and a child's header to its
parent's; the second writes each page while its records stream, collecting the counts that
the index shows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from ..batch.naming import unique_under_folding
from ..core.errors import InputError
from ..outputs import OutputError, PipeClosed, text_output
from ..stream.folders import find_streams
from .html import render_html, render_index


def _session_of(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            header = orjson.loads(handle.readline(1 << 20))
    except (OSError, orjson.JSONDecodeError):
        return None
    value = header.get("session") if isinstance(header, dict) else None
    return value if isinstance(value, str) else None


#: The site's own page. Stream pages end in ``.asr.html``, so no stream name can take it
#: (``index.asr.jsonl`` is ``index.asr.html``; ``INDEX.html`` on a case-insensitive disk neither).
INDEX = "index.html"
PAGE_SUFFIX = ".asr.html"


def page_name(stream: Path, folder: Path) -> str:
    """The page's path inside the site, mirroring the stream's path in the archive
    (``codex/<id>.asr.jsonl`` -> ``codex/<id>.asr.html``)."""
    relative = stream.relative_to(folder).as_posix()
    return relative[: -len(".asr.jsonl")] + PAGE_SUFFIX


def href(path: str) -> str:
    """A relative path inside the site as a link: every segment percent-encoded (a name holding
    ``:``, ``#``, ``?`` or ``%`` stays a file name) and ``./`` in front unless it climbs, so no
    name can read as a scheme (``https:evil``, ``javascript:``) or a network path."""
    segments = [".." if segment == ".." else quote(segment, safe="") for segment in path.split("/")]
    link = "/".join(segments)
    return link if link.startswith("../") else "./" + link


def _relative(target: Path, here: Path) -> str:
    return href(os.path.relpath(target, here).replace(os.sep, "/"))


#: The index's figures, each from the session's ``stats.SessionSummary`` (docs/stats.md), with
#: what it counts in the words its column header's tooltip uses.
COLUMNS = (
    ("prompts", "prompts the person typed (author human; injected context is not one)"),
    ("responses", "model responses (each counted once, whichever record carries its usage)"),
    ("tool calls", "tool calls the session made"),
    ("failed calls", "calls whose result records a failure; refused, cancelled and interrupted calls are not failures"),
    ("input tokens", "every input token the model processed, cache reads and writes included"),
    ("output tokens", "every token the model generated, reasoning included"),
    ("cost", "the agent's own recorded cost where it has one, else priced from genai-prices' offline data"),
)


def _count(value: int) -> str:
    if value >= 10_000_000:
        return f"{value / 1_000_000:.1f} M"
    return f"{value:,}"


def _usd(cost: float) -> str:
    return f"${cost:,.4f}" if 0 < cost < 0.01 else f"${cost:,.2f}"


def summary_cells(summary: Any) -> list[tuple[str, str]]:
    """The index row's figures as (text, tooltip), in ``COLUMNS`` order; "?" when the page could
    not be written whole."""
    if summary is None:
        return [("?", "not summed up: the page could not be written")] * len(COLUMNS)
    totals = summary.totals
    tokens = totals.tokens
    outcomes = summary.outcomes()
    not_run = ", ".join(f"{outcomes[k]} {k}" for k in ("denied", "cancelled", "interrupted") if outcomes.get(k))
    priced = totals.priced_by_agent + totals.priced_by_us
    cost = "—" if not totals.tokens and not totals.cost else _usd(totals.cost)
    cost_note = f"{totals.priced_by_agent} priced by the agent, {totals.priced_by_us} by genai-prices"
    if totals.unpriced:
        cost = f"{cost} + {totals.unpriced} unpriced" if priced else "unpriced"
        cost_note += f"; {totals.unpriced} response(s) of a model with no known price are not counted"
    partial = f"; {totals.partial} response(s) only a running count" if totals.partial else ""
    without = f"; {totals.without_usage} response(s) without usage" if totals.without_usage else ""
    return [
        (_count(summary.prompts), f"{summary.unattributed_prompts} user message(s) of unknown author not counted"),
        (_count(totals.responses), f"{totals.responses} response(s){without}"),
        (_count(len(summary.tool_calls)), not_run or "none refused, cancelled or interrupted"),
        (_count(summary.failed_tool_calls), not_run or "none refused, cancelled or interrupted"),
        (_count(tokens.input), f"{tokens.input:,} ({tokens.cache_read:,} read from the cache){partial}"),
        (_count(tokens.output), f"{tokens.output:,} ({tokens.reasoning:,} reasoning){partial}"),
        (cost, cost_note),
    ]


def render_site(
    folder: str | os.PathLike[str], out: str | os.PathLike[str], *, redactor: Any = None
) -> list[dict[str, Any]]:
    """Write ``out/index.html`` and one page per stream; returns the index rows. ``redactor``
    (an ``asr_adapters.redact.Redactor``) redacts every record before it is rendered."""
    source, target = Path(folder), Path(out)
    if not source.is_dir():
        raise InputError(str(folder), "not a folder")
    streams = find_streams(source)
    pages = unique_under_folding({stream: page_name(stream, source) for stream in streams}, PAGE_SUFFIX)
    by_session: dict[str, str] = {}
    for stream in streams:
        session = _session_of(stream)
        if session is not None:
            by_session.setdefault(session, pages[stream])
    rows: list[dict[str, Any]] = []
    for stream in streams:
        page_href = pages[stream]
        page = target / page_href
        here = page.parent

        def link(session: str, here: Path = here) -> str | None:
            other = by_session.get(session.split("#", 1)[0])
            return None if other is None else _relative(target / other, here)

        index_link = _relative(target / INDEX, here)
        from ..validate.checked import CheckedStream

        error = None
        with text_output(page, stream, inside=target) as handle:  # exclusive temp, no link followed
            try:  # a stream someone else wrote is shown with what it breaks marked (issue 25.11)
                checked = CheckedStream(stream, transform=None if redactor is None else redactor.record)
                facts = render_html(checked, handle, links=link, index_link=index_link)
            except (OutputError, PipeClosed):  # the site cannot be written: that stops it
                raise
            except Exception as exc:  # one unreadable file (gone, unreadable) must not stop the site
                from .reading import StreamFacts

                facts = StreamFacts(session=_session_of(stream))
                error = f"not rendered: {type(exc).__name__}: {exc}"
            if error is None and facts.broken:
                error = f"breaks rules of the ASR format ({facts.broken} finding(s); asr validate lists them)"
        rows.append(
            {
                "href": href(page_href),
                "name": page_href,
                "facts": facts,
                "summary": facts.summary,
                "cells": summary_cells(facts.summary),
                "error": error,
            }
        )
    rows.sort(key=lambda row: (row["facts"].agent or "", row["facts"].first_ts or "", row["name"]))
    with text_output(target / INDEX, inside=target) as handle:
        render_index(rows, handle, COLUMNS)
    return rows
