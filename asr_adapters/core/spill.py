"""Per-id state that would grow with the file, kept to a fixed size in memory.

Adapters remember things per native id (which record a uuid became, a digest of the last
version of a message) because a later line may refer back to it. Almost every reference is to
a recent item, but any may reach back to the first line, so forgetting would lose links. A
``SpillMap`` keeps the newest ``limit`` entries in a dict and moves older ones, in batches,
to a private temporary SQLite file that SQLite deletes when it is closed. Memory stays bounded
by ``limit``, not by the file; lookups of recent ids cost one dict probe, and SQLite is asked
only after something was spilled.
"""

from __future__ import annotations

import pickle
import sqlite3
from itertools import islice
from typing import Any

#: entries kept in memory per map before the oldest are moved to disk (a few MB of dict)
DEFAULT_LIMIT = 50_000
#: bits of the filter that answers most misses without asking SQLite (512 KiB, made at the
#: first spill; about 5 % false positives at 200,000 spilled keys, 21 % at a million)
_FILTER_BITS = 1 << 22
_FILTER_MASK = _FILTER_BITS - 1
_MISSING: Any = object()
_PLAIN = (int, str, float)
_INT64 = (-(1 << 63), 1 << 63)
Key = str | int | bytes


class SpillMap:
    """A dict of ``Key`` -> picklable value whose older entries live in a temporary SQLite file.

    No iteration and no length: the adapters that need these maps only set and look up.
    Integer keys must fit in 64 bits (SQLite's integer).
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = DEFAULT_LIMIT if limit is None else max(1, limit)
        self._recent: dict[Key, Any] = {}
        self._disk: sqlite3.Connection | None = None
        #: one bit per hash of a spilled key: a clear bit proves the key is not on disk
        self._filter = bytearray()

    # -- the dict side ----------------------------------------------------------------

    def __setitem__(self, key: Key, value: Any) -> None:
        recent = self._recent
        if key in recent:
            del recent[key]  # a written entry becomes the newest again
        recent[key] = value
        if len(recent) > self.limit:
            self._spill()

    def __getitem__(self, key: Key) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def get(self, key: Key, default: Any = None) -> Any:
        value = self._recent.get(key, _MISSING)
        if value is not _MISSING:
            return value
        if self._disk is None:
            return default
        bit = hash(key) & _FILTER_MASK
        if not self._filter[bit >> 3] & (1 << (bit & 7)):
            return default
        row = self._disk.execute("SELECT v FROM spilled WHERE k = ?", (key,)).fetchone()
        if row is None:
            return default
        value = row[0]
        return pickle.loads(value) if isinstance(value, bytes) else value

    def __contains__(self, key: object) -> bool:
        if key in self._recent:
            return True
        if self._disk is None or not isinstance(key, str | int | bytes):
            return False
        bit = hash(key) & _FILTER_MASK
        if not self._filter[bit >> 3] & (1 << (bit & 7)):
            return False
        return self._disk.execute("SELECT 1 FROM spilled WHERE k = ?", (key,)).fetchone() is not None

    def __delitem__(self, key: Key) -> None:
        if self.pop(key, _MISSING) is _MISSING:
            raise KeyError(key)

    def pop(self, key: Key, default: Any = None) -> Any:
        value = self._recent.pop(key, _MISSING)
        if self._disk is not None and self._maybe_spilled(key):
            if value is _MISSING:
                value = self.get(key, _MISSING)
            self._disk.execute("DELETE FROM spilled WHERE k = ?", (key,))
        return default if value is _MISSING else value

    def setdefault(self, key: Key, default: Any) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            self[key] = value = default
        return value

    # -- the disk side ----------------------------------------------------------------

    def _maybe_spilled(self, key: Key) -> bool:
        bit = hash(key) & _FILTER_MASK
        return bool(self._filter[bit >> 3] & (1 << (bit & 7)))

    def _spill(self) -> None:
        """Move the older half of the dict to disk in one transaction."""
        recent = self._recent
        count = len(recent) - self.limit // 2
        oldest = list(islice(recent.items(), count))
        for key, _ in oldest:
            del recent[key]
        disk = self._disk
        if disk is None:
            # "" = a private temporary database on disk, removed when the connection closes;
            # its page cache is SQLite's default (about 2 MB), so memory stays bounded
            disk = self._disk = sqlite3.connect("", isolation_level=None, check_same_thread=False)
            disk.execute("PRAGMA journal_mode=OFF")
            disk.execute("PRAGMA synchronous=OFF")
            disk.execute("CREATE TABLE spilled (k PRIMARY KEY, v) WITHOUT ROWID")
            self._filter = bytearray(_FILTER_BITS >> 3)
        bits = self._filter
        rows = []
        for key, value in oldest:
            bit = hash(key) & _FILTER_MASK
            bits[bit >> 3] |= 1 << (bit & 7)
            if value is None or (
                type(value) in _PLAIN and not (type(value) is int and not _INT64[0] <= value < _INT64[1])
            ):
                rows.append((key, value))  # stored as SQLite's own type; a blob is always a pickle
            else:
                rows.append((key, pickle.dumps(value, pickle.HIGHEST_PROTOCOL)))
        disk.execute("BEGIN")
        disk.executemany("INSERT OR REPLACE INTO spilled VALUES (?, ?)", rows)
        disk.execute("COMMIT")

    @property
    def spilled(self) -> bool:
        """Whether any entry was moved to disk (for tests and diagnostics)."""
        return self._disk is not None

    def close(self) -> None:
        """Drop everything, removing the temporary file now rather than at garbage collection."""
        self._recent.clear()
        self._filter = bytearray()
        if self._disk is not None:
            self._disk.close()
            self._disk = None

    def __del__(self) -> None:
        disk = getattr(self, "_disk", None)
        if disk is not None:
            disk.close()


class SpillSet:
    """A set of ``Key`` kept like ``SpillMap``: the newest ``limit`` in memory, the rest on disk."""

    def __init__(self, limit: int | None = None) -> None:
        self._map = SpillMap(limit)

    def add(self, key: Key) -> None:
        self._map[key] = None

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def discard(self, key: Key) -> None:
        self._map.pop(key, None)

    @property
    def spilled(self) -> bool:
        return self._map.spilled

    def close(self) -> None:
        self._map.close()
