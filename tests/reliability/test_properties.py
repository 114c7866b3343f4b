"""Property tests over every golden input: dropping, duplicating, reordering and truncating lines
(or SQLite rows) and changing field types never crash an adapter (InputError is the only
exception allowed), the output always passes the validator, and the accounting always sums.
The validator itself never crashes on arbitrary JSON.

Examples are derandomized (CI is reproducible) and few per golden case; every adapter gets about
50. ``ASR_HYPOTHESIS_SCALE=10`` runs ten times as many; ``ASR_HYPOTHESIS_SEED=N`` draws other examples."""

from __future__ import annotations

import atexit
import math
import os
import shutil
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from corpus import build_sqlite
from golden_support import GoldenCase, golden_cases
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from asr_adapters import validate_records
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError

# heavy: hypothesis over every golden case (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy

SCALE = int(os.environ.get("ASR_HYPOTHESIS_SCALE", "1"))
#: Unset in CI (derandomized: the same examples every run); set to explore other examples locally.
SEED = os.environ.get("ASR_HYPOTHESIS_SEED")
PER_ADAPTER = 50 * SCALE
CASES = golden_cases()
CASES_PER_AGENT = Counter(case.agent for case in CASES)
#: How many examples ran, per adapter (printed at the end of the session by conftest).
EXAMPLES: Counter[str] = Counter()
#: The SQLite tables whose rows are the native items: (table, order column, JSON column, unique columns).
ROW_TABLES = {
    "cursor": [("cursorDiskKV", "rowid", "value", ("key",)), ("ItemTable", "rowid", "value", ("key",))],
    "openclaw": [("transcript_events", "seq", "event_json", ())],
    "opencode": [("message", "time_created", "data", ("id",)), ("part", "time_created", "data", ("id",))],
    "t3code": [
        ("orchestration_events", "sequence", "payload_json", ("event_id",)),
        ("orchestration_v2_events", "sequence", "payload_json", ("event_id",)),
    ],
}

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def examples_per_case(agent: str) -> int:
    return max(3, math.ceil(PER_ADAPTER / CASES_PER_AGENT[agent]))


def _slots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value that holds a value (dict keys and list indexes), depth first."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_slots(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_slots(item, (*path, index)))
    return found


def _retype(data: st.DataObject, value: Any) -> Any:
    """``value`` with one of its members (at any depth) given a value of some other type."""
    slots = _slots(value)
    if not slots:
        return data.draw(JSON_VALUES, label="whole value")
    path = data.draw(st.sampled_from(slots), label="path")
    replacement = data.draw(JSON_VALUES, label="new value")
    target = value
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = replacement
    return value


OPERATIONS = ("drop", "duplicate", "reorder", "truncate", "retype")


def mutate_lines(data: st.DataObject, lines: list[bytes]) -> list[bytes]:
    ops = data.draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=4), label="operations")
    lines = list(lines)
    for op in ops:
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1), label=f"{op} at")
        if op == "drop":
            del lines[i]
        elif op == "duplicate":
            j = data.draw(st.integers(0, len(lines)), label="copy to")
            lines.insert(j, lines[i])
        elif op == "reorder":
            j = data.draw(st.integers(0, len(lines) - 1), label="swap with")
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "truncate":
            cut = data.draw(st.integers(0, max(0, len(lines[i]) - 1)), label="cut at")
            if data.draw(st.booleans(), label="cut the file there"):
                lines = [*lines[:i], lines[i][:cut]]
            else:
                lines[i] = lines[i][:cut]
        else:
            try:
                value = orjson.loads(lines[i])
            except orjson.JSONDecodeError:
                continue
            lines[i] = orjson.dumps(_retype(data, value))
    return lines


