"""What a duplicate check remembers per native id, in 16 bytes an id.

Catching a repeated native item means remembering, for every id read so far, one number: a
digest of the item last read under it (a repeat in full is a duplicate), or the record that
last carried it (a changed repeat supersedes that record). A ``DigestMap`` keeps the newest
few thousand ids in a dict (most look-ups are of recent ids: one dict probe, nothing hashed),
and older ones as two arrays of unsigned 64-bit integers, an open-addressing hash table keyed
by a 64-bit digest of the id (the id itself is not kept): 16 to 32 bytes an id instead of the
~150 of a dict of strings, and no write anywhere per line. A bit filter over the ids moved out
of the dict (by Python's ``hash``: it only says "certainly not there") answers most look-ups of
new ids without computing a digest. Only past ``limit`` ids in the table (196,608: a Codex
rollout of about 250 MB, which real sessions rarely reach) does the table move to a private
temporary SQLite file in one batch and start again empty. A digest's slot is its top bits, so
the table is in digest order and moves to disk as it is (no sort, no row made in Python).

The key digest is blake2b, so the answers are the same in every process; two ids share a
digest with a probability of about n²/2⁶⁵ (10⁻⁹ at 200,000 ids).
"""

from __future__ import annotations

from array import array
from itertools import chain, compress, islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported at the first spill
    import sqlite3

try:  # hashlib's own blake2b, without hashlib loading OpenSSL (_hashlib) for it: issue 28
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

#: ids kept in the table before it moves to disk (the table then holds 2**18 slots, 4 MiB)
DEFAULT_LIMIT = 196_608
#: the newest ids kept in a dict in front of the table (about 0.6 MB of dict)
DEFAULT_RECENT = 4096
#: slots of the table made at the first move out of the dict (256 KiB; fewer for a map whose
#: limit is lower); it doubles when three quarters are used
_FIRST_SLOTS = 1 << 14
#: rows a statement writes when the table moves to disk (SQLite's per-statement cost, paid once for them)
_ROWS = 64
_INSERT = "INSERT OR REPLACE INTO moved VALUES " + ", ".join(["(?, ?)"] * _ROWS)
#: SQLite's page cache once moved, in KiB
_CACHE_KIB = 256
#: bits of the filter over the ids moved out of the dict (1 MiB, made at the first move: about
#: 2 % false positives at 200,000 ids, 11 % at a million), fewer for a map whose limit is lower
#: (about 40 bits an id of the limit): the fixed cost of a map stays in proportion to its limit
_FILTER_BITS = 1 << 23
_FILTER_BITS_PER_ID = 40
_WRAP = 1 << 64  # SQLite integers are signed: a digest or value of 2**63 or more is stored less 2**64
_MAX = (1 << 64) - 1
_ZERO = array("Q", [0])
_MISSING: Any = object()


Key = str | bytes | int | float


def key_bytes(key: Key) -> bytes:
    """An id as bytes, one encoding per type so that ``"1"``, ``b"1"`` and ``1`` stay apart
    (0xFF and 0xFE never occur in UTF-8)."""
    kind = type(key)
    if kind is str:
        return key.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
    if kind is bytes:
        return b"\xff" + key  # type: ignore[operator]
    if kind is int or kind is bool or (kind is float and key.is_integer()):  # type: ignore[union-attr]
        return b"\xfe" + str(int(key)).encode("ascii")  # equal numbers are one dict key: one here too
    if kind is float:
        return b"\xfd" + repr(key).encode("ascii")
    raise TypeError(f"a DigestMap key is a str, bytes or number, not {kind.__name__}")


def key_digest(key: Key) -> int:
    """A 64-bit digest of an id, never 0 (0 marks an empty slot)."""
    return int.from_bytes(blake2b(key_bytes(key), digest_size=8).digest(), "little") or 1


def value_digest(data: bytes) -> int:
    """A 64-bit digest of an item's bytes, to compare with the one read before under its id."""
    return int.from_bytes(blake2b(data, digest_size=8, person=b"asr-item").digest(), "little")


def _power_of_two(n: int) -> int:
    """The least power of two >= ``n`` (and >= 8: a filter is whole bytes)."""
    return max(8, 1 << (max(1, n) - 1).bit_length())


