"""One native item (a line, a document, a stored row's JSON) parsed under the rules every reader
shares, so that a hostile item costs that item and nothing more (docs/reliability.md):

- **Parsed size is bounded, not only bytes.** JSON of tiny values costs far more parsed than
  stored (``[[],[],…]``: about 30 times its size; a 250 MB line took 8 GB). An item whose
  estimated parsed size passes ``MAX_PARSED_BYTES`` is refused before it is parsed
  (``ItemTooLarge``, a ``JSONDecodeError``: every reader already counts those unreadable).
- **Lone surrogate escapes** (JavaScript writes ``"\\ud83d"`` when it cuts a string inside an
  emoji) are repaired to U+FFFD instead of losing the item (``core.lenient``); ``loads`` says so.
- **A name that is not a name.** A member an adapter dispatches on (``type``, ``payload.type``, a
  provider looked up in a table) that holds an array or an object would raise ``TypeError:
  unhashable type`` deep in a mapper; ``misplaced`` finds it first, so the item is one
  unreadable item instead of the end of the conversion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from .lenient import loads_with_lone_surrogates, surrogate_problem
from .nesting import MAX_NATIVE_NESTING, TooDeep, deeper_than, too_deep_reason

#: An item whose estimated parsed size is larger than this is refused (one unreadable item).
MAX_PARSED_BYTES = 1 << 30
#: Bytes a parsed JSON value costs, counted per separator: about what the dearest tiny values
#: cost (an empty list, or a one-character string, in a list: 88 bytes; a small int: 24).
BYTES_PER_VALUE = 88
#: Shorter items cannot pass the bound (30 times 16 MiB is well under it): not looked at.
CHECKED_FROM = 16 << 20
#: An item with more quotes than this is not scanned for its strings (slow); see ``parsed_size``.
_SCANNED_QUOTES = 2_000_000
_STRING_BYTES = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_STRING_TEXT = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')


class ItemTooLarge(orjson.JSONDecodeError):
    """An item refused before parsing: it would take more than ``MAX_PARSED_BYTES`` parsed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "", 0)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def _values(raw: bytes | str) -> int:
    """Structural characters (``,`` ``[`` ``{``): at least the number of JSON values less one."""
    if isinstance(raw, bytes):
        return raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    return raw.count(",") + raw.count("[") + raw.count("{")


def parsed_size(raw: bytes | str) -> int:
    """About how many bytes ``raw`` takes once parsed, never much less: its size plus
    ``BYTES_PER_VALUE`` per value. Values are counted by their separators, first over the whole
    item (cheap; commas inside strings counted too) and, only when that passes the bound, again
    outside strings (one regular-expression pass). An item holding more than a million strings
    is not scanned: its separators are counted as values."""
    size = len(raw)
    if size < CHECKED_FROM:
        return size
    estimate = size + BYTES_PER_VALUE * _values(raw)
    if estimate <= MAX_PARSED_BYTES:
        return estimate
    quotes = raw.count(b'"') if isinstance(raw, bytes) else raw.count('"')
    if quotes > _SCANNED_QUOTES:
        return estimate
    if isinstance(raw, bytes):
        outside: bytes | str = _STRING_BYTES.sub(b'""', raw)
    else:
        outside = _STRING_TEXT.sub('""', raw)
    return size + BYTES_PER_VALUE * _values(outside)


def check_size(raw: bytes | str) -> None:
    """Raise ``ItemTooLarge`` when ``raw`` would take more than ``MAX_PARSED_BYTES`` parsed."""
    if len(raw) < CHECKED_FROM:
        return
    estimate = parsed_size(raw)
    if estimate > MAX_PARSED_BYTES:
        raise ItemTooLarge(
            f"{len(raw)} bytes of JSON would take about {estimate} bytes parsed, "
            f"more than the {MAX_PARSED_BYTES}-byte limit for one item"
        )


def parse(raw: bytes | str) -> Any:
    """``raw`` parsed (``loads`` without the report): for JSON held inside an item, such as a tool's
    arguments string, and for peeks at lines. Raises ``orjson.JSONDecodeError`` as ``loads``."""
    return loads(raw)[0]


def first_value(head: bytes) -> Any:
    """The JSON value of the first line of ``head`` (a file's first bytes), None when it does
    not parse: the header a sniff or discovery reads, before any line is counted."""
    try:
        return orjson.loads(head.split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return None


def loads(raw: bytes | str) -> tuple[Any, bool]:
    """``raw`` parsed, and whether lone surrogate escapes in it were replaced by U+FFFD.

    Raises ``orjson.JSONDecodeError`` (``ItemTooLarge`` and ``core.nesting.TooDeep`` among them)
    when it is not readable, or nests deeper than ``core.nesting.MAX_NATIVE_NESTING``."""
    try:
        check_size(raw)
        value, repaired = orjson.loads(raw), False
    except orjson.JSONDecodeError as exc:
        value, repaired = lenient_loads(raw, exc), True
    if deeper_than(raw, value, MAX_NATIVE_NESTING):  # its records could not be read back (core.nesting)
        raise TooDeep(too_deep_reason(MAX_NATIVE_NESTING), "", 0)
    return value, repaired


def lenient_loads(raw: bytes | str, error: orjson.JSONDecodeError) -> Any:
    """``raw``, which orjson refused with ``error``, parsed with its lone surrogate escapes
    replaced by U+FFFD; raises ``error`` again when that was not (only) the problem."""
    if isinstance(error, ItemTooLarge) or not surrogate_problem(str(error)):
        raise error
    try:
        return loads_with_lone_surrogates(raw)
    except (ValueError, RecursionError):
        raise error from None


def misplaced(value: Any, paths: Sequence[tuple[str, ...]]) -> str | None:
    """Why ``value`` cannot be dispatched: the first member of ``paths`` (each a path of keys)
    that holds an array or an object where a name (a string) is expected; None when none does."""
    for path in paths:
        node = value
        for key in path:
            node = node.get(key) if type(node) is dict else None
        kind = type(node)
        if kind is list or kind is dict:
            what = "array" if kind is list else "object"
            return f"{'.'.join(path)} is a JSON {what}, not a name"
    return None


def names(*dotted: str) -> tuple[tuple[str, ...], ...]:
    """``misplaced`` paths from dotted member names (``"payload.type"``)."""
    return tuple(tuple(name.split(".")) for name in dotted)
