"""``discover()``: the sessions under folders or every agent's home, without converting them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
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
    fork; ``mtime`` in epoch seconds; ``key`` the adapter's stream key.
    """

    agent: str
    session_id: str | None
    path: Path
    parent: str | None
    size: int
    mtime: float
    key: str | None = None
    error: str | None = None

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
    produce after reading a few lines: one descriptor per file. A SQLite database holds many
    sessions (every thread of a T3 Code database): each is listed, which reads the database
    whole. With ``streams=True`` every stream of every input is listed, subagents kept inside
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


def _describe(agent: str, candidate: Candidate, all_streams: bool) -> Iterator[SessionDescriptor]:
    def make(
        session_id: str | None, parent: str | None, key: str | None = None, error: str | None = None
    ) -> SessionDescriptor:
        mtime = candidate.mtime_ns / 1e9
        return SessionDescriptor(agent, session_id, candidate.path, parent, candidate.size, mtime, key, error)

    found = 0
    try:
        source = Source(candidate.path)
        every_session = all_streams or source.is_sqlite  # a database holds many sessions
        conversion = Conversion(source, agent, as_dicts=True)
        ids: dict[str, str] = {}
        for stream in conversion.streams():
            first = next(iter(stream.records), None)
            session_id, parent = header_facts(first, agent, stream.key)
            ids[stream.key] = session_id
            if stream.parent_key is not None:
                parent = ids.get(stream.parent_key) or native_id(stream.parent_key, agent)
            if all_streams or parent is None or found == 0:
                found += 1
                yield make(session_id, parent, stream.key)
            if not every_session:
                return
            for _ in stream.records:
                pass
    except ASRError as exc:
        yield make(None, None, error=str(exc))
        return
    if found == 0:
        yield make(None, None, error="no session in this input")
