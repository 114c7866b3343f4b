"""What a SQLite store may make the converter do: read only the tables and columns an adapter
knows, as they are declared, within a budget of work (issue 25.13, docs/reliability.md).

A store is a file someone else made. Its schema is code SQLite runs while it reads: a view named
like a table the adapter reads runs any query (a recursive one never ends), a generated column
computes a value on every read (``zeroblob`` of a gigabyte), a default that is an expression
fills a column that rows do not store. So, for every table an adapter reads (``check_schema``),
the store must declare it as an ordinary table (not a view, not a virtual table), with no
generated column, no expression default and (unless the agent itself writes them) no trigger;
otherwise the store is refused whole, naming the object (``StoreRefused``, one error line).

Every connection ``core.sqlite_snapshot.open_snapshot`` opens is also bounded while it reads:
SQLite's progress handler counts the virtual machine's steps, and past a budget proportional to
the store's size (``STEPS_PER_BYTE`` per byte of the file and its ``-wal``, plus ``STEPS_BASE``)
the statement is stopped; no value may be longer than ``MAX_VALUE_BYTES``. Rows returned cost
steps too, so the same budget bounds the rows a hostile store can make a query return. A stopped
statement is ``StoreRefused`` naming the limit, raised where the adapter fetched.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .errors import InputError
from .source import MAX_LINE_BYTES

#: SQLite virtual-machine steps a connection may take per byte of its store (file and ``-wal``).
#: A whole conversion takes about 0.1 per byte (T3 Code and OpenClaw stores of 10 to 25 MB, with
#: 2,000 to 20,000 threads), at most about 1; the budget is ten times that, so only a schema or
#: data built to cost is stopped (a step takes 0.1 to 0.2 µs: 10 per byte is a few seconds per MB).
STEPS_PER_BYTE = 10
#: Steps every connection may take whatever its size (a few seconds of work).
STEPS_BASE = 50_000_000
#: How often the progress handler is called, in steps.
_STEP = 10_000
#: No value read may be longer than a line may be (``core.source.MAX_LINE_BYTES``).
MAX_VALUE_BYTES = MAX_LINE_BYTES
#: A default that calls a function (``DEFAULT (zeroblob(…))``): computed on every read of a row
#: stored without that column.
_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*\(")


class StoreRefused(InputError):
    """A SQLite store the converter will not read (or read on): its reason names what and why."""


_Store = TypeVar("_Store")


def open_store(opener: Callable[[Path], _Store], path: Path | None, display: str, what: str) -> _Store:
    """``opener(path)`` (an adapter's database class): a refusal says its own reason; any other
    failure to open is ``InputError`` "cannot open as ``what``: reason", since nothing converts;
    no ``path`` (the input is a stream) is "``what`` must be read from a file"."""
    if path is None:
        raise InputError(display, f"{what} must be read from a file")
    try:
        return opener(path)
    except StoreRefused:
        raise
    except Exception as exc:
        raise InputError(display, f"cannot open as {what}: {exc}") from exc


class GuardedConnection(sqlite3.Connection):
    """A read connection with a step budget and a value-length limit; its cursors turn a stop by
    either into ``StoreRefused``. ``scratch`` is a private copy's folder, removed on close."""

    scratch: str | None = None
    source: str = ""
    budget: int = STEPS_BASE
    steps: int = 0
    stopped: str | None = None

    def guard(self, source: str, size: int) -> None:
        """Start counting: ``source`` names the store in errors, ``size`` its bytes."""
        self.source = source
        self.budget = STEPS_BASE + STEPS_PER_BYTE * size
        self.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        self.set_progress_handler(self._tick, _STEP)

    def _tick(self) -> int:
        self.steps += _STEP
        if self.steps <= self.budget:
            return 0
        self.stopped = (
            f"reading it takes more than {self.budget} SQLite steps, the limit for a store of its size "
            "(a schema or data built to cost): refused"
        )
        return 1

    def explained(self, exc: sqlite3.Error) -> Exception:
        """``exc``, or the ``StoreRefused`` it stands for (a stop by the budget or the length limit)."""
        if self.stopped is not None and isinstance(exc, sqlite3.OperationalError):
            return StoreRefused(self.source, self.stopped)
        if isinstance(exc, sqlite3.DataError) and "too big" in str(exc):
            return StoreRefused(self.source, f"it holds a value longer than {MAX_VALUE_BYTES} bytes: refused")
        return exc

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or GuardedCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)
                self.scratch = None


class GuardedCursor(sqlite3.Cursor):
    """A cursor whose every step raises ``StoreRefused`` when its connection stopped it."""

    def _refused(self, exc: sqlite3.Error) -> Exception:
        connection = self.connection
        return connection.explained(exc) if isinstance(connection, GuardedConnection) else exc

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise self._refused(exc) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise self._refused(exc) from None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.Error as exc:
            raise self._refused(exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise self._refused(exc) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise self._refused(exc) from None


def check_schema(
    connection: sqlite3.Connection,
    source: str,
    reads: Mapping[str, Collection[str] | None],
    *,
    triggers: bool = False,
) -> dict[str, list[str]]:
    """The columns the store declares, of those the adapter reads, for each table of ``reads``
    (table -> the columns it knows, None: every column) that the store has; refuses the store
    (``StoreRefused``) when one of those tables is a view or a virtual table, or declares a
    generated column, an expression default, or (``triggers`` False) a trigger."""
    objects: dict[str, list[tuple[str, str, str]]] = {}
    for kind, name, table, sql in connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
        objects.setdefault(str(table).casefold(), []).append((str(kind), str(name), str(sql or "")))
    declared: dict[str, list[str]] = {}
    for table, known in reads.items():
        entries = objects.get(table.casefold(), [])
        own = [(kind, sql) for kind, name, sql in entries if name.casefold() == table.casefold()]
        if not own:
            continue
        kind, sql = own[0]
        if kind == "view":
            raise StoreRefused(source, f"{table} is a view, not a table: a store's views are not read; refused")
        if kind != "table":
            continue
        if re.match(r"\s*CREATE\s+VIRTUAL\b", sql, re.I):
            raise StoreRefused(source, f"{table} is a virtual table, not a table: refused")
        for kind_, name, _sql in entries:
            if kind_ == "trigger" and not triggers:
                raise StoreRefused(source, f"trigger {name} on {table}: this agent's stores have none; refused")
        columns = []
        for _cid, column, _type, _notnull, default, _pk, hidden in connection.execute(
            f'PRAGMA table_xinfo("{table}")'
        ).fetchall():
            column = str(column)
            if hidden in (2, 3):
                raise StoreRefused(source, f"{table}.{column} is a generated column: refused")
            if default is not None and _CALL.search(str(default)):
                raise StoreRefused(source, f"{table}.{column} has an expression default ({default}): refused")
            if known is None or column in known:
                columns.append(column)
        declared[table] = columns
    return declared
