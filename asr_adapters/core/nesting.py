"""How deep JSON may nest: one limit for every command (issue 25.11).

orjson parses up to 1024 levels and writes up to 255; Python's own recursion stops near 1000.
Without one limit, ``convert`` accepted a native line 1024 deep, wrapped it one level deeper in a
``vendor`` record and wrote a line that ``validate``, ``show`` and ``export`` could not read back,
and ``show`` died with ``RecursionError`` on values about 990 deep that ``validate`` accepted.

- ``MAX_NESTING``: a record (the record object is level 1) holds at most this many levels.
  ``validate`` reports a deeper record (``PROFILE-nesting``), ``show`` marks it, ``export``
  refuses the stream; the stream writer refuses to write one.
- ``MAX_NATIVE_NESTING``: ``convert`` counts a native item nested deeper than this unreadable
  (one item, with a warning), and keeps an embedded JSON text that parses deeper as text; the
  margin leaves room for the levels a record adds around native values (``vendor.data``, a
  part's ``data``), so every record ``convert`` writes is within ``MAX_NESTING``.
- ``dumps`` writes any value within the limit (orjson, or the standard library past orjson's 255
  levels), so no writer or page fails on a deep but valid value.

Finding the depth costs a walk over a value's containers; ``deeper_than`` skips it for any line
holding fewer brackets than the limit, which is nearly every line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

MAX_NESTING = 1000
MAX_NATIVE_NESTING = MAX_NESTING - 16


def depth(value: Any, stop: int = MAX_NESTING) -> int:
    """How many levels of arrays and objects ``value`` nests (a scalar: 0); counting stops a
    level past ``stop``. Iterative: no recursion limit applies."""
    if not isinstance(value, dict | list):
        return 0
    deepest = 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest > stop:
                return deepest
        items = container.values() if isinstance(container, dict) else container
        for item in items:
            if isinstance(item, dict | list):
                stack.append((item, level + 1))
    return deepest


def deeper_than(raw: bytes | str, value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether the JSON ``value`` parsed from ``raw`` nests more than ``limit`` levels. A text
    shorter than ``2 * (limit + 1)`` (each level opens and closes) or with no more than ``limit``
    opening brackets cannot: nearly every line is decided without walking the value."""
    if len(raw) < 2 * (limit + 1):
        return False
    opening = raw.count(b"[") + raw.count(b"{") if isinstance(raw, bytes) else raw.count("[") + raw.count("{")
    if opening <= limit:
        return False
    return depth(value, limit) > limit


class TooDeep(orjson.JSONDecodeError):
    """JSON that parses but nests deeper than the limit: callers treat it as text that does not parse."""

    def __str__(self) -> str:
        return str(self.msg)


def loads_within(raw: bytes | str, limit: int = MAX_NATIVE_NESTING) -> Any:
    """``orjson.loads``, raising ``orjson.JSONDecodeError`` (``TooDeep``) also for a value nested
    deeper than ``limit``: every native parse whose value may end in a record goes through it, and
    each already treats JSON that does not parse as one unreadable item or as text."""
    value = orjson.loads(raw)
    if deeper_than(raw, value, limit):
        raise TooDeep(too_deep_reason(limit), "", 0)
    return value


def too_deep_reason(limit: int) -> str:
    return f"nested deeper than {limit} levels (asr reads records of at most {MAX_NESTING})"


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """Compact (or indented) JSON of any value within the limit: orjson, or past its 255 levels
    (and for integers beyond 64 bits) the standard library with room to recurse."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except orjson.JSONEncodeError:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * MAX_NESTING + 1000))
        try:
            separators = (",", ": ") if indent else (",", ":")
            text = json.dumps(
                value, ensure_ascii=False, separators=separators, allow_nan=False, indent=2 if indent else None
            )
        finally:
            sys.setrecursionlimit(limit)
        return text.encode("utf-8", "surrogatepass")
