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


# -- asr batch touches no SQLite file of a source, claimed or not (issue 25.4) -----------------


def _wal_left_behind(path: Path, table: str) -> None:
    """``path`` in WAL mode with committed rows still in its ``-wal`` and no ``-shm``: what a
    writer that crashed (or a copy of a live folder) leaves. Made on a copy, then moved in."""
    import shutil

    scratch = path.with_name("scratch") / path.name
    scratch.parent.mkdir()
    shutil.copy(path, scratch)
    writer = sqlite3.connect(scratch, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(f"CREATE TABLE IF NOT EXISTS {table}_wal_probe (x)")
    writer.execute(f"INSERT INTO {table}_wal_probe VALUES (1)")
    shutil.copy(scratch, path)  # the main file and its -wal while the writer is connected
    shutil.copy(f"{scratch}-wal", f"{path}-wal")
    writer.close()
    shutil.rmtree(scratch.parent)


def _tree(folder: Path) -> dict[str, tuple[int, str, int]]:
    return {
        p.relative_to(folder).as_posix(): (
            p.stat().st_size,
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_batch_creates_nothing_beside_any_sqlite_file(tmp_path: Path) -> None:
    """Claimed (T3 Code, OpenCode, OpenClaw) and unclaimed (some other app's) databases, idle in
    WAL mode, with a ``-wal`` left behind and no ``-shm``, and in rollback-journal mode: after a
    batch every file of the source is byte for byte (and mtime for mtime) as it was, and no file
    was added. Before, the unclaimed ones got a ``-wal`` and ``-shm`` (batch opened them with a
    plain ``mode=ro`` to see why no adapter claimed them), and a ``-wal`` without its ``-shm`` got
    a ``-shm`` (claimed or not). The rows committed in a left-behind ``-wal`` are still converted."""
    from click.testing import CliRunner
    from golden_support import GOLDEN

    from asr_adapters.cli import main

    source = tmp_path / "src"
    claimed = [(name, *SQLITE_INPUTS[name], EVENTS[name][0]) for name in NAMES]
    claimed.append(("opencode", "opencode", GOLDEN / "opencode" / "sqlite-turn-tools-usage" / "input.sql", "part"))
    for name, agent, sql, table in claimed:
        file = {"openclaw": "openclaw-agent.sqlite", "opencode": "opencode.db"}.get(agent, "state.sqlite")
        for variant, wal in (("idle-wal", True), ("rollback", False), ("left-wal", True)):
            folder = source / name / variant
            folder.mkdir(parents=True)
            path = build_sqlite(sql, folder / file, wal=wal)
            if variant == "left-wal":
                _wal_left_behind(path, table)
    for variant, wal in (("idle-wal", True), ("rollback", False), ("left-wal", True)):
        folder = source / "other-app" / variant
        folder.mkdir(parents=True)
        # named as T3 Code names its database, so batch looks into it (and finds no agent's tables)
        connection = sqlite3.connect(folder / "state.sqlite", isolation_level=None)
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE entries (k TEXT PRIMARY KEY, v BLOB)")
        connection.execute("INSERT INTO entries VALUES ('a', x'00')")
        connection.close()
        if variant == "left-wal":
            _wal_left_behind(folder / "state.sqlite", "entries")
    before = _tree(source)
    assert any(name.endswith("-wal") for name in before) and not any(name.endswith("-shm") for name in before)
    result = CliRunner().invoke(main, ["batch", str(source), "-o", str(tmp_path / "archive")])
    assert result.exit_code in (0, 1), result.output
    after = _tree(source)
    assert sorted(after) == sorted(before), sorted(set(after) ^ set(before))
    assert after == before
    streams = list((tmp_path / "archive").rglob("*.asr.jsonl"))
    assert len(streams) >= 3 * len(claimed)  # the databases were converted, not skipped


@pytest.mark.parametrize("name", NAMES)
def test_rows_committed_in_a_left_behind_wal_are_read_from_a_copy(name: str, tmp_path: Path) -> None:
    """A ``-wal`` with no ``-shm``: the log is read (its committed delete is seen), from a private
    copy, and nothing is created beside the database."""
    agent, path = _database(name, tmp_path, wal=True)
    table, _column = EVENTS[name]
    expected_path = tmp_path / "expected" / path.name
    expected_path.parent.mkdir()
    expected_path.write_bytes(path.read_bytes())
    with sqlite3.connect(expected_path) as connection:
        connection.execute(f"DELETE FROM {table} WHERE rowid = (SELECT max(rowid) FROM {table})")
    connection.close()
    expected = convert(expected_path, tmp_path / "out-expected", "--agent", agent)
    import shutil

    scratch = tmp_path / "writer" / path.name
    scratch.parent.mkdir()
    shutil.copy(path, scratch)
    writer = sqlite3.connect(scratch, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(f"DELETE FROM {table} WHERE rowid = (SELECT max(rowid) FROM {table})")
    shutil.copy(scratch, path)
    shutil.copy(f"{scratch}-wal", f"{path}-wal")
    writer.close()
    before = _state(path.parent)
    got = convert(path, tmp_path / "out", "--agent", agent)
    assert got.converted and got.stats == expected.stats, (got.stats, expected.stats)
    assert _state(path.parent) == before
