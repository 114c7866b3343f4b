"""Valid JSON that strict decoding refuses (issue 21.15): a lone UTF-16 surrogate escape, as
JavaScript's ``JSON.stringify`` writes for a cut emoji, is kept as U+FFFD with one counted warning
instead of losing the line; a UTF-8 byte order mark at the start of any input is ignored."""

from __future__ import annotations

from collections.abc import Iterator
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


def _keyed_strings(value: object, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string of a JSON value, with the member it is under (a list's items: the list's)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _keyed_strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _keyed_strings(v, key)
    elif isinstance(value, str):
        yield key, value


def _a_text(line: bytes) -> str | None:
    texts = _keyed_strings(orjson.loads(line))
    return next((v for k, v in texts if k == "text" and len(v) > 3 and orjson.dumps(v) in line), None)


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
    texts = _keyed_strings(orjson.loads(data))
    return next(
        (
            v
            for k, v in texts
            if k in ("text", "content")
            and len(v) > 3
            and "<" not in v  # markup an adapter splits into parts
            and orjson.dumps(v) in data
        ),
        None,
    )


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


# -- UTF-16, UTF-32 and CR line ends: decoded, never "empty file" or an empty session (25.10) --

#: Every agent whose input is text: the line agents, the document agents, Copilot CLI, Cline.
TEXT_INPUTS = {
    **LINE_INPUTS,
    **DOCUMENT_INPUTS,
    "copilot-cli": ("copilot-cli", Path(__file__).parents[2] / "golden/copilot-cli/hooks-spaced-json/input.jsonl"),
    "cline": ("cline", Path(__file__).parents[2] / "golden/cline/ui-only-retries-reasoning/input.json"),
    "opencode-export": ("opencode", Path(__file__).parents[2] / "golden/opencode/export-document/input.json"),
}
FORMS = {
    "utf-16-bom": lambda text: text.encode("utf-16"),
    "utf-16-le": lambda text: text.encode("utf-16-le"),
    "utf-16-be": lambda text: text.encode("utf-16-be"),
    "utf-32-bom": lambda text: text.encode("utf-32"),
    "cr-line-ends": lambda text: text.replace("\r\n", "\n").replace("\n", "\r").encode(),
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(TEXT_INPUTS))
def test_utf16_utf32_and_cr_line_ends_convert_as_utf8(name: str, form: str, tmp_path: Path) -> None:
    """Before: "cannot tell which agent wrote this file", and with ``--agent`` "empty file", "not
    a Gemini CLI session" or a session of one header and every line unreadable (exit 0)."""
    agent, clean = TEXT_INPUTS[name]
    expected = convert(clean, tmp_path / "a", "--agent", agent)
    path = tmp_path / "in" / clean.name
    path.parent.mkdir()
    path.write_bytes(FORMS[form](clean.read_bytes().decode()))
    for extra, out in ((("--agent", agent), "b"), ((), "c")):
        got = convert(path, tmp_path / out, *extra)
        assert got.converted, got.error
        assert got.stats == expected.stats and got.warnings == expected.warnings, (got.stats, got.warnings)
        assert list(got.streams.values()) == list(expected.streams.values())


def test_utf16_is_decoded_from_zstd_and_from_a_pipe(tmp_path: Path) -> None:
    """The decoding sits in the source layer: after decompression, and for a stream read once."""
    import subprocess
    import sys

    import zstandard

    agent, clean = LINE_INPUTS["codex"]
    expected = convert(clean, tmp_path / "a", "--agent", agent)
    wide = clean.read_bytes().decode().encode("utf-16")
    packed = tmp_path / "in" / (clean.name + ".zst")
    packed.parent.mkdir()
    packed.write_bytes(zstandard.ZstdCompressor().compress(wide))
    got = convert(packed, tmp_path / "b")
    assert got.converted and got.stats == expected.stats
    assert [r for s in got.streams.values() for r in s][1:] == [r for s in expected.streams.values() for r in s][1:]
    asr = Path(sys.executable).parent / "asr"
    piped = subprocess.run([str(asr), "convert", "-"], input=wide, capture_output=True, check=False)
    assert piped.returncode == 0, piped.stderr.decode()
    assert piped.stdout.count(b"\n") == sum(len(s) for s in expected.streams.values())


def test_utf16_cut_mid_character_loses_the_last_line_only(tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS["claude-code"]
    expected = convert(clean, tmp_path / "a", "--agent", agent)
    path = tmp_path / "in" / clean.name
    path.parent.mkdir()
    text = clean.read_bytes().decode().rstrip("\n")
    path.write_bytes(text.encode("utf-16-le")[:-1])  # half of the last character
    got = convert(path, tmp_path / "b", "--agent", agent)
    assert got.converted and got.stats is not None and expected.stats is not None
    assert got.stats["native_items"] == expected.stats["native_items"]
    assert got.stats["unreadable"] == expected.stats["unreadable"] + 1


@pytest.mark.parametrize("agent", ["openclaw", "opencode", "t3code"])
@pytest.mark.parametrize("encoding", ["UTF-16le", "UTF-16be"])
def test_a_utf16_database_converts_as_a_utf8_one(agent: str, encoding: str, tmp_path: Path) -> None:
    """SQLite stores text as UTF-16 when the database says so (OpenClaw keeps such databases);
    OpenClaw's event bytes (read as a BLOB) were all unreadable: a header and nothing else."""
    import sqlite3

    from golden_support import GOLDEN, sql_script

    case = {"openclaw": "sqlite-era", "opencode": "sqlite-turn-tools-usage", "t3code": "v1-activities"}[agent]
    script = sql_script(GOLDEN / agent / case / "input.sql")
    outcomes = []
    for name, pragma in (("utf8", "UTF-8"), ("wide", encoding)):
        database = tmp_path / name / "input.sqlite"
        database.parent.mkdir()
        connection = sqlite3.connect(database)
        connection.execute(f"PRAGMA encoding = '{pragma}'")
        connection.executescript(script)
        connection.commit()
        connection.close()
        outcomes.append(convert(database, tmp_path / f"out-{name}", "--agent", agent))
    utf8, wide = outcomes
    assert wide.converted and wide.stats == utf8.stats, (wide.stats, wide.warnings)
    assert list(wide.streams.values()) == list(utf8.streams.values())
