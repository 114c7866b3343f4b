"""The canonical writer and the streaming reader."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from asr_adapters import InputError, read_records, write_jsonl
from asr_adapters.core.accounting import Accounting
from asr_adapters.core.adapter import Emitter
from asr_adapters.model import to_model
from asr_adapters.stream.reader import read_models


def test_writer_numbers_orders_and_is_deterministic(tmp_path: Path) -> None:
    records = [
        {"type": "session", "session": "codex:abc", "agent": {"name": "codex"}, "producer": {"name": "asr-adapters"}},
        {"content": [{"type": "text", "text": "héllo\r\n"}], "role": "user", "messageId": "m1", "type": "message"},
    ]
    first, second = io.BytesIO(), io.BytesIO()
    assert write_jsonl([dict(r) for r in records], first) == 2
    write_jsonl([dict(r) for r in records], second)
    assert first.getvalue() == second.getvalue()
    lines = first.getvalue().split(b"\n")
    assert lines[-1] == b""
    assert lines[1].startswith(b'{"type":"message","seq":2,"id":"r2","messageId":"m1","role":"user"')
    assert b"h\xc3\xa9llo\\r\\n" in lines[1]  # ASR-211: text exactly, raw UTF-8, CR/LF escaped by JSON


def test_writer_accepts_models_and_dicts_alike() -> None:
    record = {"type": "message", "seq": 1, "id": "r1", "messageId": "m", "role": "assistant", "content": []}
    as_dict, as_model = io.BytesIO(), io.BytesIO()
    write_jsonl([record], as_dict)
    write_jsonl([to_model(record)], as_model)
    assert as_dict.getvalue() == as_model.getvalue()


def test_emitter_assigns_seq_and_tells_next_id() -> None:
    accounting = Accounting()
    emit = Emitter(accounting)
    assert emit.next_id == "r1"
    first = emit({"type": "plan", "planId": "p", "planType": "items", "entries": []})
    second = emit({"type": "plan", "planId": "p", "planType": "items", "entries": [], "supersedes": first["id"]})
    assert (first["seq"], first["id"], second["id"]) == (1, "r1", "r2")
    assert list(second)[:3] == ["type", "seq", "id"]
    assert accounting.record_types["plan"] == 2


def test_reader_streams_and_reports_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.asr.jsonl"
    path.write_bytes(b'{"type":"session","seq":1,"id":"r1"}\n\n{"type":"x","seq":2,"id":"r2"}\nnot json\n')
    reader = read_records(path)
    assert next(reader)["seq"] == 1
    assert next(reader)["type"] == "x"
    with pytest.raises(InputError) as info:
        next(reader)
    assert info.value.line == 4
    assert [m.type for m in read_models(io.BytesIO(b'{"type":"future","seq":1,"id":"r1"}\n'))] == ["future"]
