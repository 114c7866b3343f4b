"""Issue 25.11: one nesting limit for every command (``core/nesting.py``).

``convert`` keeps a native item nested up to ``MAX_NATIVE_NESTING`` levels and counts a deeper one
unreadable (a JSON text in it that nests deeper stays text), so every record it writes is within
``MAX_NESTING`` and reads back; ``validate`` reports a record past ``MAX_NESTING``; ``show`` and
``export`` handle every record within it (tests/view/test_hostile_streams.py).

The property runs over every golden input: a value nested exactly to the limit (or one level
past it) at a random member of a random line, document entry or row; or a JSON text nested far
past it in a random string member.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from corpus import build_sqlite
from golden_support import GoldenCase
from hypothesis import given
from hypothesis import strategies as st
from test_properties import CASES, ROW_TABLES, _get, _slots, property_settings, scratch_copy

from asr_adapters import validate_records
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError
from asr_adapters.core.nesting import MAX_NATIVE_NESTING, MAX_NESTING, depth
from asr_adapters.stream.writer import write_jsonl
from asr_adapters.validate import validate

PER_CASE = 3


def nested(levels: int) -> Any:
    """A value of exactly ``levels`` levels (alternating arrays and objects)."""
    value: Any = "leaf"
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def deep_text(levels: int) -> str:
    return orjson.dumps(nested(min(levels, 250))).decode().replace('"leaf"', "[" * levels + "]" * levels, 1)


def bury(data: st.DataObject, value: Any, past: bool) -> Any:
    """``value`` (a line, a document entry, a row) with one member replaced by a value that makes
    the whole exactly ``MAX_NATIVE_NESTING`` levels deep (one more when ``past``), or by a JSON text
    nested past ``MAX_NESTING``."""
    slots = _slots(value) if isinstance(value, dict | list) else []
    if not slots:
        return value
    path = data.draw(st.sampled_from(slots), label="member")
    target = _get(value, path[:-1])
    if data.draw(st.booleans(), label="as JSON text"):
        target[path[-1]] = deep_text(MAX_NESTING + 20)
    else:
        target[path[-1]] = nested(MAX_NATIVE_NESTING - len(path) + (1 if past else 0))
    return value


def check(case: GoldenCase, path: Path) -> None:
    try:
        conversion = Conversion(path, case.agent, as_dicts=True)
        streams = [list(stream.records) for stream in conversion.streams()]
    except InputError:
        return
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    for records in streams:
        assert max((depth(r) for r in records), default=0) <= MAX_NESTING
        out = io.BytesIO()
        write_jsonl(records, out)  # the writer refuses a record past the limit: it must never need to
        findings = [f for f in validate(out.getvalue()) if f.is_error]
        assert not findings, "\n".join(f.describe() for f in findings[:3])
        assert not [f for f in validate_records(records) if f.is_error]


def _property(case: GoldenCase) -> Any:
    @property_settings(PER_CASE)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        folder = scratch_copy(case)
        past = data.draw(st.booleans(), label="one level past the limit")
        source = case.input
        if source.name == "input.sql":
            database = build_sqlite(source, folder / "input.sqlite")
            with sqlite3.connect(database) as connection:
                tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                # the first of the agent's row tables the case's database has (a Cursor workspace
                # database has only ItemTable)
                table, _order, column, _unique = next(t for t in ROW_TABLES[case.agent] if t[0] in tables)
                rows = connection.execute(f"SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL").fetchall()
                if rows:
                    rowid, text = data.draw(st.sampled_from(rows), label="row")
                    value = bury(data, orjson.loads(text), past)
                    connection.execute(
                        f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (_dump(value).decode(), rowid)
                    )
            connection.close()
            check(case, database)
            return
        target = folder / source.name
        if source.suffix == ".zst":
            return  # the same lines as a plain case; compression changes nothing here
        raw = source.read_bytes()
        if source.suffix == ".json":
            document = orjson.loads(raw)
            entries = [p for p in _slots(document) if isinstance(_get(document, p), dict)]
            if entries:
                where = data.draw(st.sampled_from(entries), label="entry")
                parent = _get(document, where[:-1])
                parent[where[-1]] = bury(data, _get(document, where), past)
            target.write_bytes(_dump(document))
            check(case, target)
            return
        lines = raw.splitlines(keepends=True)
        index = data.draw(st.integers(0, len(lines) - 1), label="line")
        try:
            value = orjson.loads(lines[index])
        except orjson.JSONDecodeError:
            return
        lines[index] = _dump(bury(data, value, past)) + b"\n"
        target.write_bytes(b"".join(lines))
        check(case, target)

    return run


def _dump(value: Any) -> bytes:
    from asr_adapters.core.nesting import dumps

    return dumps(value)


NESTING_CASES = [case for case in CASES if case.input.is_file()]


@pytest.mark.parametrize("case", NESTING_CASES, ids=[c.id for c in NESTING_CASES])
def test_values_at_the_nesting_limit_convert_to_readable_streams(case: GoldenCase) -> None:
    _property(case)()


def test_a_line_past_the_native_limit_is_one_unreadable_item(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "golden" / "codex" / "03-user-message-parts" / "input.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    for extra, unreadable in ((0, 0), (1, 1)):
        line = {
            "timestamp": "2026-05-11T08:27:20.100Z",
            "type": "future",
            "payload": nested(MAX_NATIVE_NESTING - 1 + extra),
        }
        path = tmp_path / f"deep{extra}.jsonl"
        path.write_bytes(b"".join([*lines[:2], _dump(line) + b"\n", *lines[2:]]))
        conversion = Conversion(path, "codex", as_dicts=True)
        records = [r for s in conversion.streams() for r in s.records]
        assert conversion.accounting.unreadable == unreadable
        deepest = max(depth(r) for r in records)
        assert deepest == MAX_NATIVE_NESTING + 1 if not unreadable else deepest < 10  # a vendor record wraps it
        if unreadable:
            (diagnostic,) = conversion.accounting.diagnostics
            assert diagnostic.line == 3 and f"nested deeper than {MAX_NATIVE_NESTING} levels" in diagnostic.reason


def test_what_convert_writes_reads_back_at_the_parsers_own_limit(tmp_path: Path) -> None:
    """A native line 1024 levels deep (the most orjson parses) and tool arguments whose JSON text
    nests as deep: before, the line became a vendor record of 1025 levels and the arguments a
    ``tool_call.input`` of 1026, lines that validate, show and export could not read back."""
    case = Path(__file__).resolve().parents[2] / "golden" / "codex" / "10-tool-calls-every-kind" / "input.jsonl"
    lines = case.read_bytes().splitlines(keepends=True)
    call = next(i for i, line in enumerate(lines) if b'"function_call"' in line)
    item = orjson.loads(lines[call])
    item["payload"]["arguments"] = _dump({"cmd": nested(1022)}).decode()
    deep_line = b'{"timestamp":"2026-05-11T08:27:20.100Z","type":"future","payload":' + b"[" * 1023 + b"]" * 1023 + b"}"
    lines[call] = _dump(item) + b"\n"
    lines.insert(call, deep_line + b"\n")
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(lines))
    out = tmp_path / "out.asr.jsonl"
    conversion = Conversion(path, "codex", as_dicts=True)
    write_jsonl((r for s in conversion.streams() for r in s.records), out)
    assert [f.describe() for f in validate(out) if f.is_error] == []
    records = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    (kept,) = [r for r in records if r.get("type") == "tool_call" and r.get("callId") == item["payload"]["call_id"]]
    assert kept["arguments"] == item["payload"]["arguments"], "arguments that parse too deep stay text"
    assert conversion.accounting.unreadable == 1
