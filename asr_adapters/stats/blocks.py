"""Billing windows (``--by block``): the 5-hour windows Anthropic's plans meter usage in, as
ccusage's ``blocks`` reckons them.

Per agent (each bills its own provider), the responses in time order: a window starts at the
hour its first response falls in and lasts five hours; a response five hours or more after
the window's start, or after the window's previous response, starts the next one. Tool calls,
prompts and active time go to the window they fall in (before the first window: the first;
an activity interval reaching into the next window is cut at its start).
The newest window is live while it has not ended and its last response is less than five
hours old; a live window gets its burn rate (tokens a minute and cost an hour between its
first and last response) and what the window comes to at that rate by its end.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from typing import Any

from .activity import Interval
from .rows import Row
from .summary import Response, ToolCall

WINDOW_SECONDS = 5 * 3600


@dataclass
class Event:
    """Something that happened in a session, kept until the windows are known."""

    time: float
    session: str
    agent: str
    project: str | None
    response: Response | None = None
    call: ToolCall | None = None
    prompt: bool = False
    unattributed: bool = False  # a prompt whose author the source does not record
    active: Interval | None = None  # an activity interval (cut at window starts when assigned)


@dataclass
class _Window:
    start: float
    first: float
    last: float
    events: list[Event] = field(default_factory=list)


def windows(events: list[Event], breakdown: bool, tz: tzinfo, now: float | None = None) -> list[Row]:
    """Rows, one per window of each agent, in time order."""
    current = time.time() if now is None else now
    by_agent: dict[str, list[Event]] = {}
    for event in events:
        by_agent.setdefault(event.agent, []).append(event)
    rows: list[Row] = []
    for agent in sorted(by_agent):
        rows.extend(_agent_windows(agent, by_agent[agent], breakdown, tz, current))
    rows.sort(key=lambda row: (row.start or 0.0, row.key))
    return rows


def _agent_windows(agent: str, events: list[Event], breakdown: bool, tz: tzinfo, now: float) -> list[Row]:
    found: list[_Window] = []
    for moment in sorted(e.time for e in events if e.response is not None):
        if not found or moment - found[-1].start >= WINDOW_SECONDS or moment - found[-1].last >= WINDOW_SECONDS:
            found.append(_Window(start=moment - moment % 3600, first=moment, last=moment))
        else:
            found[-1].last = moment
    if not found:
        return []  # windows are made by responses: an agent that recorded none has none
    starts = [w.start for w in found]
    for event in events:
        if event.active is not None:
            for index, piece in _cut(event.active, starts):
                found[index].events.append(replace(event, time=piece[0], active=piece))
            continue
        found[max(0, bisect_right(starts, event.time) - 1)].events.append(event)
    rows = []
    from .when import local

    for window in found:
        label = f"{agent} {local(window.start, tz).strftime('%Y-%m-%d %H:%M')}"
        row = Row("block", label, start=window.start, end=window.start + WINDOW_SECONDS)
        row.agents.add(agent)
        for event in window.events:
            row.sessions.add(event.session)
            if event.project is not None:
                row.projects.add(event.project)
            if event.response is not None:
                row.add_response(event.response, breakdown)
            elif event.call is not None:
                row.add_call(event.call, breakdown)
            elif event.prompt:
                assert row.prompts is not None
                row.prompts += 1
            elif event.unattributed:
                assert row.unattributed_prompts is not None
                row.unattributed_prompts += 1
            elif event.active is not None:
                assert row.activity is not None
                row.activity.append(event.active)
        row.window = _state(row, window, now)
        rows.append(row)
    return rows


def _cut(span: Interval, starts: list[float]) -> list[tuple[int, Interval]]:
    """An activity interval in pieces, one per window it reaches (a window holds what falls
    from its start to the next window's start; the first also what came before it)."""
    start, end = span
    index = max(0, bisect_right(starts, start) - 1)
    pieces = []
    while index + 1 < len(starts) and end > starts[index + 1]:
        pieces.append((index, (start, starts[index + 1])))
        start = starts[index + 1]
        index += 1
    pieces.append((index, (start, end)))
    return pieces


def _state(row: Row, window: _Window, now: float) -> dict[str, Any]:
    end = window.start + WINDOW_SECONDS
    live = now < end and now - window.last < WINDOW_SECONDS
    state: dict[str, Any] = {"live": live, "burnRate": None, "projected": None}
    minutes = (window.last - window.first) / 60
    if live and minutes > 0:
        tokens = row.totals.tokens.total
        cost = row.totals.cost
        state["burnRate"] = {"tokensPerMinute": tokens / minutes, "costPerHour": cost / minutes * 60}
        remaining = max(0.0, (end - now) / 60)
        state["projected"] = {
            "totalTokens": round(tokens + tokens / minutes * remaining),
            "cost": cost + cost / minutes * remaining,
            "remainingMinutes": round(remaining, 1),
        }
    return state
