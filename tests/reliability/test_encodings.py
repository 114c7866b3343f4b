"""Valid JSON that strict decoding refuses (issue 21.15): a lone UTF-16 surrogate escape, as
JavaScript's ``JSON.stringify`` writes for a cut emoji, is kept as U+FFFD with one counted warning
instead of losing the line; a UTF-8 byte order mark at the start of any input is ignored."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from corpus import DOCUMENT_INPUTS, LINE_INPUTS
from harness import convert

from asr_adapters.core.lenient import REPLACED

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("name", [*LINE_INPUTS, *DOCUMENT_INPUTS])
@pytest.mark.parametrize("detected", [False, True], ids=["agent", "detected"])
def test_a_byte_order_mark_is_ignored(name: str, detected: bool, tmp_path: Path) -> None:
    agent, clean = {**LINE_INPUTS, **DOCUMENT_INPUTS}[name]
    extra = () if detected else ("--agent", agent)
    expected = convert(clean, tmp_path / "a", *extra)
    marked = tmp_path / "in" / clean.name
    marked.parent.mkdir()
    marked.write_bytes(BOM + clean.read_bytes())
    got = convert(marked, tmp_path / "b", *extra)
    assert got.converted and got.stats == expected.stats and got.warnings == expected.warnings
    assert list(got.streams.values()) == list(expected.streams.values())


def _with_lone_surrogate(line: bytes, text: str) -> bytes:
    """``line`` with ``text`` (a JSON string value in it) ending in half of a surrogate pair."""
    quoted = orjson.dumps(text)
    assert quoted in line
    return line.replace(quoted, quoted[:-1] + b'\\ud83d"', 1)


def _a_text(line: bytes) -> str | None:
    found: list[str] = []

    def walk(value: object, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key == "text" and len(value) > 3 and orjson.dumps(value) in line:
            found.append(value)

    walk(orjson.loads(line), None)
    return found[0] if found else None


@pytest.mark.parametrize("name", list(LINE_INPUTS))
def test_a_lone_surrogate_escape_is_kept_as_a_replacement_character(name: str, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    lines = clean.read_bytes().splitlines()
    index, text = next((i, t) for i, line in enumerate(lines) if (t := _a_text(line)) is not None)
    lines[index] = _with_lone_surrogate(lines[index], text)
    path = tmp_path / "in" / clean.name
    path.parent.mkdir()
    path.write_bytes(b"\n".join(lines) + b"\n")
    expected = convert(clean, tmp_path / "a", "--agent", agent)
    got = convert(path, tmp_path / "b", "--agent", agent)
    assert got.converted and got.stats is not None and expected.stats is not None
    assert got.stats["unreadable"] == expected.stats["unreadable"]  # the line is not lost
    assert [w for w in got.warnings if w.endswith(f":{index + 1}: {REPLACED}")], got.warnings
    assert any((text + "\ufffd") in orjson.dumps(r).decode() for r in got.records)
