"""Plan -> execute -> commit (issue 17): tasks packed by size biggest first, any
``concurrent.futures`` executor, results committed in walk order whatever order they finish in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_batch import batch, corpus, outputs, register_toy, toy_file, tree

from asr_adapters import registry
from asr_adapters.batch.plan import TASK_FILES, pack
from asr_adapters.batch.pool import WORKER_DIED
from asr_adapters.batch.worker import Item


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def items(sizes: list[int]) -> list[Item]:
    return [Item(f"/src/{index:04d}", f"/src/{index:04d}") for index in range(len(sizes))]


@pytest.mark.parametrize("jobs", [1, 2, 8])
@pytest.mark.parametrize(
    "sizes",
    [[5], [100] * 12, [10_000_000, 1, 2, 3] + [50] * 300, list(range(1, 2000)), [0] * 40 + [7_000_000] * 3],
    ids=["one", "twelve-equal", "skewed", "ramp", "empty-and-big"],
)
def test_pack_covers_every_source_once_biggest_first(sizes: list[int], jobs: int) -> None:
    planned = items(sizes)
    tasks = pack(planned, sizes, jobs, "/out", ())
    assert tasks == pack(planned, sizes, jobs, "/out", ())  # deterministic
    members = [item for task in tasks for item in task.items]
    assert sorted(i.source for i in members) == sorted(i.source for i in planned)
    size = {item.source: sizes[index] for index, item in enumerate(planned)}
    weights = [sum(size[i.source] for i in task.items) for task in tasks]
    assert weights == sorted(weights, reverse=True)  # the biggest tasks first
    assert all(len(task.items) <= TASK_FILES for task in tasks)
    assert len(tasks) >= min(len(planned), jobs)  # every worker has work
    budget = max(1, sum(sizes) // (jobs * 4))
    assert all(len(task.items) == 1 or weight <= budget for task, weight in zip(tasks, weights, strict=True))


def skewed(src: Path) -> Path:
    corpus(src)
    for index in range(40):  # the walk's first sources are slow: they finish last
        slow = [{"sleep": 0.05}] if index < 6 else []
        toy_file(src / "many" / f"{index:02d}.jsonl", f"m{index % 17}", *slow, *[{"say": "x" * 50}] * (index % 9))
    toy_file(src / "many" / "big.jsonl", "big", *[{"say": "y" * 1000}] * 300)
    return src


def test_any_executor_gives_outputs_identical_to_jobs_1(
    toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = skewed(tmp_path / "src")
    reference = tmp_path / "reference"
    expected = batch([src], reference, jobs=1)
    monkeypatch.setenv("TOY_SLOW", "1")
    varying = {"seconds": 0, "outdir": "", "errors_file": ""}
    with ThreadPoolExecutor(3) as threads:
        through_threads = batch([src], tmp_path / "threads", jobs=3, executor=threads)
    pool = batch([src], tmp_path / "pool", jobs=2)
    for summary, folder in ((through_threads, "threads"), (pool, "pool")):
        assert summary.as_dict() | varying == expected.as_dict() | varying
        assert tree(tmp_path / folder) == tree(reference)


class LosesTasks(ThreadPoolExecutor):
    """A thread pool whose ``lost`` predicate makes a task's future fail as a lost worker does."""

    def __init__(self, lost: Callable[[Any], bool]) -> None:
        super().__init__(2)
        self.lost = lost

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.lost(args[0]):
            failed: Future[Any] = Future()
            failed.set_exception(RuntimeError("worker lost"))
            return failed
        return super().submit(fn, *args, **kwargs)


def test_a_lost_task_is_retried_source_by_source_and_a_source_lost_twice_fails_alone(toy: None, tmp_path: Path) -> None:
    src = skewed(tmp_path / "src")
    reference = tmp_path / "reference"
    batch([src], reference, jobs=1)
    poison = str((src / "many" / "big.jsonl").resolve())
    once: set[int] = set()

    def first_attempt(task: Any) -> bool:
        if len(task.items) > 1 and id(task) not in once:
            once.add(id(task))
            return True
        return False

    with LosesTasks(first_attempt) as executor:
        retried = batch([src], tmp_path / "retried", jobs=2, executor=executor)
    assert retried.failed == 0 and once
    assert tree(tmp_path / "retried") == tree(reference)

    with LosesTasks(lambda task: any(item.source == poison for item in task.items)) as executor:
        lost = batch([src], tmp_path / "lost", jobs=2, executor=executor)
    assert lost.failed == 1
    rows = [orjson.loads(line) for line in (tmp_path / "lost" / "_errors.jsonl").read_bytes().splitlines()]
    assert [(r["path"], r["reason"]) for r in rows if r["severity"] == "error"] == [(poison, WORKER_DIED)]
    expected = outputs(reference)
    assert outputs(tmp_path / "lost") == {k: v for k, v in expected.items() if k != "toy/big.asr.jsonl"}
