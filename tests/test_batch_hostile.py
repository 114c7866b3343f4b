"""Batch under hostile conditions: a killed run, a manifest that lies, links and special files
planted in a source folder, a locked database, a read-only or full output (issues 16, 21).

Real processes throughout (a batch run as a child process and killed, a file-size limit set
on a child): nothing under test is mocked.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_batch import RUNNER, TESTS, batch, outputs, register_toy, toy_file, tree

from asr_adapters import registry
from asr_adapters.batch.scan import TEMP_NAME


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


def _edit_manifest(out: Path, edit: Any) -> None:
    path = out / "_manifest.json"
    manifest = orjson.loads(path.read_bytes())
    edit(manifest["sources"])
    path.write_bytes(orjson.dumps(manifest))


@pytest.mark.parametrize("other", ["still there", "vanished", "entry deleted too"])
def test_an_edited_manifest_never_makes_batch_delete_another_sessions_output(
    toy: None, tmp_path: Path, other: str
) -> None:
    """Issue 25.3: a source's entry edited to list another session's output. That output is
    never removed when this source is converted again: not while another entry lists it (its
    source there or vanished), nor when its header names another source file."""
    src, out = tmp_path / "src", tmp_path / "out"
    one = toy_file(src / "a-one.jsonl", "s1", {"say": "hi"})
    two = toy_file(src / "b-two.jsonl", "s2", {"say": "archive me"})
    batch([src], out, jobs=1)
    victim = out / "toy" / "s2.asr.jsonl"
    kept = victim.read_bytes()
    if other != "still there":
        two.unlink()  # archived by the agent: this output is now the only copy

    def edit(sources: dict[str, Any]) -> None:
        sources[str(one.resolve())]["outputs"].append("toy/s2.asr.jsonl")
        if other == "entry deleted too":
            del sources[str(two.resolve())]

    _edit_manifest(out, edit)
    toy_file(one, "s1-renamed", {"say": "changed"})  # converted again: its own old output goes
    summary = batch([src], out, jobs=1)
    assert summary.failed == 0
    assert victim.read_bytes() == kept
    assert not (out / "toy" / "s1.asr.jsonl").exists(), "this source's own stale output is still removed"
    sources = orjson.loads((out / "_manifest.json").read_bytes())["sources"]
    assert sources[str(one.resolve())]["outputs"] == ["toy/s1-renamed.asr.jsonl"]
    if other == "entry deleted too":  # kept, and said why
        notices = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
        assert [n["reason"] for n in notices if "toy/s2.asr.jsonl" in n["reason"]] == [
            "earlier output toy/s2.asr.jsonl kept: its header names the source file b-two.jsonl, not this one"
        ]


def test_an_output_two_entries_list_is_removed_by_neither(toy: None, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    one = toy_file(src / "a-one.jsonl", "s1", {"say": "hi"})
    two = toy_file(src / "b-two.jsonl", "s2", {"say": "there"})
    batch([src], out, jobs=1)
    shared = out / "toy" / "s1.asr.jsonl"
    _edit_manifest(out, lambda sources: sources[str(two.resolve())]["outputs"].append("toy/s1.asr.jsonl"))
    toy_file(one, "s1-renamed", {"say": "changed"})
    toy_file(two, "s2-renamed", {"say": "changed"})
    assert batch([src], out, jobs=1).failed == 0
    assert shared.is_file()


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
        assert ["symbolic link inside the output folder" in e["reason"] for e in errors] == [True]


# -- 21.6: the output folder is never input --------------------------------------------------


def test_outdir_is_excluded_by_real_path_however_it_is_reached(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    toy_file(src / "one.jsonl", "s1", {"say": "hi"})
    out = src / "archive"
    (tmp_path / "alias").symlink_to(src, target_is_directory=True)
    (src / "link-to-archive").symlink_to(out, target_is_directory=True)
    named = tmp_path / "alias" / "archive"  # OUTDIR named through a link: the walk meets it as src/archive
    first = batch([src], named, jobs=1, follow_symlinks=True)
    assert (first.converted, first.unclaimed) == (1, 0)
    again = batch([src], named, jobs=1, follow_symlinks=True, force=True)
    assert (again.converted, again.unclaimed, again.failed) == (1, 0, 0), again.as_dict()
    assert sorted(outputs(out)) == ["toy/s1.asr.jsonl"]


# -- 21.10: special files, link loops, links out, unreadable folders -------------------------


def test_fifos_sockets_and_devices_are_skipped_with_a_counted_reason(toy: None, tmp_path: Path) -> None:
    import socket

    src, out = tmp_path / "src", tmp_path / "out"
    toy_file(src / "good.jsonl", "s1", {"say": "hi"})
    os.mkfifo(src / "fifo.jsonl")
    os.mkfifo(tmp_path / "named-fifo.jsonl")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(src / "sock.jsonl"))
    (src / "device.jsonl").symlink_to("/dev/null")
    try:
        summary = batch([src, tmp_path / "named-fifo.jsonl"], out, jobs=1, follow_symlinks=True)
    finally:
        server.close()
    assert summary.converted == 1
    assert summary.unclaimed_reasons == {
        "not a regular file (a FIFO)": 2,
        "not a regular file (a socket)": 1,
        "not a regular file (a device)": 1,
    }
    rows = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
    assert sorted(Path(r["path"]).name for r in rows) == [
        "device.jsonl",
        "fifo.jsonl",
        "named-fifo.jsonl",
        "sock.jsonl",
    ]


def test_two_links_to_a_parent_do_not_hang_follow_symlinks(toy: None, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    toy_file(src / "deep" / "one.jsonl", "s1", {"say": "hi"})
    (src / "deep" / "up").symlink_to(src, target_is_directory=True)
    (src / "deep" / "up2").symlink_to(src, target_is_directory=True)
    (src / "self").symlink_to(".", target_is_directory=True)
    command = [*runner(tmp_path), "batch", str(src), "-o", str(out), "--follow-symlinks", "--json", "-q", "-j", "1"]
    finished = subprocess.run(command, capture_output=True, check=False, timeout=120)  # a hang fails here
    assert finished.returncode == 0, finished.stderr.decode()
    summary = orjson.loads(finished.stdout)
    assert summary["converted"] == 1
    assert summary["skipped_folders"] == {"folder reached again through a link": 3}


def claude_code_session(folder: Path, subagents: Path) -> Path:
    """A Claude Code golden session copied to ``folder``, its subagents folder at ``subagents``."""
    from golden_support import GOLDEN

    case = GOLDEN / "claude-code" / "subagent-folder"
    if not case.is_dir():
        pytest.skip("golden/claude-code/subagent-folder is missing")
    folder.mkdir(parents=True)
    session = folder / "input.jsonl"
    session.write_bytes((case / "input.jsonl").read_bytes())
    shutil.copytree(case / "input" / "subagents", subagents)
    return session


def test_a_subagents_folder_linked_out_of_src_is_not_followed_without_the_flag(tmp_path: Path) -> None:
    src = tmp_path / "src"
    claude_code_session(src / "project", tmp_path / "elsewhere" / "subagents")
    (src / "project" / "input").mkdir()
    (src / "project" / "input" / "subagents").symlink_to(tmp_path / "elsewhere" / "subagents")

    # the session converts; the adapter reads no subagent file through the link (core.companion)
    # and says so as a warning row, so nothing outside SRC reaches the archive
    refused = batch([src], tmp_path / "out", jobs=1)
    assert (refused.converted, refused.failed, refused.streams) == (1, 0, 1)
    rows = [orjson.loads(line) for line in (tmp_path / "out" / "_errors.jsonl").read_bytes().splitlines()]
    assert [row["severity"] for row in rows] == ["warning"]
    assert rows[0]["reason"].startswith("subagent file skipped: resolves outside the folders")
    assert len(outputs(tmp_path / "out")) == 1

    followed = batch([src], tmp_path / "followed", jobs=1, follow_symlinks=True)
    assert (followed.converted, followed.failed) == (1, 0)
    assert len(outputs(tmp_path / "followed")) == 2  # the session and its subagent


def test_an_unreadable_folder_is_counted_and_reported(toy: None, tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="asr-unreadable-"))  # outside pytest's 0700 folder: another user runs
    try:
        os.chmod(base, 0o755)
        src, out = base / "src", base / "out"
        toy_file(src / "good.jsonl", "s1", {"say": "hi"})
        toy_file(src / "locked" / "hidden.jsonl", "s2", {"say": "never read"})
        for folder in (src, src / "locked"):
            os.chmod(folder, 0o777)
        os.chmod(src / "good.jsonl", 0o644)
        os.chmod(src / "locked", 0o000)
        command = [*runner(base), "batch", str(src), "-o", str(out), "--json", "-q", "-j", "1"]
        os.chmod(base / "run_asr.py", 0o644)
        if os.geteuid() == 0:  # root reads any folder: drop the capabilities that let it
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: cannot make a folder unreadable")
            caps = "-dac_override,-dac_read_search"
            command = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", *command]
        finished = subprocess.run(command, capture_output=True, check=False, timeout=120)
        assert finished.returncode == 0, finished.stderr.decode()
        summary = orjson.loads(finished.stdout)
        assert summary["converted"] == 1
        assert summary["skipped_folders"] == {"unreadable folder": 1}
        rows = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
        assert [(Path(r["path"]).name, r["severity"]) for r in rows] == [("locked", "warning")]
        assert "Permission denied" in rows[0]["reason"]
    finally:
        os.chmod(base / "src" / "locked", 0o755)
        shutil.rmtree(base, ignore_errors=True)


# -- 21.12: a locked or malformed database is a failure, not someone else's file -------------


def test_a_locked_or_malformed_database_is_reported_not_unclaimed(tmp_path: Path) -> None:
    import sqlite3

    from golden_support import GOLDEN
    from test_batch import build_sqlite

    script = GOLDEN / "t3code" / "v1-two-threads" / "input.sql"
    if not script.exists():
        pytest.skip("golden/t3code/v1-two-threads is missing")
    locked = tmp_path / "locked" / "state.sqlite"
    locked.parent.mkdir()
    build_sqlite(script, locked)
    malformed = tmp_path / "malformed" / "state.sqlite"
    malformed.parent.mkdir()
    malformed.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    writer = sqlite3.connect(locked, isolation_level=None)  # a writer in the middle of its commit
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("CREATE TABLE uncommitted(x)")
    try:
        summary = batch([locked.parent, malformed.parent], tmp_path / "out", jobs=1)
    finally:
        writer.rollback()
        writer.close()
    assert (summary.failed, summary.converted) == (2, 0), summary.as_dict()
    assert set(summary.unclaimed_reasons) <= {"no agent keeps sessions under this name"}  # the writer's journal
    assert summary.exit_code == 1
    rows = [orjson.loads(line) for line in (tmp_path / "out" / "_errors.jsonl").read_bytes().splitlines()]
    reasons = {Path(r["path"]).parent.name: r["reason"] for r in rows if r["severity"] == "error"}
    assert "database is locked" in reasons["locked"]
    assert "not a database" in reasons["malformed"] or "malformed" in reasons["malformed"]
    assert outputs(tmp_path / "out") == {}


# -- 21.14: read-only output, full disk, absurd --since --------------------------------------


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[bool]:
    """A tmpfs of ``size`` mounted at ``path`` (True), or False where mounting is not allowed."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    try:
        yield mounted.returncode == 0
    finally:
        if mounted.returncode == 0:
            subprocess.run(["umount", "-l", str(path)], check=False)


