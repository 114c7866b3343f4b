"""Opening an agent's SQLite database to read it: read-only, in one snapshot, creating nothing.

- One snapshot: the connection begins a read transaction at once and keeps it until closed, so
  every query of a conversion sees the same committed state: never a row a writer later rolls
  back, never half of a write (docs/reliability.md, "SQLite").
- Creating nothing: a WAL-mode database with neither ``-wal`` nor ``-shm`` beside it has no
  connection open (a WAL writer keeps its ``-wal`` while connected) and all its data is in the
  main file; a ``mode=ro`` connection would still create both files, so it is opened with
  ``immutable=1``, which reads the main file and writes nothing. With a ``-wal`` present (a writer
  running, or one that crashed) it is an ordinary ``mode=ro`` connection, so committed rows still
  in the ``-wal`` are read; SQLite then updates the ``-shm`` index, which holds no data.
- A ``-wal`` with no ``-shm`` beside it (a writer that crashed, or a copy of a live folder): no
  connection is open, but a ``mode=ro`` connection would create the ``-shm`` to read the log. The
  main file and its ``-wal`` are copied into a private scratch folder and read there (removed
  when the connection closes), so the committed rows in the log are read and nothing is created
  beside the source.
- A write lock (``database is locked``) or a malformed page is an ``sqlite3.Error`` from
  ``open_snapshot`` itself: the caller makes it one error for the source before any output.

Every SQLite file the package opens, claimed by an adapter or not (``asr batch`` looks into an
unclaimed one to tell a locked or malformed database from some other app's), goes through
``open_snapshot``, which also bounds the work and the values of every read
(``core.sqlite_limits``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

from .sqlite_limits import GuardedConnection

#: Header bytes 18 and 19 (file format write/read versions) are 2 in a WAL-mode database.
_WAL_VERSIONS = b"\x02\x02"


def uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(str(path.resolve()))}?{query}"


def untouched_wal_database(path: Path) -> bool:
    """A WAL-mode database with no ``-wal`` or ``-shm`` beside it: no writer is connected."""
    if any(os.path.lexists(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")):
        return False
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18:20] == _WAL_VERSIONS


def log_without_index(path: Path) -> bool:
    """A ``-wal`` beside ``path`` with no ``-shm``: no writer is connected (a WAL connection keeps
    its ``-shm``), and reading the log in place would create the ``-shm``."""
    return os.path.lexists(f"{path}-wal") and not os.path.lexists(f"{path}-shm")


def _copy_with_log(path: Path) -> tuple[Path, str]:
    """The main file and its ``-wal`` copied into a new private folder: (the copy, the folder)."""
    scratch = tempfile.mkdtemp(prefix="asr-sqlite-")
    try:
        target = Path(scratch) / "snapshot.sqlite"
        shutil.copyfile(path, target)
        shutil.copyfile(f"{path}-wal", f"{target}-wal")
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return target, scratch


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def open_snapshot(path: Path, timeout: float, *, immutable: bool | None = None) -> sqlite3.Connection:
    """A read-only connection to ``path`` inside one read transaction (see the module doc).
    ``immutable`` forces the main-file-only reading (None: only when nothing is beside it)."""
    scratch = None
    target = path
    if immutable is None:
        immutable = untouched_wal_database(path)
        if not immutable and log_without_index(path):
            target, scratch = _copy_with_log(path)
    params = {"mode": "ro", "immutable": "1"} if immutable else {"mode": "ro"}
    try:
        connection = sqlite3.connect(
            uri(target, **params),
            uri=True,
            timeout=timeout,
            isolation_level=None,
            check_same_thread=False,
            factory=GuardedConnection,
        )
    except BaseException:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    assert isinstance(connection, GuardedConnection)
    connection.scratch = scratch
    connection.guard(str(path), _size(path) + _size(Path(f"{path}-wal")))
    try:
        connection.execute("BEGIN")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # takes the snapshot now
    except BaseException:
        connection.close()
        raise
    return connection


def table_names(path: Path, timeout: float, *, views: bool = False) -> set[str]:
    """The tables (with ``views``, the views too) of the database at ``path``, read in a
    snapshot: what a sniff asks when the head does not name its tables; an empty set when the
    file cannot be read as a database."""
    try:
        connection = open_snapshot(path, timeout)
    except (sqlite3.Error, OSError):
        return set()
    kinds = "('table', 'view')" if views else "('table')"
    try:
        return {row[0] for row in connection.execute(f"SELECT name FROM sqlite_master WHERE type IN {kinds}")}
    except sqlite3.Error:
        return set()
    finally:
        connection.close()
