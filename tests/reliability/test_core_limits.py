"""The shared core on input it cannot read whole: over-long lines, cut or corrupt zstd data,
data nested deeper than the writer's native limit."""

from __future__ import annotations

import io
import os
from pathlib import Path

import orjson
import pytest
import zstandard
from limited import run_limited

from asr_adapters.convert import Conversion
from asr_adapters.core import source as source_module
from asr_adapters.core.accounting import MAX_DIAGNOSTICS, Accounting, Diagnostic, Diagnostics
from asr_adapters.core.errors import InputError
from asr_adapters.core.nesting import MAX_NESTING
from asr_adapters.core.source import BadLine, Source
from asr_adapters.stream.writer import StreamWriter, dumps

ROOT = Path(__file__).resolve().parents[2]
ZST = ROOT / "golden" / "codex" / "20-zstd-compressed" / "input.jsonl.zst"


def _plain() -> bytes:
    with Source(ZST).open() as stream:
        return stream.read()


def test_over_long_line_is_one_bad_line_and_is_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "MAX_LINE_BYTES", 64)
    data = b'{"a":1}\n' + b"x" * 5000 + b"\n" + b'{"b":2}\r\n' + b"y" * 100
    lines = list(Source(data).lines())
    assert [n for n, _ in lines] == [1, 2, 3, 4]
    assert lines[0][1] == b'{"a":1}' and lines[2][1] == b'{"b":2}'
    assert isinstance(lines[1][1], BadLine) and "5001 bytes" in lines[1][1].reason
    assert isinstance(lines[3][1], BadLine) and "100 bytes" in lines[3][1].reason


def test_over_long_line_is_reported_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "MAX_LINE_BYTES", 4096)
    lines = _plain().splitlines(keepends=True)
    data = b"".join(lines[:3]) + b'{"x":"' + b"z" * 10000 + b'"}\n' + b"".join(lines[3:])
    conversion = Conversion(data, "codex", as_dicts=True)
    records = [r for s in conversion.streams() for r in s.records]
    assert records and conversion.accounting.balanced()
    assert conversion.accounting.unreadable == 1
    (diagnostic,) = conversion.accounting.diagnostics
    assert diagnostic.line == 4 and "longer than the 4096-byte limit" in diagnostic.reason


def _many_blocks() -> bytes:
    """A Codex rollout of ~600 KB, so zstd writes several blocks and a cut keeps the first."""
    lines = _plain().splitlines(keepends=True)
    body = [lines[0]]
    for i in range(4000):
        body.append(
            orjson.dumps(
                {
                    "timestamp": "2025-09-01T10:00:00.000Z",
                    "type": "event_msg",
                    "payload": {"type": "agent_message", "message": f"note {i} " + "w" * (i % 97)},
                }
            )
            + b"\n"
        )
    return b"".join(body)


def test_cut_zstd_keeps_what_came_before_and_reports_the_cut() -> None:
    plain = _many_blocks()
    packed = zstandard.ZstdCompressor(level=1).compress(plain)
    cut = packed[: len(packed) * 2 // 3]
    conversion = Conversion(cut, "codex", as_dicts=True)
    records = [r for s in conversion.streams() for r in s.records]
    accounting = conversion.accounting
    assert accounting.balanced(), accounting.as_dict()
    assert len(records) > 100
    assert any("ends in the middle of a zstd frame" in d.reason for d in accounting.diagnostics)


def test_corrupt_zstd_tail_is_reported_not_raised() -> None:
    packed = zstandard.ZstdCompressor(level=1).compress(_many_blocks())
    corrupt = packed + b"\x28\xb5\x2f\xfd" + b"\xff" * 64  # a second frame that is garbage
    conversion = Conversion(corrupt, "codex", as_dicts=True)
    records = [r for s in conversion.streams() for r in s.records]
    assert len(records) > 100 and conversion.accounting.balanced()
    assert any("corrupt zstd data" in d.reason for d in conversion.accounting.diagnostics)


def test_several_zstd_frames_are_all_read() -> None:
    raw = ZST.read_bytes()
    single = list(Source(raw).lines())
    assert len(list(Source(raw + raw).lines())) == 2 * len(single)


@pytest.mark.parametrize("cut", [4, 10, 200])
def test_zstd_cut_before_anything_readable_says_so(cut: int) -> None:
    with pytest.raises(InputError, match="ends in the middle of a zstd frame"):
        list(Conversion(ZST.read_bytes()[:cut], as_dicts=True))


def test_single_document_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "MAX_DOCUMENT_BYTES", 100)
    with pytest.raises(InputError, match="100-byte limit"):
        Source(b"{" + b" " * 200 + b"}").read_all()


@pytest.mark.parametrize("depth", [254, 300, MAX_NESTING - 2])  # the record and its list: 2 more levels
def test_writer_writes_data_nested_beyond_orjson_limit(depth: int) -> None:
    value: object = []
    for _ in range(depth):
        value = [value]
    record = {"type": "vendor", "seq": 1, "id": "r1", "schema": "x/y", "data": value}
    out = io.BytesIO()
    StreamWriter(out).write_all([record])
    expected = b'{"type":"vendor","seq":1,"id":"r1","schema":"x/y","data":' + b"[" * (depth + 1)
    assert out.getvalue() == expected + b"]" * (depth + 1) + b"}\n" == dumps(record)