class DigestMap:
    """id (str, bytes or int) -> unsigned 64-bit int, bounded in memory. No iteration, no deletion:
    a duplicate check only sets and looks up.

    ``limit``: ids in the table before it moves to disk (``DEFAULT_LIMIT``); ``recent``: ids in
    the dict in front (``DEFAULT_RECENT``); ``filter_bits``: the filter's size (rounded up to a
    power of two; by default about 40 bits an id of the limit, at most 8 Mi). A map that many
    ids may reach but that must stay small (the validator's) takes a low limit and a filter
    sized for the ids it expects, not for its limit."""

    def __init__(self, limit: int | None = None, recent: int | None = None, filter_bits: int | None = None) -> None:
        self.limit = DEFAULT_LIMIT if limit is None else max(1, limit)
        self._recent: dict[Key, int] = {}
        self._recent_limit = min(DEFAULT_RECENT if recent is None else max(1, recent), self.limit)
        #: one bit per hash of an id moved out of the dict: a clear bit proves it never was
        self._filter = bytearray()
        self._keys = self._values = _ZERO[:0]
        self._mask = self._count = self._grow_at = 0
        self._shift = 64  # a digest's slot is digest >> shift: its top bits, so the table is in digest order
        self._disk: sqlite3.Connection | None = None
        if filter_bits is None:
            filter_bits = min(_FILTER_BITS, self.limit * _FILTER_BITS_PER_ID)
        self._filter_mask = _power_of_two(filter_bits) - 1
        self._first_slots = min(_FIRST_SLOTS, _power_of_two(self.limit * 4 // 3 + 1))

    # -- look-ups and writes ---------------------------------------------------------

    def get(self, key: Key, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        value = self._recent.get(key, _MISSING)
        if value is not _MISSING:
            return value
        return self._older(key, default)

    def __contains__(self, key: object) -> bool:
        return type(key) in (str, bytes, int, float, bool) and self.get(key) is not None  # type: ignore[arg-type]

    def __setitem__(self, key: Key, value: int) -> None:
        if not 0 <= value <= _MAX:
            raise ValueError(f"a DigestMap value is an unsigned 64-bit int, not {value!r}")
        recent = self._recent
        recent[key] = value
        if len(recent) > self._recent_limit:
            self._move_oldest()

    def swap(self, key: Key, value: int) -> Any:
        """Set ``key`` to ``value`` and return what it held before (None if nothing): the
        look-up and the write of a duplicate check in one call."""
        recent = self._recent
        previous = recent.get(key, _MISSING)
        if previous is _MISSING:
            previous = self._older(key, None) if self._filter else None
        if not 0 <= value <= _MAX:
            raise ValueError(f"a DigestMap value is an unsigned 64-bit int, not {value!r}")
        recent[key] = value
        if len(recent) > self._recent_limit:
            self._move_oldest()
        return previous

    # -- the table and the disk ------------------------------------------------------

    def _older(self, key: Key, default: Any) -> Any:
        """Look-up beyond the dict: the filter, then the table, then the disk."""
        bits = self._filter
        if not bits:
            return default
        bit = hash(key) & self._filter_mask
        if not bits[bit >> 3] & (1 << (bit & 7)):
            return default
        digest = key_digest(key)
        keys, mask = self._keys, self._mask
        slot = digest >> self._shift
        while True:
            found = keys[slot]
            if found == digest:
                return self._values[slot]
            if not found:
                break
            slot = (slot + 1) & mask
        disk = self._disk
        if disk is None:
            return default
        row = disk.execute("SELECT v FROM moved WHERE k = ?", (digest - _WRAP if digest >> 63 else digest,)).fetchone()
        if row is None:
            return default
        return row[0] + _WRAP if row[0] < 0 else row[0]

    def _move_oldest(self) -> None:
        """The older half of the dict into the table (hashed now, once for each id). One loop
        with everything inlined: this is the cost every id beyond the dict pays once."""
        recent = self._recent
        oldest = list(islice(recent.items(), len(recent) - self._recent_limit // 2))
        if not self._filter:
            self._filter = bytearray((self._filter_mask + 1) >> 3)
            self._new_table(self._first_slots)
        bits, filter_mask = self._filter, self._filter_mask
        keys, values, mask, shift = self._keys, self._values, self._mask, self._shift
        from_bytes = int.from_bytes
        for key, value in oldest:
            del recent[key]
            bit = hash(key) & filter_mask
            bits[bit >> 3] |= 1 << (bit & 7)
            data = key.encode("utf-8", "surrogatepass") if type(key) is str else key_bytes(key)
            digest = from_bytes(blake2b(data, digest_size=8).digest(), "little") or 1
            slot = digest >> shift
            while True:
                found = keys[slot]
                if found == digest or not found:
                    break
                slot = (slot + 1) & mask
            values[slot] = value
            if found:
                continue
            keys[slot] = digest
            self._count += 1
            if self._count >= self._grow_at:
                if self._count >= self.limit:
                    self._move_to_disk()
                else:
                    self._grow()
                keys, values, mask, shift = self._keys, self._values, self._mask, self._shift

    def _new_table(self, slots: int) -> None:
        self._keys = _ZERO * slots  # made in place: no temporary buffer of zeros
        self._values = _ZERO * slots
        self._mask = slots - 1
        self._shift = 65 - slots.bit_length()  # slots is a power of two
        self._count = 0
        self._grow_at = min(slots * 3 // 4, self.limit)

    def _grow(self) -> None:
        keys, values, count = self._keys, self._values, self._count
        self._new_table(len(keys) * 2)
        new_keys, new_values, mask, shift = self._keys, self._values, self._mask, self._shift
        for digest, value in zip(keys, values, strict=True):
            if digest:
                slot = digest >> shift
                while new_keys[slot]:
                    slot = (slot + 1) & mask
                new_keys[slot] = digest
                new_values[slot] = value
        self._count = count

    def _move_to_disk(self) -> None:
        """Every entry of the table to the temporary database as it stands: the table is in
        digest order, so the rows come in key order (two runs: the keys of 2**63 and more are
        stored negative) and need no sort, and they are read from the arrays through a signed
        view, ``_ROWS`` rows a statement, so no row is made in Python. The table starts again
        empty; the filter keeps its bits: it covers what is on disk too."""
        disk = self._disk
        if disk is None:
            # "" = a private temporary database, removed when the connection closes
            import sqlite3  # at the first spill: most conversions never reach one

            disk = self._disk = sqlite3.connect("", isolation_level=None, check_same_thread=False)
            disk.execute("PRAGMA journal_mode=OFF")
            disk.execute("PRAGMA synchronous=OFF")
            disk.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
            disk.execute("CREATE TABLE moved (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
        keys, values = self._keys, self._values
        signed_keys = memoryview(keys).cast("B").cast("q")  # digest - 2**64 for a digest >= 2**63
        signed_values = memoryview(values).cast("B").cast("q")
        try:  # the views are released also when SQLite fails (a full $TMPDIR): the arrays stay usable
            disk.execute("BEGIN")
            numbers = chain.from_iterable(compress(zip(signed_keys, signed_values, strict=True), keys))
            while len(batch := tuple(islice(numbers, 2 * _ROWS))) == 2 * _ROWS:
                disk.execute(_INSERT, batch)
            disk.executemany("INSERT OR REPLACE INTO moved VALUES (?, ?)", zip(batch[::2], batch[1::2], strict=True))
            disk.execute("COMMIT")
        finally:
            signed_keys.release()
            signed_values.release()
        slots = len(keys)
        del keys, values
        self._keys = self._values = _ZERO[:0]  # the old table goes before the new one is made
        self._new_table(slots)

    @property
    def spilled(self) -> bool:
        """Whether the table was moved to disk (for tests and diagnostics)."""
        return self._disk is not None

    def close(self) -> None:
        """Drop everything, removing the temporary file now rather than at garbage collection."""
        self._recent.clear()
        self._filter = bytearray()
        self._keys = self._values = _ZERO[:0]
        self._mask = self._count = self._grow_at = 0
        if self._disk is not None:
            self._disk.close()
            self._disk = None

    def __del__(self) -> None:
        disk = getattr(self, "_disk", None)
        if disk is not None:
            disk.close()


class RecordIds:
    """id -> the id of the record it became (``"r<seq>"`` of this stream), or ``""`` for an id
    seen that became no record of its own: a ``DigestMap`` holding the seq (0 for ``""``)."""

    def __init__(self, limit: int | None = None) -> None:
        self._map = DigestMap(limit)

    def get(self, key: Key, default: Any = None) -> Any:
        seq = self._map.get(key)
        if seq is None:
            return default
        return f"r{seq}" if seq else ""

    def __getitem__(self, key: Key) -> str:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return str(found)

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def __setitem__(self, key: Key, record_id: str) -> None:
        if record_id == "":
            self._map[key] = 0
        elif record_id[:1] == "r" and record_id[1:].isdigit() and record_id[1] != "0":
            self._map[key] = int(record_id[1:])
        else:
            raise ValueError(f"not a record id of this stream: {record_id!r}")

    @property
    def spilled(self) -> bool:
        return self._map.spilled

    def close(self) -> None:
        self._map.close()
