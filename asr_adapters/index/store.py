"""The index file: created whole or not at all, never written through a link, never another file.

A new index (or one of another schema version) is made in a temporary file created
exclusively beside its final name (``O_CREAT|O_EXCL|O_NOFOLLOW``, as ``outputs.PendingFile``
does), given its tables, and renamed into place; from then on every change is a transaction,
so a killed run leaves the index as its last committed transaction left it. A path that is a
symbolic link, a folder, or a file that is not an index of ours is refused, never replaced.
While it writes, the index is in WAL mode (searches can run meanwhile); a run that ends well
puts it back in rollback-journal mode, a single file other tools open as they open any
SQLite database.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from ..core.errors import ASRError
from ..outputs import OutputError, PendingFile, make_folder, remove_file
from ..version import __version__
from . import schema

#: How long a writer waits for another one (a second ``asr index``, a search) before giving up.
BUSY_TIMEOUT_MS = 60_000
#: SQLite's page cache while indexing (a fixed bound, whatever the archive's size).
CACHE_KB = 32_768


class IndexFileError(ASRError):
    """The path named for the index cannot be one: a link, a folder, another kind of file."""


def _check_path(path: Path) -> bool:
    """Whether ``path`` exists (as a regular file); a link or anything else is refused."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        raise IndexFileError(f"{path}: is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(mode):
        raise IndexFileError(f"{path}: is not a regular file; give a file name for the index")
    return True


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def read_meta(conn: sqlite3.Connection) -> dict[str, str] | None:
    """The ``meta`` table, or None when the database has none (not an index of ours)."""
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError:
        return None


def _is_ours(meta: dict[str, str] | None) -> bool:
    return meta is not None and meta.get("format") == schema.FORMAT


@contextlib.contextmanager
def written_whole(pending: PendingFile, path: Path, failure: str) -> Iterator[None]:
    """The block that writes ``pending``: on any failure its temporary file is removed, so no
    half-written ``path`` is left; an ``OSError`` is ``OutputError`` "FILE: ``failure``:
    reason"."""
    try:
        yield
    except BaseException as exc:
        pending.discard()
        if isinstance(exc, OSError):
            raise OutputError(f"{exc.filename or path}: {failure}: {exc.strerror or exc}") from exc
        raise


def _create(path: Path, archive: Path) -> None:
    """A new empty index at ``path``: made in an exclusive temporary file, renamed into place."""
    try:
        make_folder(path.parent)
        pending = PendingFile(path)
    except OSError as exc:
        raise OutputError(f"{exc.filename or path}: cannot write the index: {exc.strerror or exc}") from exc
    pending.handle.close()
    with written_whole(pending, path, "cannot write the index"):
        conn = _connect(pending.temp)
        try:
            conn.execute("BEGIN")
            for statement in schema.ddl():
                conn.execute(statement)
            meta = {
                "format": schema.FORMAT,
                "schema_version": str(schema.SCHEMA_VERSION),
                "producer": "asr-adapters",
                "producer_version": __version__,
                "archive": str(archive),
                "sqlite_version": sqlite3.sqlite_version,
            }
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", sorted(meta.items()))
            conn.execute("COMMIT")
        finally:
            conn.close()
        pending.place()


def open_for_writing(path: Path, archive: Path) -> sqlite3.Connection:
    """The index at ``path``, made (or remade, for another schema version) when needed."""
    if not _check_path(path):
        _create(path, archive)
    conn = _connect(path)
    meta = read_meta(conn)
    if not _is_ours(meta):
        conn.close()
        raise IndexFileError(f"{path}: exists and is not an asr index; refusing to replace it (choose another -o)")
    assert meta is not None
    if meta.get("schema_version") != str(schema.SCHEMA_VERSION) or meta.get("archive") != str(archive):
        conn.close()  # derived data of another schema or archive: made again from the streams
        _replace(path, archive)
        conn = _connect(path)
    _same_file(conn, path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"PRAGMA cache_size = -{CACHE_KB}")
    return conn


def _replace(path: Path, archive: Path) -> None:
    for suffix in ("-wal", "-shm", "-journal"):
        remove_file(f"{path}{suffix}")
    remove_file(path)
    _create(path, archive)


def _same_file(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file swapped for a link between the check and the open."""
    if os.path.islink(path):
        conn.close()
        raise IndexFileError(f"{path}: is a symbolic link; refusing to write through it")


def finish(conn: sqlite3.Connection) -> None:
    """Back to a single rollback-journal file (no ``-wal`` beside it); a reader holding it
    open meanwhile only keeps it in WAL mode until the next run."""
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("PRAGMA optimize")
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()


def open_for_reading(path: Path) -> sqlite3.Connection:
    """An index to search: must exist and be ours; opened read-only."""
    if not _check_path(path):
        raise IndexFileError(f"{path}: no such index (build it with asr index ARCHIVE)")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise IndexFileError(f"{path}: cannot open the index: {exc}") from exc
    meta = read_meta(conn)
    if not _is_ours(meta):
        conn.close()
        raise IndexFileError(f"{path}: is not an asr index")
    assert meta is not None
    if meta.get("schema_version") != str(schema.SCHEMA_VERSION):
        conn.close()
        raise IndexFileError(
            f"{path}: index schema version {meta.get('schema_version')}, this asr reads version "
            f"{schema.SCHEMA_VERSION}; run asr index again to rebuild it"
        )
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (taken at once: two writers queue, never deadlock); rolled back on
    any failure or interrupt, so what was committed before stays as it was."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
