# Whole, over 400 lines: _Batch is plan, execute and commit over one manifest; the three steps share its state.
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
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from ..outputs import make_folder, place, place_new, remove_file
from ..version import __version__
from .atomic import atomic_write_bytes, inside, sweep_temps
from .copies import Copy, find_copies
from .engine_dask import MISSING as DASK_MISSING
from .engine_dask import EngineError, dask_executor, dask_installed
from .homes import agent_homes
from .lock import BatchOutputError, BatchUsageError, locked, output_error
from .manifest import MAX_WARNINGS, Entry, Manifest
from .naming import output_path, short_hash
from .plan import Shard, pack
from .pool import cpu_count, run_on_executor, run_parallel
from .progress import Progress
from .remote import Listed, RemoteOut, StoreError, filesystem, is_url, join, listing, local_path
from .scan import LINK_LOOP, Candidate, Filters, prefilter, walk
from .stale import listed_counts, read_head, source_names, why_kept
from .summary import Summary, errors_name
from .worker import Item, Result, companions, run_item

ENGINES = ("local", "dask")
REMOTE_PLACEHOLDER = "/nonexistent-asr-remote-outdir"  # ``outdir`` of a batch writing to a store (unused)


@dataclass
class BatchOptions:
    sources: Sequence[str | os.PathLike[str]]  # folders, files, or object-store URLs (s3://bucket/sessions/)
    outdir: str | os.PathLike[str]  # a folder, or an object-store URL
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
    #: an ``asr_adapters.redact.Redactor``: every record redacted in the workers (under its policy
    #: and key); its report sums theirs. Every source is converted again (earlier outputs may not be)
    redactor: Any = None


def run_batch(options: BatchOptions) -> Summary:
    started = time.monotonic()
    out_text = local_path(options.outdir)
    out: RemoteOut | None = None
    try:
        if is_url(out_text):
            out = RemoteOut(out_text)
        remote_roots = [local_path(p).rstrip("/") for p in options.sources if is_url(local_path(p))]
        for url in remote_roots:
            fs, path = filesystem(url)
            if not fs.exists(path):
                raise BatchUsageError(f"{url}: no such object or folder")
    except StoreError as exc:
        raise BatchUsageError(str(exc)) from None
    outdir = Path(os.path.abspath(out_text)) if out is None else Path(REMOTE_PLACEHOLDER)
    if out is None and outdir.exists() and not outdir.is_dir():
        raise BatchUsageError(f"{outdir} is not a folder")
    roots = [Path(os.path.abspath(local_path(p))) for p in options.sources if not is_url(local_path(p))]
    for root in roots:
        if not root.exists():
            raise BatchUsageError(f"{root}: no such file or folder")
    if options.engine not in ENGINES:
        raise BatchUsageError(f"unknown engine {options.engine!r} (one of {', '.join(ENGINES)})")
    if options.scheduler and options.engine != "dask":
        raise BatchUsageError("--scheduler goes with --engine dask")
    if options.engine == "dask" and not dask_installed():
        raise BatchUsageError(DASK_MISSING)
    shard = options.shard.name if options.shard else ""
    summary = Summary(outdir=out.url if out else str(outdir), shard=shard)
    if options.discover:
        summary.homes = agent_homes(options.env, options.filters.agents or None)
        roots += [home.path for home in summary.homes if home.exists]
    summary.roots = [str(r) for r in roots] + remote_roots
    if out is not None:  # no lock on an object store: one batch per OUT is the user's care (docs/scale-out.md)
        out.sweep(f"{shard}-" if shard else "")
        out.list()
        _Batch(options, outdir, summary, (), out).run(roots, remote_roots)
        summary.seconds = time.monotonic() - started
        return summary
    try:
        make_folder(outdir)
    except OSError as exc:
        raise output_error(outdir, exc) from None
    with locked(outdir, shard) as locks:
        # the lock is ours: no live batch (nor its workers; nor, for a shard, that shard) owns these
        sweep_temps(outdir, f"{shard}-" if shard else "")
        _Batch(options, outdir, summary, locks).run(roots, remote_roots)
    summary.seconds = time.monotonic() - started
    return summary


