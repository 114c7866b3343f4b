"""A list or an object where an adapter dispatches on a string (issue 25, item 7).

Adapters look up a native item's ``type`` (and ``payload.type``, a part's ``type``, a provider,
a tool name ...) in dicts and sets; a list or an object there raised ``TypeError: unhashable
type`` and stopped the whole conversion (for T3 Code, every thread of the database). The rule:
such an item costs that item only.

Not a random search: for every golden input of every registered adapter, every short string
member (at any depth) of every native item (a JSON line, a document's entries, a companion file
of the case, a JSON column of a SQLite row) is replaced in turn by ``["x"]`` and by ``{"x": 1}``,
once per (agent, file kind, item kind, member path). Each conversion must end with no exception
but ``InputError`` (and never ``conversion stopped``, the wrapped crash), with every stream valid
and the accounting balanced.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from corpus import build_sqlite
from golden_support import GoldenCase, golden_cases
from test_properties import ROW_TABLES

from asr_adapters import registry, validate_records
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError

# heavy: every dispatch field of every golden case retyped (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy

UNHASHABLE: tuple[Any, ...] = (["x"], {"x": 1})
#: Longer strings are content, not names anything dispatches on.
SHORT = 64


def string_members(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every short string member of a JSON value, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and len(item) <= SHORT:
                yield (*path, key)
            yield from string_members(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_members(item, (*path, index))


def pattern(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("[]" if isinstance(step, int) else step for step in path)


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    copy = orjson.loads(orjson.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


#: Members that tell kinds of native item apart: each kind's members are tried once.
KIND_MEMBERS = (("type",), ("payload", "type"), ("message", "role"), ("role",), ("subtype",), ("customType",))


def kind_of(value: Any) -> str:
    if not isinstance(value, dict):
        return type(value).__name__
    found = []
    for path in KIND_MEMBERS:
        node: Any = value
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        found.append(str(node))
    return "/".join(found)


@dataclass(frozen=True)
class Mutation:
    """One member of one native item of a case given an unhashable value."""

    case: GoldenCase
    file: str  # the case file changed (relative), or ``table#rowid`` of the database
    item: int | None  # the line (0-based) of a JSON Lines file; None: the whole document or row
    path: tuple[Any, ...]
    new: Any

    def describe(self) -> str:
        where = self.file if self.item is None else f"{self.file}:{self.item + 1}"
        return f"{self.case.id} {where} {'.'.join(map(str, self.path))} = {orjson.dumps(self.new).decode()}"


def _native_files(case: GoldenCase) -> list[Path]:
    skip = ("expected", "README")
    return sorted(
        p
        for p in case.folder.rglob("*")
        if p.is_file() and p.suffix in (".jsonl", ".json") and not p.name.startswith(skip)
    )


def _file_items(path: Path) -> Iterator[tuple[int | None, Any]]:
    raw = path.read_bytes()
    if path.suffix == ".json":
        try:
            yield None, orjson.loads(raw)
        except orjson.JSONDecodeError:
            return
        return
    for number, line in enumerate(raw.splitlines()):
        try:
            yield number, orjson.loads(line)
        except orjson.JSONDecodeError:
            continue


def _row_items(case: GoldenCase, database: Path) -> Iterator[tuple[str, Any, str]]:
    """(``table#rowid``, the JSON column's value, the row's kind) of every event row."""
    with sqlite3.connect(database) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table, _order, column, _unique in ROW_TABLES.get(case.agent, []):
            if table not in tables:
                continue
            names = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
            kind_column = "event_type" if "event_type" in names else "NULL"
            for rowid, text, kind in connection.execute(f"SELECT rowid, {column}, {kind_column} FROM {table}"):
                try:
                    value = orjson.loads(text)
                except (orjson.JSONDecodeError, TypeError):
                    continue
                yield f"{table}#{rowid}", value, str(kind if kind is not None else kind_of(value))
    connection.close()


def mutations(agent: str, scratch: Path) -> Iterator[Mutation]:
    """Every (file kind, item kind, member path) of the agent's golden inputs, once."""
    seen: set[tuple[Any, ...]] = set()
    for case in golden_cases(agent):
        if case.input.name == "input.sql":
            database = build_sqlite(case.input, scratch / f"{case.name}.sqlite")
            for where, value, kind in _row_items(case, database):
                for path in string_members(value):
                    key = (where.split("#")[0], kind, pattern(path))
                    if key not in seen:
                        seen.add(key)
                        yield from (Mutation(case, where, None, path, new) for new in UNHASHABLE)
            continue
        for file in _native_files(case):
            relative = file.relative_to(case.folder).as_posix()
            role = (file.suffix, file.parent.name if file.parent != case.folder else "", file == case.input)
            for item, value in _file_items(file):
                for path in string_members(value):
                    key = (role, kind_of(value), pattern(path))
                    if key not in seen:
                        seen.add(key)
                        yield from (Mutation(case, relative, item, path, new) for new in UNHASHABLE)


@contextlib.contextmanager
def applied(mutation: Mutation, scratch: Path) -> Iterator[Path]:
    """The case copied to ``scratch`` (once) with the mutation applied; the path to convert.
    The changed file is put back afterwards, so the next mutation of the case starts clean."""
    case = mutation.case
    folder = scratch / "case" / case.agent / case.name
    if not folder.exists():
        shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
    if case.input.name == "input.sql":
        database = build_sqlite(case.input, folder / "input.sqlite")
        table, rowid = mutation.file.split("#")
        column = next(spec[2] for spec in ROW_TABLES[case.agent] if spec[0] == table)
        with sqlite3.connect(database) as connection:
            (text,) = connection.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (int(rowid),)).fetchone()
            new = orjson.dumps(replaced(orjson.loads(text), mutation.path, mutation.new)).decode()
            connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, int(rowid)))
        connection.close()
        yield database
        return
    target = folder / mutation.file
    original = target.read_bytes()
    if mutation.item is None:
        target.write_bytes(orjson.dumps(replaced(orjson.loads(original), mutation.path, mutation.new)))
    else:
        lines = original.splitlines(keepends=True)
        value = orjson.loads(lines[mutation.item])
        lines[mutation.item] = orjson.dumps(replaced(value, mutation.path, mutation.new)) + b"\n"
        target.write_bytes(b"".join(lines))
    try:
        yield folder / case.input.name
    finally:
        target.write_bytes(original)


