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
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from .scan import sniff_content
from .worker import Chunk, Item, Result, run_chunk, run_item

WORKER_DIED = "the worker process died while converting this source (killed or crashed)"
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


class _Pools:
    """Makes executors whose workers run ``init_worker``."""

    def __init__(self, inherited: tuple[int, ...]) -> None:
        self.context = _context()
        self.initargs = (os.getpid(), inherited)

    def __call__(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(workers, mp_context=self.context, initializer=init_worker, initargs=self.initargs)


def run_parallel(
    tasks: Sequence[Chunk], jobs: int, receive: Callable[[Result], None], inherited: tuple[int, ...] = ()
) -> None:
    """Run the tasks on a pool of ``jobs`` processes, passing every result to ``receive`` as its
    task finishes (completion order: the caller commits in walk order).

    At most ``2 * jobs`` tasks are in flight. When a worker dies (killed, out of memory, a
    crash in native code), the pool breaks; the tasks that were in flight and not finished are
    then run again one at a time, each in a fresh process, and a task that breaks its process
    again has its sources run one at a time, each in a fresh process, so only the source that
    kills its worker fails and the batch goes on. ``inherited``: descriptors the workers must
    close (the batch lock).
    """
    pools = _Pools(inherited)
    todo = deque(tasks)
    in_flight: dict[Future[list[Result]], Chunk] = {}
    limit = jobs * 2
    gc.freeze()  # forked workers: the collector leaves the inherited objects (their pages) alone
    executor = pools(jobs)
    try:
        while todo or in_flight:
            broken = False
            while todo and len(in_flight) < limit:
                try:
                    future = executor.submit(run_chunk, todo[0])
                except BrokenProcessPool:
                    broken = True
                    break
                in_flight[future] = todo.popleft()
            if not broken:
                done, _running = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        results = future.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    del in_flight[future]
                    for result in results:
                        receive(result)
                if not broken:
                    continue
            executor.shutdown(wait=True, cancel_futures=True)
            for future, task in list(in_flight.items()):
                for result in _finished(future) or _isolated_chunk(task, pools):
                    receive(result)
            in_flight.clear()
            executor = pools(jobs)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()


def run_on_executor(
    executor: Executor, tasks: Sequence[Chunk], receive: Callable[[Result], None], window: int = 8
) -> None:
    """Run the tasks on any ``concurrent.futures``-style executor (a thread pool, Dask's
    ``Client.get_executor()``, …), at most ``window`` in flight, each future dropped once its
    result is read, passing every result to ``receive`` as its task finishes.

    A task whose future fails (the executor lost the worker running it, or one it was queued
    on) makes its sources suspects: no new task starts until those in flight are done, then
    each suspect runs alone, one source a task, with nothing else in flight, so that a second
    loss can only be its own. A source lost alone is a failed source, and the batch goes on."""
    todo: deque[Chunk] = deque(tasks)
    suspects: deque[Chunk] = deque()
    in_flight: dict[Future[list[Result]], tuple[Chunk, bool]] = {}  # -> (task, run alone)
    while todo or suspects or in_flight:
        if suspects:
            if not in_flight:
                task = suspects.popleft()
                in_flight[executor.submit(run_chunk, task)] = (task, True)
        else:
            while todo and len(in_flight) < window:
                task = todo.popleft()
                in_flight[executor.submit(run_chunk, task)] = (task, False)
        done, _running = wait(in_flight, return_when=FIRST_COMPLETED)
        for future in done:
            task, alone = in_flight.pop(future)
            try:
                results = future.result()
            except Exception:
                if alone:
                    receive(_died(task.items[0]))
                else:
                    suspects.extend(
                        Chunk(task.outdir, task.agents, (item,), task.tag, task.redact) for item in task.items
                    )
                continue
            for result in results:
                receive(result)


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
            return executor.submit(run_item, item, chunk.outdir, chunk.agents, chunk.tag, chunk.redact).result()
        except BrokenProcessPool:
            pass
    return _died(item)


def _died(item: Item) -> Result:
    try:  # whose it was, for the error row (the sniff only reads the file's first bytes)
        adapter, _reason = sniff_content(Path(item.path), explicit=item.explicit)
    except Exception:
        adapter = None
    return Result(item.source, adapter.name if adapter is not None else "", "failed", error=WORKER_DIED)
