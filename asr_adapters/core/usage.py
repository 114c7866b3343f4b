"""Token counts under ASR's normalized ``usage`` names (docs/format.md "Usage")."""

from __future__ import annotations

from typing import Any


def token_counts(native: dict[str, Any], names: tuple[tuple[str, str], ...]) -> dict[str, int]:
    """Each ``(native member, usage name)`` pair whose native value is a count (an int ≥ 0):
    only what the source states, never computed; bools and floats are not counts."""
    counts: dict[str, int] = {}
    for member, name in names:
        value = native.get(member)
        if value.__class__ is int and value >= 0:
            counts[name] = value
    return counts
