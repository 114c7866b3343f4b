"""The rows of an ``asr stats`` report: one per session, day, week, month, model, project,
agent or billing window, each summing the responses, tool calls, prompts and active time that
fall in it (docs/stats.md says what each column means)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from .activity import Interval, union
from .summary import PRICED_BY_AGENT, PRICED_BY_US, Response, ToolCall, Totals
from .when import show


@dataclass
class ModelPart:
    """One model's share of a row (``--breakdown``): its responses and the calls it made."""

    totals: Totals = field(default_factory=Totals)
    tool_calls: int = 0
    failed_tool_calls: int = 0

    def as_dict(self, model: str) -> dict[str, Any]:
        return {
            "model": model,
            **_totals(self.totals, self.tool_calls),
            "pricedBy": priced_by(self.totals, self.tool_calls),
            "toolCalls": self.tool_calls,
            "failedToolCalls": self.failed_tool_calls,
        }


@dataclass
class Row:
    """One group. ``sessions`` holds session references (subagents are resolved to the session
    they belong to when the report is finished); ``prompts`` and ``activity`` are None in model
    rows, where they belong to no one model. ``activity`` holds the activity intervals of what
    the row counts (``stats.activity``); ``active_seconds`` is the time their union covers, so
    streams active at the same time (a session and its subagents) count once."""

    by: str
    key: str
    start: float | None = None  # the bucket's start (time rows), else the first event's time
    end: float | None = None  # the bucket's end (time rows), else the last event's time
    sessions: set[str] = field(default_factory=set)
    subagents: set[str] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    projects: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    totals: Totals = field(default_factory=Totals)
    tool_calls: int = 0
    failed_tool_calls: int = 0
    prompts: int | None = 0
    unattributed_prompts: int | None = 0  # prompts of an author the source does not record
    activity: list[Interval] | None = field(default_factory=list)
    breakdown: dict[str, ModelPart] = field(default_factory=dict)
    title: str | None = None  # session rows: the session's title, else its first prompt
    first: float | None = None
    last: float | None = None
    window: dict[str, Any] | None = None  # block rows: whether live, burn rate, projection
    #: sessions' shares of the row with tool calls but no response recorded (T3 Code, Droid):
    #: what they cost is unknown, so the row's cost is a lower bound (or unknown, if all are)
    unmetered_shares: int = 0

    @property
    def active_seconds(self) -> float | None:
        """Seconds covered by the row's activity intervals, overlap counted once; None where
        nothing of the row has a time (OpenHands' zoneless events): unknown, not 0."""
        if self.activity is None or (not self.activity and self.first is None and self.sessions):
            return None
        self.activity = union(self.activity)  # kept merged: a row's list stays small
        return sum(end - start for start, end in self.activity)

    def seen(self, when: float | None) -> None:
        if when is None:
            return
        if self.first is None or when < self.first:
            self.first = when
        if self.last is None or when > self.last:
            self.last = when

    def add_activity(self, span: Interval) -> None:
        """An activity interval the row counts: its active time, and its first and last
        activity (one notion: nothing is active before ``first`` or after ``last``)."""
        if self.activity is None:
            return
        self.activity.append(span)
        self.seen(span[0])
        self.seen(span[1])

    def add_response(self, response: Response, breakdown: bool) -> None:
        self.totals.add(response)
        self.models.add(response.model or "unknown")
        self.seen(response.time)
        if breakdown:
            self.breakdown.setdefault(response.model or "unknown", ModelPart()).totals.add(response)

    def add_call(self, call: ToolCall, breakdown: bool) -> None:
        self.tool_calls += 1
        failed = call.failed
        self.failed_tool_calls += failed
        self.seen(call.time)
        if breakdown:
            part = self.breakdown.setdefault(call.model or "unknown", ModelPart())
            part.tool_calls += 1
            part.failed_tool_calls += failed

    def merge(self, other: Row) -> None:
        """Fold another row into this one (a subagent's session row into its parent's)."""
        self.sessions |= other.sessions
        self.subagents |= other.subagents
        self.agents |= other.agents
        self.projects |= other.projects
        self.models |= other.models
        self.totals.merge(other.totals)
        self.tool_calls += other.tool_calls
        self.failed_tool_calls += other.failed_tool_calls
        self.unmetered_shares += other.unmetered_shares
        if self.prompts is not None and other.prompts is not None:
            self.prompts += other.prompts
        if self.unattributed_prompts is not None and other.unattributed_prompts is not None:
            self.unattributed_prompts += other.unattributed_prompts
        if self.activity is not None and other.activity is not None:
            self.activity.extend(other.activity)
        for model, part in other.breakdown.items():
            mine = self.breakdown.setdefault(model, ModelPart())
            mine.totals.merge(part.totals)
            mine.tool_calls += part.tool_calls
            mine.failed_tool_calls += part.failed_tool_calls
        self.seen(other.first)
        self.seen(other.last)
        if self.title is None:
            self.title = other.title

    @property
    def priced_by(self) -> str:
        """Who priced this row's cost: ``agent``, ``genai-prices``, both, ``unpriced`` (tokens
        and no price at all), ``unknown`` (responses, none with a recorded usage: Cursor's,
        an OpenHands conversation without its usage; or no response at all but tool calls the
        model made: T3 Code and Factory Droid record no response usage), or ``-`` (nothing to
        price)."""
        return priced_by(self.totals, self.tool_calls)

    @property
    def unmetered(self) -> bool:
        """A model worked (tool calls) but the source recorded no response to count or price."""
        return unmetered(self.totals, self.tool_calls)

    @property
    def lower_bound(self) -> bool:
        """The row's cost and token sums are lower bounds: some response's usage, input or final
        count is unknown, or some session of it made tool calls with no response recorded."""
        return self.totals.lower_bound or self.unmetered_shares > 0 or self.unmetered

    def as_dict(self, tz: tzinfo) -> dict[str, Any]:
        data: dict[str, Any] = {"by": self.by, "key": self.key}
        if self.title is not None:
            data["title"] = self.title
        data["start"] = show(self.start, tz)
        data["end"] = show(self.end, tz)
        data["firstActivity"] = show(self.first, tz)
        data["lastActivity"] = show(self.last, tz)
        data["sessions"] = len(self.sessions)
        data["subagents"] = len(self.subagents)
        data["agents"] = sorted(self.agents)
        data["projects"] = sorted(self.projects)
        data["models"] = sorted(self.models)
        data.update(_totals(self.totals, self.tool_calls))
        data["costLowerBound"] = self.lower_bound  # also its sessions' unmetered shares
        data["pricedBy"] = self.priced_by
        data["toolCalls"] = self.tool_calls
        data["failedToolCalls"] = self.failed_tool_calls
        data["prompts"] = self.prompts
        data["unattributedPrompts"] = self.unattributed_prompts
        active = self.active_seconds
        data["activeSeconds"] = None if active is None else round(active, 3)
        if self.window is not None:
            data["window"] = self.window
        data["breakdown"] = [
            part.as_dict(model) for model, part in sorted(self.breakdown.items(), key=lambda kv: -kv[1].totals.cost)
        ]
        return data


