"""``run_batch``: walk, filter, skip what is up to date, sniff and convert in parallel, rename in order.

The main process walks, filters by path and name, and skips what the manifest says is up to
date; workers get the rest in chunks of sources (``worker.Chunk``), sniff each one's content
and convert it. Determinism: chunks are converted in any order by any number of workers,
but every result is applied (renamed into place, recorded in the manifest, its errors
written) by this process in the walk's sorted order, so the outputs do not depend on ``jobs``.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ..version import __version__
from .atomic import atomic_write_bytes, sweep_temps
from .homes import Home, agent_homes
from .manifest import MAX_WARNINGS, Entry, Manifest
from .naming import output_path, short_hash
from .progress import Progress
from .scan import Filters, prefilter, sniff_content, walk
from .worker import Chunk, Item, Result, companions, run_chunk, run_item

ERRORS = "_errors.jsonl"
LOCK = "_batch.lock"
WORKER_DIED = "the worker process died while converting this source (killed or crashed)"
CHUNK = 32  # sources per worker task, at most (see ``_chunks``)


class BatchUsageError(Exception):
    """A batch that cannot start: bad arguments, or another batch writing the same folder."""


@dataclass
class BatchOptions:
    sources: list[Path]
    outdir: Path
    discover: bool = False
    jobs: int | None = None
    force: bool = False
    filters: Filters = field(default_factory=Filters)
    env: Mapping[str, str] | None = None
    progress: Progress | None = None
    save_every: float = 2.0
    follow_symlinks: bool = False


@dataclass
class AgentCounts:
    converted: int = 0
    skipped: int = 0
    failed: int = 0
    streams: int = 0
    records: int = 0


@dataclass
class Summary:
    converted: int = 0
    skipped: int = 0
    failed: int = 0
    unclaimed: int = 0
    unclaimed_reasons: Counter[str] = field(default_factory=Counter)
    filtered: int = 0
    gone: int = 0
    streams: int = 0
    records: int = 0
    bytes: int = 0
    warnings: int = 0
    agents: dict[str, AgentCounts] = field(default_factory=dict)
    record_types: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    vendor: int = 0
    seconds: float = 0.0
    outdir: str = ""
    roots: list[str] = field(default_factory=list)
    homes: list[Home] = field(default_factory=list)

    def agent(self, name: str) -> AgentCounts:
        return self.agents.setdefault(name, AgentCounts())

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "converted": self.converted,
            "skipped": self.skipped,
            "failed": self.failed,
            "unclaimed": self.unclaimed,
            "unclaimed_reasons": dict(sorted(self.unclaimed_reasons.items())),
            "filtered": self.filtered,
            "gone": self.gone,
            "streams": self.streams,
            "records": self.records,
            "bytes": self.bytes,
            "warnings": self.warnings,
            "agents": {name: vars(self.agents[name]) for name in sorted(self.agents)},
            "record_types": dict(sorted(self.record_types.items())),
            "duplicates": self.duplicates,
            "vendor": self.vendor,
            "seconds": round(self.seconds, 3),
            "outdir": self.outdir,
            "roots": self.roots,
            "errors_file": str(Path(self.outdir) / ERRORS),
        }

    def describe(self) -> str:
        parts = [f"converted {self.converted}", f"skipped {self.skipped} unchanged", f"failed {self.failed}"]
        text = ", ".join(parts) + f" ({self.streams} streams, {self.records} records) in {self.seconds:.1f} s"
        if self.failed:
            text += f"; errors in {Path(self.outdir) / ERRORS}"
        if self.unclaimed:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.unclaimed_reasons.items()))
            text += f"; {self.unclaimed} files not converted ({reasons})"
        if self.filtered:
            text += f"; {self.filtered} filtered out"
        return text


def run_batch(options: BatchOptions) -> Summary:
    started = time.monotonic()
    outdir = Path(os.path.abspath(options.outdir))
    if outdir.exists() and not outdir.is_dir():
        raise BatchUsageError(f"{outdir} is not a folder")
    roots = [Path(os.path.abspath(p)) for p in options.sources]
    for root in roots:
        if not root.exists():
            raise BatchUsageError(f"{root}: no such file or folder")
    summary = Summary(outdir=str(outdir))
    if options.discover:
        summary.homes = agent_homes(options.env, options.filters.agents or None)
        roots += [home.path for home in summary.homes if home.exists]
    summary.roots = [str(r) for r in roots]
    outdir.mkdir(parents=True, exist_ok=True)
    with _locked(outdir):
        sweep_temps(outdir)
        _Batch(options, outdir, summary).run(roots)
    summary.seconds = time.monotonic() - started
    return summary


@contextlib.contextmanager
def _locked(outdir: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): one batch per folder is the user's care
        yield
        return
    with open(outdir / LOCK, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise BatchUsageError(f"another asr batch is writing to {outdir}") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class _Batch:
    def __init__(self, options: BatchOptions, outdir: Path, summary: Summary) -> None:
        self.options = options
        self.outdir = outdir
        self.summary = summary
        self.manifest = Manifest.load(outdir)
        self.errors: list[dict[str, Any]] = []
        self.sizes: dict[str, int] = {}
        self.claims: dict[str, str] = {}
        self._saved = time.monotonic()

    # -- planning -----------------------------------------------------------------------

    def plan(self, roots: list[Path]) -> Iterator[Item]:
        """The sources to sniff and convert, in walk order, as the walk finds them (what is
        up to date is counted as skipped here; the content sniff is the workers')."""
        filters = self.options.filters
        summary = self.summary
        for candidate in walk(roots, skip=[self.outdir], follow_symlinks=self.options.follow_symlinks):
            if not filters.by_path(candidate):
                summary.filtered += 1
                continue
            key = candidate.real or os.path.realpath(candidate.path)
            entry = self.manifest.sources.get(key)
            known: str | None = None
            if entry is not None and self._reusable(entry):
                if not filters.by_agent(entry.agent):
                    summary.filtered += 1
                    continue
                stamps = companions(entry.agent, key)
                if [list(s) for s in stamps] == entry.companions:
                    if entry.size == candidate.size and entry.mtime_ns == candidate.mtime_ns:
                        summary.skipped += 1
                        summary.agent(entry.agent).skipped += 1
                        continue
                    known = entry.sha256
            reason = prefilter(candidate.path, candidate.size, explicit=candidate.explicit)
            if reason is not None:
                summary.unclaimed += 1
                summary.unclaimed_reasons[reason] += 1
                continue
            self.sizes[key] = candidate.size
            yield Item(key, str(candidate.path), candidate.explicit, known)

    def _reusable(self, entry: Entry) -> bool:
        if self.options.force or entry.producer != __version__:
            return False
        return all((self.outdir / output).is_file() for output in entry.outputs)

    # -- running ------------------------------------------------------------------------

    def run(self, roots: list[Path]) -> None:
        for source in [s for s in self.manifest.sources if not os.path.exists(s)]:
            self.manifest.drop(source)
            self.summary.gone += 1
        self.claims = self.manifest.claims()
        items: Iterable[Item] = self.plan(roots)
        progress = self.options.progress
        if progress is not None:  # the walk first, for the totals; without progress it overlaps the conversions
            items = list(items)
            progress.start(len(items), sum(self.sizes.values()))
        jobs = self.options.jobs or cpu_count()
        outdir, agents = str(self.outdir), tuple(self.options.filters.agents)
        stream = iter(items)
        first = list(itertools.islice(stream, 2))
        items = itertools.chain(first, stream)
        try:
            if jobs <= 1 or len(first) <= 1:
                for item in items:
                    self.apply(run_item(item, outdir, agents))
            else:
                _parallel(_chunks(items, jobs, outdir, agents), jobs, self.apply)
        finally:
            if progress is not None:
                progress.finish()
            self.manifest.save()
            self._write_errors()
            sweep_temps(self.outdir)

    def apply(self, result: Result) -> None:
        summary = self.summary
        if self.options.progress is not None:
            self.options.progress.advance(self.sizes.get(result.source, result.size))
        if result.status == "unclaimed":
            summary.unclaimed += 1
            summary.unclaimed_reasons[result.error or "unknown"] += 1
            return
        if result.status == "filtered":
            summary.filtered += 1
            return
        counts = summary.agent(result.agent)
        summary.bytes += result.size
        if result.status == "vanished":
            summary.gone += 1
        elif result.status == "unchanged":
            entry = self.manifest.sources[result.source]
            entry.size, entry.mtime_ns, entry.companions = result.size, result.mtime_ns, result.companions
            self.manifest.dirty = True
            summary.skipped += 1
            counts.skipped += 1
        elif result.status == "failed":
            summary.failed += 1
            counts.failed += 1
            self.errors.append(
                {
                    "path": result.source,
                    "line": result.error_line,
                    "reason": result.error,
                    "agent": result.agent,
                    "severity": "error",
                }
            )
        else:
            try:
                self._place(result)
            except OSError as exc:
                summary.failed += 1
                counts.failed += 1
                reason = f"cannot write the output: {exc.strerror or exc}"
                self.errors.append(
                    {"path": result.source, "line": None, "reason": reason, "agent": result.agent, "severity": "error"}
                )
            else:
                self._count(result, counts)
        if self.manifest.dirty and time.monotonic() - self._saved >= self.options.save_every:
            self.manifest.save()
            self._saved = time.monotonic()

    def _place(self, result: Result) -> None:
        source = result.source
        placed: list[str] = []
        for output in result.streams:
            relative = output.relative
            owner = self.claims.get(relative)
            if (owner is not None and owner != source) or relative in placed:
                tag = short_hash(f"{source}\0{output.key}", 8)
                relative = output_path(result.agent, output.session_id, output.parent_id, tag)
            os.replace(output.temp, self.outdir / relative)
            self.claims[relative] = source
            placed.append(relative)
        previous = self.manifest.sources.get(source)
        if previous is not None:
            for old in previous.outputs:
                if old not in placed and self.claims.get(old) == source:
                    del self.claims[old]
                    with contextlib.suppress(OSError):
                        (self.outdir / old).unlink()
        warnings = [{"line": d.get("line"), "reason": d.get("reason")} for d in result.diagnostics]
        if len(warnings) > MAX_WARNINGS:
            more = len(warnings) - MAX_WARNINGS
            warnings = [*warnings[:MAX_WARNINGS], {"line": None, "reason": f"and {more} more warnings"}]
        entry = Entry(
            result.agent, result.size, result.mtime_ns, result.sha256, __version__, placed, warnings, result.companions
        )
        self.manifest.set(source, entry)

    def _count(self, result: Result, counts: AgentCounts) -> None:
        summary = self.summary
        summary.converted += 1
        counts.converted += 1
        streams = len(result.streams)
        records = sum(o.records for o in result.streams)
        summary.streams += streams
        summary.records += records
        counts.streams += streams
        counts.records += records
        accounting = result.accounting
        summary.record_types.update(accounting.get("record_types", {}))
        summary.duplicates += int(accounting.get("duplicates", 0))
        summary.vendor += int(accounting.get("vendor", 0))
        summary.warnings += len(result.diagnostics)

    def _write_errors(self) -> None:
        """This run's failures, then the warnings of every source converted now or before."""
        rows = list(self.errors)
        for source in sorted(self.manifest.sources):
            entry = self.manifest.sources[source]
            for warning in entry.warnings:
                row = {"path": source, "line": warning.get("line"), "reason": warning.get("reason")}
                rows.append(row | {"agent": entry.agent, "severity": "warning"})
        data = b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in rows)
        atomic_write_bytes(self.outdir / ERRORS, data)


