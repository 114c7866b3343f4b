"""Hostile archives: FTS5 syntax in the text, NULs, a 10 MB part, quotes in every id, escape
sequences, broken lines and files that are no streams are indexed and searched without error;
a malformed query is one clear error line and exit 2."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.index import build_index
from index.conftest import header, write_stream

SYNTAX = "NEAR(alpha beta) AND OR NOT * ^ \"unbalanced : ( ) {text}: -minus col:umn 'quote"
QUOTED = 'it\'s "quoted" `tick` $(x)'
BIG_WORDS = " ".join(f"w{i % 9973}" for i in range(1_800_000))


def _message(text: str, **extra: object) -> dict[str, object]:
    return {
        "type": "message",
        "messageId": f"m-{QUOTED}",
        "role": "user",
        "author": "human",
        "content": [{"type": "text", "text": text}],
        **extra,
    }


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    archive = tmp_path / "archive"
    write_stream(
        archive / "codex" / f"{QUOTED}.asr.jsonl",
        [
            header(f"codex:{QUOTED}", title=QUOTED, cwd=f"/w/{QUOTED}"),
            _message(f"syntax {SYNTAX} end"),
            _message("before\x00nulword\x00after"),
            _message("\x1b[31m redword \x1b[0m \u202eevil\r\nline"),
            _message(BIG_WORDS + " bigneedle"),
            {"type": "tool_call", "callId": f"c-{QUOTED}", "name": f"t-{QUOTED}", "input": {"cmd": SYNTAX}},
            {"type": "tool_result", "callId": f"c-{QUOTED}", "content": [{"type": "text", "text": "done"}]},
            {"type": "message", "messageId": "x", "role": "user", "content": "not a list"},
            {"type": "message", "messageId": "y", "role": "user", "content": [1, None, "s", {"no": "type"}]},
            {"type": "message", "seq": "NaN", "id": 7, "messageId": 8, "role": 9, "content": [{"type": "text"}]},
            {
                "type": "message",
                "messageId": "u",
                "content": [],
                "usage": {"inputTokens": 2**64 - 1, "outputTokens": -1},
            },
            {"type": "message", "messageId": "d", "content": [{"type": "data", "data": _nested(150)}]},
            {"type": "future_type", "content": [{"type": "text", "text": "unknownrecordword"}]},
        ],
    )
    bad = archive / "codex" / "bad-lines.asr.jsonl"
    write_stream(bad, [header("codex:bad"), _message("survivorword")])
    with open(bad, "ab") as handle:
        handle.write(b"not json\n[1, 2]\n" + orjson.dumps(_message("afterbadword")) + b"\n" + b'{"type": "mess')
    (archive / "codex" / "not-a-stream.asr.jsonl").write_bytes(b'{"type": "message"}\n')
    (archive / "codex" / "empty.asr.jsonl").write_bytes(b"")
    (archive / "codex" / "binary.asr.jsonl").write_bytes(bytes(range(256)) * 4)
    index = tmp_path / "index.sqlite"
    return archive, index


def _nested(depth: int) -> object:
    value: object = "deepword"
    for _ in range(depth):
        value = {"k": value}
    return value


def _search(index: Path, *args: str) -> tuple[int, list[dict], str]:
    result = CliRunner().invoke(main, ["search", *args, "--index", str(index), "--json"])
    return result.exit_code, [orjson.loads(line) for line in result.stdout.splitlines()], result.stderr


def test_hostile_text_is_indexed_and_searched(hostile: tuple[Path, Path]) -> None:
    archive, index = hostile
    report = build_index(archive, index)
    problems = "\n".join(report.problems)
    assert "not-a-stream.asr.jsonl: line 1: not an ASR stream" in problems
    assert "bad-lines.asr.jsonl: 3 unreadable lines; the first: line 3: not JSON" in problems
    assert "binary.asr.jsonl" in problems
    for word in ("survivorword", "afterbadword", "nulword", "redword", "bigneedle", "deepword"):
        code, hits, err = _search(index, word)
        assert (code, err) == (0, ""), word
        assert len(hits) == 1, word
    code, hits, _ = _search(index, "bigneedle")
    assert len(hits[0]["snippet"]) < 1000
    assert hits[0]["session"] == f"codex:{QUOTED}"
    assert hits[0]["link"].endswith(f"{QUOTED}.asr.jsonl#r5")
    code, hits, _ = _search(index, "unknownrecordword")
    assert code == 1, "a record type the index does not know is skipped (ASR-218)"
    for text in (SYNTAX, QUOTED, "nul\x00word", '"', "*", "NEAR(", ")", "'", "col:umn"):
        code, hits, err = _search(index, text, "--literal")
        assert code in (0, 1) and err == "", (text, err)
    code, hits, _ = _search(index, f"syntax {SYNTAX}", "--literal")
    assert [h["record_id"] for h in hits] == ["r2"]
    code, hits, _ = _search(index, "unbalanced", "--tool", f"t-{QUOTED}")
    assert [h["record_type"] for h in hits] == ["tool_call"]
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('integrity-check')")
    assert conn.execute("SELECT max(chars) FROM parts").fetchone()[0] > 10_000_000
    assert (
        conn.execute("SELECT text FROM parts WHERE text LIKE 'before%'").fetchone()[0] == "before\x00nulword\x00after"
    )
    usage = conn.execute("SELECT input_tokens, output_tokens FROM usage").fetchall()
    assert usage == [(None, -1)], "an integer SQLite cannot hold is left out, not an error"


def test_the_terminal_never_gets_escape_sequences(hostile: tuple[Path, Path]) -> None:
    archive, index = hostile
    build_index(archive, index)
    for query in ("redword", "nulword", "syntax"):
        result = CliRunner().invoke(main, ["search", query, "--index", str(index)])
        assert result.exit_code == 0
        assert not any(c in result.stdout for c in "\x1b\x00\u202e\r"), query
    result = CliRunner().invoke(main, ["search", "bigneedle", "--index", str(index)])
    assert "asr show '" in result.stdout and "#r5' --open" in result.stdout


@pytest.mark.parametrize(
    "query", ['"unterminated', "AND", "foo:bar", "(", "it's", "NEAR(", "a OR", "*", "\x00", "col:umn -x"]
)
def test_a_malformed_query_is_one_error_line_and_exit_2(hostile: tuple[Path, Path], query: str) -> None:
    archive, index = hostile
    build_index(archive, index)
    result = CliRunner().invoke(main, ["search", query, "--index", str(index)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("asr: error: bad search query"), result.stderr
    assert "Traceback" not in result.output


def test_compressed_streams_are_read_and_links_are_not_followed(tmp_path: Path) -> None:
    import gzip
    import os

    import zstandard

    archive = tmp_path / "archive"
    plain = write_stream(archive / "plain.asr.jsonl", [header("codex:x"), _message("zstdword")])
    data = plain.read_bytes()
    plain.unlink()
    (archive / "x.asr.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    (archive / "y.asr.jsonl.gz").write_bytes(gzip.compress(data.replace(b"zstdword", b"gzipword")))
    outside = write_stream(tmp_path / "outside" / "o.asr.jsonl", [header("codex:o"), _message("outsideword")])
    os.symlink(outside, archive / "link.asr.jsonl")
    index = tmp_path / "index.sqlite"
    report = build_index(archive, index)
    assert report.problems == [f"{archive / 'link.asr.jsonl'}: is a symbolic link; links are not followed"]
    assert [len(_search(index, w)[1]) for w in ("zstdword", "gzipword", "outsideword")] == [1, 1, 0]
