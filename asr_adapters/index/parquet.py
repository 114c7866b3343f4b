"""The index's tables as Parquet files, for DuckDB, Polars, Spark and the like.

Read from a built SQLite index, a row group at a time (bounded by rows and by bytes, so a table
of 10 MB parts never sits in memory whole), into ``DIR/<table>.parquet`` with the same columns
and logical types (``schema``: bool columns become Parquet booleans, JSON columns strings).
Each file is written to an exclusive temporary name beside it and renamed when complete.
The full-text table has no Parquet form; the text it indexes is ``parts.text``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..outputs import OutputError, PendingFile, make_folder
from . import schema, store

#: A row group ends at this many rows, or at this many bytes of text.
GROUP_ROWS = 65_536
GROUP_BYTES = 64 << 20


def _arrow_types() -> dict[str, Any]:
    import pyarrow as pa

    return {"int": pa.int64(), "real": pa.float64(), "text": pa.string(), "json": pa.string(), "bool": pa.bool_()}


def write_parquet(index: str | os.PathLike[str], folder: str | os.PathLike[str]) -> dict[str, int]:
    """Write every table of the index at ``index`` as ``folder/<table>.parquet``; rows per table."""
    try:
        import pyarrow.parquet as pq  # noqa: F401 - the extra is checked before anything is written
    except ImportError:
        raise OutputError("Parquet output needs pyarrow: pip install 'asr-adapters[parquet]'") from None
    target = Path(folder)
    if target.is_symlink():
        raise store.IndexFileError(f"{target}: is a symbolic link; refusing to write through it")
    try:
        make_folder(target)
    except OSError as exc:
        raise OutputError(f"{exc.filename or target}: cannot write: {exc.strerror or exc}") from exc
    conn = store.open_for_reading(Path(index))
    counts: dict[str, int] = {}
    try:
        for table in (*schema.TABLES, schema.META):
            counts[table.name] = _write_table(conn, table, target / f"{table.name}.parquet")
    finally:
        conn.close()
    return counts


def _write_table(conn: Any, table: schema.Table, path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = _arrow_types()
    arrow_schema = pa.schema([pa.field(c.name, types[c.kind]) for c in table.columns])
    bools = [i for i, c in enumerate(table.columns) if c.kind == "bool"]
    order = table.key or "rowid"
    cursor = conn.execute(f"SELECT {', '.join(table.names)} FROM {table.name} ORDER BY {order}")
    try:
        pending = PendingFile(path)
    except OSError as exc:
        raise OutputError(f"{exc.filename or path}: cannot write: {exc.strerror or exc}") from exc
    total = 0
    with store.written_whole(pending, path, "cannot write"):
        with pq.ParquetWriter(pending.handle, arrow_schema, compression="zstd") as writer:
            group: list[tuple[Any, ...]] = []
            size = 0
            for row in cursor:
                group.append(row)
                size += sum(len(v) for v in row if isinstance(v, str))
                if len(group) >= GROUP_ROWS or size >= GROUP_BYTES:
                    writer.write_table(_arrow_table(group, arrow_schema, bools))
                    total += len(group)
                    group, size = [], 0
            if group or total == 0:
                writer.write_table(_arrow_table(group, arrow_schema, bools))
                total += len(group)
        pending.commit()
    return total


def _arrow_table(rows: list[tuple[Any, ...]], arrow_schema: Any, bools: list[int]) -> Any:
    import pyarrow as pa

    columns = [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in arrow_schema]
    for index in bools:
        columns[index] = [None if v is None else bool(v) for v in columns[index]]
    return pa.Table.from_arrays(
        [pa.array(values, type=f.type) for values, f in zip(columns, arrow_schema, strict=True)], schema=arrow_schema
    )
