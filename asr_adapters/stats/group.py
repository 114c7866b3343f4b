"""Grouping session summaries into report rows, with the filters applied event by event.

Every response, tool call, prompt and activity interval of a session is placed by its own
time: a session that crosses midnight adds to two days, and ``--since`` keeps only what
happened after it. So the totals of a report are the same whatever it is grouped by. A
session counts in a row when anything of it falls there; a subagent counts as part of the
session that started it (``finish(parents)``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from .activity import Interval, clip
from .blocks import Event, windows
from .rows import Row
from .summary import Response, SessionSummary, ToolCall
from .when import local

GROUPINGS = ("session", "day", "week", "month", "model", "project", "agent", "block")
TIME_GROUPINGS = frozenset({"day", "week", "month"})
UNKNOWN = "unknown"
QUARTER_HOUR = 900
#: Where an event goes: its row's key, and the bucket's start and end (time rows).
_Place = tuple[str, float | None, float | None]


def _matches(value: str | None, patterns: tuple[str, ...]) -> bool:
    """A glob (``*``, ``?``, ``[``) matches the whole value; other text is a case-insensitive part of it."""
    if not patterns:
        return True
    if value is None:
        return False
    lowered = value.lower()
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatch.fnmatchcase(lowered, pattern.lower()):
                return True
        elif pattern.lower() in lowered:
            return True
    return False


@dataclass(frozen=True)
class Selection:
    """The filters: ``since``/``until`` in epoch seconds (until exclusive), and agent names
    (exact), project folders and model names (globs or parts of the name)."""

    since: float | None = None
    until: float | None = None
    agents: frozenset[str] = frozenset()
    projects: tuple[str, ...] = ()
    models: tuple[str, ...] = ()

    def when(self, moment: float | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if moment is None:
            return False  # a time filter keeps only what has a time
        return (self.since is None or moment >= self.since) and (self.until is None or moment < self.until)

    def session(self, summary: SessionSummary) -> bool:
        if self.agents and summary.agent not in self.agents:
            return False
        return _matches(summary.cwd, self.projects)

    def model(self, name: str | None) -> bool:
        return _matches(name, self.models)


def session_key(summary: SessionSummary) -> str:
    return summary.session or f"file:{summary.file or UNKNOWN}"


class Aggregator:
    """Add summaries one at a time (nothing of them is kept but the rows), then ``finish``."""

    def __init__(self, by: str, tz: tzinfo, selection: Selection | None = None, *, breakdown: bool = False):
        if by not in GROUPINGS:
            raise ValueError(f"cannot group by {by!r}: one of {', '.join(GROUPINGS)}")
        self.by = by
        self.tz = tz
        self.selection = selection or Selection()
        self.breakdown = breakdown
        self.rows: dict[str, Row] = {}
        self.total = Row("total", "total")
        self.events: list[Event] = []  # --by block: kept until the windows are known
        self.titles: dict[str, str] = {}
        self._buckets: dict[int, tuple[str, float, float]] = {}

    def add(self, summary: SessionSummary) -> bool:
        """Count what of one session the filters keep; False when they keep nothing."""
        chosen = self.selection
        if not chosen.session(summary):
            return False
        if chosen.models and not any(chosen.model(r.model) for r in summary.responses):
            return False
        responses = [r for r in summary.responses if chosen.when(r.time) and chosen.model(r.model)]
        calls = [c for c in summary.tool_calls if chosen.when(c.time) and (not chosen.models or chosen.model(c.model))]
        prompts = [t for t in summary.prompt_times if chosen.when(t)]
        unattributed = [t for t in summary.unattributed_times if chosen.when(t)]
        spans = clip(summary.activity, chosen.since, chosen.until)
        if not (responses or calls or prompts or unattributed or spans):
            return False
        session = session_key(summary)
        title = summary.title or _prompt_title(summary.first_prompt)
        if title:
            self.titles.setdefault(session, title)
        agent = summary.agent or UNKNOWN
        project = summary.cwd
        breakdown = self.breakdown
        place = self._placer(summary)
        parts: dict[_Place, Row] = {}  # this session's share of each row, merged into the row once

        def part(where: _Place | None) -> Row | None:
            if where is None:
                return None
            share = parts.get(where)
            if share is None:
                share = parts[where] = Row(self.by, where[0])
                if self.by == "model":
                    share.prompts = share.unattributed_prompts = share.activity = None
            return share

        whole = Row("total", "total")
        for response in responses:
            share = part(place(response.time, response.model or UNKNOWN))
            if share is not None:
                share.add_response(response, breakdown)
            whole.add_response(response, breakdown)
        for call in calls:
            share = part(place(call.time, call.model or UNKNOWN))
            if share is not None:
                share.add_call(call, breakdown)
            whole.add_call(call, breakdown)
        for moment in prompts:
            share = part(place(moment, None))
            if share is not None:
                share.seen(moment)
                if share.prompts is not None:
                    share.prompts += 1
        for moment in unattributed:
            share = part(place(moment, None))
            if share is not None and share.unattributed_prompts is not None:
                share.seen(moment)
                share.unattributed_prompts += 1
        for span in spans:
            for piece in self._pieces(span):
                share = part(place(piece[0], None))
                if share is not None:
                    share.add_activity(piece)
        for moment in [*prompts, *unattributed]:
            whole.seen(moment)
        whole.prompts = len(prompts)
        whole.unattributed_prompts = len(unattributed)
        for span in spans:
            whole.add_activity(span)
        for share in [*parts.values(), whole]:
            share.unmetered_shares = int(share.unmetered)  # tool calls, no response: cost unknown
        for where, share in parts.items():
            row = self._mark(where, session, agent, project)
            if row is not None:
                row.merge(share)
        self.total.merge(whole)
        self._mark_total(session, agent, project)
        if self.by == "block":
            self._keep_events(session, agent, project, responses, calls, prompts, unattributed, spans)
        return True

    def _mark_total(self, session: str, agent: str, project: str | None) -> None:
        self.total.sessions.add(session)
        self.total.agents.add(agent)
        if project is not None:
            self.total.projects.add(project)

    def _keep_events(
        self,
        session: str,
        agent: str,
        project: str | None,
        responses: list[Response],
        calls: list[ToolCall],
        prompts: list[float | None],
        unattributed: list[float | None],
        spans: list[Interval],
    ) -> None:
        keep = self.events.append
        for response in responses:
            if response.time is not None:
                keep(Event(response.time, session, agent, project, response=response))
        for call in calls:
            if call.time is not None:
                keep(Event(call.time, session, agent, project, call=call))
        for moment in prompts:
            if moment is not None:
                keep(Event(moment, session, agent, project, prompt=True))
        for moment in unattributed:
            if moment is not None:
                keep(Event(moment, session, agent, project, unattributed=True))
        for span in spans:
            keep(Event(span[0], session, agent, project, active=span))

    def _pieces(self, span: Interval) -> list[Interval]:
        """An activity interval cut where a day, week or month row ends (whole elsewhere)."""
        if self.by not in TIME_GROUPINGS:
            return [span]
        start, end = span
        pieces = []
        while True:
            bucket_end = self._bucket(start)[2]
            if bucket_end is None or end <= bucket_end:
                pieces.append((start, end))
                return pieces
            pieces.append((start, bucket_end))
            start = bucket_end

    def _placer(self, summary: SessionSummary) -> Callable[[float | None, str | None], _Place | None]:
        """How this session's events find their row: (key, bucket start, bucket end) from the
        event's time and, for responses and calls, its model (None for a prompt or an
        activity interval); None for an event that belongs to no row (a prompt in a model row)."""
        by = self.by
        if by in TIME_GROUPINGS:
            return lambda when, _model: self._bucket(when)
        if by == "model":
            return lambda _when, model: None if model is None else (model, None, None)
        if by == "block":
            return lambda _when, _model: None  # rows come from the windows
        if by == "session":
            fixed: _Place = (session_key(summary), None, None)
        elif by == "agent":
            fixed = (summary.agent or UNKNOWN, None, None)
        else:
            fixed = (summary.cwd or UNKNOWN, None, None)
        return lambda _when, _model: fixed

    def _bucket(self, when: float | None) -> _Place:
        if when is None:
            return (UNKNOWN, None, None)
        quarter = int(when // QUARTER_HOUR)  # every zone's offset is a whole number of quarter hours
        cached = self._buckets.get(quarter)
        if cached is None:
            cached = self._buckets[quarter] = _time_bucket(self.by, when, self.tz)
        return cached

    def _mark(self, place: _Place | None, session: str, agent: str, project: str | None) -> Row | None:
        if place is None:
            return None
        key, start, end = place
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = Row(self.by, key, start=start, end=end)
            if self.by == "model":
                row.prompts = row.unattributed_prompts = None
                row.activity = None
        row.sessions.add(session)
        row.agents.add(agent)
        if project is not None:
            row.projects.add(project)
        return row

    def finish(self, parents: dict[str, str] | None = None, now: float | None = None) -> list[Row]:
        """The rows, with each subagent counted in the session it belongs to (``parents``:
        child session -> the session that started it)."""
        root = _roots(parents or {})
        rows = list(self.rows.values()) if self.by != "block" else windows(self.events, self.breakdown, self.tz, now)
        if self.by == "session":
            merged: dict[str, Row] = {}
            for row in rows:
                row.title = row.title or self.titles.get(row.key)
                target = root(row.key)
                if target in merged:
                    merged[target].merge(row)
                else:
                    row.key = target
                    merged[target] = row
            rows = list(merged.values())
            for row in rows:
                row.title = self.titles.get(row.key) or row.title  # a parent not read: its subagent's title
        for row in [*rows, self.total]:
            everyone = row.sessions
            row.sessions = {root(s) for s in everyone}
            row.subagents = {s for s in everyone if root(s) != s}
            if row.by != "session":
                row.start = row.start if row.by in TIME_GROUPINGS or row.by == "block" else row.first
                row.end = row.end if row.by in TIME_GROUPINGS or row.by == "block" else row.last
            else:
                row.start, row.end = row.first, row.last
        self.total.start, self.total.end = self.total.first, self.total.last
        return sorted(rows, key=self._order)

    def _order(self, row: Row) -> tuple[object, ...]:
        if self.by in TIME_GROUPINGS:
            return (row.key == UNKNOWN, row.key)
        if self.by in ("session", "block"):
            return (row.start is None, row.start or 0.0, row.key)
        return (-row.totals.cost, -row.totals.tokens.total, row.key)


def _roots(parents: dict[str, str]) -> Callable[[str], str]:
    cache: dict[str, str] = {}

    def root(session: str) -> str:
        if session in cache:
            return cache[session]
        seen = {session}
        current = session
        while current in parents and parents[current] not in seen:
            current = parents[current]
            seen.add(current)
        cache[session] = current
        return current

    return root


def _time_bucket(by: str, when: float, tz: tzinfo) -> tuple[str, float, float]:
    moment = local(when, tz)
    day = moment.date()
    if by == "day":
        start = day
        end = day + timedelta(days=1)
        key = day.isoformat()
    elif by == "week":
        start = day - timedelta(days=day.weekday())
        end = start + timedelta(days=7)
        year, week, _ = day.isocalendar()
        key = f"{year}-W{week:02d}"
    else:
        start = day.replace(day=1)
        end = (start + timedelta(days=32)).replace(day=1)
        key = start.strftime("%Y-%m")
    return (
        key,
        datetime(start.year, start.month, start.day, tzinfo=tz).timestamp(),
        datetime(end.year, end.month, end.day, tzinfo=tz).timestamp(),
    )


def _prompt_title(prompt: str | None) -> str | None:
    """A session with no title is called by its first prompt; a slash command as the person
    typed it (``/clear``), not Claude Code's ``<command-name>`` markup around it."""
    if prompt is None:
        return None
    from ..stream.commands import command_text

    return command_text([{"type": "text", "text": prompt, "origin": "command"}], {}) or prompt
