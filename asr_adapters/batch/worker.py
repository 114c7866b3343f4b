"""Converting sources in a worker: every stream to a temporary file beside its final place.

A worker gets a chunk of sources (``Chunk``), sniffs each one's content for its adapter,
stamps its companion files and converts it. The worker never renames into place: the
batch's main process does, in source order, so the result does not depend on which worker
finished first (which of two sources holding the same session keeps the plain name is
decided in walk order). A source either yields all of its streams or none (its temporary
files are removed when any stream fails).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import registry
from ..convert import Conversion
from ..core.companion import links_followed
from ..core.errors import InputError
from ..core.sqlite_snapshot import open_snapshot
from ..outputs import remove_file
from ..stream.writer import StreamWriter
from .atomic import open_temp
from .naming import header_facts, native_id, output_path
from .remote import COMPANIONS_NOT_FETCHED, discard, fetched, is_url, spool_file, upload
from .scan import NO_ADAPTER, SNIFF_FAILED, sniff_content

if TYPE_CHECKING:
    from ..core.adapter import Adapter


@dataclass(frozen=True)
class Task:
    source: str
    agent: str
    outdir: str
    known_sha256: str | None = None  # skip the conversion when the content still hashes to this
    companions: tuple[tuple[str, int, int], ...] = ()  # files read with the source, stamped before
    tag: str = ""  # the shard's mark on temporary names
    redact: Any = None  # an ``asr_adapters.redact.Policy`` (the run's key with it): redact every record


@dataclass(frozen=True)
class Item:
    """A source found by the walk that passed the name filters, not yet sniffed."""

    source: str  # its real path (the manifest's key)
    path: str  # the path as walked (``is_session_file`` sees the name it was found under)
    explicit: bool = False
    known_sha256: str | None = None
    root: str = ""  # the real path of the folder walked: companions read through links must stay in it
    follow_symlinks: bool = False
    #: (agent, size, mtime_ns): the agent the driver's sniff claimed it for (``copies.find_copies``
    #: sniffs sources of equal size) and the file's stamp before that sniff; a worker that finds
    #: the same stamp takes the agent instead of reading the head and asking every agent again
    sniffed: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class Chunk:
    """Sources converted by one worker task (one task per source costs more than a small
    source's conversion in pickling and pool traffic)."""

    outdir: str
    agents: tuple[str, ...]  # the --agent filter (empty: all)
    items: tuple[Item, ...]
    tag: str = ""  # the shard's mark on temporary names
    redact: Any = None  # an ``asr_adapters.redact.Policy``


@dataclass
class StreamOutput:
    temp: str
    relative: str
    session_id: str
    parent_id: str | None
    key: str
    records: int
    bytes: int


@dataclass
class Result:
    source: str
    agent: str
    status: str  # converted | unchanged | vanished | failed | unclaimed (error: why) | filtered
    size: int = 0
    mtime_ns: int = 0
    sha256: str = ""
    streams: list[StreamOutput] = field(default_factory=list)
    accounting: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    error_line: int | None = None
    seconds: float = 0.0
    companions: list[list[Any]] = field(default_factory=list)
    etag: str = ""  # a source on an object store: its ETag (or generation) when it was read
    redaction: dict[str, Any] | None = None  # with a policy: its ``Redactor.report()``


def companion_paths(agent: str, source: str) -> list[str]:
    """The files converted along with ``source``: a SQLite database's ``-wal`` file, and what
    the adapter's ``companion_files(path)`` hook names (subagent transcripts, an index, sidecars:
    the adapter package owns that knowledge; see docs/batch.md per agent)."""
    if is_url(source):
        return []  # not fetched from an object store (the source gets a warning: remote.py)
    paths = {source + "-wal"}
    try:
        hook = getattr(registry.get(agent), "companion_files", None)
        if callable(hook):
            paths.update(str(p) for p in hook(Path(source)))
    except Exception:  # a hook that fails stamps nothing: the source itself still decides
        pass
    return sorted(paths)


def companions(agent: str, source: str, paths: list[str] | None = None) -> tuple[tuple[str, int, int], ...]:
    """(path, size, mtime_ns) of the companion files that exist: part of the source's fingerprint.
    ``paths``: ``companion_paths(agent, source)`` when the caller has them already."""
    stamps = []
    for path in companion_paths(agent, source) if paths is None else paths:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        stamps.append((path, stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)


def _linked_out(paths: list[str], root: str) -> str | None:
    """The first companion under ``root`` that a link takes out of it (None when none does).

    A companion outside ``root`` as written (Claude Code's ``<home>/plans`` for a walk of
    ``<home>/projects``, OpenClaw's ``<state>/cron/runs`` for a walk of one agent's sessions) is
    not read through a link: whether it may be read is the adapter's rule (core.companion)."""
    prefix = root.rstrip(os.sep) + os.sep

    def within(path: str) -> bool:
        return path == root or path.startswith(prefix)

    for path in paths:
        if not os.path.lexists(path) or not within(os.path.abspath(path)):
            continue
        if not within(os.path.realpath(path)):
            return path
    return None


SQLITE_MAGIC = b"SQLite format 3\x00"


def unreadable_database(path: str) -> str | None:
    """Why a SQLite file no adapter claimed cannot be read (locked by a writer, malformed),
    or None when it reads (then it is simply no agent's database)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                return None
    except OSError:
        return None
    try:  # under the snapshot rules: nothing is created beside it (core.sqlite_snapshot)
        connection = open_snapshot(Path(path), timeout=1.0)
        try:
            connection.execute("SELECT name FROM sqlite_master").fetchall()
        finally:
            connection.close()
    except sqlite3.Error as exc:
        return f"cannot read the SQLite database: {exc}"
    return None


def file_sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def run_chunk(chunk: Chunk) -> list[Result]:
    """Sniff and convert every source of the chunk, in order; never raises for a bad input."""
    return [run_item(item, chunk.outdir, chunk.agents, chunk.tag, chunk.redact) for item in chunk.items]


KILL_HOOK = "ASR_BATCH_TEST_KILL_WORKER"  # tests only: the real path of a source that kills its worker


def run_item(item: Item, outdir: str, agents: tuple[str, ...] = (), tag: str = "", redact: Any = None) -> Result:
    """Whose the source is (the content sniff), then its conversion when it is a session."""
    if os.environ.get(KILL_HOOK) == item.source:  # a worker dying mid-task, as engines lose them
        os._exit(70)
    if is_url(item.source):
        return _run_remote(item, outdir, agents, tag, redact)
    try:
        adapter: Adapter | None = _sniffed_before(item)
        reason = None
        if adapter is None:
            adapter, reason = sniff_content(Path(item.path), explicit=item.explicit)
    except Exception:  # the sniff catches what adapters raise; this is a last resort
        adapter, reason = None, SNIFF_FAILED
    if adapter is None:
        problem = unreadable_database(item.source) if reason == NO_ADAPTER else None
        if problem is not None:  # a database no adapter could look into is a failure, not someone else's file
            return Result(item.source, "", "failed", error=problem)
        return Result(item.source, "", "unclaimed", error=reason or "unknown")
    if agents and adapter.name not in agents:
        return Result(item.source, adapter.name, "filtered")
    paths = companion_paths(adapter.name, item.source)  # asked once: the hooks read files too
    if item.root and not item.follow_symlinks:
        out = _linked_out(paths, item.root)
        if out is not None:
            reason = f"reads {out} through a link that leads out of {item.root} (followed only with --follow-symlinks)"
            return Result(item.source, adapter.name, "failed", error=reason)
    stamps = companions(adapter.name, item.source, paths)
    with links_followed(item.follow_symlinks):
        return run_task(Task(item.source, adapter.name, outdir, item.known_sha256, stamps, tag, redact))


def _sniffed_before(item: Item) -> Adapter | None:
    """The adapter the driver's sniff found, while the file still has the stamp it had then
    (otherwise None: it changed, or cannot be read, and is sniffed again)."""
    if item.sniffed is None:
        return None
    agent, size, mtime_ns = item.sniffed
    try:
        stat = os.stat(item.path)
    except OSError:
        return None
    return registry.get(agent) if (stat.st_size, stat.st_mtime_ns) == (size, mtime_ns) else None


def _run_remote(item: Item, outdir: str, agents: tuple[str, ...], tag: str, redact: Any = None) -> Result:
    """A source on an object store: downloaded to a local spool folder, converted there."""
    prefix = item.root.rstrip("/") + "/"
    inside_root = item.root and item.source.startswith(prefix)
    relative = item.source[len(prefix) :] if inside_root else posixpath.basename(item.source)
    try:
        with fetched(item.source, relative) as (local, (size, mtime_ns, etag)):
            local_item = Item(str(local), str(local), item.explicit, item.known_sha256)
            result = run_item(local_item, outdir, agents, tag, redact)
    except FileNotFoundError:
        return Result(item.source, "", "vanished")
    except Exception as exc:
        return Result(item.source, "", "failed", error=f"cannot read: {type(exc).__name__}: {exc}")
    result.source, result.size, result.mtime_ns, result.etag = item.source, size, mtime_ns, etag
    result.companions = []
    if result.status == "converted" and _has_companions(result.agent):
        result.diagnostics.append({"line": None, "reason": COMPANIONS_NOT_FETCHED, "severity": "warning"})
    return result


def _has_companions(agent: str) -> bool:
    try:
        return callable(getattr(registry.get(agent), "companion_files", None))
    except Exception:
        return False


def run_task(task: Task) -> Result:
    """Convert one source; never raises for a bad input (the result says what failed)."""
    started = time.perf_counter()
    result = Result(task.source, task.agent, "failed", companions=[list(c) for c in task.companions])
    try:
        stat = os.stat(task.source)
        result.size, result.mtime_ns = stat.st_size, stat.st_mtime_ns
        result.sha256 = file_sha256(task.source)
    except FileNotFoundError:
        result.status = "vanished"  # moved or deleted since the walk (an agent archiving it)
        return result
    except OSError as exc:
        result.error = f"cannot read: {exc.strerror or exc}"
        return result
    if task.known_sha256 is not None and task.known_sha256 == result.sha256:
        result.status = "unchanged"
        return result
    try:
        _convert(task, result)
        result.status = "converted"
    except InputError as exc:
        _discard(result, task.outdir)
        result.error, result.error_line = exc.reason, exc.line
    except Exception as exc:  # an adapter bug or an OS error: this source fails, the batch goes on
        _discard(result, task.outdir)
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    return result


def _convert(task: Task, result: Result) -> None:
    remote = is_url(task.outdir)
    outdir = Path(task.outdir)
    redactor = None
    if task.redact is not None:
        from ..redact import Redactor

        redactor = Redactor(task.redact)
    conversion = Conversion(task.source, task.agent, as_dicts=True, redactor=redactor)
    ids: dict[str, str] = {}
    for stream in conversion.streams():
        records = iter(stream.records)
        first = next(records, None)
        if first is None:
            continue
        session_id, parent_id = header_facts(first, task.agent, stream.key)
        if stream.parent_key is not None:
            parent_id = ids.get(stream.parent_key) or native_id(stream.parent_key, task.agent)
        ids[stream.key] = session_id
        relative = output_path(task.agent, session_id, parent_id)
        if remote:  # built whole in a local spool file, uploaded once below
            temp, handle = spool_file()
        else:
            local, handle = open_temp(outdir, relative, task.tag)
            temp = str(local)
        output = StreamOutput(str(temp), relative, session_id, parent_id, stream.key, 0, 0)
        result.streams.append(output)
        with handle:
            writer = StreamWriter(handle)
            writer.write(first)
            writer.write_all(records)
            output.records = writer.count
            output.bytes = handle.tell()
    if remote:
        upload(task.outdir, result.streams, task.tag)
    accounting = conversion.accounting
    if redactor is not None:
        result.redaction = redactor.report()
    result.accounting = accounting.as_dict()
    result.diagnostics = [d.as_dict() for d in accounting.diagnostics]


def _discard(result: Result, outdir: str = "") -> None:
    if is_url(outdir):
        discard(outdir, [output.temp for output in result.streams])
    for output in result.streams:
        with contextlib.suppress(OSError):
            remove_file(output.temp)
    result.streams = []
