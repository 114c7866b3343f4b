"""Batch under hostile conditions: a killed run, a manifest that lies, links and special files
planted in a source folder, a locked database, a read-only or full output (issues 16, 21).

Real processes throughout (a batch run as a child process and killed, a file-size limit set
on a child): nothing under test is mocked.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from test_batch import RUNNER, TESTS, batch, outputs, register_toy, toy_file, tree

from asr_adapters import registry


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def runner(tmp_path: Path) -> list[str]:
    script = tmp_path / "run_asr.py"
    script.write_text(RUNNER.format(tests=str(TESTS)))
    return [sys.executable, str(script)]


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # state, ppid, ...


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


# -- 16.1: a killed batch does not lock the archive ------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the worker processes")
def test_main_process_killed_leaves_no_orphans_no_lock_and_a_rerun_at_once_finishes(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    for index in range(40):  # 4 s of sleeping on 2 workers: the kill comes long before the end
        toy_file(src / f"{index:02d}.jsonl", f"slow{index}", {"say": "a"}, {"sleep": 0.2}, {"say": "b"})
    reference = tmp_path / "reference"
    batch([src], reference, jobs=2)

    out = tmp_path / "out"
    command = [*runner(tmp_path), "batch", str(src), "-o", str(out), "--jobs", "2", "--quiet"]
    process = subprocess.Popen(command, start_new_session=True, env={**os.environ, "TOY_SLOW": "1"})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(outputs(out) if out.exists() else {}) < 3:
            time.sleep(0.05)
        workers = children(process.pid)
        assert workers, "the batch started no worker processes"
        os.kill(process.pid, signal.SIGKILL)  # the main process only, as `kill -9 PID` does
        process.wait()

        rerun = subprocess.run(command, capture_output=True, check=False)  # at once
        assert rerun.returncode == 0, rerun.stderr.decode()
        assert tree(out) == tree(reference)  # outputs, manifest and errors as a clean run's
        assert not list(out.rglob(".asr-tmp-*"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.05)
        assert not [pid for pid in workers if alive(pid)], "workers outlived the killed batch"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


# -- 21.4: the manifest is data, not instructions --------------------------------------------


def test_paths_in_a_hostile_manifest_never_delete_or_replace_outside_outdir(toy: None, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    session = toy_file(src / "one.jsonl", "s1", {"say": "hi"})
    toy_file(src / "two.jsonl", "s2", {"say": "there"})
    batch([src], out, jobs=1)
    victims = [tmp_path / "victim.txt", tmp_path / "victim2.txt", tmp_path / "deep" / "victim3.txt"]
    for victim in victims:
        victim.parent.mkdir(exist_ok=True)
        victim.write_text("keep me")
    manifest_path = out / "_manifest.json"
    manifest = orjson.loads(manifest_path.read_bytes())
    entry = manifest["sources"][str(session.resolve())]
    entry["outputs"] += ["../victim.txt", str(victims[1]), "toy/../../deep/victim3.txt"]
    manifest_path.write_bytes(orjson.dumps(manifest))
    toy_file(session, "s1-renamed", {"say": "changed"})  # converted again: its old outputs go

    summary = batch([src], out, jobs=1)
    assert summary.failed == 0
    assert all(victim.read_text() == "keep me" for victim in victims)
    kept = orjson.loads(manifest_path.read_bytes())["sources"]
    assert all(not o.startswith(("/", "..")) and ".." not in o.split("/") for e in kept.values() for o in e["outputs"])


def test_a_folder_link_planted_in_outdir_is_not_written_through(toy: None, tmp_path: Path) -> None:
    src, out, elsewhere = tmp_path / "src", tmp_path / "out", tmp_path / "elsewhere"
    toy_file(src / "one.jsonl", "s1", {"say": "hi"})
    elsewhere.mkdir()
    out.mkdir()
    (out / "toy").symlink_to(elsewhere, target_is_directory=True)
    for jobs in (1, 2):
        summary = batch([src], out, jobs=jobs)
        assert summary.failed == 1 and summary.converted == 0
        assert list(elsewhere.iterdir()) == []
        errors = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
        assert ["leads out of the output folder" in e["reason"] for e in errors] == [True]
