"""Per-id state that would grow with the file, kept to a fixed size in memory.

Adapters remember things per native id (which record a uuid became, a digest of the last
version of a message) because a later line may refer back to it. Almost every reference is to
a recent item, but any may reach back to the first line, so forgetting would lose links. A
``SpillMap`` keeps the newest ``limit`` entries in a dict and moves older ones, in batches,
to a private temporary SQLite file that SQLite deletes when it is closed. Memory stays bounded
by ``limit``, not by the file; lookups of recent ids cost one dict probe, and SQLite is asked
only after something was spilled.

Values are plain data (None, bool, int, float, str, bytes, and tuples, lists and dicts of
them) and are snapshots: a value changed after it was set must be set again, since the copy
read back from disk is a new object. They are written to disk by this module's own encoding
(``_pack``, JSON with tags): reading a value back can never run code.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # imported at the first spill
    import sqlite3

#: entries kept in memory per map before the oldest are moved to disk (about 1-2 MB of dict)
DEFAULT_LIMIT = 10_000
#: SQLite's page cache per spilled map, in KiB
_CACHE_KIB = 256
#: bits of the filter that answers most misses without asking SQLite (512 KiB, made at the
#: first spill; about 5 % false positives at 200,000 spilled keys, 21 % at a million), fewer for
#: a map whose limit is below the default (about 400 bits an entry of the limit): a map's fixed
#: cost stays in proportion to its limit
_FILTER_BITS = 1 << 22
_FILTER_BITS_PER_ENTRY = 400
_MISSING: Any = object()
_INT64 = (-(1 << 63), 1 << 63)
Key = str | int | bytes


class SpillMap:
    """A dict of ``Key`` -> plain-data value whose older entries live in a temporary SQLite file.

    No iteration and no length: the adapters that need these maps only set and look up.
    Integer keys must fit in 64 bits (SQLite's integer).
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = DEFAULT_LIMIT if limit is None else max(1, limit)
        self._recent: dict[Key, Any] = {}
        self._disk: sqlite3.Connection | None = None
        #: one bit per hash of a spilled key: a clear bit proves the key is not on disk
        self._filter = bytearray()
        wanted = self.limit * _FILTER_BITS_PER_ENTRY
        self._filter_mask = min(_FILTER_BITS, max(8, 1 << (wanted - 1).bit_length())) - 1

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
        bit = hash(key) & self._filter_mask
        if not self._filter[bit >> 3] & (1 << (bit & 7)):
            return default
        row = self._disk.execute("SELECT v FROM spilled WHERE k = ?", (key,)).fetchone()
        if row is None:
            return default
        value = row[0]
        return _unpack(orjson.loads(value)) if isinstance(value, bytes) else value

    def __contains__(self, key: object) -> bool:
        if key in self._recent:
            return True
        if self._disk is None or not isinstance(key, str | int | bytes):
            return False
        bit = hash(key) & self._filter_mask
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
        bit = hash(key) & self._filter_mask
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
            import sqlite3  # at the first spill: most conversions never reach one

            disk = self._disk = sqlite3.connect("", isolation_level=None, check_same_thread=False)
            disk.execute("PRAGMA journal_mode=OFF")
            disk.execute("PRAGMA synchronous=OFF")
            disk.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
            disk.execute("CREATE TABLE spilled (k PRIMARY KEY, v) WITHOUT ROWID")
            self._filter = bytearray((self._filter_mask + 1) >> 3)
        bits = self._filter
        for key, _ in oldest:
            bit = hash(key) & self._filter_mask
            bits[bit >> 3] |= 1 << (bit & 7)
        disk.execute("BEGIN")
        oldest.sort(key=_order)  # in key order, each B-tree page is visited once per batch
        rows = [item if item[1].__class__ is str else _row(item) for item in oldest]  # str: most values
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


def _order(item: tuple[Key, Any]) -> tuple[int, Key]:
    """SQLite's order of keys: integers, then text, then blobs."""
    key = item[0]
    return (0 if type(key) is int else 1 if type(key) is str else 2), key


def _row(item: tuple[Key, Any]) -> tuple[Key, Any]:
    key, value = item
    kind = type(value)
    if value is None or kind is str or kind is float or (kind is int and _INT64[0] <= value < _INT64[1]):
        return key, value  # stored as SQLite's own type; a blob is always this module's encoding
    return key, orjson.dumps(_pack(value))


def _pack(value: Any) -> Any:
    """Plain data as JSON that keeps what JSON would lose: tuples, bytes, big ints, non-str keys.

    Every list, tuple, dict, bytes and integer beyond 64 bits becomes a one-member object
    whose key says what it was; anything else is refused."""
    kind = type(value)
    if kind is str or kind is float or kind is bool or value is None:
        return value
    if kind is int:
        return value if _INT64[0] <= value < _INT64[1] else {"i": str(value)}
    if kind is tuple:
        return {"t": [_pack(item) for item in value]}
    if kind is list:
        return {"l": [_pack(item) for item in value]}
    if kind is dict:
        return {"d": [[_pack(k), _pack(v)] for k, v in value.items()]}
    if kind is bytes:
        import base64  # here, not at the top: only a spill of bytes needs it (issue 28, start-up)

        return {"b": base64.b64encode(value).decode("ascii")}
    raise TypeError(f"a SpillMap value must be plain data, not {kind.__name__}")


def _unpack(value: Any) -> Any:
    if type(value) is not dict:
        return value
    ((tag, inner),) = value.items()
    if tag == "l":
        return [_unpack(item) for item in inner]
    if tag == "t":
        return tuple(_unpack(item) for item in inner)
    if tag == "d":
        return {_unpack(k): _unpack(v) for k, v in inner}
    if tag == "i":
        return int(inner)
    import base64

    return base64.b64decode(inner)


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
