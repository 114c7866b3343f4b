"""Incremental indexing: a re-run reads only what changed, a grown session changes only its own
rows, a removed stream loses its rows, and the full-text table stays consistent throughout."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from golden_support import GOLDEN

from asr_adapters.index import build_index
from asr_adapters.index.schema import TABLES
from index.conftest import batch, header, write_stream

SOURCES = ["10-tool-calls-every-kind", "03-user-message-parts", "30-usage-follows-the-response"]
GROWING = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"


def dump(index: Path) -> dict[str, dict[int, list[tuple[Any, ...]]]]:
    """Every table's rows grouped by session (``sid``), every column included."""
    conn = sqlite3.connect(index)
    try:
        conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('integrity-check')")  # FTS matches parts
        out: dict[str, dict[int, list[tuple[Any, ...]]]] = {}
        for table in TABLES:
            by_sid: dict[int, list[tuple[Any, ...]]] = {}
            for row in conn.execute(f"SELECT * FROM {table.name} ORDER BY rowid"):
                by_sid.setdefault(row[table.names.index("sid")], []).append(row)
            out[table.name] = by_sid
        return out
    finally:
        conn.close()


def _sources(root: Path, growing_lines: int) -> Path:
    for name in SOURCES:
        shutil.copy(GOLDEN / "codex" / name / "input.jsonl", root / f"rollout-{name}.jsonl")
    lines = GROWING.read_bytes().splitlines(keepends=True)
    (root / "rollout-growing.jsonl").write_bytes(b"".join(lines[:growing_lines]))
    return root / "rollout-growing.jsonl"


def test_appending_to_one_session_changes_only_its_rows(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    growing = _sources(sources, 8)
    archive = batch(sources, tmp_path / "archive")
    index = tmp_path / "index.sqlite"
    first = build_index(archive, index)
    assert (first.indexed, first.unchanged) == (4, 0)
    before = dump(index)
    conn = sqlite3.connect(index)
    (sid,) = conn.execute("SELECT sid FROM sessions WHERE source_path = ?", (str(growing.resolve()),)).fetchone()
    conn.close()

    growing.write_bytes(GROWING.read_bytes())  # the session went on: the rest of its lines appended
    batch(sources, archive)
    second = build_index(archive, index)
    assert (second.indexed, second.unchanged) == (1, 3)
    after = dump(index)
    for table, rows in before.items():
        for key in set(rows) | set(after[table]):
            if key != sid:
                assert after[table].get(key) == rows.get(key), f"{table}: session {key} changed"
    assert after["messages"][sid] != before["messages"][sid]
    assert len(after["messages"][sid]) > len(before["messages"][sid])

    third = build_index(archive, index)
    assert (third.indexed, third.unchanged) == (0, 4)
    assert dump(index) == after


def test_the_grown_index_equals_one_built_afresh(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    growing = _sources(sources, 5)
    archive = batch(sources, tmp_path / "archive")
    build_index(archive, tmp_path / "grown.sqlite")
    growing.write_bytes(GROWING.read_bytes())
    batch(sources, archive)
    build_index(archive, tmp_path / "grown.sqlite")
    build_index(archive, tmp_path / "fresh.sqlite")
    grown, fresh = dump(tmp_path / "grown.sqlite"), dump(tmp_path / "fresh.sqlite")

    def content(tables: dict[str, dict[int, list[tuple[Any, ...]]]]) -> dict[str, list[tuple[Any, ...]]]:
        # row keys (sid, part_id) and fingerprints may differ; what the rows say may not
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table in TABLES:
            drop = {"sid", "part_id", "mtime_ns", "inode"}
            keep = [i for i, n in enumerate(table.names) if n not in drop]
            path_of = {sid: rows[0][1] for sid, rows in tables["sessions"].items()}
            out[table.name] = sorted(
                (path_of[sid], *(row[i] for i in keep)) for sid, rows in tables[table.name].items() for row in rows
            )
        return out

    assert content(grown) == content(fresh)


def test_same_bytes_rewritten_are_not_read_again_and_removed_streams_lose_their_rows(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    one = write_stream(
        archive / "codex" / "one.asr.jsonl",
        [header("codex:one"), {"type": "message", "messageId": "m1", "role": "user", "content": []}],
    )
    two = write_stream(
        archive / "codex" / "two.asr.jsonl",
        [
            header("codex:two"),
            {"type": "message", "messageId": "m1", "role": "user", "content": [{"type": "text", "text": "gone soon"}]},
        ],
    )
    index = tmp_path / "index.sqlite"
    assert build_index(archive, index).indexed == 2
    data = one.read_bytes()
    one.unlink()
    one.write_bytes(data)  # a new inode and mtime, the same bytes (asr batch rewrote it)
    os.utime(one, ns=(1, 1))
    report = build_index(archive, index)
    assert (report.indexed, report.unchanged) == (0, 2)
    two.unlink()
    report = build_index(archive, index)
    assert (report.indexed, report.unchanged, report.removed) == (0, 1, 1)
    conn = sqlite3.connect(index)
    assert [r[0] for r in conn.execute("SELECT session FROM sessions")] == ["codex:one"]
    for table in TABLES[1:]:
        assert (
            conn.execute(f"SELECT count(*) FROM {table.name} WHERE sid NOT IN (SELECT sid FROM sessions)").fetchone()[0]
            == 0
        )
    assert conn.execute("SELECT count(*) FROM parts_fts WHERE parts_fts MATCH 'gone'").fetchone()[0] == 0
    conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('integrity-check')")


def test_a_stream_that_changed_in_place_is_read_again(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    records = [
        header("codex:s"),
        {"type": "message", "messageId": "m1", "role": "user", "content": [{"type": "text", "text": "alpha"}]},
    ]
    stream = write_stream(archive / "s.asr.jsonl", records)
    index = tmp_path / "index.sqlite"
    build_index(archive, index)
    records[1]["content"][0]["text"] = "omega"  # same size, other bytes
    write_stream(stream, records)
    assert build_index(archive, index).indexed == 1
    conn = sqlite3.connect(index)
    assert conn.execute("SELECT text FROM parts").fetchall() == [("omega",)]
    assert conn.execute("SELECT count(*) FROM parts_fts WHERE parts_fts MATCH 'alpha'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM parts_fts WHERE parts_fts MATCH 'omega'").fetchone()[0] == 1
