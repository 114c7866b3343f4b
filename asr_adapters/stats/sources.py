"""What ``asr stats`` reads: every agent's home, native files and folders, ASR streams, and
batch archives (their streams, as the manifest lists them: never converted again).

``plan()`` lists the inputs (cheap: a stat and, for files found under folders, the first bytes
of each); ``summarize()`` reads one of them and gives a ``SessionSummary`` per stream, with
its warnings, or the error that made the input unreadable. One bad input costs that input.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..batch.homes import agent_homes
from ..batch.manifest import MANIFEST, read_entries
from ..batch.scan import prefilter, walk
from ..core.errors import ASRError
from ..core.source import BadLine, Source
from ..stream.sniff import is_asr_stream
from .prices import Prices
from .scanner import IDLE_SECONDS, SessionScanner
from .summary import SessionSummary

#: Names of stream files in a folder (as ``asr batch`` and ``asr convert -o DIR/`` write them).
STREAM_SUFFIXES = (".asr.jsonl", ".asr.jsonl.zst", ".asr.jsonl.gz")
#: Warnings kept per input (the rest are only counted).
MAX_WARNINGS = 20


@dataclass(frozen=True)
class Input:
    """One file to read: an ASR stream (``agent`` None until its header is read) or a native
    input of ``agent``."""

    path: Path
    kind: str  # "asr" or "native"
    agent: str | None = None
    size: int = 0


@dataclass
class Summarized:
    """What one input gave: a summary per stream, with whether the stream is a subagent or
    thread kept inside the same input (its parent's key in ``children``)."""

    input: Input
    summaries: list[SessionSummary] = field(default_factory=list)
    children: dict[str, str] = field(default_factory=dict)  # stream session -> parent session
    warnings: list[str] = field(default_factory=list)
    warning_count: int = 0
    error: str | None = None

    def warn(self, message: str) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)


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
    memo: SniffMemo | None = None,
) -> Plan:
    """The inputs under ``paths`` (files or folders), or under every agent's home when None;
    ``memo`` remembers what each file was found to be, so an unchanged file is not sniffed again."""
    wanted = list(agents or [])
    result = Plan()
    seen: set[str] = set()
    if paths is None:
        homes = [home.path for home in agent_homes(env, wanted or None) if home.exists]
        result.homes = homes
        _folders(homes, result, seen, explicit=False, memo=memo)
        return result
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            if (path / MANIFEST).is_file():
                _archive(path, result, seen)
            else:
                _folders([path], result, seen, explicit=False, memo=memo)
        elif path.exists():
            _folders([path], result, seen, explicit=True, memo=memo)
        else:
            result.problems.append(f"{raw}: no such file or folder")
    return result


def _add(result: Plan, seen: set[str], item: Input) -> None:
    real = os.path.realpath(item.path)
    if real not in seen:
        seen.add(real)
        result.inputs.append(item)


def _archive(folder: Path, result: Plan, seen: set[str]) -> None:
    """A batch archive: the streams its manifest lists (every output of every source), then
    any other stream file under it (written by ``asr convert -o``, or a manifest lost)."""
    entries = read_entries(folder / MANIFEST)
    for source in sorted(entries):
        entry = entries[source]
        for output in entry.outputs:
            path = folder / output
            if path.is_file():
                _add(result, seen, Input(path, "asr", entry.agent, path.stat().st_size))
    for path in _streams_under(folder):
        _add(result, seen, Input(path, "asr", None, path.stat().st_size))


def _streams_under(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root) / name for name in sorted(files) if name.endswith(STREAM_SUFFIXES) and name[0] != ".")
    return found


class SniffMemo(Protocol):
    """What a file was found to be, remembered by its path, size and mtime (the stats cache):
    (``asr``, None), (``native``, agent) or (``none``, the reason)."""

    def recall(self, path: str, size: int, mtime_ns: int, named: bool) -> tuple[str, str | None] | None: ...

    def keep(self, path: str, size: int, mtime_ns: int, named: bool, kind: str, detail: str | None) -> None: ...


def _folders(roots: list[Path], result: Plan, seen: set[str], *, explicit: bool, memo: SniffMemo | None = None) -> None:
    def tell(path: Path, reason: str, _folder: bool) -> None:
        result.problems.append(f"{path}: {reason}")

    for candidate in walk(roots, report=tell):
        path = candidate.path
        if path.name.endswith(STREAM_SUFFIXES):
            _add(result, seen, Input(path, "asr", None, candidate.size))
            continue
        named = explicit or candidate.explicit
        if prefilter(path, candidate.size, explicit=named) is not None:
            if named:
                result.problems.append(f"{path}: empty file")
            continue
        known = memo.recall(candidate.real, candidate.size, candidate.mtime_ns, named) if memo else None
        if known is None:
            known = _sniff(path)
            if memo is not None and known[0] != "unreadable":
                memo.keep(candidate.real, candidate.size, candidate.mtime_ns, named, *known)
        kind, detail = known
        if kind == "agent" and detail is not None:
            kind, detail = _claimed(path, detail, named)
        if kind == "asr":
            _add(result, seen, Input(path, "asr", None, candidate.size))
        elif kind == "native":
            _add(result, seen, Input(path, "native", detail, candidate.size))
        elif kind == "unreadable":
            result.problems.append(f"{path}: unreadable: {detail}")
        elif named:
            result.problems.append(f"{path}: not a session log any agent here writes ({detail})")


