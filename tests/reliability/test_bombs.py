"""Decompression bombs (issue 21.8): every zstd decompression has a ratio and a size cap. A bomb
file is one clear error for that source, in bounded memory (checked by RLIMIT_AS on a child
process, not by timing); a bomb ``event_zstd`` blob is that row unreadable, the rest converts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
import zstandard
from corpus import SQLITE_INPUTS, build_sqlite
from harness import convert
from limited import one_error, run_limited

from asr_adapters.core.source import MAX_ZSTD_RATIO, Source, ZstdBomb, decompress_zstd

ROOT = Path(__file__).resolve().parents[2]


def bomb(expanded: int = 1 << 30) -> bytes:
    """zstd frames of zeros: a few KB that expand to ``expanded`` bytes (built from one 64 MiB
    frame repeated, so building it is quick)."""
    frame = zstandard.ZstdCompressor(level=1).compress(b"\0" * (64 << 20))
    return frame * (expanded // (64 << 20))


@pytest.mark.heavy  # tens of MB decompressed (.ci/run runs -m heavy)
def test_a_bomb_file_is_one_error_in_bounded_memory(tmp_path: Path) -> None:
    data = bomb(8 << 30)  # 8 GiB of zeros, no newline, in about 128 KB
    assert len(data) < (1 << 20)
    path = tmp_path / "session.jsonl.zst"
    path.write_bytes(data)
    for agent in ("codex", "claude-code", "openclaw", "gemini-cli"):
        error = one_error(run_limited("convert", str(path), "--agent", agent, "-o", str(tmp_path / "out.jsonl")))
        # Codex refuses it from its first bytes (no rollout header); the others read on to the cap
        assert agent == "codex" or f"more than {MAX_ZSTD_RATIO} times" in error, error
    one_error(run_limited("convert", str(path), "-o", str(tmp_path / "out.jsonl")))  # detection: sniffs a head


def test_a_bomb_after_good_lines_is_still_one_error() -> None:
    good = (ROOT / "golden" / "codex" / "20-zstd-compressed" / "input.jsonl.zst").read_bytes()
    with pytest.raises(ZstdBomb, match="decompression bomb"):
        for _ in Source(good + bomb(256 << 20)).lines():
            pass


@pytest.mark.heavy  # tens of MB decompressed (.ci/run runs -m heavy)
def test_ordinary_compression_is_not_a_bomb() -> None:
    """A highly repetitive but real log (the same event 200,000 times) stays under the ratio."""
    line = orjson.dumps({"type": "event_msg", "payload": {"type": "token_count", "info": None}}) + b"\n"
    text = b"".join(line[:-2] + b',"n":%d}\n' % i for i in range(200_000))
    packed = zstandard.ZstdCompressor(level=19).compress(text)
    assert len(text) / len(packed) < MAX_ZSTD_RATIO
    assert sum(1 for _ in Source(packed).lines()) == 200_000


def test_a_blob_is_capped_by_size_and_ratio() -> None:
    assert decompress_zstd(zstandard.ZstdCompressor().compress(b"x" * 1000), 1000) == b"x" * 1000
    with pytest.raises(ValueError, match="1000-byte limit"):
        decompress_zstd(zstandard.ZstdCompressor().compress(b"x" * 1001), 1000)
    with pytest.raises(ValueError, match="decompression bomb"):
        decompress_zstd(bomb(128 << 20), 1 << 40)


def test_an_openclaw_event_zstd_bomb_is_one_unreadable_row(tmp_path: Path) -> None:
    _, sql = SQLITE_INPUTS["openclaw-sqlite"]
    (tmp_path / "db").mkdir()
    path = build_sqlite(sql, tmp_path / "db" / "openclaw-agent.sqlite")
    before = convert(path, tmp_path / "out0", "--agent", "openclaw").stats
    assert before is not None
    with sqlite3.connect(path) as db:
        session, seq = db.execute("SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id").fetchone()
        db.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd)"
            " VALUES (?, ?, NULL, 0, ?)",
            (session, seq + 1, bomb(1 << 30)),
        )
    db.close()
    result = run_limited("convert", str(path), "--agent", "openclaw", "-o", f"{tmp_path / 'out'}/", "--stats")
    assert result.returncode == 0, result.stderr[-2000:]
    assert b"decompression bomb" in result.stderr
    outcome = convert(path, tmp_path / "out2", "--agent", "openclaw")
    assert outcome.stats is not None and outcome.stats["unreadable"] == before["unreadable"] + 1
    assert [w for w in outcome.warnings if "event_zstd unreadable" in w and "decompression bomb" in w]


def test_a_gzip_bomb_is_refused_like_a_zstd_one() -> None:
    """gzip inputs (read like .zst) get the same caps: deflate's best ratio (~1030:1 on zeros)
    passes the 1000:1 cap once past the floor, so 96 MiB of zeros in ~100 KB is refused."""
    import gzip

    data = gzip.compress(b"\0" * (96 << 20), compresslevel=9)
    assert len(data) * MAX_ZSTD_RATIO < 96 << 20
    with pytest.raises(ZstdBomb, match="gzip data expands more than"):
        for _ in Source(data).lines():
            pass


def test_ordinary_gzip_reads_whole() -> None:
    import gzip

    lines = [orjson.dumps({"n": i}) for i in range(1000)]
    data = gzip.compress(b"\n".join(lines) + b"\n") + gzip.compress(b'{"n":"second member"}\n')
    assert [raw for _, raw in Source(data).lines()] == [*lines, b'{"n":"second member"}']
