"""Planning a batch: the sources to convert, packed into tasks by size, biggest first.

The driver lists the sources and diffs them against the manifest (``runner._Batch.plan``);
this module cuts the list into tasks (``worker.Chunk``): a big source alone, small ones
packed together (one task per small source costs more in pickling and executor traffic than
its conversion), and the tasks ordered biggest first so that the longest ones start at once
and no worker is left alone with a big source at the end. Every task is picklable and
converted by one function (``worker.run_chunk``) on any ``concurrent.futures``-style
executor; the order tasks run or finish in never changes the outputs, because the driver
commits results in walk order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .worker import Chunk, Item

TASK_FILES = 32  # sources per task, at most
TASKS_PER_WORKER = 4  # at least this many tasks per worker when there are enough sources


def pack(
    items: Sequence[Item],
    sizes: Sequence[int],
    jobs: int,
    outdir: str,
    agents: tuple[str, ...],
    tag: str = "",
    redact: Any = None,
) -> list[Chunk]:
    """``items`` (walk order, ``sizes`` in bytes) as tasks, biggest first.

    A task holds at most ``TASK_FILES`` sources and, unless it is a single source, at most
    ``total / (jobs * TASKS_PER_WORKER)`` bytes; small batches get one source a task, so every
    worker has work. Deterministic: sources of equal size keep their walk order."""
    if not items:
        return []
    slots = max(1, jobs * TASKS_PER_WORKER)
    files = max(1, min(TASK_FILES, -(-len(items) // slots)))
    budget = max(1, sum(sizes) // slots)
    order = sorted(range(len(items)), key=lambda i: (-sizes[i], i))
    tasks: list[tuple[int, list[int]]] = []
    current: list[int] = []
    weight = 0
    for index in order:
        if current and (len(current) >= files or weight + sizes[index] > budget):
            tasks.append((weight, current))
            current, weight = [], 0
        current.append(index)
        weight += sizes[index]
    tasks.append((weight, current))
    tasks.sort(key=lambda task: (-task[0], task[1][0]))
    return [Chunk(outdir, agents, tuple(items[i] for i in members), tag, redact) for _weight, members in tasks]


@dataclass(frozen=True)
class Shard:
    """``--shard K/N``: the K-th of N stable slices of the sources (1-based), by a hash of the
    source's path relative to the folder walked, so N machines split a corpus with no engine."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        head, sep, tail = text.partition("/")
        try:
            index, count = int(head), int(tail)
        except ValueError:
            raise ValueError(f"{text!r} is not K/N (e.g. 1/4)") from None
        if not sep or count < 1 or not 1 <= index <= count:
            raise ValueError(f"{text!r} is not K/N with 1 <= K <= N")
        return cls(index, count)

    def takes(self, relative: str) -> bool:
        digest = hashlib.sha256(relative.encode("utf-8", "surrogatepass")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    @property
    def name(self) -> str:
        """``shard-K-of-N``: in the names of the shard's manifest, errors, lock and temporary files."""
        return f"shard-{self.index}-of-{self.count}"