def unmetered(totals: Totals, tool_calls: int) -> bool:
    """Tool calls the model made but no response recorded (T3 Code, Factory Droid keep no
    response usage): what it cost is unknown, not $0."""
    return totals.responses == 0 and tool_calls > 0


def _totals(totals: Totals, tool_calls: int) -> dict[str, Any]:
    unknown_cost = unmetered(totals, tool_calls)
    cost = None if unknown_cost else totals.known_cost  # None, not 0, where nothing could be priced
    return {
        "responses": totals.responses,
        **totals.token_members(),  # None, not 0, where unknown
        "cost": cost,
        "agentCost": None if cost is None else totals.agent_cost,
        "ourCost": None if cost is None else totals.cost - totals.agent_cost,
        "pricedByAgent": totals.priced_by_agent,
        "pricedByUs": totals.priced_by_us,
        "unpricedResponses": totals.unpriced,
        "unpricedTokens": totals.unpriced_tokens.total,
        "partialResponses": totals.partial,
        "responsesWithoutUsage": totals.without_usage,
        "responsesWithoutInput": totals.without_input,
        "costLowerBound": totals.lower_bound or unknown_cost,
    }


def priced_by(totals: Totals, tool_calls: int = 0) -> str:
    """``agent``, ``genai-prices``, both joined by ``+``, else ``unpriced``, ``unknown`` (also
    where ``unmetered``) or ``-``."""
    if unmetered(totals, tool_calls):
        return "unknown"
    counts = ((PRICED_BY_AGENT, totals.priced_by_agent), (PRICED_BY_US, totals.priced_by_us))
    by = [name for name, count in counts if count]
    if by:
        return "+".join(by)
    return unpriced_or_unknown(totals)


def unpriced_or_unknown(totals: Totals) -> str:
    """The cost of totals with nothing priced: ``unpriced`` (tokens without a price),
    ``unknown`` (responses whose usage is unknown, and no other), else ``-`` (nothing to price)."""
    if totals.unpriced:
        return "unpriced"
    return "unknown" if totals.without_usage and totals.without_usage == totals.responses else "-"