# -- the worker pool ---------------------------------------------------------------------


def cpu_count() -> int:
    """The CPUs this process may run on (a container's share, not the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _context() -> Any:
    """Fork where there is fork (workers inherit adapters registered at run time), else the default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _chunks(items: Iterable[Item], jobs: int, outdir: str, agents: tuple[str, ...]) -> Iterator[Chunk]:
    """The items in walk order, cut into chunks that grow with the number walked so far (one
    source each at first, so every worker starts at once and a small batch is spread over all
    of them; at most ``CHUNK``)."""
    pending: list[Item] = []
    for seen, item in enumerate(items, 1):
        pending.append(item)
        if len(pending) >= min(CHUNK, max(1, seen // (jobs * 4))):
            yield Chunk(outdir, agents, tuple(pending))
            pending = []
    if pending:
        yield Chunk(outdir, agents, tuple(pending))


def _parallel(chunks: Iterator[Chunk], jobs: int, apply: Callable[[Result], None]) -> None:
    """Run chunks on ``jobs`` processes, applying their results in order.

    Chunks are taken from ``chunks`` only when there is room in the window, so the walk that
    makes them goes on while the workers convert. When a worker dies (killed, out of memory,
    a crash in native code), the pool breaks; the chunks that were in flight and not finished
    are then run again one at a time, each in a fresh process, and a chunk that breaks its
    process again has its sources run one at a time, each in a fresh process, so only the
    source that kills its worker fails and the batch goes on.
    """
    context = _context()
    retry: deque[Chunk] = deque()  # taken from ``chunks`` but not submitted: the pool broke
    window: deque[tuple[Chunk, Future[list[Result]]]] = deque()
    limit = jobs * 2
    gc.freeze()  # forked workers: the collector leaves the inherited objects (their pages) alone
    executor = ProcessPoolExecutor(jobs, mp_context=context)
    try:
        while True:
            broken = False
            while len(window) < limit:
                chunk = retry.popleft() if retry else next(chunks, None)
                if chunk is None:
                    break
                try:
                    window.append((chunk, executor.submit(run_chunk, chunk)))
                except BrokenProcessPool:
                    retry.appendleft(chunk)
                    broken = True
                    break
            if not window and not broken:
                return
            if not broken:
                chunk, future = window.popleft()
                try:
                    results = future.result()
                except BrokenProcessPool:
                    window.appendleft((chunk, future))
                else:
                    for result in results:
                        apply(result)
                    continue
            in_flight = list(window)
            window.clear()
            executor.shutdown(wait=True, cancel_futures=True)
            for chunk, future in in_flight:
                for result in _finished(future) or _isolated_chunk(chunk, context):
                    apply(result)
            executor = ProcessPoolExecutor(jobs, mp_context=context)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()


def _finished(future: Future[list[Result]]) -> list[Result] | None:
    if future.done() and not future.cancelled() and future.exception() is None:
        return future.result()
    return None


def _isolated_chunk(chunk: Chunk, context: Any) -> list[Result]:
    """The chunk again in a fresh process; if that process dies too, each source alone."""
    with ProcessPoolExecutor(1, mp_context=context) as executor:
        try:
            return executor.submit(run_chunk, chunk).result()
        except BrokenProcessPool:
            pass
    return [_isolated(item, chunk, context) for item in chunk.items]


def _isolated(item: Item, chunk: Chunk, context: Any) -> Result:
    with ProcessPoolExecutor(1, mp_context=context) as executor:
        try:
            return executor.submit(run_item, item, chunk.outdir, chunk.agents).result()
        except BrokenProcessPool:
            pass
    try:  # whose it was, for the error row (the sniff only reads the file's first bytes)
        adapter, _reason = sniff_content(Path(item.path), explicit=item.explicit)
    except Exception:
        adapter = None
    return Result(item.source, adapter.name if adapter is not None else "", "failed", error=WORKER_DIED)


def print_json(summary: Summary, stream: IO[bytes]) -> None:
    stream.write(orjson.dumps(summary.as_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    stream.flush()
