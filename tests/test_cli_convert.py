"""The ``asr convert`` command: output, --stats, what is not written, wrong agents, corner cases."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, golden_cases, materialize_input

from asr_adapters.batch import BatchOptions, run_batch
from asr_adapters.batch.naming import stream_file_name
from asr_adapters.cli import main

CASE = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
SUBAGENTS = GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl"


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def two_threads(tmp_path: Path) -> Path:
    (case,) = [c for c in golden_cases("t3code") if c.name == "v1-two-threads"]
    return materialize_input(case, tmp_path)


def test_convert_to_stdout_and_stats_say_what_was_written() -> None:
    code, out, err = run("convert", str(CASE), "--stats")
    assert code == 0
    records = [orjson.loads(line) for line in out.splitlines()]
    assert records[0]["type"] == "session" and [r["seq"] for r in records] == list(range(1, len(records) + 1))
    stats = orjson.loads(err.strip().splitlines()[-1])
    native = stats["native_items"]
    outcomes = ("converted", "kept_as_vendor", "folded", "duplicates", "unreadable")
    assert sum(native[k] for k in outcomes) == native["total"]
    assert native["total"] == sum(1 for line in CASE.read_bytes().splitlines() if line.strip())
    assert (stats["streams_found"], stats["streams_written"]) == (1, 1)
    assert stats["records_written"] == len(records) == sum(stats["records_by_type"].values())
    assert stats["streams"] == [
        {"stream": stats["streams"][0]["stream"], "records": len(records), "written_to": "stdout"}
    ]


def test_stats_names_are_documented() -> None:
    doc = (GOLDEN.parent / "docs" / "library.md").read_text(encoding="utf-8")
    _, _, err = run("convert", str(SUBAGENTS), "--stats")
    stats = orjson.loads(err.strip().splitlines()[-1])
    names = {*stats, *stats["native_items"], *stats["streams"][0]}
    for name in names:
        assert f"`{name}`" in doc, f"--stats member {name} is not in docs/library.md"


def test_stdin_is_dash() -> None:
    code, out, _ = run("convert", "-", stdin=CASE.read_bytes())
    assert code == 0 and out.splitlines()[1:] == run("convert", str(CASE))[1].splitlines()[1:]


def test_convert_to_file_and_folder(tmp_path: Path) -> None:
    target = tmp_path / "one.asr.jsonl"
    assert run("convert", str(CASE), "-o", str(target))[0] == 0
    folder = tmp_path / "out"
    folder.mkdir()
    assert run("convert", str(CASE), "-o", str(folder))[0] == 0
    written = [p for p in folder.rglob("*") if p.is_file()]
    assert len(written) == 1 and written[0].read_bytes() == target.read_bytes()


def test_folder_output_is_named_as_batch_names_it(tmp_path: Path) -> None:
    assert run("convert", str(SUBAGENTS), "-o", f"{tmp_path / 'convert'}/")[0] == 0
    run_batch(BatchOptions(sources=[SUBAGENTS], outdir=tmp_path / "batch", jobs=1))
    by_convert = sorted(str(p.relative_to(tmp_path / "convert")) for p in (tmp_path / "convert").rglob("*.asr.jsonl"))
    by_batch = sorted(str(p.relative_to(tmp_path / "batch")) for p in (tmp_path / "batch").rglob("*.asr.jsonl"))
    assert len(by_convert) > 1 and by_convert == by_batch
    for name in by_convert:
        assert (tmp_path / "convert" / name).read_bytes() == (tmp_path / "batch" / name).read_bytes()


def test_other_streams_are_named_on_stderr(tmp_path: Path) -> None:
    for args in ((), ("-o", str(tmp_path / "main.asr.jsonl"))):
        code, _, err = run("convert", str(SUBAGENTS), *args)
        assert code == 0
        note = [line for line in err.splitlines() if line.startswith("asr: note:")]
        assert len(note) == 1 and "more stream(s) not written" in note[0]
        assert "-o DIR/" in note[0] and "--thread ID" in note[0]


def test_a_thread_by_id_and_an_unknown_thread(two_threads: Path, tmp_path: Path) -> None:
    code, out, _ = run("convert", str(two_threads), "--thread", "thread-b")
    assert code == 0 and orjson.loads(out.splitlines()[0])["session"] == "t3code:thread-b"
    code, out, err = run("convert", str(two_threads), "--thread", "nope")
    assert code == 2 and out == ""
    assert f"no thread nope in {two_threads}" in err and "thread-a" in err and "thread-b" in err
    code, out, err = run("convert", str(two_threads))
    assert code == 2 and "--thread ID" in err and "thread-a, thread-b" in err


def test_one_thread_into_a_folder(two_threads: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, _ = run("convert", str(two_threads), "--thread", "thread-a", "-o", f"{out}/")
    assert code == 0
    assert [p.name for p in out.rglob("*.asr.jsonl")] == ["thread-a.asr.jsonl"]
    code, _, err = run("convert", str(two_threads), "--thread", "zz", "-o", f"{tmp_path / 'other'}/")
    assert code == 2 and f"no thread zz in {two_threads}" in err and "thread-a" in err
    assert not list((tmp_path / "other").rglob("*.asr.jsonl"))


def test_a_wrong_agent_is_an_error_naming_the_right_one(tmp_path: Path) -> None:
    code, out, err = run("convert", str(CASE), "--agent", "claude-code")
    assert code == 1 and out == ""
    assert "claude-code recognises 0 of its" in err and "looks like a codex session log" in err
    target = tmp_path / "out.asr.jsonl"
    assert run("convert", str(CASE), "--agent", "openclaw", "-o", str(target))[0] == 1
    assert list(tmp_path.iterdir()) == []
    assert run("convert", str(CASE), "--agent", "codex")[0] == 0


def test_our_own_output_is_not_converted_again(tmp_path: Path) -> None:
    stream = tmp_path / "session.asr.jsonl"
    assert run("convert", str(SUBAGENTS), "-o", str(stream))[0] == 0
    for agent in ((), ("--agent", "claude-code"), ("--agent", "gemini-cli")):
        code, out, err = run("convert", str(stream), *agent)
        assert code == 1 and out == "" and "is an ASR stream" in err, agent


def test_unknown_file_lists_known_agents(tmp_path: Path) -> None:
    png = tmp_path / "picture.jsonl"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    code, _, err = run("convert", str(png))
    assert code == 1
    assert "cannot tell which agent" in err and "codex" in err and "claude-code" in err
    assert "Traceback" not in err


def test_forced_wrong_agent_is_one_clear_line(tmp_path: Path) -> None:
    other = tmp_path / "x.jsonl"
    other.write_bytes(b'{"hello": "world"}\n')
    code, _, err = run("convert", str(other), "--agent", "codex")
    assert code == 1 and err.startswith("asr: error:") and "Traceback" not in err


def test_missing_file_url_and_unknown_agent_are_usage_errors() -> None:
    code, _, err = run("convert", "/nonexistent/rollout.jsonl")
    assert code == 2 and "no such file" in err and "Traceback" not in err
    for url in ("s3://bucket/rollout.jsonl", "https://example.com/x.jsonl"):
        code, _, err = run("convert", url)
        assert code == 2 and "URLs are not supported" in err and "local file" in err
    code, _, err = run("convert", str(CASE), "--agent", "nope")
    assert code == 2 and "'nope' is not one of" in err and "codex" in err


def test_gzip_input_reads_like_zstd(tmp_path: Path) -> None:
    packed = tmp_path / "rollout.jsonl.gz"
    packed.write_bytes(gzip.compress(CASE.read_bytes()))
    code, out, err = run("convert", str(packed))
    assert (code, err) == (0, "")
    plain = run("convert", str(CASE))[1]
    assert out.splitlines()[1:] == plain.splitlines()[1:]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed.read_bytes()[:-40])
    code, out, err = run("convert", str(cut))
    assert "Traceback" not in err and ("gzip" in err or code == 1)


def test_a_closed_pipe_exits_quietly_with_141(tmp_path: Path) -> None:
    lines = CASE.read_bytes().splitlines(keepends=True)
    big = tmp_path / "big.jsonl"
    big.write_bytes(lines[0] + b"".join(lines[1:]) * 400)
    command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", "convert", str(big)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(100)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert err == b""


def test_stream_file_names_cannot_escape() -> None:
    for key in ("../../etc/passwd", "/abs/path", "codex:..", "a\x00b", "x" * 1000):
        name = stream_file_name(key)
        assert "/" not in name and "\x00" not in name and not name.startswith(".") and len(name) < 256


def test_detection_refuses_every_golden_stream() -> None:
    from asr_adapters import UnknownAgentError, registry
    from asr_adapters.core.source import Source

    streams = sorted(GOLDEN.rglob("expected*.asr.jsonl"))
    assert streams
    for path in streams:
        with pytest.raises(UnknownAgentError, match="is an ASR stream"):
            registry.detect(Source(path))


def test_folder_names_never_collide_and_are_capped(tmp_path: Path) -> None:
    import sqlite3

    from golden_support import sql_script

    (case,) = [c for c in golden_cases("t3code") if c.name == "v1-two-threads"]
    script = sql_script(case.input)
    long_id = "é" * 300  # 600 bytes of UTF-8
    for number, (first, second) in enumerate((("thread_a", "thread?a"), (long_id, long_id + "?"))):
        database = tmp_path / f"state-{number}.sqlite"
        connection = sqlite3.connect(database)
        connection.executescript(script.replace("thread-a", first).replace("thread-b", second))
        connection.commit()
        connection.close()
        out = tmp_path / f"out-{number}"
        code, _, err = run("convert", str(database), "-o", f"{out}/")
        assert code == 0, err
        written = sorted(out.rglob("*.asr.jsonl"))
        assert len(written) == 2 and all(len(p.name.encode()) <= 130 for p in written)
        sessions = {orjson.loads(p.read_bytes().splitlines()[0])["session"] for p in written}
        assert len(sessions) == 2


def test_a_database_with_one_thread_is_written_on_stdout(tmp_path: Path) -> None:
    cases = [c for c in golden_cases("t3code") if c.input.suffix == ".sql" and len(c.expected_files()) == 1]
    if not cases:
        pytest.skip("no single-thread T3 Code golden case")
    case = cases[0]
    database = materialize_input(case, tmp_path)
    code, out, err = run("convert", str(database), "--stats")
    assert code == 0, err
    expected = case.expected_files()[0].read_bytes().decode()
    assert out.splitlines()[1:] == expected.splitlines()[1:]
    stats = orjson.loads(err.strip().splitlines()[-1])
    assert (stats["streams_found"], stats["streams_written"]) == (1, 1)
    assert stats["records_written"] == len(out.splitlines())


def test_dash_output_is_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("convert", str(CASE), "-o", "-")
    assert code == 0 and out == run("convert", str(CASE))[1] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf"], ids=["0-bytes", "blank-lines", "bom-only"])
def test_an_empty_file_says_so(content: bytes, tmp_path: Path) -> None:
    """Before: "cannot tell which agent wrote this file; known agents: ..." (issue #32 item 6)."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(content)
    code, out, err = run("convert", str(empty))
    assert code == 1 and out == ""
    assert err == f"asr: error: {empty}: the file is empty\n"
