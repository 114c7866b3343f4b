"""``asr convert -o``: outputs appear only complete, never harm the input or an existing output,
are never written through planted links, and a full disk or read-only place is one clear line."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, golden_cases, materialize_input
from test_batch import ToyAdapter, toy_file

from asr_adapters import outputs, registry
from asr_adapters.batch.naming import stream_file_name
from asr_adapters.cli import main
from asr_adapters.core.adapter import Context, Stream
from asr_adapters.core.source import Source

CASE = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
SUBAGENTS = GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl"
OLD = b'{"an":"earlier good output"}\n'


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.startswith(outputs.TEMP_PREFIX) or ".part" in p.name)


def test_a_failed_conversion_leaves_the_previous_output_as_it_was(tmp_path: Path) -> None:
    (case,) = [c for c in golden_cases("t3code") if c.name == "v1-two-threads"]
    database = materialize_input(case, tmp_path)
    target = tmp_path / "out" / "thread.asr.jsonl"
    target.parent.mkdir()
    target.write_bytes(OLD)
    code, _, err = run("convert", str(database), "-o", str(target))  # two threads, no --thread: refused
    assert code == 2 and "--thread ID" in err
    assert target.read_bytes() == OLD
    fresh = tmp_path / "out" / "new-name.asr.jsonl"
    assert run("convert", str(database), "-o", str(fresh))[0] == 2
    assert not fresh.exists() and _leftovers(tmp_path) == []


def test_missing_parent_folders_are_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.asr.jsonl"
    code, _, err = run("convert", str(CASE), "-o", str(target))
    assert (code, err) == (0, "")
    assert target.read_bytes().startswith(b'{"type":"session","seq":1,')
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_the_output_is_never_the_input(tmp_path: Path, how: str) -> None:
    source = tmp_path / "rollout.jsonl"
    source.write_bytes(CASE.read_bytes())
    target = tmp_path / "out.asr.jsonl"
    if how == "same path":
        target = source
    elif how == "symlink":
        target.symlink_to(source)
    else:
        os.link(source, target)
    code, _, err = run("convert", str(source), "-o", str(target))
    assert code == 2 and "the output is the input file" in err
    assert source.read_bytes() == CASE.read_bytes()
    assert _leftovers(tmp_path) == []


def test_a_torn_write_under_a_file_size_limit_leaves_nothing_under_the_final_name(tmp_path: Path) -> None:
    target = tmp_path / "out.asr.jsonl"
    target.write_bytes(OLD)
    fresh = tmp_path / "fresh.asr.jsonl"

    def limit() -> None:  # in the child only: writes past 1000 bytes fail with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for output in (target, fresh):
        command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", "convert", str(CASE)]
        done = subprocess.run(
            [*command, "-o", str(output)], capture_output=True, preexec_fn=limit, env=env, timeout=120, check=False
        )
        err = done.stderr.decode()
        assert done.returncode == 3, err
        assert len(err.splitlines()) == 1 and "cannot write the output" in err and "Traceback" not in err
    assert target.read_bytes() == OLD
    assert not fresh.exists() and _leftovers(tmp_path) == []


def test_folder_output_never_writes_through_planted_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious")
    out = tmp_path / "out"
    out.mkdir()
    # every name the folder output has used or uses: the old fixed ".part" names and the final ones
    code, _, _ = run("convert", str(SUBAGENTS), "-o", f"{tmp_path / 'probe'}/")
    assert code == 0
    finals = [p.relative_to(tmp_path / "probe") for p in (tmp_path / "probe").rglob("*.asr.jsonl")]
    main_id = "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"
    for stream_key in (f"claude-code:{main_id}", f"claude-code:{main_id}/agent-a1b2c3d4e5f60718"):
        name = stream_file_name(stream_key)
        for planted in (out / name, out / f"{name}.part"):
            planted.symlink_to(outside)
    for relative in finals:
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        (out / relative).symlink_to(outside)
    code, _, err = run("convert", str(SUBAGENTS), "-o", f"{out}/")
    assert code == 0, err
    assert outside.read_bytes() == b"precious"
    for relative in finals:
        assert not (out / relative).is_symlink() and (out / relative).read_bytes().startswith(b'{"type":"session"')
    assert not [p for p in out.rglob("*") if p.name.startswith(outputs.TEMP_PREFIX)]


def test_a_planted_folder_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "codex").symlink_to(elsewhere)
    code, _, err = run("convert", str(CASE), "-o", f"{out}/")
    assert code == 3 and "symbolic link" in err
    assert list(elsewhere.iterdir()) == []


def test_temporary_files_are_created_exclusively_with_random_names(tmp_path: Path) -> None:
    first = outputs.PendingFile(tmp_path / "x.asr.jsonl")
    second = outputs.PendingFile(tmp_path / "x.asr.jsonl")
    assert first.temp != second.temp and first.temp.name.startswith(outputs.TEMP_PREFIX)
    first.discard()
    second.discard()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("where", "code"),
    [("create", errno.EROFS), ("create", errno.EACCES), ("write", errno.ENOSPC), ("write", errno.EDQUOT)],
)
def test_read_only_place_and_full_disk_are_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, code: int
) -> None:
    real_open = os.open
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fd: int) -> None:
            self._file = real_fdopen(fd, "wb")
            self.closed = False

        def write(self, data: bytes) -> int:
            raise OSError(code, os.strerror(code))

        def flush(self) -> None:
            pass

        def fileno(self) -> int:
            return self._file.fileno()

        def close(self) -> None:
            self.closed = True
            self._file.close()

    def failing_open(path: str, flags: int, mode: int = 0o777) -> int:
        if where == "create" and outputs.TEMP_PREFIX in str(path):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(outputs.os, "open", failing_open)
    if where == "write":
        monkeypatch.setattr(outputs.os, "fdopen", lambda fd, mode: Full(fd))
    for output in (str(tmp_path / "out.asr.jsonl"), f"{tmp_path / 'dir'}/"):
        exit_code, _, err = run("convert", str(CASE), "-o", output)
        assert exit_code == 3, err
        assert len(err.splitlines()) == 1 and "cannot write the output" in err and os.strerror(code) in err
        assert "Traceback" not in err
    assert _leftovers(tmp_path) == [] and not (tmp_path / "out.asr.jsonl").exists()


# -- issue 25.22: never exit 0 on a stream the validator rejects -----------------------------


class _FlawedToy(ToyAdapter):
    """The toy adapter with a bug: a ``{"say": "flawed"}`` line gives a record whose usage
    counts are negative (as Claude Code's adapter gave for negative native counts)."""

    name = "flawedtoy"
    registry_name = "dev.asr.flawedtoy"

    def detect(self, source: Source) -> int:
        return 100 if source.head(16).startswith(b'{"toy"') else 0

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        for stream in super().streams(source, context):
            stream.records = (_flaw(record) for record in stream.records)
            yield stream


def _flaw(record: dict[str, Any]) -> dict[str, Any]:
    if record.get("data") == {"text": "flawed"}:
        return record | {"usage": {"inputTokens": -5}}
    return record


@pytest.fixture
def flawed() -> Iterator[None]:
    registry._load()
    registry._ADAPTERS["flawedtoy"] = _FlawedToy()
    yield
    registry._ADAPTERS.pop("flawedtoy", None)


@pytest.mark.parametrize("where", ["stdout", "file", "folder"])
def test_a_stream_its_own_validator_rejects_is_an_error_not_exit_0(flawed: None, tmp_path: Path, where: str) -> None:
    source = toy_file(tmp_path / "in.jsonl", "s1", {"say": "fine"}, {"say": "flawed"}, {"child": "c1", "says": ["x"]})
    out = {"stdout": [], "file": ["-o", str(tmp_path / "out.asr.jsonl")], "folder": ["-o", f"{tmp_path / 'dir'}/"]}
    code, _, err = run("convert", str(source), "--agent", "flawedtoy", *out[where])
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("asr: error: "), err
    assert "asr validate rejects" in err and "PROFILE-usage" in err and "inputTokens must be a non-negative" in err
    assert not (tmp_path / "out.asr.jsonl").exists() and not list(tmp_path.rglob("*.asr.jsonl"))
    assert _leftovers(tmp_path) == []
    clean = toy_file(tmp_path / "ok.jsonl", "s2", {"say": "fine"})
    assert run("convert", str(clean), "--agent", "flawedtoy", *out[where])[0] == 0
    # --no-check: written as converted (what the user asked for), exit 0
    assert run("convert", str(source), "--agent", "flawedtoy", "--no-check", *out[where])[0] == 0


STREAM = GOLDEN / "codex" / "10-tool-calls-every-kind" / "expected.asr.jsonl"


@pytest.mark.parametrize("step", ["create", "rename"])
@pytest.mark.parametrize(
    "command",
    [
        ("convert", str(CASE)),
        ("convert", str(CASE), "DIR/"),
        ("show", str(STREAM)),
        ("export", "--to", "atif", str(STREAM)),
    ],
    ids=["convert", "convert-folder", "show", "export"],
)
def test_output_errors_name_the_path_given_never_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, command: tuple[str, ...]
) -> None:
    """Before: ``asr: error: /place/.asr-convert-0123abcd.tmp: cannot write the output: ...``
    (``-o /proc/out.jsonl`` showed it for real; issue #32 item 6)."""
    real_open, real_replace = os.open, os.replace

    def failing_open(path: str, flags: int, mode: int = 0o777) -> int:
        if step == "create" and outputs.TEMP_PREFIX in str(path):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, mode)

    def failing_replace(src: str, dst: str) -> None:
        if step == "rename":
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src), None, str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(outputs.os, "open", failing_open)
    monkeypatch.setattr(outputs.os, "replace", failing_replace)
    *args, last = command
    given = f"{tmp_path}/out/" if last == "DIR/" else str(tmp_path / "out.txt")
    arguments = (*args, "-o", given) if last == "DIR/" else (*command, "-o", given)
    code, _, err = run(*arguments)
    assert code == 3, err
    assert err.startswith(f"asr: error: {given.rstrip('/')}") and outputs.TEMP_PREFIX not in err, err
    assert len(err.splitlines()) == 1
