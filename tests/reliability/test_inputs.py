"""What PATH can be (issue 21.11, 21.16): a FIFO or a process substitution (``<(cat f)``) is read
once, like stdin, with nothing lost; a missing path, a folder or a closed file object is an
``InputError`` from the library (and one finding from the validator), never another exception."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest
from corpus import DOCUMENT_INPUTS, LINE_INPUTS
from harness import convert, deadline

from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError
from asr_adapters.validate import validate

INPUTS = {**LINE_INPUTS, **DOCUMENT_INPUTS}


def _feed(path: str, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as handle:
            handle.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _same(regular: Path, other: Path, tmp_path: Path, agent: str, *extra: str) -> None:
    expected = convert(regular, tmp_path / "a", "--agent", agent, *extra)
    got = convert(other, tmp_path / "b", "--agent", agent, *extra, timeout=20)
    assert got.converted and got.stats == expected.stats
    assert list(got.streams.values()) == list(expected.streams.values())


@pytest.mark.parametrize("name", list(INPUTS))
def test_a_fifo_given_as_path_is_read_once_whole(name: str, tmp_path: Path) -> None:
    agent, clean = INPUTS[name]
    fifo = tmp_path / "fifo" / clean.name  # the same name: the header names the file
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    writer = _feed(str(fifo), clean.read_bytes())
    _same(clean, fifo, tmp_path, agent)
    writer.join(5)
    assert not writer.is_alive()


@pytest.mark.parametrize("name", ["codex", "claude-code"])
def test_a_process_substitution_is_read_once_whole_and_detected(name: str, tmp_path: Path) -> None:
    """``asr convert <(cat f)``: the shell passes ``/dev/fd/N``, a pipe. Detection sniffs it and the
    adapter reads it, from bytes read once (before: opened twice, the second read found it empty)."""
    agent, clean = LINE_INPUTS[name]
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "wb") as handle:  # closed when written: the reader sees the end
            handle.write(clean.read_bytes())

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        with deadline(20):
            conversion = Conversion(f"/dev/fd/{read_end}", as_dicts=True)
            records = [r for s in conversion.streams() for r in s.records]
        writer.join(5)
    finally:
        os.close(read_end)
    assert conversion.adapter.name == agent
    expected = Conversion(clean, as_dicts=True)
    want = [r for s in expected.streams() for r in s.records]
    assert len(records) == len(want) and conversion.accounting.as_dict() == expected.accounting.as_dict()


def test_bad_paths_and_closed_files_are_input_errors(tmp_path: Path) -> None:
    closed = io.BytesIO(b"{}")
    closed.close()
    with open(tmp_path / "f", "wb") as handle:
        pass
    for bad, reason in [
        (tmp_path / "missing.jsonl", "no such file"),
        (tmp_path / "no" / "such" / "folder.jsonl", "no such file"),
        (tmp_path, "is a folder"),
        (str(tmp_path), "is a folder"),
        (closed, "the file object is closed"),
        (handle, "the file object is closed"),
    ]:
        with pytest.raises(InputError, match=reason):
            Conversion(bad)  # type: ignore[arg-type]
        with pytest.raises(InputError, match=reason):
            Conversion(bad, "codex")  # type: ignore[arg-type]
        (finding,) = validate(bad)  # type: ignore[arg-type]
        assert finding.rule == "PROFILE-jsonl" and reason in finding.message
