"""Active time as intervals: what a stream was active for, and the union over many streams.

One rule for every agent (docs/stats.md, "Active time"): each record with a time starts an
activity that lasts until the stream's next record, at most the idle threshold (a person away
for an hour adds ten minutes, not an hour); a stream's last record adds nothing. A stream's
activity is the union of those intervals. A session's active time is the union over all its
streams (the parent and its subagents), and a report row's the union over everything it
counts, so time during which two streams were both active counts once.

Intervals are ``(start, end)`` pairs of epoch seconds; a record standing alone gives the empty
interval ``(t, t)``, so every record time is in some interval (it places the session in a row
even when it adds no time).
"""

from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[float, float]


def intervals_of(times: Iterable[float], idle: float) -> list[Interval]:
    """A stream's activity intervals from its record times (any order): sorted, disjoint."""
    ordered = sorted(times)
    following = ordered[1:] + ordered[-1:]  # each time's next one; the last's, itself
    return _merged((start, start + min(after - start, idle)) for start, after in zip(ordered, following, strict=True))


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """The intervals merged: sorted, disjoint; touching or overlapping ones become one."""
    return _merged(sorted(intervals))


def _merged(ordered: Iterable[Interval]) -> list[Interval]:
    """Intervals in order of their start, merged where they touch or overlap."""
    out: list[Interval] = []
    for start, end in ordered:
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def covered(intervals: Iterable[Interval]) -> float:
    """Seconds covered by the union of ``intervals``: overlap counted once."""
    return sum(end - start for start, end in union(intervals))


def clip(intervals: Iterable[Interval], since: float | None, until: float | None) -> list[Interval]:
    """The parts of ``intervals`` from ``since`` (inclusive) to ``until`` (exclusive)."""
    if since is None and until is None:
        return list(intervals)
    low = float("-inf") if since is None else since
    high = float("inf") if until is None else until
    out: list[Interval] = []
    for start, end in intervals:
        if start == end:  # a record standing alone: kept where it is in range
            if low <= start < high:
                out.append((start, end))
            continue
        start, end = max(start, low), min(end, high)
        if start < end:
            out.append((start, end))
    return out