def mutate_document(data: st.DataObject, raw: bytes) -> bytes:
    """A single JSON document: the same operations on the entries of its lists."""
    document = orjson.loads(raw)
    ops = data.draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=4), label="operations")
    for op in ops:
        if op == "truncate":
            text = orjson.dumps(document)
            return text[: data.draw(st.integers(0, len(text) - 1), label="cut document at")]
        lists = [path for path in _slots(document) if isinstance(_get(document, path), list)]
        if isinstance(document, list):
            lists.append(())
        if op == "retype" or not lists:
            document = _retype(data, document)
            continue
        items = _get(document, data.draw(st.sampled_from(lists), label="list"))
        if not items:
            continue
        i = data.draw(st.integers(0, len(items) - 1), label=f"{op} at")
        if op == "drop":
            del items[i]
        elif op == "duplicate":
            items.insert(data.draw(st.integers(0, len(items)), label="copy to"), orjson.loads(orjson.dumps(items[i])))
        else:
            j = data.draw(st.integers(0, len(items) - 1), label="swap with")
            items[i], items[j] = items[j], items[i]
    return orjson.dumps(document, option=orjson.OPT_INDENT_2)


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def mutate_rows(data: st.DataObject, database: Path, agent: str) -> None:
    """The same operations on the event rows of a SQLite database, in place."""
    with sqlite3.connect(database) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        usable = [spec for spec in ROW_TABLES[agent] if spec[0] in tables]
        ops = data.draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=4), label="operations")
        for op in ops:
            table, order, column, unique = data.draw(st.sampled_from(usable), label="table")
            rowids = [row[0] for row in connection.execute(f"SELECT rowid FROM {table} ORDER BY {order}")]
            if not rowids:
                continue
            rowid = data.draw(st.sampled_from(rowids), label=f"{op} row")
            try:
                _row_operation(data, connection, op, (table, order, column, unique), rowid, rowids)
            except sqlite3.IntegrityError:
                continue  # a duplicate the schema refuses: that mutation cannot happen
    connection.close()


def _row_operation(
    data: st.DataObject,
    connection: sqlite3.Connection,
    op: str,
    spec: tuple[str, str, str, tuple[str, ...]],
    rowid: int,
    rowids: list[int],
) -> None:
    table, order, column, unique = spec
    if op == "drop":
        connection.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    elif op == "duplicate":
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
        values = list(connection.execute(f"SELECT * FROM {table} WHERE rowid = ?", (rowid,)).fetchone())
        top = connection.execute(f"SELECT max({order}) FROM {table}").fetchone()[0] or 0
        for k, name in enumerate(columns):
            if name == order:
                values[k] = top + 1
            elif name in unique:
                values[k] = f"{values[k]}-copy-{top + 1}"
        marks = ",".join("?" * len(values))
        connection.execute(f"INSERT INTO {table} VALUES ({marks})", values)
    elif op == "reorder":
        other = data.draw(st.sampled_from(rowids), label="swap with")
        a, b = (
            connection.execute(f"SELECT {order} FROM {table} WHERE rowid = ?", (r,)).fetchone()[0]
            for r in (rowid, other)
        )
        connection.execute(f"UPDATE {table} SET {order} = ? WHERE rowid = ?", (-1 - rowid, rowid))
        connection.execute(f"UPDATE {table} SET {order} = ? WHERE rowid = ?", (a, other))
        connection.execute(f"UPDATE {table} SET {order} = ? WHERE rowid = ?", (b, rowid))
    else:
        (text,) = connection.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        if not isinstance(text, str):
            return
        if op == "truncate":
            text = text[: data.draw(st.integers(0, max(0, len(text) - 1)), label="cut at")]
        else:
            try:
                text = orjson.dumps(_retype(data, orjson.loads(text))).decode()
            except orjson.JSONDecodeError:
                return
        connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (text, rowid))


def line_count(data: bytes) -> int:
    """Native items of a lone JSON Lines file: its non-blank lines, as ``Source.lines`` reads them."""
    return sum(1 for line in data.split(b"\n") if line.rstrip(b"\r") and not line.isspace())


def alone(case: GoldenCase) -> bool:
    """Whether the case's input is its only native file (no companions, folders or index)."""
    others = [p for p in case.folder.iterdir() if not p.name.startswith(("expected", "README"))]
    return others == [case.input] and case.input.suffix in (".jsonl", ".zst")


