"""What T3 Code's reverts need to know about a thread, kept to a fixed size in memory.

A V1 ``thread.reverted`` removes from T3's view every record of a turn whose checkpoint count
exceeds the revert's ``turnCount`` (or that has no checkpoint), and every user message after the
first ``turnCount``; a V2 rolled-back run lists every record written for that run. Either can
reach back to the first record of the thread, so nothing may be forgotten, but reverts are rare
and records many. So each log keeps its newest ``core.spill.DEFAULT_LIMIT`` entries in compact
memory and moves the rest, in one batch, to a private temporary SQLite file (deleted when it is
closed); a revert then asks SQLite, which answers "every record after turn N" with one query.
"""

from __future__ import annotations

import sqlite3
from array import array
from typing import Any

from ...core import spill

#: SQLite integers are 64-bit; counts beyond that (never written by T3 Code) are clamped
_LOW, _HIGH = -(1 << 63), (1 << 63) - 1


def _scratch(schema: str) -> sqlite3.Connection:
    """A private temporary database on disk ("": removed when closed), no journal, no syncs."""
    disk = sqlite3.connect("", isolation_level=None, check_same_thread=False)
    disk.execute("PRAGMA journal_mode=OFF")
    disk.execute("PRAGMA synchronous=OFF")
    # rows are appended and read back in order: a small page cache does (the OS caches the file)
    disk.execute("PRAGMA cache_size=-256")
    disk.executescript(schema)
    return disk


def _clamp(value: int) -> int:
    return value if _LOW <= value <= _HIGH else max(_LOW, min(_HIGH, value))


class RevertLog:
    """Every revertable record of a V1 thread (seq, turn, user message or not) and the turns'
    checkpoint counts, answering a revert with the record ids it removes."""

    _SCHEMA = (
        "CREATE TABLE live (seq INTEGER PRIMARY KEY, turn, user INTEGER NOT NULL);"
        "CREATE TABLE checkpoints (turn PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;"
    )

    def __init__(self, limit: int | None = None) -> None:
        self.limit = spill.DEFAULT_LIMIT if limit is None else max(1, limit)
        #: records not yet on disk, as parallel arrays: seq, index into ``turn_names`` (-1: no
        #: turn), user message or not
        self.seqs = array("q")
        self.turns = array("q")
        self.users = bytearray()
        self.turn_ids: dict[Any, int] = {}
        self.turn_names: list[Any] = []
        #: turn id -> checkpoint count (``thread.turn-diff-completed``), those not yet on disk
        self.checkpoints: dict[str, int] = {}
        self._disk: sqlite3.Connection | None = None

    def add(self, seq: int, turn: Any, user: bool) -> None:
        index = -1
        if turn is not None:
            index = self.turn_ids.get(turn, -1)
            if index < 0:
                index = self.turn_ids[turn] = len(self.turn_names)
                self.turn_names.append(turn)
        self.seqs.append(seq)
        self.turns.append(index)
        self.users.append(user)
        if len(self.seqs) >= self.limit:
            self._flush()

    def checkpoint(self, turn: str, count: int) -> None:
        self.checkpoints[turn] = count
        if len(self.checkpoints) >= self.limit:
            self._flush()

    def revert(self, keep_users: int) -> list[str]:
        """Drop and return (as record ids) what a revert to ``keep_users`` turns removes: user
        messages after the first ``keep_users``, and records of turns whose checkpoint count
        exceeds it or that have none; then forget the checkpoints of the removed turns."""
        if self._disk is not None:
            return self._revert_on_disk(keep_users)
        retained = {turn for turn, n in self.checkpoints.items() if n <= keep_users}
        keep = {i for i, name in enumerate(self.turn_names) if name in retained}
        seqs, turns, users = array("q"), array("q"), bytearray()
        gone: list[str] = []
        count = 0
        for seq, turn, user in zip(self.seqs, self.turns, self.users, strict=True):
            if user:
                count += 1
                kept = count <= keep_users
            else:
                kept = turn == -1 or turn in keep
            if kept:
                seqs.append(seq)
                turns.append(turn)
                users.append(user)
            else:
                gone.append(f"r{seq}")
        self.seqs, self.turns, self.users = seqs, turns, users
        self.checkpoints = {t: n for t, n in self.checkpoints.items() if n <= keep_users}
        return gone

    # -- the disk side ----------------------------------------------------------------

    def _flush(self) -> None:
        """Move every record and checkpoint held in memory to disk, in one transaction."""
        disk = self._disk
        if disk is None:
            disk = self._disk = _scratch(self._SCHEMA)
        names = self.turn_names
        disk.execute("BEGIN")
        # generators, not lists: a batch of ``limit`` row tuples would double the memory moved
        disk.executemany(
            "INSERT INTO live VALUES (?, ?, ?)",
            (
                (seq, None if turn < 0 else names[turn], user)
                for seq, turn, user in zip(self.seqs, self.turns, self.users, strict=True)
            ),
        )
        disk.executemany(
            "INSERT OR REPLACE INTO checkpoints VALUES (?, ?)", ((t, _clamp(n)) for t, n in self.checkpoints.items())
        )
        disk.execute("COMMIT")
        self.seqs, self.turns, self.users = array("q"), array("q"), bytearray()
        self.turn_ids, self.turn_names = {}, []
        self.checkpoints = {}

    def _revert_on_disk(self, keep_users: int) -> list[str]:
        self._flush()
        disk = self._disk
        assert disk is not None
        keep = _clamp(keep_users)
        row = disk.execute(
            "SELECT seq FROM live WHERE user = 1 ORDER BY seq LIMIT 1 OFFSET ?", (max(0, keep),)
        ).fetchone()
        first_gone_user = _HIGH if row is None else row[0]
        removed = (
            "(user = 1 AND seq >= ?1) OR (user = 0 AND turn IS NOT NULL AND turn NOT IN "
            "(SELECT turn FROM checkpoints WHERE n <= ?2))"
        )
        gone = [
            f"r{seq}"
            for (seq,) in disk.execute(f"SELECT seq FROM live WHERE {removed} ORDER BY seq", (first_gone_user, keep))
        ]
        disk.execute("BEGIN")
        disk.execute(f"DELETE FROM live WHERE {removed}", (first_gone_user, keep))
        disk.execute("DELETE FROM checkpoints WHERE n > ?", (keep,))
        disk.execute("COMMIT")
        return gone

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()
            self._disk = None


