"""``asr validate`` on hostile input (issue 21.9): the same line-length limit as convert,
``/dev/zero``, sparse NUL files and decompression bombs give one clear finding in bounded memory
(RLIMIT_AS on a child process), and findings per stream are capped."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from limited import run_limited
from test_bombs import bomb

from asr_adapters.core import source as source_module
from asr_adapters.validate import validate
from asr_adapters.validate.limits import MAX_FINDINGS

ROOT = Path(__file__).resolve().parents[2]
STREAM = ROOT / "golden" / "codex" / "20-zstd-compressed" / "expected.asr.jsonl"


def _finding(result: object) -> str:
    stdout = result.stdout.decode()  # type: ignore[attr-defined]
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])  # type: ignore[attr-defined]
    assert b"Traceback" not in result.stderr and b"MemoryError" not in result.stderr  # type: ignore[attr-defined]
    (line,) = stdout.splitlines()
    return line


@pytest.mark.parametrize("kind", ["/dev/zero", "sparse", "bomb"])
def test_endless_sparse_and_bomb_inputs_give_one_clear_finding(kind: str, tmp_path: Path) -> None:
    path = Path(kind)
    if kind == "sparse":
        path = tmp_path / "sparse.asr.jsonl"
        with open(path, "wb") as handle:
            handle.truncate(16 << 30)  # 16 GiB of NULs, nothing on disk
    elif kind == "bomb":
        path = tmp_path / "bomb.asr.jsonl.zst"
        path.write_bytes(bomb(8 << 30))
    line = _finding(run_limited("validate", str(path), memory=768 << 20, cpu_seconds=30))
    assert line.startswith(f"{path}") and "PROFILE-jsonl" in line
    if kind == "bomb":
        assert "cannot read: zstd data expands more than 1000 times" in line and "decompression bomb" in line, line
    else:
        assert line.endswith(
            "not an ASR JSON Lines stream: a line longer than the 268435456-byte limit;"
            " the rest of the stream was not read"
        ), line


def test_an_over_long_line_after_records_is_a_finding_and_ends_the_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "MAX_LINE_BYTES", 1 << 20)
    data = STREAM.read_bytes() + b'{"type":"x","text":"' + b"a" * (3 << 20) + b'"}\n' + STREAM.read_bytes()
    findings = validate(data)
    assert [f.message for f in findings] == [
        "a line longer than the 1048576-byte limit; the rest of the stream was not read"
    ]
    assert findings[0].line == len(STREAM.read_bytes().splitlines()) + 1
    assert validate(STREAM.read_bytes()) == []  # lines under the limit, even several blocks long, are read


def test_findings_per_stream_are_capped_and_counted() -> None:
    lines = STREAM.read_bytes().splitlines()
    bad = [orjson.dumps({**orjson.loads(lines[1]), "seq": "x"}) for _ in range(MAX_FINDINGS + 500)]
    findings = validate(b"\n".join([lines[0], *bad]) + b"\n")
    assert len(findings) == MAX_FINDINGS + 1
    last = findings[-1]
    assert last.rule == "PROFILE-findings" and last.message.endswith(f"the first {MAX_FINDINGS} are listed)")
    assert "more findings not shown" in last.message and f"the first {MAX_FINDINGS} are listed" in last.message


def test_a_stream_of_warnings_past_the_cap_is_still_valid() -> None:
    """The note counting findings not shown is an error only when one of them is: a stream with
    more than 1,000 dangling tool results (warnings) passes (before, the note made it fail)."""
    lines = STREAM.read_bytes().splitlines()
    results = [
        orjson.dumps({"type": "tool_result", "seq": n, "id": f"r{n}", "callId": f"call_{n}", "content": []})
        for n in range(len(lines) + 1, len(lines) + MAX_FINDINGS + 11)
    ]
    findings = validate(b"\n".join([*lines, *results]) + b"\n")
    assert len(findings) == MAX_FINDINGS + 1 and findings[-1].rule == "PROFILE-findings"
    assert not [f for f in findings if f.is_error]
    broken = [orjson.dumps({**orjson.loads(r), "seq": "x"}) for r in results]
    findings = validate(b"\n".join([*lines, *broken]) + b"\n")
    assert findings[-1].rule == "PROFILE-findings" and findings[-1].is_error, "errors not shown are errors"


def test_a_record_past_the_nesting_limit_is_a_finding() -> None:
    """Issue 25.11: the one limit (core/nesting.py) holds for streams read, not only written."""
    from asr_adapters.core.nesting import MAX_NESTING, dumps

    lines = STREAM.read_bytes().splitlines()
    for levels, rules in ((MAX_NESTING, []), (MAX_NESTING + 1, ["PROFILE-nesting"])):
        value: object = "x"
        for _ in range(levels - 1):  # the record is the first level
            value = [value]
        n = len(lines) + 1
        record = {"type": "vendor", "seq": n, "id": f"r{n}", "schema": "com.openai.codex/x", "data": value}
        findings = validate(b"\n".join([*lines, dumps(record)]) + b"\n")
        assert [f.rule for f in findings] == rules
        if rules:
            assert findings[0].line == n and findings[0].seq == n
            assert "nested deeper than 1000 levels" in findings[0].message