def check(case: GoldenCase, path: Path, lines: int | None = None) -> None:
    """The promises: only InputError, every stream valid, accounting balanced (and, for a lone
    JSON Lines file, summing to its line count)."""
    EXAMPLES[case.agent] += 1
    try:
        conversion = Conversion(path, case.agent, as_dicts=True)
        streams = [(stream.key, list(stream.records)) for stream in conversion.streams()]
    except InputError:
        return
    for key, records in streams:
        # a mutated input may leave references dangling: warnings, not broken rules
        findings = [f for f in validate_records(records) if f.is_error]
        assert not findings, f"{key}: " + "\n".join(f.describe() for f in findings[:5])
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    if lines is not None:
        assert conversion.accounting.native_items == lines, (conversion.accounting.as_dict(), lines)


_SCRATCH: dict[str, Path] = {}


def scratch_copy(case: GoldenCase) -> Path:
    """The case folder copied once (inputs and companions, not expected streams)."""
    if case.id not in _SCRATCH:
        root = Path(tempfile.mkdtemp(prefix="asr-reliability-"))
        atexit.register(shutil.rmtree, root, True)
        folder = root / case.agent / case.name
        shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
        _SCRATCH[case.id] = folder
    return _SCRATCH[case.id]


def property_settings(max_examples: int) -> Callable[[Any], Any]:
    """The settings and seed every property test here runs under: reproducible (``SEED``, else
    derandomized), no example database, no deadline or health checks for slow, large
    examples (each is a whole conversion)."""

    def apply(test: Any) -> Any:
        return settings(
            max_examples=max_examples,
            deadline=None,
            derandomize=SEED is None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )(seed(int(SEED or 0))(test))

    return apply


def _property(case: GoldenCase) -> Any:
    @property_settings(examples_per_case(case.agent))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        folder = scratch_copy(case)
        source = case.input
        if source.name == "input.sql":
            database = build_sqlite(source, folder / "input.sqlite")
            mutate_rows(data, database, case.agent)
            check(case, database)
            return
        target = folder / source.name
        raw = source.read_bytes()
        if source.suffix == ".json":
            target.write_bytes(mutate_document(data, raw))
            check(case, target)
            return
        if source.suffix == ".zst":
            import zstandard

            with Conversion(source, case.agent).source.open() as stream:
                raw = stream.read()
        mutated = b"".join(mutate_lines(data, raw.splitlines(keepends=True)))
        if source.suffix == ".zst":
            target.write_bytes(zstandard.ZstdCompressor().compress(mutated))
        else:
            target.write_bytes(mutated)
        # Gemini CLI reads one object on one line as its .json format (header facts, no item)
        one_document = case.agent == "gemini-cli" and b"\n" not in mutated.strip()
        check(case, target, line_count(mutated) if alone(case) and not one_document else None)

    return run


PROPERTY_CASES = [case for case in CASES if case.input.is_file()]


@pytest.mark.parametrize("case", PROPERTY_CASES, ids=[c.id for c in PROPERTY_CASES])
def test_mutated_golden_input(case: GoldenCase) -> None:
    _property(case)()


@settings(max_examples=100 * SCALE, deadline=None, derandomize=True, database=None)
@given(records=st.lists(JSON_VALUES, max_size=6))
def test_validator_never_crashes_on_arbitrary_json(records: list[Any]) -> None:
    validate_records(records)


RECORD_LIKE = st.fixed_dictionaries(
    {"type": st.sampled_from(["session", "message", "tool_call", "tool_result", "vendor", "plan", "zz"])},
    optional={
        "seq": JSON_VALUES,
        "id": JSON_VALUES,
        "ts": JSON_VALUES,
        "content": st.lists(st.dictionaries(st.sampled_from(["type", "text", "author", "mimeType"]), JSON_VALUES)),
        "role": JSON_VALUES,
        "session": JSON_VALUES,
        "capture": JSON_VALUES,
        "supersedes": JSON_VALUES,
    },
)


@settings(max_examples=100 * SCALE, deadline=None, derandomize=True, database=None)
@given(records=st.lists(RECORD_LIKE, max_size=6))
def test_validator_never_crashes_on_record_shaped_json(records: list[Any]) -> None:
    validate_records(records)
