"""SQLite stores are read by their declared schema, within a budget (issue 25, item 13).

A 45 KB T3 Code database whose ``payload_json`` is a generated column exhausted memory; one
built to cost (thousands of threads, no index) ran for hours; a 4 KB OpenCode database whose
``session`` is a recursive view made batch discovery read until memory ran out, then hid the
error. Now only the tables and columns an adapter knows are read, as the store declares them;
a view, virtual table, generated column, expression default or (T3 Code, OpenCode) trigger
among them refuses the store with one error naming it; every read has a budget of SQLite steps
proportional to the store's size and a cap on a value's length. The costly cases run in a child
process under ``resource`` limits (``limited.run_limited``), so they fail by the kernel's limit,
never by a timing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from corpus import build_sqlite
from golden_support import GOLDEN
from harness import convert
from limited import one_error, run_limited

T3_V1 = GOLDEN / "t3code" / "v1-activities" / "input.sql"
OPENCODE = GOLDEN / "opencode" / "sqlite-turn-tools-usage" / "input.sql"
OPENCLAW = GOLDEN / "openclaw" / "sqlite-era" / "input.sql"


def _rebuilt(database: Path, table: str, column: str, declaration: str) -> Path:
    """``database`` with ``table`` declared again, ``column`` now ``declaration`` (the rest kept)."""
    connection = sqlite3.connect(database)
    columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
    kept = [c for c in columns if c != column]
    declared = ", ".join([*(f"{c}" for c in kept), f"{column} {declaration}"])
    connection.executescript(
        f"ALTER TABLE {table} RENAME TO old_{table}; CREATE TABLE {table} ({declared});"
        f"INSERT INTO {table} ({', '.join(kept)}) SELECT {', '.join(kept)} FROM old_{table};"
        f"DROP TABLE old_{table}; VACUUM;"
    )
    connection.close()
    return database


def test_a_generated_column_that_exhausts_memory_is_refused(tmp_path: Path) -> None:
    """``payload_json`` computed as 300 MB of ``x`` on every read: before, the conversion ran out
    of memory under the limit; now one error line naming the column, in bounded memory."""
    database = build_sqlite(T3_V1, tmp_path / "state.sqlite")
    _rebuilt(
        database, "orchestration_events", "payload_json", "TEXT GENERATED ALWAYS AS (printf('%.*c', 300000000, 'x'))"
    )
    result = run_limited("convert", str(database), "--agent", "t3code", cpu_seconds=30)
    assert "orchestration_events.payload_json is a generated column" in one_error(result)


@pytest.mark.heavy  # a store built to cost (.ci/run runs -m heavy)
def test_a_store_built_to_cost_stops_at_its_step_budget(tmp_path: Path) -> None:
    """20,000 threads of one small event each and no index: every per-thread query scans the
    whole table (about 4e10 SQLite steps: hours, for a 3 MB file). The step budget (10 per byte
    of the store, plus a base) stops it: one error line naming the limit, well inside 60 s of CPU."""
    database = build_sqlite(T3_V1, tmp_path / "state.sqlite")
    connection = sqlite3.connect(database)
    for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall():
        connection.execute(f"DROP INDEX {name}")
    row = connection.execute("SELECT * FROM orchestration_events WHERE event_type = 'thread.created'").fetchone()
    columns = [r[1] for r in connection.execute("PRAGMA table_info(orchestration_events)")]
    sequence, event, stream = columns.index("sequence"), columns.index("event_id"), columns.index("stream_id")
    payload = columns.index("payload_json")
    version = columns.index("stream_version") if "stream_version" in columns else None
    marks = ",".join("?" * len(columns))
    for n in range(20_000):
        copy = list(row)
        copy[sequence], copy[event], copy[stream] = 1_000_000 + n, f"evt-cost-{n}", f"thread-cost-{n}"
        copy[payload] = f'{{"threadId":"thread-cost-{n}"}}'
        if version is not None:
            copy[version] = 0
        connection.execute(f"INSERT INTO orchestration_events VALUES ({marks})", copy)
    connection.commit()
    connection.close()
    result = run_limited("convert", str(database), "--agent", "t3code", "-o", f"{tmp_path}/out/", cpu_seconds=60)
    error = one_error(result)
    assert "SQLite steps, the limit for a store of its size" in error, error
    assert not list((tmp_path / "out").rglob("*.asr.jsonl"))  # nothing half-written


def _opencode_view(tmp_path: Path) -> Path:
    """An OpenCode data folder whose ``opencode.db`` has a ``session`` view of an endless
    recursive query, and a global JSON tree beside it (whose discovery asks the database)."""
    data = tmp_path / "data" / "opencode"
    data.mkdir(parents=True)
    database = data / "opencode.db"
    connection = sqlite3.connect(database)
    connection.executescript(
        "CREATE VIEW session AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT printf('ses_%d', n) AS id, n AS time_created FROM r;"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
    )
    connection.close()
    tree = GOLDEN / "opencode" / "json-global-tree"
    import shutil

    shutil.copytree(tree / "storage", data / "storage")
    info = tree / "input.json"
    import orjson

    session = orjson.loads(info.read_bytes())
    folder = data / "storage" / "session" / "global"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session['id']}.json").write_bytes(info.read_bytes())
    return data


def test_an_opencode_view_does_not_make_batch_discovery_read_forever(tmp_path: Path) -> None:
    """Before: batch discovery asked the database which sessions it holds, read the endless view
    until memory ran out, and hid the error. Now the view is refused: the JSON tree's session
    converts, and the database is one failed source naming the view."""
    data = _opencode_view(tmp_path)
    out = tmp_path / "archive"
    result = run_limited("batch", str(data), "-o", str(out), cpu_seconds=60)
    stderr = result.stderr.decode()
    assert result.returncode == 1, (result.returncode, stderr[-2000:])
    assert "Traceback" not in stderr and "MemoryError" not in stderr
    assert len(list(out.rglob("*.asr.jsonl"))) == 1  # the JSON tree's session
    errors = (out / "_errors.jsonl").read_text()
    assert "session is a view, not a table" in errors, errors


def test_an_opencode_view_is_one_error_when_converted(tmp_path: Path) -> None:
    database = _opencode_view(tmp_path) / "opencode.db"
    result = run_limited("convert", str(database), "--agent", "opencode", cpu_seconds=30)
    assert "session is a view, not a table: a store's views are not read; refused" in one_error(result)


@pytest.mark.parametrize(
    ("agent", "sql", "file", "change", "refused"),
    [
        (
            "t3code",
            T3_V1,
            "state.sqlite",
            "CREATE TRIGGER planted AFTER INSERT ON orchestration_events BEGIN SELECT 1; END",
            "trigger planted on orchestration_events",
        ),
        (
            "opencode",
            OPENCODE,
            "opencode.db",
            "CREATE TRIGGER planted AFTER INSERT ON part BEGIN SELECT 1; END",
            "trigger planted on part",
        ),
        (
            "opencode",
            OPENCODE,
            "opencode.db",
            "ALTER TABLE todo ADD COLUMN extra TEXT GENERATED ALWAYS AS (zeroblob(100)) VIRTUAL",
            "todo.extra is a generated column",
        ),
        (
            "openclaw",
            OPENCLAW,
            "openclaw-agent.sqlite",
            "ALTER TABLE session_nodes ADD COLUMN extra TEXT GENERATED ALWAYS AS (zeroblob(100)) VIRTUAL",
            "session_nodes.extra is a generated column",
        ),
    ],
    ids=["t3code-trigger", "opencode-trigger", "opencode-generated", "openclaw-generated"],
)
def test_objects_no_agent_writes_refuse_the_store(
    agent: str, sql: Path, file: str, change: str, refused: str, tmp_path: Path
) -> None:
    database = build_sqlite(sql, tmp_path / file)
    with sqlite3.connect(database) as connection:
        connection.execute(change)
    connection.close()
    got = convert(database, tmp_path / "out", "--agent", agent)
    assert got.error is not None and refused in got.error, got.describe()


def test_an_expression_default_on_a_column_read_refuses_the_store(tmp_path: Path) -> None:
    """Rows stored without a column get its default computed on every read."""
    database = build_sqlite(T3_V1, tmp_path / "state.sqlite")
    _rebuilt(database, "orchestration_events", "metadata_json", "TEXT DEFAULT (zeroblob(100000))")
    got = convert(database, tmp_path / "out", "--agent", "t3code")
    assert got.error is not None and "orchestration_events.metadata_json has an expression default" in got.error


def test_openclaws_own_triggers_are_read_past(tmp_path: Path) -> None:
    """OpenClaw's agent schema (21 to 24) keeps triggers on its session tables; a trigger never
    fires on a read-only connection, so an OpenClaw store with them converts."""
    database = build_sqlite(OPENCLAW, tmp_path / "openclaw-agent.sqlite")
    clean = convert(database, tmp_path / "clean", "--agent", "openclaw")
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TRIGGER nodes_touch AFTER UPDATE ON session_nodes BEGIN SELECT 1; END")
        connection.execute("CREATE TRIGGER events_fts AFTER INSERT ON transcript_events BEGIN SELECT 1; END")
    connection.close()
    got = convert(database, tmp_path / "out", "--agent", "openclaw")
    assert got.converted and got.stats == clean.stats


def test_a_value_longer_than_the_limit_refuses_the_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The length cap (``MAX_VALUE_BYTES``, 256 MiB) shown with a small cap: SQLite refuses the
    value, and the conversion says which limit, not ``DataError``."""
    from asr_adapters.core import sqlite_limits

    monkeypatch.setattr(sqlite_limits, "MAX_VALUE_BYTES", 200)
    database = build_sqlite(T3_V1, tmp_path / "state.sqlite")
    got = convert(database, tmp_path / "out", "--agent", "t3code")
    assert got.error is not None and "holds a value longer than 200 bytes" in got.error, got.describe()


def test_only_known_session_columns_are_selected(tmp_path: Path) -> None:
    """OpenCode read ``SELECT * FROM session``: a column it does not know (here a costly one a
    newer release might add) was read too. Now the known columns, by their declared names."""
    database = build_sqlite(OPENCODE, tmp_path / "opencode.db")
    clean = convert(database, tmp_path / "clean", "--agent", "opencode")
    with sqlite3.connect(database) as connection:
        connection.execute("ALTER TABLE session ADD COLUMN unknown_blob BLOB")
        connection.execute("UPDATE session SET unknown_blob = zeroblob(1000000)")
    connection.close()
    got = convert(database, tmp_path / "out", "--agent", "opencode")
    assert got.converted and got.stats == clean.stats
    assert list(got.streams.values()) == list(clean.streams.values())
