"""SQLite inputs (OpenClaw's openclaw-agent.sqlite, T3 Code's state.sqlite): corrupt, cut, locked,
written to while read, or holding bytes that are not UTF-8. Never modified: sha256 before and after."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from corpus import SQLITE_INPUTS, build_sqlite
from harness import Outcome, convert

NAMES = list(SQLITE_INPUTS)


NOT_UTF8 = NAMES
#: The table and column that hold each input's events (a V2 thread's events are in the V2 table).
EVENTS = {
    "openclaw-sqlite": ("transcript_events", "event_json"),
    "t3code-v1": ("orchestration_events", "payload_json"),
    "t3code-v2": ("orchestration_v2_events", "payload_json"),
}


def digest(folder: Path) -> dict[str, str]:
    """sha256 of the database and its -wal. Not of the -shm: that is SQLite's shared-memory index
    of the WAL, which every reader of a WAL database updates (read marks); it holds no data."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith("-shm")
    }


def database(name: str, tmp_path: Path, *, wal: bool = False) -> tuple[str, Path]:
    agent, sql = SQLITE_INPUTS[name]
    folder = tmp_path / "db"
    folder.mkdir()
    file = "openclaw-agent.sqlite" if agent == "openclaw" else "state.sqlite"
    return agent, build_sqlite(sql, folder / file, wal=wal)


def unchanged(agent: str, path: Path, out: Path, *extra: str) -> Outcome:
    before = digest(path.parent)
    outcome = convert(path, out, "--agent", agent, *extra, timeout=60)
    assert digest(path.parent) == before, "the SQLite source was modified"
    return outcome


@pytest.mark.parametrize("name", NAMES)
def test_clean_database_is_not_modified(name: str, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    assert unchanged(agent, path, tmp_path / "out").converted


@pytest.mark.parametrize("name", NAMES)
def test_wal_database_with_a_writer_open_is_not_modified(name: str, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path, wal=True)
    writer = sqlite3.connect(path)
    try:
        writer.execute("CREATE TABLE IF NOT EXISTS zz_pending (x)")
        writer.execute("INSERT INTO zz_pending VALUES (1)")
        writer.commit()  # committed, still in the -wal file
        outcome = unchanged(agent, path, tmp_path / "out")
    finally:
        writer.close()
    assert outcome.converted


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", [0, 16, 100, 4096])
def test_cut_to_a_few_bytes(name: str, size: int, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    path.write_bytes(path.read_bytes()[:size])
    outcome = unchanged(agent, path, tmp_path / "out")
    assert not outcome.converted


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fraction", [0.5, 0.9])
def test_cut_database(name: str, fraction: float, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])
    unchanged(agent, path, tmp_path / "out")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("page", [1, 2, 3, -1])
def test_corrupt_page(name: str, page: int, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // size
    index = page if page >= 0 else pages - 1
    start = index * size + (100 if index == 0 else 0)
    data[start : start + size // 2] = bytes((i * 37 + 11) % 256 for i in range(size // 2))
    path.write_bytes(bytes(data))
    unchanged(agent, path, tmp_path / "out")


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


LOCKED = NAMES


@pytest.mark.parametrize("name", LOCKED)
def test_locked_database_is_reported_not_a_hang(name: str, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    with exclusive_lock(path):
        started = time.monotonic()
        outcome = convert(path, tmp_path / "out", "--agent", agent, timeout=60)
        elapsed = time.monotonic() - started
    assert elapsed < 30
    # the reason, without the file's path (pytest names tmp_path after this test: "…locked…")
    reasons = [text.replace(str(path), "<db>") for text in [*outcome.warnings, outcome.error or ""]]
    assert any("locked" in reason for reason in reasons), outcome.describe()


@pytest.mark.parametrize("name", NOT_UTF8)
def test_row_that_is_not_utf8(name: str, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path)
    table, column = EVENTS[name]
    with sqlite3.connect(path) as connection:
        rowid = connection.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
        connection.execute(f"UPDATE {table} SET {column} = CAST(X'7B22FF22FE7D' AS TEXT) WHERE rowid = ?", (rowid,))
    connection.close()
    outcome = unchanged(agent, path, tmp_path / "out")
    assert outcome.converted, outcome.describe()
    assert outcome.stats is not None and outcome.stats["unreadable"] >= 1


@pytest.mark.parametrize("name", NAMES)
def test_rows_written_while_read(name: str, tmp_path: Path) -> None:
    agent, path = database(name, tmp_path, wal=True)
    table, _ = EVENTS[name]
    stop = threading.Event()

    def write() -> None:
        connection = sqlite3.connect(path, timeout=5)
        try:
            columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
            rows = connection.execute(f"SELECT * FROM {table}").fetchall()
            n = 0
            while not stop.is_set() and n < 2000:
                for row in rows[-3:]:
                    n += 1
                    values = list(row)
                    for i, column in enumerate(columns):
                        if column in ("seq", "sequence"):
                            values[i] = 10_000_000 + n
                        elif column == "event_id":
                            values[i] = f"zz-appended-{n}"
                    marks = ",".join("?" * len(values))
                    connection.execute(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", values)
                connection.commit()
        finally:
            connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        outcome = convert(path, tmp_path / "out", "--agent", agent, timeout=60)
    finally:
        stop.set()
        thread.join()
    assert outcome.converted, outcome.describe()
