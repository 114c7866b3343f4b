"""``asr search``: full-text queries over the index, filtered by who wrote what.

The query is FTS5's own syntax (words, ``"phrases"``, ``OR``, ``NOT``, ``NEAR``, ``prefix*``);
``literal_query`` turns any text into a query of its words. By default, content that entered a
session from elsewhere is left out, so nothing is found twice: parts with origin ``retrieval``
or ``memory`` (the spec's reason for those origins) and records that are copies
(``copiedFrom``). One result per record: its best-ranked part.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ASRError
from . import store

#: Origins left out unless asked for (``--origin``, ``include_retrieved``).
RETRIEVED_ORIGINS = ("retrieval", "memory")
#: The authors ``--author`` takes (ASR-202), and the record types whose parts count as theirs
#: when the part itself names no author: a tool result is a tool's words, a tool call's input
#: the model's.
AUTHORS = ("human", "model", "harness", "hook", "agent", "tool")
_IMPLIED_AUTHOR = {"tool": "tool_result", "model": "tool_call"}
_START, _END = "\x02", "\x03"
#: Characters around a hit in a snippet (FTS5 counts tokens: this many).
SNIPPET_TOKENS = 24
#: Characters shown of a part when the search has no text (filters only).
PLAIN_SNIPPET = 200
_QUERY_ERRORS = ("fts5", "syntax error", "unterminated string", "no such column", "unknown special query", "MATCH")


class QueryError(ASRError):
    """A query FTS5 cannot parse (a usage error: exit 2)."""


@dataclass
class Search:
    """What to look for. ``text`` is an FTS5 query; empty means every part the filters keep."""

    text: str = ""
    authors: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    since: str | None = None  # UTC, 'YYYY-MM-DDTHH:MM:SS': records at or after
    until: str | None = None  # UTC, same form: records before
    failed: bool = False
    include_retrieved: bool = False
    include_copies: bool = False
    newest_first: bool = False
    limit: int = 20


@dataclass
class Hit:
    """One record found: where it is, who wrote the part that matched, and a snippet."""

    session: str | None
    agent: str | None
    path: str
    link: str  # STREAM#RECORD_ID, which ``asr show`` opens at that record
    seq: int
    record_id: str | None
    ts: str | None
    record_type: str
    field: str
    part_type: str | None
    visibility: str | None  # a reasoning part's: full, summary, … (never shown as full unless full)
    status: str | None  # the message's status (withdrawn, interrupted, …)
    author: str | None  # the part's effective author (ASR-224), or the one its record implies
    origin: str | None
    phase: str | None
    tool: str | None
    outcome: str | None
    snippet: str
    highlights: list[tuple[int, int]]
    score: float | None

    def as_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["highlights"] = [list(h) for h in self.highlights]
        return data


def literal_query(text: str) -> str:
    """Any text as an FTS5 query that finds its words in order-free AND: each word quoted."""
    words = [w for w in text.replace("\x00", " ").split() if w]
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _where(search: Search) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if search.authors:
        ors = []
        for author in search.authors:
            implied = _IMPLIED_AUTHOR.get(author)
            if implied is not None:
                ors.append("(p.author = ? OR (p.author IS NULL AND p.record_type = ?))")
                params.extend([author, implied])
            else:
                ors.append("p.author = ?")
                params.append(author)
        clauses.append("(" + " OR ".join(ors) + ")")
    if search.origins:
        clauses.append(f"p.origin IN ({', '.join('?' * len(search.origins))})")
        params.extend(search.origins)
    elif not search.include_retrieved:
        clauses.append("(p.origin IS NULL OR p.origin NOT IN (?, ?))")
        params.extend(RETRIEVED_ORIGINS)
    if not search.include_copies:
        clauses.append("p.copied = 0")
    if search.agents:
        clauses.append(f"s.agent IN ({', '.join('?' * len(search.agents))})")
        params.extend(search.agents)
    if search.sessions:
        ors = []
        for session in search.sessions:
            prefix = _like_escape(session) + "%" if ":" in session else "%:" + _like_escape(session) + "%"
            ors.append("(s.session = ? OR s.path = ? OR s.session LIKE ? ESCAPE '\\')")
            params.extend([session, session, prefix])
        clauses.append("(" + " OR ".join(ors) + ")")
    if search.since is not None:
        clauses.append("p.ts >= ?")
        params.append(search.since)
    if search.until is not None:
        clauses.append("p.ts < ?")
        params.append(search.until)
    return clauses, params


def _call_clauses(search: Search) -> tuple[list[str], list[Any]]:
    """``--tool`` and ``--failed``: conditions on the tool call (``t``) a part belongs to."""
    clauses: list[str] = []
    params: list[Any] = []
    if search.tools:
        clauses.append(f"t.name IN ({', '.join('?' * len(search.tools))})")
        params.extend(search.tools)
    if search.failed:
        clauses.append("t.outcome = 'error'")
    return clauses, params


_COLUMNS = (
    "p.part_id, p.sid, p.seq, p.record_id, p.ts, p.record_type, p.field, p.part_type, p.author, p.origin, "
    "p.phase, p.call_id, s.session, s.agent, s.path, p.visibility"
)


def _statement(search: Search) -> tuple[str, list[Any]]:
    """The query that finds the parts, best (or newest) first. Snippets are made afterwards for
    the parts shown only: FTS5 would make one for every match before sorting them."""
    clauses, params = _where(search)
    calls, call_params = _call_clauses(search)
    if search.text.strip():
        if calls:
            on_call = " AND ".join(["t.sid = p.sid", "t.call_id = p.call_id", *calls])
            clauses.append(f"EXISTS (SELECT 1 FROM tool_calls t WHERE {on_call})")
            params.extend(call_params)
        sql = (
            f"SELECT {_COLUMNS}, parts_fts.rank FROM parts_fts "
            "JOIN parts p ON p.part_id = parts_fts.rowid JOIN sessions s ON s.sid = p.sid "
            f"WHERE parts_fts MATCH ?{''.join(' AND ' + c for c in clauses)} "
            f"ORDER BY {'p.ts DESC, ' if search.newest_first else ''}parts_fts.rank, p.part_id"
        )
        return sql, [search.text, *params]
    if calls:  # driven by the (few) calls that qualify, each joined to its call's and result's parts
        source = (
            "tool_calls t JOIN parts p ON p.sid = t.sid AND p.seq IN (t.seq, t.result_seq) AND p.call_id = t.call_id "
            "JOIN sessions s ON s.sid = p.sid"
        )
        clauses = calls + clauses
        params = call_params + params
    else:
        source = "parts p JOIN sessions s ON s.sid = p.sid"
    sql = (
        f"SELECT {_COLUMNS}, NULL FROM {source} "
        f"WHERE p.text IS NOT NULL AND p.text <> ''{''.join(' AND ' + c for c in clauses)} "
        "ORDER BY p.ts DESC, p.part_id DESC"
    )
    return sql, params


def _highlights(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The snippet without its markers, and where the marked spans are (character offsets)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for char in marked:
        if char == _START:
            start = len(out)
        elif char == _END:
            if start is not None and len(out) > start:
                spans.append((start, len(out)))
            start = None
        else:
            out.append(char)
    return "".join(out), spans


def run_search(index: str | Path, search: Search) -> list[Hit]:
    """The records ``search`` finds in the index at ``index``, best first (or newest first)."""
    conn = store.open_for_reading(Path(index))
    try:
        archive = Path(store.read_meta(conn).get("archive", ""))  # type: ignore[union-attr]
        return _collect(conn, archive, search)
    finally:
        conn.close()


def _collect(conn: sqlite3.Connection, archive: Path, search: Search) -> list[Hit]:
    """The first ``limit`` records found: the ordered query read a page at a time (LIMIT lets
    SQLite keep only the best rows while sorting), one part per record, then their snippets."""
    sql, params = _statement(search)
    rows: list[tuple[Any, ...]] = []
    seen: set[tuple[int, int]] = set()
    page = search.limit * 3 + 10
    offset = 0
    try:
        while len(rows) < search.limit:
            batch = conn.execute(f"{sql} LIMIT ? OFFSET ?", [*params, page, offset]).fetchall()
            for row in batch:
                key = (row[1], row[2])
                if key not in seen:  # one hit per record (its content and displayContent may say the same)
                    seen.add(key)
                    rows.append(row)
                    if len(rows) >= search.limit:
                        break
            if len(batch) < page:
                break
            offset += page
            page *= 4
        snippets = _snippets(conn, [row[0] for row in rows], search)
    except sqlite3.OperationalError as exc:
        message = str(exc)
        if any(marker in message for marker in _QUERY_ERRORS):
            hint = 'FTS5 syntax: quote words in "double quotes", or use --literal'
            raise QueryError(f"bad search query {search.text!r}: {message} ({hint})") from None
        raise store.IndexFileError(f"cannot search the index: {message}") from None
    return [_hit(conn, archive, row, snippets.get(row[0], "")) for row in rows]


def _snippets(conn: sqlite3.Connection, part_ids: list[int], search: Search) -> dict[int, str]:
    """Snippets of the parts shown, in one query (marked where the query matched)."""
    if not part_ids:
        return {}
    marks = ", ".join("?" * len(part_ids))
    if search.text.strip():
        sql = (
            f"SELECT rowid, snippet(parts_fts, 0, '{_START}', '{_END}', '…', {SNIPPET_TOKENS}) FROM parts_fts "
            f"WHERE parts_fts MATCH ? AND rowid IN ({marks})"
        )
        return {k: v or "" for k, v in conn.execute(sql, [search.text, *part_ids])}
    sql = f"SELECT part_id, substr(text, 1, {PLAIN_SNIPPET}) FROM parts WHERE part_id IN ({marks})"
    return {k: v or "" for k, v in conn.execute(sql, part_ids)}


def _hit(conn: sqlite3.Connection, archive: Path, row: tuple[Any, ...], marked: str) -> Hit:
    sid, seq, record_id, ts, record_type, field_name, part_type, author, origin, phase, call_id = row[1:12]
    session, agent, path, visibility, score = row[12:]
    tool = outcome = status = None
    if record_type == "message":  # withdrawn, interrupted …: a reader must say so (ASR-225)
        found = conn.execute("SELECT status FROM messages WHERE sid = ? AND seq = ?", (sid, seq)).fetchone()
        status = found[0] if found else None
    if call_id is not None and record_type in ("tool_call", "tool_result"):
        found = conn.execute(
            "SELECT name, outcome FROM tool_calls WHERE sid = ? AND call_id = ? ORDER BY seq DESC LIMIT 1",
            (sid, call_id),
        ).fetchone()
        if found is not None:
            tool, outcome = found
    if author is None and record_type in ("tool_result", "tool_call"):
        author = "tool" if record_type == "tool_result" else "model"
    snippet, spans = _highlights(marked)
    stream = os.path.join(archive, path)
    return Hit(
        session=session,
        agent=agent,
        path=stream,
        link=f"{stream}#{record_id or 'r' + str(seq)}",
        seq=seq,
        record_id=record_id,
        ts=ts,
        record_type=record_type,
        field=field_name,
        part_type=part_type,
        visibility=visibility,
        status=status,
        author=author,
        origin=origin,
        phase=phase,
        tool=tool,
        outcome=outcome,
        snippet=snippet,
        highlights=spans,
        score=score,
    )
