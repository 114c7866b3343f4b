"""`asr validate`: exit codes, the two output formats, files that are not streams, several files."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.model.order import canonical_order

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

GOOD = [
    {
        "type": "session",
        "seq": 1,
        "id": "r1",
        "session": "codex:019a3c2e",
        "agent": {"name": "codex"},
        "producer": {"name": "asr-adapters", "version": "0.1.0"},
    },
    {
        "type": "message",
        "seq": 2,
        "id": "r2",
        "messageId": "m1",
        "role": "user",
        "content": [{"type": "text", "text": "Fix the failing parser test."}],
    },
]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(canonical_order(r)) + b"\n" for r in records))
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return _write(tmp_path / "good.asr.jsonl", GOOD)


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    return _write(tmp_path / "bad.asr.jsonl", [GOOD[0], {**GOOD[1], "audience": "everyone"}])


def run(*args: str | Path, stdin: bytes | None = None) -> tuple[int, str, str, BaseException | None]:
    result = CliRunner().invoke(main, ["validate", *map(str, args)], input=stdin)
    exception = None if isinstance(result.exception, SystemExit) else result.exception
    return result.exit_code, result.stdout, result.stderr, exception


def test_a_valid_stream_exits_0(good: Path) -> None:
    code, out, err, exc = run(good)
    assert (code, out, exc) == (0, "", None)
    assert "no findings" in err


def test_a_broken_stream_exits_1_and_names_rule_seq_and_file(bad: Path) -> None:
    code, out, _, exc = run(bad)
    assert (code, exc) == (1, None)
    assert out.splitlines() == [
        f"{bad}:2: seq 2 ASR-204: audience must be model, user, both or unknown, not 'everyone'"
    ]


def test_json_format(good: Path, bad: Path) -> None:
    code, out, _, exc = run("--format", "json", good, bad)
    assert (code, exc) == (1, None)
    payload = orjson.loads(out)
    assert payload["files"] == 2
    assert payload["ok"] is False
    assert payload["findings"] == [
        {
            "file": str(bad),
            "line": 2,
            "seq": 2,
            "level": "error",
            "rule": "ASR-204",
            "message": "audience must be model, user, both or unknown, not 'everyone'",
        }
    ]
    code, out, _, _ = run("--format", "json", good)
    assert code == 0
    assert orjson.loads(out) == {"files": 1, "findings": [], "ok": True}


def test_several_files_are_all_checked(tmp_path: Path, good: Path, bad: Path) -> None:
    other = _write(tmp_path / "other.asr.jsonl", [GOOD[0], {**GOOD[1], "status": "done"}])
    code, out, _, _ = run(bad, good, other)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{bad}:2: seq 2 ASR-204")
    assert lines[1].startswith(f"{other}:2: seq 2 ASR-206")
    assert run(good, good)[0] == 0


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("notes.md", b"# Notes\n\nThis is not a stream.\n"),
        ("doc.json", b'{\n  "type": "session",\n  "seq": 1\n}\n'),
        ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8),
        ("random.bin", bytes(range(255, -1, -1)) * 16),
        ("broken.asr.jsonl.zst", b"\x28\xb5\x2f\xfd" + b"\x00not zstd" * 4),
    ],
)
def test_a_file_that_is_not_jsonl_gives_one_clear_finding(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    code, out, err, exc = run(path)
    assert exc is None
    assert code == 1
    assert "Traceback" not in out + err
    (line,) = out.splitlines()
    assert line.startswith(f"{path}:") and "PROFILE-jsonl" in line
    assert "not an ASR JSON Lines stream" in line or "cannot read" in line


def test_a_missing_file_is_a_usage_error_not_a_finding(tmp_path: Path) -> None:
    code, out, err, exc = run(tmp_path / "nope.asr.jsonl")
    assert exc is None
    assert code == 2 and out == ""
    assert "Traceback" not in out + err
    assert "nope.asr.jsonl: no such file" in err


def test_urls_are_refused_naming_what_is_supported() -> None:
    code, out, err, _ = run("s3://bucket/session.asr.jsonl")
    assert code == 2 and out == "" and "URLs are not supported" in err and "local file or folder" in err


def test_a_native_log_is_first_of_all_not_an_asr_stream() -> None:
    native = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
    for args, stdin in (((native,), None), (("-",), native.read_bytes())):
        code, out, _, exc = run(*args, stdin=stdin)
        assert (code, exc) == (1, None)
        (line,) = out.splitlines()
        assert "not an ASR stream: it looks like a codex session log" in line and "asr convert" in line


def test_a_folder_validates_every_stream_in_it(tmp_path: Path, good: Path, bad: Path) -> None:
    archive = tmp_path / "archive"
    (archive / "codex" / "parent").mkdir(parents=True)
    _write(archive / "codex" / "one.asr.jsonl", GOOD)
    _write(archive / "codex" / "parent" / "child.asr.jsonl", [GOOD[0], {**GOOD[1], "audience": "everyone"}])
    (archive / "_manifest.json").write_text("{}")
    (archive / "codex" / ".asr-tmp-1-2").write_text("half")
    code, out, err, _ = run(archive)
    assert code == 1
    assert out.splitlines() == [
        f"{archive / 'codex' / 'parent' / 'child.asr.jsonl'}:2: seq 2 ASR-204: audience must be model, user, both "
        "or unknown, not 'everyone'"
    ]
    assert "in 2 stream(s)" in err
    (archive / "codex" / "parent" / "child.asr.jsonl").unlink()
    assert run(archive)[0] == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err, _ = run(empty)
    assert code == 2 and "no ASR streams" in err


def test_compressed_streams_validate(tmp_path: Path, good: Path) -> None:
    import gzip

    packed = tmp_path / "good.asr.jsonl.gz"
    packed.write_bytes(gzip.compress(good.read_bytes()))
    assert run(packed)[0] == 0


def test_stdin(good: Path, bad: Path) -> None:
    assert run("-", stdin=good.read_bytes())[0] == 0
    code, out, _, _ = run("-", stdin=bad.read_bytes())
    assert code == 1
    assert "seq 2 ASR-204" in out


def test_warnings_print_but_fail_only_with_strict(tmp_path: Path) -> None:
    orphan = {"type": "tool_result", "seq": 3, "id": "r3", "callId": "gone", "content": []}
    path = _write(tmp_path / "orphan.asr.jsonl", [*GOOD, orphan])
    code, out, err, exc = run(path)
    assert (code, exc) == (0, None)
    assert "PROFILE-ref (warning)" in out and "'gone'" in out
    assert "0 error(s), 1 warning(s)" in err
    code, out, _, _ = run("--strict", path)
    assert code == 1 and "PROFILE-ref (warning)" in out
    code, out, _, _ = run("--format", "json", path)
    payload = orjson.loads(out)
    assert code == 0 and payload["ok"] is True
    assert [(f["rule"], f["level"], f["seq"]) for f in payload["findings"]] == [("PROFILE-ref", "warning", 3)]
    code, out, _, _ = run("--format", "json", "--strict", path)
    assert code == 1 and orjson.loads(out)["ok"] is False


def test_an_error_fails_with_or_without_strict(bad: Path) -> None:
    assert run(bad)[0] == 1
    assert run("--strict", bad)[0] == 1
