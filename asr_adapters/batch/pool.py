"""The local process pool: chunks of sources converted by worker processes that die with
the batch.

A worker must never outlive the batch that started it: an orphan would keep converting into
OUTDIR after a ``kill -9`` of the main process, and (forked with the main process's open
files) would hold ``_batch.lock`` so that every later run is refused. So each worker, first
thing, closes its copy of the lock's file descriptor (the lock then belongs to the main
process alone and dies with it) and asks to be killed when its parent dies: Linux's
``PR_SET_PDEATHSIG`` through ``prctl``, elsewhere a thread that watches ``getppid()``.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from .scan import sniff_content
from .worker import Chunk, Item, Result, run_chunk, run_item

WORKER_DIED = "the worker process died while converting this source (killed or crashed)"
CHUNK = 32  # sources per worker task, at most (see ``chunks``)
PR_SET_PDEATHSIG = 1


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


def init_worker(parent: int, inherited: tuple[int, ...]) -> None:
    """First thing in every worker: drop the main process's lock, die with the main process."""
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing a copy never unlocks: the main process's descriptor keeps it
    if not _parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def chunks(items: Iterable[Item], jobs: int, outdir: str, agents: tuple[str, ...]) -> Iterator[Chunk]:
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


class _Pools:
    """Makes executors whose workers run ``init_worker``."""

    def __init__(self, inherited: tuple[int, ...]) -> None:
        self.context = _context()
        self.initargs = (os.getpid(), inherited)

    def __call__(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(workers, mp_context=self.context, initializer=init_worker, initargs=self.initargs)


def run_parallel(
    work: Iterator[Chunk], jobs: int, apply: Callable[[Result], None], inherited: tuple[int, ...] = ()
) -> None:
    """Run chunks on ``jobs`` processes, applying their results in order.

    Chunks are taken from ``work`` only when there is room in the window, so the walk that
    makes them goes on while the workers convert. When a worker dies (killed, out of memory,
    a crash in native code), the pool breaks; the chunks that were in flight and not finished
    are then run again one at a time, each in a fresh process, and a chunk that breaks its
    process again has its sources run one at a time, each in a fresh process, so only the
    source that kills its worker fails and the batch goes on. ``inherited``: descriptors the
    workers must close (the batch lock).
    """
    pools = _Pools(inherited)
    retry: deque[Chunk] = deque()  # taken from ``work`` but not submitted: the pool broke
    window: deque[tuple[Chunk, Future[list[Result]]]] = deque()
    limit = jobs * 2
    gc.freeze()  # forked workers: the collector leaves the inherited objects (their pages) alone
    executor = pools(jobs)
    try:
        while True:
            broken = False
            while len(window) < limit:
                chunk = retry.popleft() if retry else next(work, None)
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
                for result in _finished(future) or _isolated_chunk(chunk, pools):
                    apply(result)
            executor = pools(jobs)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()


def _finished(future: Future[list[Result]]) -> list[Result] | None:
    if future.done() and not future.cancelled() and future.exception() is None:
        return future.result()
    return None


def _isolated_chunk(chunk: Chunk, pools: _Pools) -> list[Result]:
    """The chunk again in a fresh process; if that process dies too, each source alone."""
    with pools(1) as executor:
        try:
            return executor.submit(run_chunk, chunk).result()
        except BrokenProcessPool:
            pass
    return [_isolated(item, chunk, pools) for item in chunk.items]


def _isolated(item: Item, chunk: Chunk, pools: _Pools) -> Result:
    with pools(1) as executor:
        try:
            return executor.submit(run_item, item, chunk.outdir, chunk.agents).result()
        except BrokenProcessPool:
            pass
    try:  # whose it was, for the error row (the sniff only reads the file's first bytes)
        adapter, _reason = sniff_content(Path(item.path), explicit=item.explicit)
    except Exception:
        adapter = None
    return Result(item.source, adapter.name if adapter is not None else "", "failed", error=WORKER_DIED)
