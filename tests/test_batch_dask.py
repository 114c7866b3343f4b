"""``asr batch --engine dask`` on a real Dask ``LocalCluster`` (2 worker processes, no mocks):
the same outputs, manifest, errors and summary as ``--jobs 1``, and a worker killed mid-task
costs only the source that killed it.

Dask's workers are spawned processes, so they know only importable adapters: these tests
convert the golden inputs with the real adapters, not the toy adapter of test_batch.py."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from test_batch import _golden_cases, batch, build_sqlite, outputs, tree

from asr_adapters.batch.engine_dask import LOCAL_SCHEDULER
from asr_adapters.batch.pool import WORKER_DIED
from asr_adapters.batch.progress import Progress
from asr_adapters.batch.worker import KILL_HOOK
from asr_adapters.cli import main

pytestmark = pytest.mark.services
distributed = pytest.importorskip(
    "distributed", reason="the Dask cluster tests need dask and distributed (pip install -e '.[test-services]')"
)
dask = pytest.importorskip("dask")

VARYING = {"seconds": 0, "outdir": "", "errors_file": ""}


def golden_inputs(src: Path) -> list[Path]:
    """Every golden case's input copied under ``src`` (databases built), as explicit sources."""
    cases = _golden_cases()
    if not cases:
        pytest.skip("no golden cases with expected streams yet")
    inputs = []
    for case in cases:
        folder = src / case.agent / case.name
        shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
        sql = folder / "input.sql"
        if sql.exists():
            build_sqlite(case.folder / "input.sql", folder / "input.sqlite")
            sql.unlink()
        inputs += [p for p in sorted(folder.iterdir()) if p.name.startswith("input.")]
    return inputs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Path]:
    """The golden inputs, and a source that kills the worker converting it (a Codex rollout:
    the hook fires only in a worker whose environment names its path)."""
    src = tmp_path_factory.mktemp("dask-src")
    inputs = golden_inputs(src)
    killer = src / "killer" / "input.jsonl"
    killer.parent.mkdir()
    shutil.copyfile(next(p for p in inputs if p.suffix == ".jsonl" and "/codex/" in p.as_posix()), killer)
    # one more byte, so the killer is not an identical copy of its codex source (a batch converts
    # identical copies once, and a copy of a failed source fails with it: tests/test_batch_copies.py)
    with killer.open("ab") as out:
        out.write(b"\n")
    return inputs, killer


@pytest.fixture(scope="module")
def scheduler(corpus: tuple[list[Path], Path]) -> Iterator[str]:
    """One LocalCluster for the module: 2 worker processes of one thread, configured as the
    engine configures its own, its workers told which source kills them."""
    _inputs, killer = corpus
    before = os.environ.get(KILL_HOOK)
    os.environ[KILL_HOOK] = os.path.realpath(killer)  # spawned workers inherit it; this process never converts it
    try:
        with (
            dask.config.set(LOCAL_SCHEDULER),
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
            ) as cluster,
        ):
            yield cluster.scheduler_address
    finally:
        if before is None:
            os.environ.pop(KILL_HOOK, None)
        else:
            os.environ[KILL_HOOK] = before


def errors(folder: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (folder / "_errors.jsonl").read_bytes().splitlines()]


def test_dask_gives_outputs_manifest_and_summary_identical_to_jobs_1(
    corpus: tuple[list[Path], Path], scheduler: str, tmp_path: Path
) -> None:
    inputs, _killer = corpus
    bars = [Progress(io.StringIO(), tty=False, interval=0.0) for _ in range(2)]
    reference = batch(inputs, tmp_path / "reference", jobs=1, progress=bars[0])
    through_dask = batch(inputs, tmp_path / "dask", jobs=2, engine="dask", scheduler=scheduler, progress=bars[1])
    assert reference.converted > 50 and reference.failed == 0
    assert through_dask.as_dict() | VARYING == reference.as_dict() | VARYING
    for bar in bars:  # the same progress: every source counted once, every byte
        assert (bar.done, bar.done_bytes) == (bar.total, bar.total_bytes) == (bars[0].total, bars[0].total_bytes)
        assert bar.stream.getvalue().count("\n") == bar.total
    assert tree(tmp_path / "dask") == tree(tmp_path / "reference")  # outputs, _manifest.json, _errors.jsonl
    again = batch(inputs, tmp_path / "dask", jobs=2, engine="dask", scheduler=scheduler)
    assert (again.converted, again.skipped) == (0, reference.converted)


def test_a_source_that_kills_its_worker_is_retried_then_fails_alone(
    corpus: tuple[list[Path], Path], scheduler: str, tmp_path: Path
) -> None:
    inputs, killer = corpus
    batch(inputs, tmp_path / "reference", jobs=1)
    killed = batch([killer, *inputs], tmp_path / "dask", jobs=2, engine="dask", scheduler=scheduler)
    assert killed.failed == 1 and killed.converted == len(inputs) and killed.exit_code == 1
    failures = [(row["path"], row["reason"]) for row in errors(tmp_path / "dask") if row["severity"] == "error"]
    assert failures == [(os.path.realpath(killer), WORKER_DIED)]
    assert outputs(tmp_path / "dask") == outputs(tmp_path / "reference")
    client = distributed.Client(scheduler, set_as_default=False)
    try:  # the cluster got its workers back: the nanny restarted each one killed
        client.wait_for_workers(2, timeout=30)
    finally:
        client.close()


def test_cli_engine_dask_starts_its_own_cluster(corpus: tuple[list[Path], Path], tmp_path: Path) -> None:
    inputs, _killer = corpus
    few = [str(p) for p in inputs[:6]]
    reference = CliRunner().invoke(main, ["batch", *few, "-o", str(tmp_path / "reference"), "-j", "1", "--json", "-q"])
    result = CliRunner().invoke(
        main, ["batch", *few, "-o", str(tmp_path / "dask"), "-j", "2", "--engine", "dask", "--json", "-q"]
    )
    assert result.exit_code == reference.exit_code == 0, result.output
    assert orjson.loads(result.stdout) | VARYING == orjson.loads(reference.stdout) | VARYING
    assert tree(tmp_path / "dask") == tree(tmp_path / "reference")


def test_scheduler_without_dask_engine_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["batch", str(tmp_path), "-o", str(tmp_path / "out"), "--scheduler", "tcp://x"])
    assert result.exit_code == 2 and "--engine dask" in result.output