def problem(path: Path, agent: str) -> str | None:
    """What breaks the promises for this input, or None."""
    try:
        conversion = Conversion(path, agent, as_dicts=True)
        streams = [(stream.key, list(stream.records)) for stream in conversion.streams()]
    except InputError as exc:
        return str(exc) if "conversion stopped" in str(exc) else None
    for key, records in streams:
        findings = [f for f in validate_records(records) if f.is_error]
        if findings:
            return f"{key}: invalid: {findings[0].describe()}"
    if not conversion.accounting.balanced():
        return f"accounting does not sum: {conversion.accounting.as_dict()}"
    return None


AGENTS = sorted({case.agent for case in golden_cases()})


def test_every_registered_adapter_has_golden_inputs_here() -> None:
    assert set(AGENTS) == set(registry.names()), (AGENTS, registry.names())


@pytest.mark.parametrize("agent", AGENTS)
def test_an_unhashable_value_in_any_dispatch_field_costs_one_item(agent: str, tmp_path: Path) -> None:
    failures: list[str] = []
    count = 0
    for mutation in mutations(agent, tmp_path):
        count += 1
        with applied(mutation, tmp_path) as path:
            found = problem(path, agent)
        if found is not None:
            failures.append(f"{mutation.describe()}: {found}")
    assert count > 0
    assert not failures, f"{len(failures)} of {count} mutations broke a promise:\n" + "\n".join(failures[:40])


# -- the item is one unreadable item, named ------------------------------------------------

#: (agent, case, file in the case, member path, how the warning names the place)
NAMED = [
    ("claude-code", "fold-tool-calls", "input.jsonl", ("type",), ":{n}: unreadable line skipped: type is a JSON array"),
    ("codex", "10-tool-calls-every-kind", "input.jsonl", ("payload", "type"), ":{n}: unreadable line skipped: payload"),
    ("copilot-cli", "hooks-spaced-json", "input.jsonl", ("type",), ":{n}: unreadable line skipped: type is a JSON"),
    ("openclaw", "thinking-tools-status", "input.jsonl", ("type",), ":{n}: unreadable line skipped: type is a JSON"),
    ("gemini-cli", "jsonl-tool-calls", "input.jsonl", ("type",), ":{n}: unreadable line skipped: type is a JSON"),
]


def _first_line_with(lines: list[bytes], path: tuple[str, ...]) -> int:
    for index, line in enumerate(lines[1:], 1):
        value = orjson.loads(line)
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str):
            return index
    raise AssertionError(f"no line has {path}")