def _sniff(path: Path) -> tuple[str, str | None]:
    """What a file's content is (the part of the sniff that depends on the content alone, so
    the cache may keep it): an ASR stream, an agent's log (its name), or neither (and why)."""
    from .. import registry
    from ..batch.scan import AMBIGUOUS, NO_ADAPTER, SNIFF_FAILED, UNREADABLE, SniffSource
    from ..core.errors import UnknownAgentError

    try:
        head = Source(path).head()
    except (OSError, ASRError) as exc:
        return "unreadable", str(exc)
    if is_asr_stream(head):
        return "asr", None
    try:
        return "agent", registry.detect(SniffSource(path)).name
    except UnknownAgentError as exc:
        return "none", AMBIGUOUS if "could be" in str(exc) else NO_ADAPTER
    except OSError:
        return "none", UNREADABLE
    except Exception:
        return "none", SNIFF_FAILED


def _claimed(path: Path, agent: str, named: bool) -> tuple[str, str | None]:
    """Whether the claiming agent takes the file as a session of its own: asked every run, as
    the answer can depend on the files beside it (Cline's timelines, Gemini CLI's twins). A file
    named by the user is not asked: the user chose it."""
    from .. import registry
    from ..batch.scan import NOT_SESSION, SNIFF_FAILED

    if named:
        return "native", agent
    try:
        return ("native", agent) if registry.get(agent).is_session_file(path) else ("none", NOT_SESSION)
    except Exception:
        return "none", SNIFF_FAILED


def summarize(
    item: Input, *, price: bool = True, idle_seconds: float = IDLE_SECONDS, prices: Prices | None = None
) -> Summarized:
    """Every stream of one input, summed up; an input that cannot be read gives its error."""
    out = Summarized(item)
    try:
        if item.kind == "asr":
            _asr(item, out, price, idle_seconds, prices)
        else:
            _native(item, out, price, idle_seconds, prices)
    except ASRError as exc:
        out.error = str(exc)
    except OSError as exc:
        out.error = f"{item.path}: {exc.strerror or exc}"
    except Exception as exc:  # one bad input must not stop the others
        out.error = f"{item.path}: not read: {type(exc).__name__}: {exc}"
    if out.error is not None:
        out.summaries.clear()
    return out


def _asr(item: Input, out: Summarized, price: bool, idle: float, prices: Prices | None) -> None:
    """An ASR stream, read line by line; a line that is not a JSON object is skipped and reported."""
    scanner = SessionScanner(prices, price=price, idle_seconds=idle)
    source = Source(item.path)
    first = True
    for number, raw in source.lines():
        try:
            record: Any = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reason = raw.reason if isinstance(raw, BadLine) else str(exc)
            if first:
                raise ASRError(f"{source.display}: not an ASR stream (line {number}: {reason})") from None
            out.warn(f"{source.display}:{number}: skipped, not JSON: {reason}")
            continue
        if not isinstance(record, dict):
            out.warn(f"{source.display}:{number}: skipped, not a record (a JSON object)")
            continue
        if first and record.get("type") != "session":
            raise ASRError(f"{source.display}: not an ASR stream (no session header on line {number})")
        first = False
        scanner.observe(record)
    if first:
        raise ASRError(f"{source.display}: empty stream")
    out.summaries.append(scanner.finish())


def _native(item: Input, out: Summarized, price: bool, idle: float, prices: Prices | None) -> None:
    from ..convert import Conversion

    conversion = Conversion(item.path, item.agent, as_dicts=True)
    keys: dict[str, str | None] = {}  # stream key -> its session
    for stream in conversion.streams():
        scanner = SessionScanner(prices, price=price, idle_seconds=idle)
        for record in stream.records:
            scanner.observe(record)
        summary = scanner.finish()
        out.summaries.append(summary)
        keys[stream.key] = summary.session
        parent = keys.get(stream.parent_key) if stream.parent_key is not None else None
        if parent is not None and summary.session is not None:
            out.children[summary.session] = parent
    for diagnostic in conversion.accounting.diagnostics:
        out.warn(diagnostic.describe())
    omitted = conversion.accounting.diagnostics.omitted
    if omitted:
        out.warning_count += omitted