def one_clear_error(finished: subprocess.CompletedProcess[bytes]) -> str:
    stderr = finished.stderr.decode()
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("asr batch: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def assert_consistent(out: Path, reference: dict[str, bytes]) -> None:
    """Whatever a failed run left is whole: the manifest lists only outputs that are there and
    right, _errors.jsonl parses, no temporary file is left."""
    assert not list(out.rglob(".asr-tmp-*"))
    if (out / "_manifest.json").exists():
        manifest = orjson.loads((out / "_manifest.json").read_bytes())
        for entry in manifest["sources"].values():
            for output in entry["outputs"]:
                assert (out / output).read_bytes() == reference[output]
    if (out / "_errors.jsonl").exists():
        for line in (out / "_errors.jsonl").read_bytes().splitlines():
            orjson.loads(line)
    for name, data in outputs(out).items():
        assert data == reference[name], name


def many_sessions(src: Path, count: int = 40) -> Path:
    for index in range(count):
        toy_file(
            src / f"{index:02d}.jsonl", f"s{index}", *[{"say": f"{index} {j} " + "x" * 300} for j in range(index % 12)]
        )
    return src


def test_a_read_only_output_location_is_one_error_line_and_exit_3(toy: None, tmp_path: Path) -> None:
    src = many_sessions(tmp_path / "src", 3)
    with tmpfs(tmp_path / "ro", "1m") as mounted:
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(tmp_path / "ro")], check=True)
        elif os.geteuid() != 0:
            os.chmod(tmp_path / "ro", 0o555)
        else:
            pytest.skip("root without mount: cannot make a read-only folder")
        for out in (tmp_path / "ro", tmp_path / "ro" / "new-archive"):
            command = [*runner(tmp_path), "batch", str(src), "-o", str(out), "-q", "-j", "1"]
            finished = subprocess.run(command, capture_output=True, check=False)
            assert finished.returncode == 3, finished.stderr.decode()
            assert "cannot write" in one_clear_error(finished)


