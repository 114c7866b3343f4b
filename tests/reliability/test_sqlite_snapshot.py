"""SQLite sources read in one snapshot, creating nothing (issue 21.12, issue 16 item 4): an idle
database is left byte for byte and file for file as it was; a writer's rolled-back rows are never
converted (a write lock is one error, no output); rows committed while a conversion runs do not
change it (every query of the conversion sees the snapshot it began with)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from corpus import SQLITE_INPUTS, build_sqlite
from harness import convert
from test_sqlite import EVENTS

from asr_adapters.convert import Conversion

NAMES = list(SQLITE_INPUTS)


def _database(name: str, tmp_path: Path, *, wal: bool) -> tuple[str, Path]:
    agent, sql = SQLITE_INPUTS[name]
    folder = tmp_path / "db"
    folder.mkdir()
    file = "openclaw-agent.sqlite" if agent == "openclaw" else "state.sqlite"
    return agent, build_sqlite(sql, folder / file, wal=wal)


def _state(folder: Path) -> dict[str, tuple[int, str, int]]:
    """Every file of the folder: size, sha256 and modification time."""
    return {
        p.name: (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
    }


@pytest.mark.parametrize("wal", [True, False], ids=["wal-mode", "rollback-journal"])
@pytest.mark.parametrize("name", NAMES)
def test_an_idle_database_is_left_exactly_as_it_was(name: str, wal: bool, tmp_path: Path) -> None:
    agent, path = _database(name, tmp_path, wal=wal)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # nothing beside it
    before = _state(path.parent)
    assert convert(path, tmp_path / "out", "--agent", agent).converted
    assert convert(path, tmp_path / "out2").converted  # detection reads it too
    assert _state(path.parent) == before  # no -shm, no -wal: the listing and every byte the same


@pytest.mark.parametrize("name", NAMES)
def test_rows_a_writer_rolls_back_are_never_converted(name: str, tmp_path: Path) -> None:
    """A rollback-journal writer holding uncommitted rows (spilled to the main file) locks the
    database: the conversion is one error naming the lock, and writes no stream."""
    agent, path = _database(name, tmp_path, wal=False)
    table, column = EVENTS[name]
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA cache_size=1")  # uncommitted pages spill into the main file
    writer.execute("BEGIN EXCLUSIVE")
    try:
        rowid = writer.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
        for _ in range(50):
            writer.execute(
                f"UPDATE {table} SET {column} = ? WHERE rowid = ?", ('{"ghost": "' + "G" * 4000 + '"}', rowid)
            )
        out = tmp_path / "out"
        outcome = convert(path, out, "--agent", agent, timeout=60)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert outcome.error is not None and "locked" in outcome.error.replace(str(path), "<db>"), outcome.describe()
    assert not [p for p in out.iterdir() if b"ghost" in p.read_bytes()]
    assert not list(out.glob("*.asr.jsonl"))


@pytest.mark.parametrize("name", NAMES)
def test_rows_committed_during_a_conversion_do_not_change_it(name: str, tmp_path: Path) -> None:
    agent, path = _database(name, tmp_path, wal=True)
    clean = [list(s.records) for s in Conversion(path, agent, as_dicts=True).streams()]
    table, _ = EVENTS[name]
    conversion = Conversion(path, agent, as_dicts=True)
    got = []
    with sqlite3.connect(path) as writer:
        for index, stream in enumerate(conversion.streams()):
            records = stream.records
            first = next(records)
            if index == 0:  # the conversion has begun: a writer empties the events table and commits
                writer.execute(f"DELETE FROM {table}")
                writer.commit()
            got.append([first, *records])
    writer.close()
    assert got == clean


@pytest.mark.parametrize("name", ["t3code-v1", "t3code-v2"])
def test_a_blob_in_a_text_column_is_one_unreadable_row(name: str, tmp_path: Path) -> None:
    """(issue 21.13) OpenClaw's tables are STRICT (SQLite refuses the BLOB); T3 Code's are not."""
    agent, path = _database(name, tmp_path, wal=False)
    table, column = EVENTS[name]
    clean = convert(path, tmp_path / "a", "--agent", agent).stats
    with sqlite3.connect(path) as writer:
        writer.execute(f"UPDATE {table} SET {column} = X'00FF7B' WHERE rowid = (SELECT max(rowid) FROM {table})")
    writer.close()
    outcome = convert(path, tmp_path / "b", "--agent", agent)
    assert outcome.converted and outcome.stats is not None and clean is not None
    assert outcome.stats["unreadable"] == clean["unreadable"] + 1
    assert outcome.stats["native_items"] == clean["native_items"]
    assert [w for w in outcome.warnings if w.endswith("a BLOB in a text column; skipped")], outcome.warnings
