"""``--shard K/N`` and ``--merge-manifests`` (issue 17.2): N shards run at once on one OUTDIR
convert every source exactly once, and once merged the archive is the unsharded run's."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from test_batch import batch, outputs, register_toy, toy_file, tree
from test_batch_hostile import runner

from asr_adapters import registry
from asr_adapters.batch import Shard


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def sources(src: Path) -> Path:
    for index in range(45):
        folder = src / f"group-{index % 4}"
        toy_file(folder / f"{index:02d}.jsonl", f"s{index}", *[{"say": f"{index}-{j}"} for j in range(index % 6)])
    toy_file(src / "a" / "two.jsonl", "parent", {"say": "x"}, {"child": "c1", "says": ["sub"]})
    toy_file(src / "b" / "bad-line.jsonl", "warned", {"say": "a"}, b"{not json", {"say": "b"})
    toy_file(src / "b" / "broken.jsonl", "broken", {"fail": "no"})
    (src / "notes.txt").write_text("not a session\n")
    return src


def run_shards(tmp_path: Path, src: Path, out: Path, count: int) -> list[dict[str, object]]:
    """Every shard of ``count`` started at once, as N machines would."""
    base = [*runner(tmp_path), "batch", str(src), "-o", str(out), "--json", "-q", "-j", "2"]
    processes = [
        subprocess.Popen([*base, "--shard", f"{k}/{count}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for k in range(1, count + 1)
    ]
    summaries = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode in (0, 1), stderr.decode()
        summaries.append(orjson.loads(stdout))
    return summaries


def test_shards_at_once_convert_each_source_once_and_merge_to_the_unsharded_archive(toy: None, tmp_path: Path) -> None:
    src = sources(tmp_path / "src")
    reference = tmp_path / "reference"
    whole = batch([src], reference, jobs=1)
    out = tmp_path / "out"
    shards = run_shards(tmp_path, src, out, 3)

    assert sum(int(s["converted"]) for s in shards) == whole.converted  # type: ignore[call-overload]
    assert sum(int(s["failed"]) for s in shards) == whole.failed == 1  # type: ignore[call-overload]
    keys = [set(orjson.loads((out / f"_manifest.shard-{k}-of-3.json").read_bytes())["sources"]) for k in (1, 2, 3)]
    assert sum(len(k) for k in keys) == len(set().union(*keys))  # disjoint: no source converted twice
    assert set().union(*keys) == set(orjson.loads((reference / "_manifest.json").read_bytes())["sources"])
    assert all(keys)  # every shard had work
    assert outputs(out) == outputs(reference)

    merge = subprocess.run([*runner(tmp_path), "batch", "--merge-manifests", "-o", str(out)], capture_output=True)
    assert merge.returncode == 0, merge.stderr.decode()
    assert (out / "_manifest.json").read_bytes() == (reference / "_manifest.json").read_bytes()
    assert sorted((out / "_errors.jsonl").read_bytes().splitlines()) == sorted(
        (reference / "_errors.jsonl").read_bytes().splitlines()
    )
    assert not [p.name for p in out.iterdir() if ".shard-" in p.name]

    again = batch([src], out, jobs=2)
    assert (again.converted, again.skipped, again.failed) == (0, whole.converted, 1)
    assert tree(out) == tree(reference)


def test_one_session_in_two_shards_keeps_both_outputs(toy: None, tmp_path: Path) -> None:
    two = Shard(1, 2)
    names = [f"copy-{index}.jsonl" for index in range(40)]
    first = next(name for name in names if two.takes(name))
    second = next(name for name in names if not two.takes(name))
    src = tmp_path / "src"
    toy_file(src / first, "same", {"say": "from the first copy"})
    toy_file(src / second, "same", {"say": "from the second copy"})
    out = tmp_path / "out"
    run_shards(tmp_path, src, out, 2)
    produced = outputs(out)
    assert len(produced) == 2 and "toy/same.asr.jsonl" in produced
    texts = b"".join(produced.values())
    assert b"from the first copy" in texts and b"from the second copy" in texts
    merge = subprocess.run([*runner(tmp_path), "batch", "--merge-manifests", "-o", str(out)], capture_output=True)
    assert merge.returncode == 0, merge.stderr.decode()
    manifest = orjson.loads((out / "_manifest.json").read_bytes())["sources"]
    assert sorted(o for e in manifest.values() for o in e["outputs"]) == sorted(produced)
    again = batch([src], out, jobs=1)
    assert (again.converted, again.skipped) == (0, 2)


@pytest.mark.parametrize("shard", ["0/3", "4/3", "a/b", "3", "1/0"])
def test_a_bad_shard_is_a_usage_error(toy: None, tmp_path: Path, shard: str) -> None:
    src = sources(tmp_path / "src")
    command = [*runner(tmp_path), "batch", str(src), "-o", str(tmp_path / "out"), "--shard", shard]
    finished = subprocess.run(command, capture_output=True)
    assert finished.returncode == 2 and "--shard" in finished.stderr.decode()


def test_a_shard_never_runs_beside_a_whole_run_or_itself(toy: None, tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl")
    src = sources(tmp_path / "src")
    out = tmp_path / "out"
    out.mkdir()
    command = [*runner(tmp_path), "batch", str(src), "-o", str(out), "-q", "--shard", "1/2"]
    for lock, mode in (("_batch.lock", fcntl.LOCK_EX), ("_batch.shard-1-of-2.lock", fcntl.LOCK_EX)):
        with open(out / lock, "a+b") as held:
            fcntl.flock(held.fileno(), mode | fcntl.LOCK_NB)
            finished = subprocess.run(command, capture_output=True)
        assert finished.returncode == 2 and "another" in finished.stderr.decode()
    with open(out / "_batch.lock", "a+b") as shared:  # another shard holds the batch lock shared
        fcntl.flock(shared.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        assert subprocess.run(command, capture_output=True).returncode in (0, 1)  # it runs