@pytest.mark.parametrize("limit", ["tmpfs", "RLIMIT_FSIZE"])
def test_a_full_disk_leaves_a_consistent_archive_and_a_rerun_finishes(toy: None, tmp_path: Path, limit: str) -> None:
    import resource

    src = many_sessions(tmp_path / "src")
    reference_dir = tmp_path / "reference"
    batch([src], reference_dir, jobs=1)
    reference = outputs(reference_dir)
    out = tmp_path / "disk" / "out"
    command = [*runner(tmp_path), "batch", str(src), "-o", str(out), "-q", "-j", "2"]

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))  # writes past 2 KB fail (EFBIG)

    disk = tmpfs(tmp_path / "disk", "48k") if limit == "tmpfs" else contextlib.nullcontext(False)
    with disk as mounted:
        if limit == "tmpfs" and not mounted:
            pytest.skip("mounting a tmpfs is not allowed here (RLIMIT_FSIZE covers the same path)")
        preexec = small_files if limit == "RLIMIT_FSIZE" else None
        full = subprocess.run(command, capture_output=True, check=False, preexec_fn=preexec)
        assert full.returncode in (1, 3), full.stderr.decode()
        assert "Traceback" not in full.stderr.decode()
        if full.returncode == 3:
            assert "cannot write" in one_clear_error(full)
        assert len(outputs(out)) < len(reference)  # the limit did bite
        assert_consistent(out, reference)
        if mounted:
            subprocess.run(["mount", "-o", "remount,size=64m", str(tmp_path / "disk")], check=True)
        rerun = subprocess.run(command, capture_output=True, check=False)
        assert rerun.returncode == 0, rerun.stderr.decode()
        assert tree(out) == tree(reference_dir)


