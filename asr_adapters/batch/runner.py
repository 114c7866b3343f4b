"""``run_batch``: plan, execute, commit.

*Plan* (this process): walk, filter by path and name, skip what the manifest says is up to
date, pack the rest into tasks biggest first (``plan.pack``). *Execute*: an executor (the
local process pool, ``pool.run_parallel``; or this process for ``--jobs 1``) runs one
picklable task function (``worker.run_chunk``) that sniffs, converts and writes each
source's outputs to temporary files and returns result records; it never raises for bad
data. *Commit* (this process, the only manifest writer): results arrive in any order and
are committed (renamed into place, recorded in the manifest, their errors written) in the
walk's sorted order, so the outputs do not depend on the executor, ``jobs`` or the packing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ..version import __version__
from .atomic import atomic_write_bytes, inside, sweep_temps
from .engine_dask import MISSING as DASK_MISSING
from .engine_dask import EngineError, dask_executor, dask_installed
from .homes import agent_homes
from .manifest import MAX_WARNINGS, Entry, Manifest
from .naming import output_path, short_hash
from .plan import Shard, pack
from .pool import cpu_count, run_on_executor, run_parallel
from .progress import Progress
from .scan import LINK_LOOP, Filters, prefilter, walk
from .summary import AgentCounts, Summary, errors_name
from .worker import Item, Result, companions, run_item

LOCK = "_batch.lock"
ENGINES = ("local", "dask")


class BatchUsageError(Exception):
    """A batch that cannot start: bad arguments, or another batch writing the same folder."""


class BatchOutputError(Exception):
    """OUTDIR cannot be written (read-only, full disk): the batch cannot record its work."""


def shard_lock_name(shard: str) -> str:
    return f"_batch.{shard}.lock"


def _output_error(path: Path, exc: OSError) -> BatchOutputError:
    return BatchOutputError(f"cannot write {path}: {exc.strerror or exc}")


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
    executor: Executor | None = None  # any concurrent.futures-style executor instead of the local pool
    shard: Shard | None = None  # --shard K/N: this run's slice of the sources
    engine: str = "local"  # local (the process pool, or this process) | dask
    scheduler: str | None = None  # --engine dask: the scheduler's address (else a LocalCluster of `jobs`)


def run_batch(options: BatchOptions) -> Summary:
    started = time.monotonic()
    outdir = Path(os.path.abspath(options.outdir))
    if outdir.exists() and not outdir.is_dir():
        raise BatchUsageError(f"{outdir} is not a folder")
    roots = [Path(os.path.abspath(p)) for p in options.sources]
    for root in roots:
        if not root.exists():
            raise BatchUsageError(f"{root}: no such file or folder")
    if options.engine not in ENGINES:
        raise BatchUsageError(f"unknown engine {options.engine!r} (one of {', '.join(ENGINES)})")
    if options.scheduler and options.engine != "dask":
        raise BatchUsageError("--scheduler goes with --engine dask")
    if options.engine == "dask" and not dask_installed():
        raise BatchUsageError(DASK_MISSING)
    summary = Summary(outdir=str(outdir), shard=options.shard.name if options.shard else "")
    if options.discover:
        summary.homes = agent_homes(options.env, options.filters.agents or None)
        roots += [home.path for home in summary.homes if home.exists]
    summary.roots = [str(r) for r in roots]
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _output_error(outdir, exc) from None
    shard = options.shard.name if options.shard else ""
    with locked(outdir, shard) as locks:
        # the lock is ours: no live batch (nor its workers; nor, for a shard, that shard) owns these
        sweep_temps(outdir, f"{shard}-" if shard else "")
        _Batch(options, outdir, summary, locks).run(roots)
    summary.seconds = time.monotonic() - started
    return summary


@contextlib.contextmanager
def locked(outdir: Path, shard: str = "") -> Iterator[tuple[int, ...]]:
    """Hold ``OUTDIR/_batch.lock`` (``flock``: the kernel drops it when its holder dies, however
    it dies): exclusively for a whole run or a merge; shared for a shard, which also holds its
    own ``_batch.shard-K-of-N.lock`` exclusively (the shards of one corpus run at once, but
    never beside a whole run or twice). The descriptors, which workers close so that they
    never hold a lock."""
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): one batch per folder is the user's care
        yield ()
        return
    with contextlib.ExitStack() as stack:
        held: list[int] = []
        wanted = [(LOCK, fcntl.LOCK_SH if shard else fcntl.LOCK_EX)]
        if shard:
            wanted.append((shard_lock_name(shard), fcntl.LOCK_EX))
        for name, mode in wanted:
            handle = stack.enter_context(_open_lock(outdir / name))
            try:
                fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
            except OSError:
                what = f"shard {shard}" if shard and name != LOCK else "asr batch"
                raise BatchUsageError(f"another {what} is writing to {outdir}") from None
            held.append(handle.fileno())
        yield tuple(held)


def _open_lock(path: Path) -> IO[bytes]:
    nofollow = getattr(os, "O_NOFOLLOW", 0)  # a link planted as the lock file is not followed
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | nofollow, 0o644)
    except OSError as exc:
        raise _output_error(path, exc) from None
    return os.fdopen(fd, "r+b")


class _Batch:
    def __init__(self, options: BatchOptions, outdir: Path, summary: Summary, locks: tuple[int, ...] = ()) -> None:
        self.options = options
        self.locks = locks
        self.outdir = outdir
        self.summary = summary
        self.shard = options.shard
        name = options.shard.name if options.shard else ""
        self.tag = f"{name}-" if name else ""  # on temporary names: a shard sweeps only its own
        self.errors_path = outdir / errors_name(name)
        self.manifest = Manifest.load(outdir, name)
        self.errors: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []  # what the walk left out and the user should hear of
        self.sizes: dict[str, int] = {}
        self.claims: dict[str, str] = {}
        self.order: dict[str, int] = {}  # source -> its place in the walk
        self.waiting: dict[int, Result] = {}  # results received before every earlier one
        self.committed = 0
        self._saved = time.monotonic()

    # -- planning -----------------------------------------------------------------------

    def plan(self, roots: list[Path]) -> Iterator[Item]:
        """The sources to sniff and convert, in walk order, as the walk finds them (what is
        up to date is counted as skipped here; the content sniff is the workers')."""
        filters = self.options.filters
        summary = self.summary
        follow = self.options.follow_symlinks
        for candidate in walk(roots, skip=[self.outdir], follow_symlinks=follow, report=self._left_out):
            if self.shard is not None and not self.shard.takes(candidate.relative):
                summary.other_shards += 1
                continue
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
            root = os.path.realpath(candidate.root)
            yield Item(key, str(candidate.path), candidate.explicit, known, root, follow)

    def _left_out(self, path: Path, reason: str, folder: bool) -> None:
        """A file or folder the walk did not take: counted by reason, and (but for a link loop,
        which is no loss) a warning row in ``_errors.jsonl`` naming it."""
        key = reason.split(":", 1)[0]
        if folder:
            self.summary.skipped_folders[key] += 1
        else:
            self.summary.unclaimed += 1
            self.summary.unclaimed_reasons[key] += 1
        if key != LINK_LOOP:
            self.notices.append(
                {"path": str(path), "line": None, "reason": reason, "agent": None, "severity": "warning"}
            )

    def _reusable(self, entry: Entry) -> bool:
        if self.options.force or entry.producer != __version__:
            return False
        try:
            return all(inside(self.outdir, output).is_file() for output in entry.outputs)
        except OSError:
            return False

    # -- running ------------------------------------------------------------------------

    def run(self, roots: list[Path]) -> None:
        """Plan (walk, diff against the manifest, pack into tasks biggest first), execute (the
        tasks on the local process pool, or in this process), commit (in walk order, here)."""
        for source in [s for s in self.manifest.sources if not os.path.exists(s)]:
            self.manifest.drop(source)
            self.summary.gone += 1
        self.claims = self.manifest.claims()
        items = list(self.plan(roots))
        sizes = [self.sizes[item.source] for item in items]
        self.order = {item.source: index for index, item in enumerate(items)}
        progress = self.options.progress
        if progress is not None:
            progress.start(len(items), sum(sizes))
        jobs = self.options.jobs or cpu_count()
        outdir, agents = str(self.outdir), tuple(self.options.filters.agents)
        interrupted = True
        try:
            if self.options.executor is not None:
                tasks = pack(items, sizes, jobs, outdir, agents, self.tag)
                run_on_executor(self.options.executor, tasks, self.receive, window=jobs * 2)
            elif self.options.engine == "dask" and items:
                try:
                    with dask_executor(jobs, self.options.scheduler) as (executor, workers):
                        tasks = pack(items, sizes, workers, outdir, agents, self.tag)
                        run_on_executor(executor, tasks, self.receive, window=workers * 2)
                except EngineError as exc:
                    raise BatchUsageError(str(exc)) from None
            elif jobs <= 1 or len(items) <= 1:
                for item in items:
                    self.receive(run_item(item, outdir, agents, self.tag))
            else:
                tasks = pack(items, sizes, jobs, outdir, agents, self.tag)
                run_parallel(tasks, jobs, self.receive, self.locks)
            interrupted = False
        finally:
            if progress is not None:
                progress.finish()
            problem = self._record()
            sweep_temps(self.outdir, self.tag)
            if problem is not None and not interrupted:
                raise problem

    def receive(self, result: Result) -> None:
        """A result from any executor, in any order: committed once every source before it in
        walk order is (so outputs, manifest and errors never depend on the executor)."""
        if self.options.progress is not None:
            self.options.progress.advance(self.sizes.get(result.source, result.size))
        self.waiting[self.order[result.source]] = result
        while self.committed in self.waiting:
            self.apply(self.waiting.pop(self.committed))
            self.committed += 1

    def _record(self) -> BatchOutputError | None:
        """Save the manifest, then ``_errors.jsonl``; each is replaced whole or left as it was,
        so on a full disk the previous manifest stays (a re-run converts what it does not list)."""
        problem: BatchOutputError | None = None
        for path, write in ((self.manifest.path, self.manifest.save), (self.errors_path, self._write_errors)):
            try:
                write()
            except OSError as exc:
                problem = problem or _output_error(path, exc)
        if problem is not None:
            problem.args = (f"{problem}; the outputs written are whole, a re-run converts what is not recorded",)
        return problem

    def apply(self, result: Result) -> None:
        """Commit one result: rename its outputs into place, record it in the manifest."""
        summary = self.summary
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
            self.manifest.set(result.source, entry)
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
            with contextlib.suppress(OSError):  # a full disk: tried again later, and at the end
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
            target = inside(self.outdir, relative)
            if self.shard is not None and owner is None and relative not in placed:
                relative = self._place_new(output.temp, target, relative, source, result.agent, output)
            else:
                os.replace(output.temp, target)
            self.claims[relative] = source
            placed.append(relative)
        previous = self.manifest.sources.get(source)
        if previous is not None:
            for old in previous.outputs:
                if old not in placed and self.claims.get(old) == source:
                    del self.claims[old]
                    with contextlib.suppress(OSError):
                        inside(self.outdir, old).unlink()
        warnings = [{"line": d.get("line"), "reason": d.get("reason")} for d in result.diagnostics]
        if len(warnings) > MAX_WARNINGS:
            more = len(warnings) - MAX_WARNINGS
            warnings = [*warnings[:MAX_WARNINGS], {"line": None, "reason": f"and {more} more warnings"}]
        entry = Entry(
            result.agent, result.size, result.mtime_ns, result.sha256, __version__, placed, warnings, result.companions
        )
        self.manifest.set(source, entry)

    def _place_new(self, temp: str, target: Path, relative: str, source: str, agent: str, output: Any) -> str:
        """A shard placing a name no manifest it knows gives to anyone: created exclusively
        (``link`` fails when the name exists), since another shard may be placing the same
        session's name right now; if it exists, the tagged name, as for a second claimant."""
        try:
            os.link(temp, target)
        except FileExistsError:
            tag = short_hash(f"{source}\0{output.key}", 8)
            relative = output_path(agent, output.session_id, output.parent_id, tag)
            os.replace(temp, inside(self.outdir, relative))
            return relative
        os.unlink(temp)
        return relative

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
        rows = self.errors + self.notices
        for source in sorted(self.manifest.mine if self.shard is not None else self.manifest.sources):
            entry = self.manifest.sources[source]
            for warning in entry.warnings:
                row = {"path": source, "line": warning.get("line"), "reason": warning.get("reason")}
                rows.append(row | {"agent": entry.agent, "severity": "warning"})
        data = b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in rows)
        atomic_write_bytes(self.errors_path, data, self.tag)
