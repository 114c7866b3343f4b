"""A Cursor ``state.vscdb``: SQLite key-value tables read in one read-only snapshot.

The editor keeps the file open (with its ``-wal``) while it runs, so it is opened through
``core.sqlite_snapshot`` (nothing created beside it, a writer's uncommitted rows never seen) and
its two tables are checked with ``core.sqlite_limits.check_schema``. Only the keys the converter
names are queried, by exact key or by a key-prefix range over the unique key index: the login
rows the same file holds (``cursorAuth/*``) are never read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from ...core.sqlite_limits import check_schema
from ...core.sqlite_snapshot import open_snapshot

ITEMS = "ItemTable"
DISK = "cursorDiskKV"
PAGE = 200
READS: dict[str, frozenset[str]] = {ITEMS: frozenset({"key", "value"}), DISK: frozenset({"key", "value"})}
#: the workspace database's conversational keys (docs/agents/cursor.md)
CHAT = "workbench.panel.aichat.view.aichat.chatdata"
COMPOSERS = "composer.composerData"
PROMPTS = "aiService.prompts"
GENERATIONS = "aiService.generations"
#: the workspace's persisted editor state; its ``persistentChatMetadata`` is per chat request
WORKSPACE_USER = "src.vs.platform.reactivestorage.browser.reactiveStorageServiceImpl.persistentStorage.workspaceUser"
WORKSPACE_KEYS = (CHAT, COMPOSERS, PROMPTS, GENERATIONS)


def upper_bound(prefix: str) -> str:
    """The smallest key above every key starting with ``prefix`` (its last character + 1)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


class CursorDb:
    """One read-only snapshot of a ``state.vscdb``."""

    def __init__(self, path: Path, timeout: float = 5.0) -> None:
        self.connection = open_snapshot(path, timeout=timeout)
        try:
            declared = check_schema(self.connection, str(path), READS)
        except BaseException:
            self.connection.close()
            raise
        self.connection.text_factory = bytes
        self.tables = {t for t, columns in declared.items() if {"key", "value"} <= set(columns)}

    def close(self) -> None:
        self.connection.close()

    def item(self, key: str) -> tuple[bool, bytes | None]:
        """(whether ``ItemTable`` has ``key``, its value as bytes or None)."""
        if ITEMS not in self.tables:
            return False, None
        row = self.connection.execute(f"SELECT value FROM {ITEMS} WHERE key = ?", (key,)).fetchone()
        return (False, None) if row is None else (True, _bytes(row[0]))

    def kv(self, key: str) -> tuple[bool, bytes | None]:
        """(whether ``cursorDiskKV`` has ``key``, its value as bytes or None)."""
        if DISK not in self.tables:
            return False, None
        row = self.connection.execute(f"SELECT value FROM {DISK} WHERE key = ?", (key,)).fetchone()
        return (False, None) if row is None else (True, _bytes(row[0]))

    def kv_keys(self, prefix: str) -> Iterator[str]:
        """The ``cursorDiskKV`` keys starting with ``prefix``, in key order (values not read)."""
        if DISK not in self.tables:
            return
        cursor = self.connection.execute(
            f"SELECT key FROM {DISK} WHERE key >= ? AND key < ? ORDER BY key", (prefix, upper_bound(prefix))
        )
        try:
            while rows := cursor.fetchmany(PAGE):
                for (key,) in rows:
                    yield key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
        finally:
            cursor.close()

    def kv_range(self, prefix: str) -> Iterator[tuple[str, bytes | None]]:
        """``(key, value)`` of the ``cursorDiskKV`` rows whose key starts with ``prefix``, in key
        order, a page at a time."""
        for key in list(self.kv_keys(prefix)):  # keys first: a value is read only when it is used
            yield key, self.kv(key)[1]

    def has_workspace_keys(self) -> bool:
        return any(self.item(key)[0] for key in WORKSPACE_KEYS)

    def has_composer_rows(self) -> bool:
        return (
            next(self.kv_keys("composerData:"), None) is not None or next(self.kv_keys("bubbleId:"), None) is not None
        )


def _bytes(value: object) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


def probe(path: Path) -> int:
    """Detection's look into a database: 90 for Cursor's conversation rows, 70 for a
    ``cursorDiskKV`` table without them, 0 otherwise (VS Code's own ``state.vscdb`` included)."""
    try:
        db = CursorDb(path, timeout=1.0)
    except (sqlite3.Error, OSError, ValueError):
        return 0
    except Exception:  # a refused store (a view where the table should be): let conversion say why
        return 60
    try:
        if db.has_composer_rows() or db.has_workspace_keys():
            return 90
        return 70 if DISK in db.tables else 0
    except sqlite3.Error:
        return 0
    finally:
        db.close()
