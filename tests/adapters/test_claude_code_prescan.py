"""The header pre-pass reads the head's whole lines first and the file's lines after them only
when the facts are not in the head: the facts must be the same wherever in the first lines they
sit (in the head, in a line the head cuts, past it), with blank lines and CRLF ends around."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from asr_adapters.adapters.claude_code.prescan import prescan
from asr_adapters.core.source import HEAD_SIZE, Source


def _line(**members: object) -> bytes:
    return orjson.dumps(members)


@pytest.mark.parametrize("filler", [0, 40, HEAD_SIZE // 2, HEAD_SIZE - 60, HEAD_SIZE + 5])
@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_facts_past_the_head_are_found_as_in_it(tmp_path: Path, filler: int, end: bytes) -> None:
    lines = [
        _line(type="summary", summary="x" * filler),  # pushes what follows to or past the head's end
        b"   ",
        _line(type="user", timestamp="2026-01-02T03:04:05.678Z", sessionId="s-1"),
        _line(type="file-history-snapshot", messageId="m" * 300),
        _line(type="user", cwd="/work/project", version="2.1.0", sessionId="s-2"),
    ]
    path = tmp_path / "s-1.jsonl"
    path.write_bytes(end.join(lines) + end)
    source = Source(path)
    source.head()  # detection reads it first, as a conversion does
    facts = prescan(source)
    assert (facts.session_id, facts.ts, facts.cwd, facts.version) == (
        "s-1",
        "2026-01-02T03:04:05.678Z",
        "/work/project",
        "2.1.0",
    )
    piped = prescan(Source(path.read_bytes()))
    assert (piped.session_id, piped.cwd) == ("s-1", "/work/project")
