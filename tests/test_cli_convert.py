"""The ``asr convert`` command: output, accounting, and one-line errors instead of tracebacks."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main, stream_file_name

CASE = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_convert_to_stdout_and_stats_sum() -> None:
    code, out, err = run("convert", str(CASE), "--stats")
    assert code == 0
    records = [orjson.loads(line) for line in out.splitlines()]
    assert records[0]["type"] == "session" and [r["seq"] for r in records] == list(range(1, len(records) + 1))
    stats = orjson.loads(err.strip().splitlines()[-1])
    outcomes = sum(stats[k] for k in ("records", "vendor", "folded", "duplicates", "unreadable"))
    assert outcomes == stats["native_items"] == sum(1 for line in CASE.read_bytes().splitlines() if line.strip())


def test_convert_to_file_and_folder(tmp_path: Path) -> None:
    target = tmp_path / "one.asr.jsonl"
    assert run("convert", str(CASE), "-o", str(target))[0] == 0
    folder = tmp_path / "out"
    folder.mkdir()
    assert run("convert", str(CASE), "-o", str(folder))[0] == 0
    written = list(folder.iterdir())
    assert len(written) == 1 and written[0].read_bytes() == target.read_bytes()


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


def test_missing_file_and_unknown_agent() -> None:
    code, _, err = run("convert", "/nonexistent/rollout.jsonl")
    assert code == 1 and "asr: error:" in err and "Traceback" not in err
    code, _, err = run("convert", str(CASE), "--agent", "nope")
    assert code == 1 and "unknown agent" in err


def test_stream_file_names_cannot_escape() -> None:
    for key in ("../../etc/passwd", "/abs/path", "codex:..", "a\x00b", "x" * 1000):
        name = stream_file_name(key)
        assert "/" not in name and "\x00" not in name and not name.startswith(".") and len(name) < 256
