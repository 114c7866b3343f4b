"""``discover()``: the sessions under folders or every agent's home, without converting them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..convert import Conversion
from ..core.errors import ASRError
from ..core.source import Source
from .homes import agent_homes
from .naming import header_facts, native_id
from .scan import Candidate, Filters, sniff, walk


@dataclass(frozen=True)
class SessionDescriptor:
    """One session found on disk.

    ``session_id`` is the native id from the session's header (None when the header could not
    be read; ``error`` says why); ``parent`` the parent session's native id for a subagent or
    fork; ``mtime`` in epoch seconds; ``key`` the adapter's stream key. ``started`` is the
    header's timestamp, ``title`` the session's own title or else the first line the person
    typed. A store of many sessions (a SQLite database) is one descriptor: ``sessions`` counts
    them, ``started`` is the earliest, and ``session_id``, ``key`` and ``title`` are None
    unless it holds one session.
    """

    agent: str
    session_id: str | None
    path: Path
    parent: str | None
    size: int
    mtime: float
    key: str | None = None
    error: str | None = None
    started: str | None = None
    title: str | None = None
    sessions: int = 1

    def line(self) -> str:
        """The row ``asr discover`` prints: agent, start, session id (or a store's count), path,
        parent, title."""
        if self.error is not None and self.session_id is None and self.sessions == 1:
            session = f"? ({self.error})"
        elif self.session_id is None:
            session = f"{self.sessions} sessions"
        else:
            session = self.session_id
        parent = f"  parent={self.parent}" if self.parent else ""
        title = f"  {' '.join(self.title.split())}" if self.title else ""
        return f"{self.agent:12} {self.started or '-':24} {session}  {self.path}{parent}{title}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "session_id": self.session_id,
            "path": str(self.path),
            "parent": self.parent,
            "size": self.size,
            "mtime": self.mtime,
            "key": self.key,
            "error": self.error,
            "started": self.started,
            "title": self.title,
            "sessions": self.sessions,
        }


def discover(
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    agents: Iterable[str] | None = None,
    streams: bool = False,
) -> Iterator[SessionDescriptor]:
    """The sessions under ``paths`` (files or folders), or under every agent's home when None.

    Nothing is converted: each input's agent comes from the adapters' content sniff and its
    session id from the first record of its first stream (the header), which lazy adapters
    produce after reading a few lines (up to the first prompt, for the title): one descriptor
    per file. A SQLite database holds many sessions (every thread of a T3 Code database): it is
    one descriptor with their count (reading the database whole). With ``streams=True`` every
    stream of every input is listed, each thread of a database and the subagents kept inside
    one input included, which reads each input to its end. ``env`` replaces ``os.environ``.
    """
    wanted = list(agents) if agents else []
    if paths is None:
        roots = [home.path for home in agent_homes(env, wanted or None) if home.exists]
    elif isinstance(paths, str | os.PathLike):
        roots = [Path(paths)]
    else:
        roots = [Path(p) for p in paths]
    filters = Filters(agents=wanted)
    for candidate in walk(roots):
        adapter, _reason = sniff(candidate.path, candidate.size, explicit=candidate.explicit)
        if adapter is None or not filters.by_agent(adapter.name):
            continue
        yield from _describe(adapter.name, candidate, streams)


#: records read past the header for a title before a file's descriptor is given without one
TITLE_RECORDS = 200


def _describe(agent: str, candidate: Candidate, all_streams: bool) -> Iterator[SessionDescriptor]:
    mtime = candidate.mtime_ns / 1e9

    def make(session_id: str | None, parent: str | None, **facts: Any) -> SessionDescriptor:
        return SessionDescriptor(agent, session_id, candidate.path, parent, candidate.size, mtime, **facts)

    found: list[SessionDescriptor] = []
    try:
        source = Source(candidate.path)
        store = source.is_sqlite and not all_streams  # a database holds many sessions: one row
        conversion = Conversion(source, agent, as_dicts=True)
        ids: dict[str, str] = {}
        for stream in conversion.streams():
            records = iter(stream.records)
            first = next(records, None)
            session_id, parent = header_facts(first, agent, stream.key)
            ids[stream.key] = session_id
            if stream.parent_key is not None:
                parent = ids.get(stream.parent_key) or native_id(stream.parent_key, agent)
            listed = all_streams or parent is None or not found
            if listed:
                title = _own_title(first) or _first_prompt(records, None if all_streams or store else TITLE_RECORDS)
                found.append(make(session_id, parent, key=stream.key, started=_started(first), title=title))
                if not store:
                    yield found[-1]
            if not (all_streams or store):
                return
            for _ in records:
                pass
    except ASRError as exc:
        if store and found:  # what was read is listed, with why the rest was not
            yield _store(found, error=str(exc))
        else:
            yield make(None, None, error=str(exc))
        return
    if not found:
        yield make(None, None, error="no session in this input")
    elif store:
        yield _store(found)


def _store(found: list[SessionDescriptor], error: str | None = None) -> SessionDescriptor:
    """A database's one descriptor: its sessions counted, the earliest start."""
    if len(found) == 1:
        return replace(found[0], error=error)
    starts = [d.started for d in found if d.started is not None]
    return replace(
        found[0],
        session_id=None,
        key=None,
        title=None,
        started=min(starts, default=None),
        sessions=len(found),
        error=error,
    )


def _started(header: Any) -> str | None:
    ts = header.get("ts") if isinstance(header, dict) else None
    return ts if isinstance(ts, str) else None


def _own_title(header: Any) -> str | None:
    title = header.get("title") if isinstance(header, dict) else None
    return title if isinstance(title, str) and title.strip() else None


def _first_prompt(records: Iterator[Any], limit: int | None) -> str | None:
    """The first line the person typed (their parts, author ``human``; whitespace runs made one
    blank, at most 100 characters), from at most ``limit`` records (None: any); the records read
    are consumed. The viewer's heading reads command markup too; discovery does not load it."""
    for count, record in enumerate(records, 1):
        if isinstance(record, dict) and record.get("role") == "user":
            for member in ("content", "displayContent"):
                parts = record.get(member)
                if isinstance(parts, list):
                    title = _typed_line(parts, record)
                    if title:
                        return title
        if limit is not None and count >= limit:
            break
    return None


def _typed_line(parts: list[Any], message: dict[str, Any]) -> str | None:
    texts = [
        part["text"]
        for part in parts
        if isinstance(part, dict)
        and isinstance(part.get("text"), str)
        and part.get("author", message.get("author")) == "human"
    ]
    for line in "".join(texts).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= 100 else line[:99] + "…"
    return None
