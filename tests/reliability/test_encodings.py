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


# -- the same repair in every reader: documents, companions, subagent files, SQLite rows (25.8) --

#: (id, agent, golden case, the file changed (relative to the case; ``table.column`` for a
#: database built from input.sql), a filter for the JSON line or row to change)
ELSEWHERE = [
    ("gemini-cli-json", "gemini-cli", "json-tool-calls", "input.json", None),
    ("codex-json", "codex", "18-json-g0", "input.json", None),
    ("opencode-export", "opencode", "export-document", "input.json", None),
    ("opencode-tree-part", "opencode", "json-global-tree", "storage/part", None),
    ("cline-ui", "cline", "ui-only-retries-reasoning", "input.json", None),
    ("cline-api-companion", "cline", "native-tools-task-folder", "api_conversation_history.json", None),
    ("claude-code-subagent", "claude-code", "subagent-folder", "input/subagents/agent-a1b2c3d4e5f60718.jsonl", None),
    ("claude-code-sidechain", "claude-code", "subagent-inline-sidechain", "input.jsonl", b'"isSidechain":true'),
    ("openclaw-row", "openclaw", "sqlite-era", "transcript_events.event_json", None),
    ("opencode-row", "opencode", "sqlite-turn-tools-usage", "part.data", None),
    ("t3code-row", "t3code", "v1-user-text-parts", "orchestration_events.payload_json", None),
]


def _any_text(raw: bytes | str) -> str | None:
    """A string of the JSON ``raw`` that is content (``text``), spelt in ``raw`` as orjson spells it."""
    data = raw.encode() if isinstance(raw, str) else raw
    found: list[str] = []

    def walk(value: object, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif (
            isinstance(value, str)
            and key in ("text", "content")
            and len(value) > 3
            and "<" not in value  # markup an adapter splits into parts
            and orjson.dumps(value) in data
        ):
            found.append(value)

    walk(orjson.loads(data), None)
    return found[0] if found else None


def _plant(file: Path, wanted: bytes | None) -> str:
    """A lone surrogate escape after a text of ``file`` (a document, or its first JSON line
    holding one and ``wanted``); the text."""
    data = file.read_bytes()
    if file.suffix == ".jsonl":
        lines = data.splitlines()
        for index, line in enumerate(lines):
            text = _any_text(line) if wanted is None or wanted in line else None
            if text is not None:
                lines[index] = _with_lone_surrogate(line, text)
                file.write_bytes(b"\n".join(lines) + b"\n")
                return text
        raise AssertionError(f"{file}: no line with a text")
    text = _any_text(data)
    assert text is not None, file
    file.write_bytes(_with_lone_surrogate(data, text))
    return text


def _plant_row(database: Path, table: str, column: str) -> str:
    import sqlite3

    with sqlite3.connect(database) as connection:
        for rowid, value in connection.execute(f"SELECT rowid, {column} FROM {table} ORDER BY rowid").fetchall():
            text = _any_text(value) if isinstance(value, str) else None
            if text is not None:
                changed = _with_lone_surrogate(value.encode(), text).decode()
                connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (changed, rowid))
                break
        else:
            raise AssertionError(f"{table}.{column}: no row with a text")
    connection.close()
    return text


@pytest.mark.parametrize(
    ("agent", "name", "where", "wanted"), [e[1:] for e in ELSEWHERE], ids=[e[0] for e in ELSEWHERE]
)
def test_a_lone_surrogate_anywhere_is_repaired_as_in_lines(
    agent: str, name: str, where: str, wanted: bytes | None, tmp_path: Path
) -> None:
    """Whole documents (Gemini CLI ``.json``, Codex G0, OpenCode export and JSON tree, Cline),
    a Claude Code subagent file and inline sidechain, and SQLite rows: the item converts, with
    U+FFFD for the lone half and one warning; nothing is counted unreadable. Before, a document
    failed whole (``not a Gemini CLI session``), a row or file was unreadable, a subagent line lost."""
    import shutil

    from corpus import build_sqlite
    from golden_support import golden_cases

    case = next(c for c in golden_cases(agent) if c.name == name)
    folder = tmp_path / "case" / name
    shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
    if case.input.name == "input.sql":
        clean = build_sqlite(case.input, tmp_path / "clean.sqlite")
        target = build_sqlite(case.input, folder / "input.sqlite")
        table, column = where.split(".")
        text = _plant_row(target, table, column)
    else:
        clean = case.input
        target = folder / case.input.name
        changed = folder / where
        if changed.is_dir():  # the first part file holding a text
            changed = next(p for p in sorted(changed.rglob("*.json")) if _any_text(p.read_bytes()))
        text = _plant(changed, wanted)
    expected = convert(clean, tmp_path / "a", "--agent", agent)
    got = convert(target, tmp_path / "b", "--agent", agent)
    assert got.converted, got.error
    assert got.stats is not None and expected.stats is not None
    assert got.stats["unreadable"] == expected.stats["unreadable"], (got.stats, got.warnings)
    assert got.stats["native_items"] == expected.stats["native_items"]
    assert [w for w in got.warnings if w.endswith(REPLACED)], got.warnings
    tail = orjson.dumps(text[-12:] + "\ufffd").decode()[1:-1]  # adapters may split a text into parts
    assert any(tail in orjson.dumps(r).decode() for r in got.records), text


def test_a_lone_surrogate_in_openclaw_sessions_json_keeps_the_index(tmp_path: Path) -> None:
    """``sessions.json`` (a companion document) with a cut emoji in a label: before, the whole
    index was dropped silently (no session key, channel or chat in the header)."""
    import shutil

    from golden_support import golden_cases

    case = next(c for c in golden_cases("openclaw") if c.name == "header-index-telegram-direct")
    folder = tmp_path / "case"
    shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
    index = folder / "sessions.json"
    index.write_bytes(_with_lone_surrogate(index.read_bytes(), "Ana (@ana_example) id:5550001"))
    got = convert(folder / case.input.name, tmp_path / "out", "--agent", "openclaw")
    assert got.converted, got.error
    header = got.records[0]
    assert header["sessionKey"] == "agent:main:telegram:direct:5550001", header
    assert [w for w in got.warnings if w == f"{index}: {REPLACED}"], got.warnings