def test_writer_refuses_a_record_no_reader_could_read_back() -> None:
    """Issue 25.11: one limit for every command (core/nesting.py); a record past it is an error,
    never a line that validate, show and export cannot read."""
    value: object = []
    for _ in range(MAX_NESTING - 1):
        value = [value]
    record = {"type": "vendor", "seq": 1, "id": "r1", "schema": "x/y", "data": value}
    with pytest.raises(ValueError, match="record r1 is nested deeper than 1000 levels"):
        StreamWriter(io.BytesIO()).write_all([record])


def test_writer_writes_integers_beyond_64_bits() -> None:
    record = {"type": "vendor", "seq": 1, "id": "r1", "schema": "x/y", "data": {"n": 2**70}}
    out = io.BytesIO()
    StreamWriter(out).write_all([record])
    assert out.getvalue() == b'{"type":"vendor","seq":1,"id":"r1","schema":"x/y","data":{"n":1180591620717411303424}}\n'


class _Pipe(io.RawIOBase):
    """A once-readable, non-seekable stream, like stdin from a pipe."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(min(len(buffer), 1000))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("agent", [None, "codex"])
def test_zstd_from_a_pipe_is_sniffed_and_read_whole(agent: str | None) -> None:
    """A compressed stream read once (stdin): the sniff must not consume it. Uncompressible
    content makes it longer than the bytes kept for the sniff."""
    plain = _many_blocks()
    filler = orjson.dumps({"type": "event_msg", "payload": {"type": "zz", "noise": os.urandom(300_000).hex()}})
    lines = plain.splitlines(keepends=True)
    data = b"".join([lines[0], filler + b"\n", *lines[1:]])
    packed = zstandard.ZstdCompressor(level=1).compress(data)
    assert len(packed) > 300_000
    expected = [r for s in Conversion(packed, "codex", as_dicts=True).streams() for r in s.records]
    stream = io.BufferedReader(_Pipe(packed))
    got = [r for s in Conversion(stream, agent, as_dicts=True).streams() for r in s.records]
    assert got == expected and len(got) > 100


def test_cut_zstd_from_a_pipe_says_so() -> None:
    stream = io.BufferedReader(_Pipe(ZST.read_bytes()[:300]))
    with pytest.raises(InputError, match="ends in the middle of a zstd frame"):
        list(Conversion(stream, as_dicts=True))


def test_stream_reader_names_an_over_long_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from asr_adapters.core.errors import StreamFormatError
    from asr_adapters.stream.reader import read_records

    monkeypatch.setattr(source_module, "MAX_LINE_BYTES", 10)
    with pytest.raises(StreamFormatError, match="line of 27 bytes is longer than the 10-byte limit"):
        list(read_records(b'{"type":"session","seq":1}\n'))


def test_diagnostics_are_capped_and_the_rest_counted() -> None:
    diagnostics = Diagnostics()
    for number in range(MAX_DIAGNOSTICS + 5):
        diagnostics.append(Diagnostic("f", number, "bad"))
    assert len(diagnostics) == MAX_DIAGNOSTICS and diagnostics.omitted == 5 and diagnostics.total == MAX_DIAGNOSTICS + 5
    assert [d.line for d in diagnostics[:3]] == [0, 1, 2]  # the first ones, with their line numbers
    merged = Accounting()
    merged.merge(Accounting(diagnostics=diagnostics))
    assert merged.diagnostics.total == MAX_DIAGNOSTICS + 5 and merged.as_dict()["diagnostics"] == MAX_DIAGNOSTICS + 5


@pytest.mark.heavy  # a million lines (.ci/run runs -m heavy)
def test_a_million_bad_lines_cost_a_counter_not_memory(tmp_path: Path) -> None:
    """Each bad line is a diagnostic; kept whole, a million of them took about 300 MB. Under a
    256 MiB address-space limit the run completes, listing the first ones and counting the rest."""
    path = tmp_path / "bad.jsonl"
    first = {"type": "user", "sessionId": "s", "parentUuid": None, "message": {"role": "user", "content": "hi"}}
    path.write_bytes(orjson.dumps(first) + b"\n" + b"x\n" * 1_000_000)
    result = run_limited(
        "convert", str(path), "--agent", "claude-code", "-o", str(tmp_path / "out"), "--stats", memory=256 << 20
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stderr.decode().splitlines()
    assert len(lines) == MAX_DIAGNOSTICS + 2
    assert lines[0].startswith(f"asr: warning: {path}:2: unreadable line skipped: unexpected character")
    assert lines[-2] == f"asr: warning: {path}: {1_000_000 - MAX_DIAGNOSTICS} more warnings not shown (1000000 in all)"
    stats = orjson.loads(lines[-1])  # --stats names: docs/library.md
    assert stats["native_items"]["unreadable"] == stats["warnings"] == 1_000_000
