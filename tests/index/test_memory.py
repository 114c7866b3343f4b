"""Indexing a large stream keeps memory bounded: ``tracemalloc``'s peak does not grow with the
stream's size (the rows held before a write are capped; lowered here so that the cap, not the
stream, is what the two sizes share). A memory test, not a timing test."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import orjson
import pytest

from asr_adapters.index import build, build_index, rows
from index.conftest import header

# heavy: a large stream indexed under tracemalloc (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy

MB = 1 << 20
MARGIN = 1 * MB


def _stream(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    seq = 0
    with open(path, "wb") as handle:

        def put(record: dict[str, object]) -> int:
            nonlocal seq
            seq += 1
            line = orjson.dumps({"seq": seq, "id": f"r{seq}", **record}) + b"\n"
            handle.write(line)
            return len(line)

        written += put({"type": "session", **header("codex:big")})
        n = 0
        while written < size:
            n += 1
            text = f"turn {n} " + "lorem ipsum dolor sit amet " * 8
            written += put({"type": "message", "messageId": f"u{n}", "role": "user", "author": "human",
                            "content": [{"type": "text", "text": text}]})  # fmt: skip
            written += put({"type": "tool_call", "callId": f"c{n}", "name": "shell", "input": {"command": f"ls {n}"}})
            if n % 10:  # every tenth call is never answered
                written += put({"type": "tool_result", "callId": f"c{n}", "isError": False,
                                "content": [{"type": "text", "text": text * 2}]})  # fmt: skip
    return path


def _peak(archive: Path, index: Path) -> int:
    tracemalloc.start()
    try:
        build_index(archive, index)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_stream_is_indexed_in_bounded_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "FLUSH_ROWS", 1000)
    monkeypatch.setattr(build, "FLUSH_CHARS", 256 << 10)
    monkeypatch.setattr(rows, "MAX_PENDING", 64)
    small = _stream(tmp_path / "small" / "codex" / "s.asr.jsonl", 2 * MB)
    large = _stream(tmp_path / "large" / "codex" / "s.asr.jsonl", 16 * MB)
    small_peak = _peak(small.parent.parent, tmp_path / "small.sqlite")
    large_peak = _peak(large.parent.parent, tmp_path / "large.sqlite")
    assert large_peak - small_peak < MARGIN, (small_peak, large_peak)
