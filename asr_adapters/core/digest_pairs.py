"""Two id tables over the same ids, kept as one ``DigestMap`` (issue 28: the check's memory).

The stream validator remembers, for each ``messageId``, ``callId`` and ``requestId``, both the
type of record it resolves to (for references) and the position of the latest record that owns
it (for revisions). Those were two maps over the same ids, so every id was hashed and stored
twice. A ``DigestPair`` keeps one map whose value packs both: the low 32 bits a position (0:
none; positions start at 1) and the bits above a small code plus one (0: none). ``code`` and
``position`` are views that read and write their half as if each were a map of its own.
"""

from __future__ import annotations

from typing import Any, Protocol

from .digests import DigestMap, Key

_LOW = (1 << 32) - 1
_HIGH = ~_LOW
_KEYS = (str, bytes, int, float, bool)


class IdTable(Protocol):
    """What the validator asks of an id table (a ``DigestMap`` or a half of a ``DigestPair``)."""

    def get(self, key: Key, default: Any = None) -> Any: ...

    def __contains__(self, key: object) -> bool: ...

    def __setitem__(self, key: Key, value: int) -> None: ...


class DigestPair:
    """One ``DigestMap`` read and written as two: ``code`` (0 to 2**31 - 1) and ``position``
    (1 to 2**32 - 1), each absent until set. ``packed``: the (empty) map to use, sized by its
    caller, instead of a ``DigestMap(limit)``."""

    def __init__(self, limit: int | None = None, *, packed: DigestMap | None = None) -> None:
        self.map = DigestMap(limit) if packed is None else packed
        self.code = _Code(self.map)
        self.position = _Position(self.map)


class _Code:
    """The high half: a small code per id."""

    __slots__ = ("_map",)

    def __init__(self, packed: DigestMap) -> None:
        self._map = packed

    def get(self, key: Key, default: Any = None) -> Any:
        packed = self._map.get(key)
        if packed is None or packed <= _LOW:
            return default
        return (packed >> 32) - 1

    def __contains__(self, key: object) -> bool:
        return type(key) in _KEYS and self.get(key) is not None  # type: ignore[arg-type]

    def __setitem__(self, key: Key, value: int) -> None:
        if not 0 <= value < 1 << 31:
            raise ValueError(f"a code is 0 to 2**31 - 1, not {value!r}")
        self._map[key] = ((value + 1) << 32) | (self._map.get(key, 0) & _LOW)


class _Position:
    """The low half: a record position (1-based) per id."""

    __slots__ = ("_map",)

    def __init__(self, packed: DigestMap) -> None:
        self._map = packed

    def get(self, key: Key, default: Any = None) -> Any:
        packed = self._map.get(key)
        if packed is None or not packed & _LOW:
            return default
        return packed & _LOW

    def __contains__(self, key: object) -> bool:
        return type(key) in _KEYS and self.get(key) is not None  # type: ignore[arg-type]

    def __setitem__(self, key: Key, value: int) -> None:
        self.swap(key, value)

    def swap(self, key: Key, value: int) -> Any:
        """Set ``key``'s position to ``value`` and return the one it had (None if none)."""
        if not 0 < value <= _LOW:
            raise ValueError(f"a position is 1 to 2**32 - 1, not {value!r}")
        packed = self._map.get(key, 0)
        self._map[key] = (packed & _HIGH) | value
        return packed & _LOW or None