class RunLog:
    """V2 run id -> the ids of the records written for it, in order (a rolled-back run lists
    them all); the newest ``limit`` ids in memory, the rest on disk."""

    _SCHEMA = "CREATE TABLE written (run, record); CREATE INDEX written_run ON written (run);"

    def __init__(self, limit: int | None = None) -> None:
        self.limit = spill.DEFAULT_LIMIT if limit is None else max(1, limit)
        self._recent: dict[str, list[str]] = {}
        self._count = 0
        self._disk: sqlite3.Connection | None = None

    def add(self, run: str, record_id: str) -> None:
        self._recent.setdefault(run, []).append(record_id)
        self._count += 1
        if self._count >= self.limit:
            self._flush()

    def pop(self, run: str) -> list[str]:
        """Every record id of ``run``, oldest first, forgetting them."""
        recent = self._recent.pop(run, [])
        self._count -= len(recent)
        if self._disk is None:
            return recent
        rows = self._disk.execute("SELECT record FROM written WHERE run = ? ORDER BY rowid", (run,)).fetchall()
        if not rows:
            return recent
        self._disk.execute("DELETE FROM written WHERE run = ?", (run,))
        return [row[0] for row in rows] + recent

    def _flush(self) -> None:
        disk = self._disk
        if disk is None:
            disk = self._disk = _scratch(self._SCHEMA)
        disk.execute("BEGIN")
        disk.executemany(
            "INSERT INTO written VALUES (?, ?)", ((run, rid) for run, ids in self._recent.items() for rid in ids)
        )
        disk.execute("COMMIT")
        self._recent = {}
        self._count = 0

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()
            self._disk = None
