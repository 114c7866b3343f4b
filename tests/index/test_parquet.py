"""``asr index --format parquet``: the same tables, with the same types and rows, read back by
pyarrow and by DuckDB."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.index.schema import META, TABLES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

ARROW = {"int": pa.int64(), "real": pa.float64(), "text": pa.string(), "json": pa.string(), "bool": pa.bool_()}


@pytest.fixture(scope="module")
def exported(golden_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("parquet")
    index, folder = root / "index.sqlite", root / "tables"
    result = CliRunner().invoke(
        main, ["index", str(golden_archive), "--format", "parquet", "-o", f"{folder}/", "--index", str(index), "-q"]
    )
    assert result.exit_code == 0, result.output
    return index, folder


def test_every_table_round_trips_through_pyarrow(exported: tuple[Path, Path]) -> None:
    index, folder = exported
    conn = sqlite3.connect(index)
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{t.name}.parquet" for t in (*TABLES, META))
    for table in (*TABLES, META):
        read = pq.read_table(folder / f"{table.name}.parquet")
        assert read.schema.names == table.names
        assert [f.type for f in read.schema] == [ARROW[c.kind] for c in table.columns], table.name
        order = table.key or "rowid"
        rows = conn.execute(f"SELECT {', '.join(table.names)} FROM {table.name} ORDER BY {order}").fetchall()
        assert read.num_rows == len(rows), table.name
        bools = [i for i, c in enumerate(table.columns) if c.kind == "bool"]
        expected = [tuple(bool(v) if i in bools and v is not None else v for i, v in enumerate(r)) for r in rows]
        assert [tuple(r.values()) for r in read.to_pylist()] == expected, table.name
    assert conn.execute("SELECT count(*) FROM parts").fetchone()[0] > 0


def test_duckdb_reads_the_same_row_counts_and_answers_the_same(exported: tuple[Path, Path]) -> None:
    index, folder = exported
    conn = sqlite3.connect(index)
    duck = duckdb.connect()
    for table in TABLES:
        count = duck.execute(f"SELECT count(*) FROM read_parquet('{folder / table.name}.parquet')").fetchone()[0]
        assert count == conn.execute(f"SELECT count(*) FROM {table.name}").fetchone()[0], table.name
    query = (
        "SELECT s.agent, p.author, count(*) FROM {parts} p JOIN {sessions} s ON s.sid = p.sid "
        "WHERE p.copied = {false} GROUP BY 1, 2 ORDER BY 1, 2 NULLS FIRST"
    )
    from_duck = duck.execute(
        query.format(
            parts=f"read_parquet('{folder / 'parts'}.parquet')",
            sessions=f"read_parquet('{folder / 'sessions'}.parquet')",
            false="false",
        )
    ).fetchall()
    from_sqlite = conn.execute(query.format(parts="parts", sessions="sessions", false="0")).fetchall()
    assert from_duck == from_sqlite
    assert any(author == "human" for _, author, _ in from_duck)


def test_parquet_needs_an_output_folder(golden_archive: Path) -> None:
    result = CliRunner().invoke(main, ["index", str(golden_archive), "--format", "parquet"])
    assert result.exit_code == 2
    assert "-o DIR/" in result.output
