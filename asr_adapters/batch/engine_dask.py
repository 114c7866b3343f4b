"""``asr batch --engine dask``: the batch's tasks on a Dask cluster, through the client's
``concurrent.futures`` executor.

Dask is only the executor here: the driver plans, keeps a bounded number of tasks in flight,
reads each result as its task finishes (``pool.run_on_executor``: a lost task is run again
source by source, a source lost twice fails alone) and commits in walk order, as for the
local pool. Without a scheduler address a ``LocalCluster`` of ``jobs`` worker processes, one
thread each, is started for the run and closed after it.

The driver keeps one task in flight per worker thread (``window`` = the cluster's threads):
Dask assigns a task to a worker when it is submitted (a handful of tasks is never
"root-ish", so Dask's own queuing does not apply), and with more in flight two large sources
could wait on one worker while another sat idle (measured: the same corpus took 48 s or
107 s by luck). That local cluster's scheduler has ``allowed-failures: 0``: a lost task is
handed to the driver at once, and the driver's own retry (each suspect source alone, with
nothing else in flight: ``pool.run_on_executor``) is what isolates a source that kills its
worker. A remote scheduler keeps its own settings (docs/scale-out.md).

``dask`` and ``distributed`` are an optional extra (``pip install 'asr-adapters[dask]'``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Iterator
from concurrent.futures import Executor
from typing import Any

MISSING = "--engine dask needs Dask: pip install 'asr-adapters[dask]'"
LOCAL_SCHEDULER = {"distributed.scheduler.allowed-failures": 0}


class EngineError(Exception):
    """The engine cannot start: its extra is not installed, or its scheduler cannot be reached."""


def dask_installed() -> bool:
    """Whether the ``dask`` extra is installed (checked before the batch walks anything)."""
    return all(importlib.util.find_spec(name) is not None for name in ("dask", "distributed"))


@contextlib.contextmanager
def dask_executor(jobs: int, scheduler: str | None = None) -> Iterator[tuple[Executor, int]]:
    """(an executor on a Dask cluster, its worker threads): the scheduler at ``scheduler``, or a
    ``LocalCluster`` of ``jobs`` processes with one thread each, closed when the block ends."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise EngineError(MISSING) from None
    with contextlib.ExitStack() as stack:
        client: Any
        if scheduler:
            try:
                client = stack.enter_context(Client(scheduler, set_as_default=False, timeout="30s"))
            except (OSError, TimeoutError) as exc:
                raise EngineError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        else:
            with dask.config.set(LOCAL_SCHEDULER):
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=jobs,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",  # a free port: never clash with another cluster
                        silence_logs=logging.CRITICAL,
                    )
                )
            client = stack.enter_context(Client(cluster, set_as_default=False))
        threads = sum(client.nthreads().values()) or jobs
        # pure=False: a task run again after a loss must not share the lost one's key
        yield client.get_executor(pure=False), threads
