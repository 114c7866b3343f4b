"""Which files ``asr stats`` reads: every agent's home, native files and folders, ASR streams,
and batch archives (their streams, as the manifest lists them: never converted again).

``plan()`` only walks folders and stats files (the main process does it); what each file is,
an ASR stream, an agent's session or neither, is decided where it is read (``sources.process``,
in the worker processes), so the sniffing of ten thousand files is shared out too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..batch.homes import Home, agent_homes
from ..batch.manifest import MANIFEST, read_entries
from ..batch.scan import prefilter, walk
from ..core.errors import ASRError
from ..core.source import Source
from ..stream.sniff import is_asr_stream

#: Names of stream files in a folder (as ``asr batch`` and ``asr convert -o DIR/`` write them).
STREAM_SUFFIXES = (".asr.jsonl", ".asr.jsonl.zst", ".asr.jsonl.gz")

#: What a file's content was found to be: ("asr", None), ("agent", name), ("none", why) or
#: ("unreadable", why); the first three depend on the content alone and may be cached.
Sniffed = tuple[str, str | None]


@dataclass(frozen=True)
class Input:
    """One file to read. ``kind``: ``asr`` (a stream), ``native`` (``agent``'s session) or
    ``file`` (not known yet: sniffed where it is read, unless ``sniffed`` says what it was when
    it had this size and mtime). ``named``: given by the user (never asked whether it is a
    session of its own). ``cached_stamp``: the fingerprint its cached summaries were taken at.
    ``home``: the agent whose home it was found in (``sniff_as``), when no other home is
    inside that one or holds it."""

    path: Path
    kind: str
    agent: str | None = None
    size: int = 0
    mtime_ns: int = 0
    named: bool = False
    real: str = ""
    sniffed: Sniffed | None = None
    cached_stamp: str | None = None
    home: str | None = None

    def but(self, **changes: object) -> Input:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass
class Plan:
    inputs: list[Input] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # paths that cannot be read at all, and why
    homes: list[Path] = field(default_factory=list)  # the agent homes looked at (no PATH given)


def plan(
    paths: Iterable[str | os.PathLike[str]] | None,
    *,
    env: Mapping[str, str] | None = None,
    agents: Iterable[str] | None = None,
) -> Plan:
    """The files under ``paths`` (files or folders), or under every agent's home when None."""
    result = Plan()
    result.inputs = list(planned(paths, result, env=env, agents=agents))
    return result


def planned(
    paths: Iterable[str | os.PathLike[str]] | None,
    into: Plan,
    *,
    env: Mapping[str, str] | None = None,
    agents: Iterable[str] | None = None,
) -> Iterator[Input]:
    """``plan``'s inputs one by one as the walk finds them (so workers may read the first
    while the rest are looked for); its problems and homes go to ``into`` (whole once the
    iterator is spent), not its inputs."""
    wanted = list(agents or [])
    seen: set[str] = set()
    if paths is None:
        found = [home for home in agent_homes(env, wanted or None) if home.exists]
        into.homes = homes = [home.path for home in found]
        yield from _folders(homes, into, seen, explicit=False, agents=_sole_agents(found))
        return
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            if (path / MANIFEST).is_file():
                yield from _archive(path, seen)
            else:
                yield from _folders([path], into, seen, explicit=False)
        elif path.exists():
            yield from _folders([path], into, seen, explicit=True)
        else:
            into.problems.append(f"{raw}: no such file or folder")


def _new(seen: set[str], item: Input) -> Iterator[Input]:
    """``item``, with its real path, unless that file was found already."""
    real = item.real or os.path.realpath(item.path)
    if real not in seen:
        seen.add(real)
        yield item if item.real else item.but(real=real)


def _archive(folder: Path, seen: set[str]) -> Iterator[Input]:
    """A batch archive: the streams its manifest lists (every output of every source), then
    any other stream file under it (written by ``asr convert -o``, or a manifest lost)."""
    entries = read_entries(folder / MANIFEST)
    for source in sorted(entries):
        entry = entries[source]
        for output in entry.outputs:
            path = folder / output
            if path.is_file():
                yield from _new(seen, _stream(path, entry.agent))
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(STREAM_SUFFIXES) and name[0] != ".":
                yield from _new(seen, _stream(Path(root) / name, None))


def _stream(path: Path, agent: str | None) -> Input:
    stat = path.stat()
    return Input(path, "asr", agent, stat.st_size, stat.st_mtime_ns)


def _sole_agents(homes: list[Home]) -> dict[Path, str]:
    """Each home's agent, for the homes no other home is inside or holds (whose files can only
    be that agent's, or nobody's)."""
    return {
        home.path: home.agent
        for home in homes
        if not any(
            other is not home and (other.path.is_relative_to(home.path) or home.path.is_relative_to(other.path))
            for other in homes
        )
    }


def _folders(
    roots: list[Path], result: Plan, seen: set[str], *, explicit: bool, agents: Mapping[Path, str] | None = None
) -> Iterator[Input]:
    def tell(path: Path, reason: str, _folder: bool) -> None:
        result.problems.append(f"{path}: {reason}")

    homes = {Path(os.path.abspath(root)): agent for root, agent in (agents or {}).items()}

    for candidate in walk(roots, report=tell):
        path = candidate.path
        named = explicit or candidate.explicit
        size, mtime = candidate.size, candidate.mtime_ns
        home = homes.get(candidate.root)
        if path.name.endswith(STREAM_SUFFIXES):
            yield from _new(seen, Input(path, "asr", None, size, mtime, named, candidate.real))
        elif home is not None and not named and _not_a_session(home, path):
            seen.add(candidate.real)  # a subagent transcript, a sidecar: read with its session, if at all
        elif prefilter(path, size, explicit=named) is None:
            yield from _new(seen, Input(path, "file", None, size, mtime, named, candidate.real, home=home))
        elif named:
            result.problems.append(f"{path}: empty file")


def _not_a_session(agent: str, path: Path) -> bool:
    """Whether the agent of the home ``path`` was found in says it is no session of its own
    (``sniff_as`` would say so in a worker: left out here, it costs no worker a round trip)."""
    from .. import registry

    try:
        return not registry.get(agent).is_session_file(path)
    except Exception:
        return False  # the worker's sniff decides


def sniff(path: Path) -> Sniffed:
    """What a file's content is (the part of the sniff that depends on the content alone, so
    the cache may keep it): an ASR stream, an agent's log (its name), or neither (and why)."""
    from .. import registry
    from ..batch.scan import AMBIGUOUS, NO_ADAPTER, SNIFF_FAILED, UNREADABLE
    from ..core.errors import UnknownAgentError

    try:
        source = Source(path)  # its head is read once, for this check and every adapter's sniff
        head = source.head()
    except (OSError, ASRError) as exc:
        return "unreadable", str(exc)
    if is_asr_stream(head):
        return "asr", None
    try:
        return "agent", registry.detect(source).name
    except UnknownAgentError as exc:
        return "none", AMBIGUOUS if "could be" in str(exc) else NO_ADAPTER
    except OSError:
        return "none", UNREADABLE
    except Exception:
        return "none", SNIFF_FAILED


def sniff_as(path: Path, agent: str) -> Sniffed | None:
    """What a file found in ``agent``'s home is, asking that agent alone (``sniff`` asks every
    adapter): its log when its sniff is sure, else None (then ``sniff`` decides). Whether the
    file is a session of its own is the plan's (``_not_a_session``) and ``claimed``'s question."""
    from .. import registry

    try:
        source = Source(path)
        head = source.head()
        if source.is_sqlite or not head.strip() or is_asr_stream(head):
            return None
        sure = registry.score(source, agent)
    except Exception:
        return None
    return ("agent", agent) if sure >= registry.SURE else None


def claimed(path: Path, agent: str, named: bool) -> Sniffed:
    """Whether the claiming agent takes the file as a session of its own: asked every run, as
    the answer can depend on the files beside it (Cline's timelines, Gemini CLI's twins). A file
    named by the user is not asked: the user chose it. ("native", agent) or ("none", why)."""
    from .. import registry
    from ..batch.scan import NOT_SESSION, SNIFF_FAILED

    if named:
        return "native", agent
    try:
        return ("native", agent) if registry.get(agent).is_session_file(path) else ("none", NOT_SESSION)
    except Exception:
        return "none", SNIFF_FAILED