@pytest.mark.parametrize(("agent", "name", "file", "path", "named"), NAMED, ids=[n[0] for n in NAMED])
def test_a_list_where_a_line_is_dispatched_is_one_unreadable_line_named(
    agent: str, name: str, file: str, path: tuple[str, ...], named: str, tmp_path: Path
) -> None:
    case = next(c for c in golden_cases(agent) if c.name == name)
    clean = Conversion(case.input, agent, as_dicts=True)
    before = sum(len(list(s.records)) for s in clean.streams())
    lines = case.input.read_bytes().splitlines(keepends=True)
    index = _first_line_with(lines, path)
    lines[index] = orjson.dumps(replaced(orjson.loads(lines[index]), path, ["x"])) + b"\n"
    target = tmp_path / file
    target.write_bytes(b"".join(lines))
    conversion = Conversion(target, agent, as_dicts=True)
    streams = [list(s.records) for s in conversion.streams()]
    counts = conversion.accounting
    assert counts.unreadable == clean.accounting.unreadable + 1, counts.as_dict()
    assert counts.balanced()
    assert any(named.format(n=index + 1) in d.describe() for d in counts.diagnostics), [
        d.describe() for d in counts.diagnostics
    ]
    assert sum(map(len, streams)) >= before - 4  # the rest of the session is still there
    for records in streams:
        assert not [f for f in validate_records(records) if f.is_error]


def test_a_list_in_a_document_entry_is_one_unreadable_entry_named(tmp_path: Path) -> None:
    """Gemini CLI ``.json`` messages, Cline ui rows, OpenCode export parts: the entry, named."""
    gemini = next(c for c in golden_cases("gemini-cli") if c.name == "json-tool-calls").input
    document = orjson.loads(gemini.read_bytes())
    document["messages"][1]["type"] = {"x": 1}
    (tmp_path / "session.json").write_bytes(orjson.dumps(document))
    cline = next(c for c in golden_cases("cline") if c.name == "ui-only-retries-reasoning").input
    rows = orjson.loads(cline.read_bytes())
    rows[1]["type"] = ["x"]
    (tmp_path / "ui_messages.json").write_bytes(orjson.dumps(rows))
    export = next(c for c in golden_cases("opencode") if c.name == "export-document").input
    exported = orjson.loads(export.read_bytes())
    exported["messages"][0]["parts"][0]["type"] = ["x"]
    (tmp_path / "export.json").write_bytes(orjson.dumps(exported))
    for file, agent, named in (
        ("session.json", "gemini-cli", "messages[1] unreadable: type is a JSON object"),
        ("ui_messages.json", "cline", "ui message 2 unreadable: type is a JSON array"),
        ("export.json", "opencode", "a part unreadable: type is a JSON array"),
    ):
        conversion = Conversion(tmp_path / file, agent, as_dicts=True)
        streams = [list(s.records) for s in conversion.streams()]
        assert conversion.accounting.unreadable == 1, (file, conversion.accounting.as_dict())
        assert conversion.accounting.balanced()
        assert any(named in d.describe() for d in conversion.accounting.diagnostics), file
        assert all(len(records) > 3 for records in streams)


def test_a_bad_t3_code_row_costs_that_row_not_the_other_threads(tmp_path: Path) -> None:
    """A ``thread.session-set`` whose provider is an object stopped the whole database (every
    thread) while the header was built; now its thread and the other one both convert."""
    case = next(c for c in golden_cases("t3code") if c.name == "v1-two-threads")
    database = build_sqlite(case.input, tmp_path / "state.sqlite")
    with sqlite3.connect(database) as connection:
        rowid, text = connection.execute(
            "SELECT rowid, payload_json FROM orchestration_events WHERE event_type = 'thread.session-set' LIMIT 1"
        ).fetchone()
        value = orjson.loads(text)
        value["session"]["providerName"] = {"x": 1}
        connection.execute(
            "UPDATE orchestration_events SET payload_json = ? WHERE rowid = ?", (orjson.dumps(value).decode(), rowid)
        )
    connection.close()
    clean = Conversion(build_sqlite(case.input, tmp_path / "clean.sqlite"), "t3code", as_dicts=True)
    expected = [s.key for s in clean.streams()]
    conversion = Conversion(database, "t3code", as_dicts=True)
    streams = {s.key: list(s.records) for s in conversion.streams()}
    assert list(streams) == expected and len(expected) == 2
    assert all(len(records) > 2 for records in streams.values())
    assert conversion.accounting.balanced()