@pytest.mark.parametrize("since", ["99999999999d", "99999999999999999999w", "0001-01-01", "tomorrow-ish"])
def test_absurd_since_values_are_a_usage_error(toy: None, tmp_path: Path, since: str) -> None:
    src = many_sessions(tmp_path / "src", 1)
    command = [*runner(tmp_path), "batch", str(src), "-o", str(tmp_path / "out"), "--since", since]
    finished = subprocess.run(command, capture_output=True, check=False)
    assert finished.returncode == 2, finished.stderr.decode()
    assert "Traceback" not in finished.stderr.decode() and "--since" in finished.stderr.decode()


def test_files_with_a_batch_temporary_name_are_counted_not_silently_skipped(toy: None, tmp_path: Path) -> None:
    """Issue 25.22: a source folder's ``.asr-tmp-…`` files (another batch's temporary files) are
    not converted, and the summary and ``_errors.jsonl`` say so."""
    src, out = tmp_path / "src", tmp_path / "out"
    toy_file(src / "good.jsonl", "good", {"say": "fine"})
    toy_file(src / "a" / ".asr-tmp-4242-0", "staged", {"say": "in flight"})
    summary = batch([src], out, jobs=1)
    assert (summary.converted, summary.unclaimed, dict(summary.unclaimed_reasons)) == (1, 1, {TEMP_NAME: 1})
    rows = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
    assert [row["path"] for row in rows if row["reason"] == TEMP_NAME] == [str(src / "a" / ".asr-tmp-4242-0")]