def _sniffed(item: Item, sniffed: Mapping[str, tuple[str, int, int]]) -> Item:
    """The item, marked with what the driver's sniff found (if it sniffed it)."""
    found = sniffed.get(item.source)
    return item if found is None else replace(item, sniffed=found)


class _Batch:
    def __init__(
        self,
        options: BatchOptions,
        outdir: Path,
        summary: Summary,
        locks: tuple[int, ...] = (),
        out: RemoteOut | None = None,
    ) -> None:
        self.options = options
        self.locks = locks
        self.outdir = outdir
        self.out = out  # the output folder on an object store (then ``outdir`` is not used)
        self.target = out.url if out is not None else str(outdir)  # what workers write to
        self.listed: dict[str, list[Listed]] = {}  # remote root -> its objects
        self.listed_urls: set[str] = set()
        self.summary = summary
        self.shard = options.shard
        name = options.shard.name if options.shard else ""
        self.tag = f"{name}-" if name else ""  # on temporary names: a shard sweeps only its own
        self.errors_path = outdir / errors_name(name)
        self.manifest = Manifest.load(outdir, name, out)
        self.errors: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []  # what the walk left out and the user should hear of
        self.sizes: dict[str, int] = {}
        self.claims: dict[str, str] = {}
        self.listed_outputs: Counter[str] = Counter()  # output -> how many manifest entries list it
        self.order: dict[str, int] = {}  # source -> its place in the walk
        self.kept: dict[str, tuple[str, str, int]] = {}  # unchanged sources: (agent, sha256, size)
        self.waiting: dict[int, Result] = {}  # results received before every earlier one
        self.committed = 0
        self._saved = time.monotonic()

    # -- planning -----------------------------------------------------------------------

    def candidates(self, roots: list[Path]) -> Iterator[Candidate]:
        """The local walk's files, then the remote roots' objects (listed once, sorted)."""
        follow = self.options.follow_symlinks
        skip = [self.outdir] if self.out is None else []
        yield from walk(roots, skip=skip, follow_symlinks=follow, report=self._left_out)
        for listed in self.listed.values():
            for obj in listed:
                path = Path(*obj.relative.split("/"))  # for the name filters (the object is read by the worker)
                yield Candidate(path, Path(), obj.relative, obj.size, obj.mtime_ns, obj.explicit, obj.url, obj.etag)

    def plan(self, roots: list[Path]) -> Iterator[Item]:
        """The sources to sniff and convert, in walk order, as the walk finds them (what is
        up to date is counted as skipped here; the content sniff is the workers', but for a
        source the copy check sniffed, which its worker takes while its stamp is unchanged)."""
        filters = self.options.filters
        summary = self.summary
        follow = self.options.follow_symlinks
        real_roots: dict[Path, str] = {}
        for candidate in self.candidates(roots):
            if self.shard is not None and not self.shard.takes(candidate.relative):
                summary.other_shards += 1
                continue
            if not filters.by_path(candidate):
                summary.filtered += 1
                continue
            key = candidate.real or os.path.realpath(candidate.path)
            entry = self.manifest.sources.get(key)
            known: str | None = None
            if entry is not None and not entry.same_as and self._reusable(entry):
                if not filters.by_agent(entry.agent):
                    summary.filtered += 1
                    continue
                stamps = companions(entry.agent, key)
                if [list(s) for s in stamps] == entry.companions:
                    same_etag = bool(candidate.etag) and entry.etag == candidate.etag
                    if entry.size == candidate.size and (entry.mtime_ns == candidate.mtime_ns or same_etag):
                        self.kept[key] = (entry.agent, entry.sha256, entry.size)
                        summary.skipped += 1
                        summary.agent(entry.agent).skipped += 1
                        continue
                    known = entry.sha256
            reason = prefilter(candidate.path, candidate.size, explicit=candidate.explicit)
            if reason is not None:
                summary.count_unclaimed(key, reason)
                continue
            self.sizes[key] = candidate.size
            if is_url(key):  # the worker downloads it (at its path relative to the root)
                yield Item(key, key, candidate.explicit, known, key[: len(key) - len(candidate.relative)], False)
                continue
            root = real_roots.get(candidate.root)
            if root is None:  # one walk root for many files: resolved once
                root = real_roots[candidate.root] = os.path.realpath(candidate.root)
            yield Item(key, str(candidate.path), candidate.explicit, known, root, follow)

    def _left_out(self, path: Path | str, reason: str, folder: bool) -> None:
        """A file or folder the walk did not take: counted by reason, and (but for a link loop,
        which is no loss) a warning row in ``_errors.jsonl`` naming it."""
        key = reason.split(":", 1)[0]
        if folder:
            self.summary.skipped_folders[key] += 1
        else:
            self.summary.count_unclaimed(str(path), reason, key)
        if key != LINK_LOOP:
            self.notices.append(
                {"path": str(path), "line": None, "reason": reason, "agent": None, "severity": "warning"}
            )

    def _reusable(self, entry: Entry) -> bool:
        if self.options.force or self.options.redactor is not None or entry.producer != __version__:
            return False
        if self.out is not None:
            return all(self.out.exists(output) for output in entry.outputs)
        try:
            return all(inside(self.outdir, output).is_file() for output in entry.outputs)
        except OSError:
            return False

    # -- running ------------------------------------------------------------------------

    def run(self, roots: list[Path], remote_roots: Sequence[str] = ()) -> None:
        """Plan (walk, diff against the manifest, pack into tasks biggest first), execute (the
        tasks on the local process pool, or in this process), commit (in walk order, here)."""
        for url in remote_roots:
            skip = self.out.url if self.out is not None else None
            self.listed[url] = list(listing(url, skip, lambda found, why: self._left_out(found, why, False)))
        self.listed_urls = {obj.url for listed in self.listed.values() for obj in listed}
        # before vanished sources are dropped: an output one of them lists is never removed
        self.listed_outputs = listed_counts(entry.outputs for entry in self.manifest.sources.values())
        for source in [s for s in self.manifest.sources if not self.exists(s)]:
            self.manifest.drop(source)
            self.summary.gone += 1
        self.claims = self.manifest.claims(self.exists)
        items = list(self.plan(roots))
        sniffed: dict[str, tuple[str, int, int]] = {}
        copies = find_copies(items, self.sizes, self.kept, self.options.filters.agents, sniffed)
        items = [_sniffed(item, sniffed) for item in items if item.source not in copies]
        sizes = [self.sizes[item.source] for item in items]
        self.order = {item.source: index for index, item in enumerate(items)}
        progress = self.options.progress
        if progress is not None:
            progress.start(len(items), sum(sizes))
        jobs = self.options.jobs or cpu_count()
        outdir, agents = self.target, tuple(self.options.filters.agents)
        redact = self.options.redactor.policy if self.options.redactor is not None else None
        interrupted = True
        try:
            if self.options.executor is not None:
                tasks = pack(items, sizes, jobs, outdir, agents, self.tag, redact)
                run_on_executor(self.options.executor, tasks, self.receive, window=jobs * 2)
            elif self.options.engine == "dask" and items:
                try:
                    with dask_executor(jobs, self.options.scheduler) as (executor, workers):
                        tasks = pack(items, sizes, workers, outdir, agents, self.tag, redact)
                        run_on_executor(executor, tasks, self.receive, window=workers)
                except EngineError as exc:
                    raise BatchUsageError(str(exc)) from None
            elif jobs <= 1 or len(items) <= 1:
                for item in items:
                    self.receive(run_item(item, outdir, agents, self.tag, redact))
            else:
                tasks = pack(items, sizes, jobs, outdir, agents, self.tag, redact)
                run_parallel(tasks, jobs, self.receive, self.locks)
            for copy in copies.values():  # after their originals are committed
                self.record_copy(copy)
            interrupted = False
        finally:
            if progress is not None:
                progress.finish()
            problem = self._record()
            if self.out is not None:
                self.out.sweep(self.tag)
            else:
                sweep_temps(self.outdir, self.tag)
            if problem is not None and not interrupted:
                raise problem

    def exists(self, source: str) -> bool:
        """Whether a source the manifest knows still exists (a remote one: by this run's listing
        of its root; one under no root listed now is kept)."""
        if not is_url(source):
            return os.path.exists(source)
        if any(source == root or source.startswith(root + "/") for root in self.listed):
            return source in self.listed_urls
        return True

    def receive(self, result: Result) -> None:
        """A result from any executor, in any order: committed once every source before it in
        walk order is (so outputs, manifest and errors never depend on the executor)."""
        if self.options.progress is not None:
            self.options.progress.advance(self.sizes.get(result.source, result.size))
        if result.redaction is not None and self.options.redactor is not None:
            self.options.redactor.merge(result.redaction)
        self.waiting[self.order[result.source]] = result
        while self.committed in self.waiting:
            self.apply(self.waiting.pop(self.committed))
            self.committed += 1

    def _record(self) -> BatchOutputError | None:
        """Save the manifest, then ``_errors.jsonl``; each is replaced whole or left as it was,
        so on a full disk the previous manifest stays (a re-run converts what it does not list)."""
        problem: BatchOutputError | None = None
        where: list[Path | str] = [self.manifest.path, self.errors_path]
        if self.out is not None:
            where = [join(self.out.url, self.manifest.path.name), join(self.out.url, self.errors_path.name)]
        for path, write in zip(where, (self.manifest.save, self._write_errors), strict=True):
            try:
                write()
            except OSError as exc:
                problem = problem or output_error(path, exc)
        if problem is not None:
            problem.args = (f"{problem}; the outputs written are whole, a re-run converts what is not recorded",)
        return problem

    def apply(self, result: Result) -> None:
        """Commit one result: rename its outputs into place, record it in the manifest."""
        summary = self.summary
        if result.status == "unclaimed":
            summary.count_unclaimed(result.source, result.error or "unknown")
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
            entry.etag = result.etag
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
                summary.count_converted(result, counts)
        if self.manifest.dirty and time.monotonic() - self._saved >= self.options.save_every:
            with contextlib.suppress(OSError):  # a full disk: tried again later, and at the end
                self.manifest.save()
            self._saved = time.monotonic()

    def record_copy(self, copy: Copy) -> None:
        """An identical copy (``batch.copies``): its entry names the source converted for it,
        once that source's entry holds the same bytes; else it fails, and a re-run converts it."""
        original = self.manifest.sources.get(copy.original)
        stamps = [list(s) for s in copy.companions]
        result = Result(copy.source, copy.agent, "copy", copy.size, copy.mtime_ns, copy.sha256, companions=stamps)
        if original is None or original.sha256 != copy.sha256 or original.same_as:
            self.summary.failed += 1
            self.summary.agent(copy.agent).failed += 1
            reason = f"not converted: the same bytes as {copy.original}, which was not converted (a re-run converts it)"
            self.errors.append(
                {"path": copy.source, "line": None, "reason": reason, "agent": copy.agent, "severity": "error"}
            )
            return
        previous = self.manifest.sources.get(copy.source)
        if previous is not None:
            self._remove_stale(result, previous, [])
        entry = Entry(copy.agent, copy.size, copy.mtime_ns, copy.sha256, __version__, [], [], stamps)
        entry.same_as = copy.original
        self.manifest.set(copy.source, entry)
        self.summary.copies += 1
        self.summary.bytes += copy.size

    def _place(self, result: Result) -> None:
        source = result.source
        placed: list[str] = []
        for output in result.streams:
            relative = output.relative
            owner = self.claims.get(relative)
            if (owner is not None and owner != source) or relative in placed:
                tag = short_hash(f"{source}\0{output.key}", 8)
                relative = output_path(result.agent, output.session_id, output.parent_id, tag)
            if self.out is not None:  # a staged upload, committed by a server-side copy
                if self.shard is not None and owner is None and relative not in placed and self.out.exists(relative):
                    tag = short_hash(f"{source}\0{output.key}", 8)  # another shard's, most likely (not atomic)
                    relative = output_path(result.agent, output.session_id, output.parent_id, tag)
                self.out.place(output.temp, relative)
            elif self.shard is not None and owner is None and relative not in placed:
                target = inside(self.outdir, relative)
                relative = self._place_new(output.temp, target, relative, source, result.agent, output)
            else:
                place(output.temp, inside(self.outdir, relative))
            self.claims[relative] = source
            placed.append(relative)
        previous = self.manifest.sources.get(source)
        if previous is not None:
            self._remove_stale(result, previous, placed)
        warnings = [{"line": d.get("line"), "reason": d.get("reason")} for d in result.diagnostics]
        if len(warnings) > MAX_WARNINGS:
            more = len(warnings) - MAX_WARNINGS
            warnings = [*warnings[:MAX_WARNINGS], {"line": None, "reason": f"and {more} more warnings"}]
        entry = Entry(
            result.agent, result.size, result.mtime_ns, result.sha256, __version__, placed, warnings, result.companions
        )
        entry.etag = result.etag
        self.manifest.set(source, entry)

    def _remove_stale(self, result: Result, previous: Entry, placed: list[str]) -> None:
        """Remove the earlier outputs this source no longer produces, each only when the
        manifest and the file itself agree it is this source's (``batch.stale``)."""
        names = source_names(result.source, [*previous.companions, *result.companions])
        for old in previous.outputs:
            if old in placed or self.claims.get(old) != result.source:
                continue
            del self.claims[old]
            with contextlib.suppress(OSError):
                head = self.out.head(old) if self.out is not None else read_head(inside(self.outdir, old))
                reason = why_kept(old, head, names, self.listed_outputs[old])
                if reason is not None:
                    self.notices.append(
                        {
                            "path": result.source,
                            "line": None,
                            "reason": reason,
                            "agent": result.agent,
                            "severity": "warning",
                        }
                    )
                elif self.out is not None:
                    self.out.remove(old)
                else:
                    remove_file(inside(self.outdir, old))

    def _place_new(self, temp: str, target: Path, relative: str, source: str, agent: str, output: Any) -> str:
        """A shard placing a name no manifest it knows gives to anyone: created exclusively
        (``link`` fails when the name exists), since another shard may be placing the same
        session's name right now; if it exists, the tagged name, as for a second claimant."""
        if place_new(temp, target):
            return relative
        tag = short_hash(f"{source}\0{output.key}", 8)
        relative = output_path(agent, output.session_id, output.parent_id, tag)
        place(temp, inside(self.outdir, relative))
        return relative

    def _write_errors(self) -> None:
        """This run's failures, then the warnings of every source converted now or before."""
        rows = self.errors + self.notices
        for source in sorted(self.manifest.mine if self.shard is not None else self.manifest.sources):
            entry = self.manifest.sources[source]
            for warning in entry.warnings:
                row = {"path": source, "line": warning.get("line"), "reason": warning.get("reason")}
                rows.append(row | {"agent": entry.agent, "severity": "warning"})
        self.summary.warnings_in_errors_file = sum(1 for row in rows if row.get("severity") == "warning")
        data = b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in rows)
        if self.out is not None:
            self.out.write(self.errors_path.name, data)
        else:
            atomic_write_bytes(self.errors_path, data, self.tag)
