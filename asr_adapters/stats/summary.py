"""What one session amounts to: the dataclasses ``session_summary`` returns.

Every number is read from the record model alone (docs/format.md, docs/semantics.md), never
from an agent's native format: the same question gets the same kind of answer for every
agent. docs/stats.md defines each member.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .prices import Tokens

#: ``ToolCall.outcome`` values. Only ``failed`` is a failure: a call the person denied or the
#: harness cancelled did not fail (docs/semantics.md, "Tool outcome").
OUTCOMES = ("ok", "failed", "denied", "cancelled", "interrupted", "no result")

#: ``Response.cost_by`` values: who priced the response.
PRICED_BY_AGENT = "agent"
PRICED_BY_US = "genai-prices"


@dataclass(slots=True)
class Response:
    """One model response. ``tokens`` is its normalized ``usage`` (zero when ``has_usage`` is
    False: the source recorded the response but no usage for it); ``partial`` when the stream
    holds only a running count. ``cost`` is None when the response is unpriced (a model
    genai-prices does not know, or none named); ``cost_by`` says who priced it."""

    record: str | None
    ts: str | None
    time: float | None  # epoch seconds: ``ts``, else the nearest earlier record's
    model: str | None
    tokens: Tokens
    has_usage: bool = True
    partial: bool = False
    cost: float | None = None
    cost_by: str | None = None
    priced_as: str | None = None  # genai-prices' "<provider>/<model>" when priced by us
    #: False when the usage records no ``inputTokens`` (Copilot CLI keeps only the output; an
    #: OpenHands count that may or may not hold the cache writes): the input is unknown, not 0,
    #: and the cost is of what was recorded alone
    input_known: bool = True

    @property
    def lower_bound(self) -> bool:
        """Its cost (and tokens) are a lower bound: tokens were recorded but not the input."""
        return self.has_usage and not self.input_known

    @property
    def unpriced(self) -> bool:
        """Tokens with no price: never counted as $0."""
        return self.cost is None and bool(self.tokens)

    def as_dict(self) -> dict[str, Any]:
        usage: dict[str, Any] | None = self.tokens.as_dict() if self.has_usage else None
        if usage is not None and not self.input_known:
            usage["inputTokens"] = usage["totalTokens"] = None  # unknown, never 0
        return {
            "record": self.record,
            "ts": self.ts,
            "model": self.model,
            "usage": usage,
            "inputKnown": self.input_known,
            "partial": self.partial,
            "cost": self.cost,
            "costBy": self.cost_by,
            "pricedAs": self.priced_as,
        }


@dataclass(slots=True)
class ToolCall:
    """A tool call joined with its result. ``outcome`` is one of ``OUTCOMES``."""

    call_id: str | None
    name: str | None
    ts: str | None
    time: float | None
    outcome: str = "no result"
    status: str | None = None  # the result's status, else the call's
    is_error: bool = False
    exit_code: int | None = None
    result_ts: str | None = None
    model: str | None = None  # the model in use when the call was made (the last one named)

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "name": self.name,
            "ts": self.ts,
            "outcome": self.outcome,
            "status": self.status,
            "isError": self.is_error,
            "exitCode": self.exit_code,
            "resultTs": self.result_ts,
            "model": self.model,
        }


@dataclass(slots=True)
class Subagent:
    """A delegation the session recorded (a ``subagent`` record)."""

    session: str | None
    agent_type: str | None
    description: str | None
    call_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "agentType": self.agent_type,
            "description": self.description,
            "callId": self.call_id,
        }


@dataclass(slots=True)
class Totals:
    """Sums over responses: tokens, cost split by who priced it, and what stayed unpriced."""

    responses: int = 0
    tokens: Tokens = field(default_factory=Tokens)
    cost: float = 0.0  # every priced response: the agent's recorded cost and ours
    agent_cost: float = 0.0  # the part the agent recorded itself
    priced_by_agent: int = 0
    priced_by_us: int = 0
    unpriced: int = 0
    unpriced_tokens: Tokens = field(default_factory=Tokens)
    partial: int = 0
    without_usage: int = 0
    without_input: int = 0  # responses whose usage records no input count: cost a lower bound

    @property
    def lower_bound(self) -> bool:
        """Whether the cost and the token sums are a lower bound: some response recorded no
        input count, no usage at all (its tokens and cost unknown), or only a running count."""
        return self.without_input > 0 or self.without_usage > 0 or self.partial > 0

    def token_members(self) -> dict[str, int | None]:
        """The token sums as JSON members, None where unknown, never 0: every member when no
        response recorded usage, the input when none that did recorded its input (the total is
        then what is known, a lower bound like the rest: ``lower_bound``), so a total of rows
        is still the sum of its rows."""
        members: dict[str, int | None] = dict(self.tokens.as_dict())
        counted = self.responses - self.without_usage
        if self.responses and counted == 0:
            return dict.fromkeys(members)
        if counted and counted == self.without_input:
            members["inputTokens"] = None
        return members

    @property
    def known_cost(self) -> float | None:
        """The cost, or None when nothing was priced and there was something to price (every
        response unpriced or of unknown usage): an unknown cost is never written as $0."""
        if self.priced_by_agent or self.priced_by_us:
            return self.cost
        if self.unpriced or (self.without_usage and self.without_usage == self.responses):
            return None
        return self.cost

    def add(self, response: Response) -> None:
        self.responses += 1
        self.tokens.add(response.tokens)
        if not response.has_usage:
            self.without_usage += 1
        elif not response.input_known:
            self.without_input += 1
        if response.partial:
            self.partial += 1
        if response.cost is not None:
            self.cost += response.cost
            if response.cost_by == PRICED_BY_AGENT:
                self.agent_cost += response.cost
                self.priced_by_agent += 1
            elif response.cost_by == PRICED_BY_US:
                self.priced_by_us += 1
        elif response.tokens:
            self.unpriced += 1
            self.unpriced_tokens.add(response.tokens)

    def merge(self, other: Totals) -> None:
        self.responses += other.responses
        self.tokens.add(other.tokens)
        self.cost += other.cost
        self.agent_cost += other.agent_cost
        self.priced_by_agent += other.priced_by_agent
        self.priced_by_us += other.priced_by_us
        self.unpriced += other.unpriced
        self.unpriced_tokens.add(other.unpriced_tokens)
        self.partial += other.partial
        self.without_usage += other.without_usage
        self.without_input += other.without_input

    def as_dict(self) -> dict[str, Any]:
        return {
            "responses": self.responses,
            **self.token_members(),
            "cost": self.known_cost,
            "agentCost": None if self.known_cost is None else self.agent_cost,
            "pricedByAgent": self.priced_by_agent,
            "pricedByUs": self.priced_by_us,
            "unpricedResponses": self.unpriced,
            "unpricedTokens": self.unpriced_tokens.total,
            "partialResponses": self.partial,
            "responsesWithoutUsage": self.without_usage,
            "responsesWithoutInput": self.without_input,
            "costLowerBound": self.lower_bound,
        }


@dataclass
class SessionSummary:
    """One session stream, summed up (``session_summary``; docs/stats.md defines each member).

    ``activity`` is the stream's activity intervals (``(start, end)`` epoch seconds, sorted and
    disjoint; ``stats.activity``): what report rows and billing windows take active time from,
    as the union over every stream they count, so overlapping streams count once.
    """

    session: str | None = None
    agent: str | None = None
    agent_version: str | None = None
    title: str | None = None
    cwd: str | None = None
    parent: str | None = None
    file: str | None = None  # the header's ``source.file``
    first_ts: str | None = None
    last_ts: str | None = None
    first_time: float | None = None
    last_time: float | None = None
    active_seconds: float = 0.0
    records: int = 0
    copied_records: int = 0  # records with ``copiedFrom``: another session's, not counted here
    responses: list[Response] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_times: list[float | None] = field(default_factory=list)
    first_prompt: str | None = None
    unattributed_times: list[float | None] = field(default_factory=list)
    errors: int = 0
    subagents: list[Subagent] = field(default_factory=list)
    #: who wrote the first words of the session's own user-role input, ``human`` or ``agent``
    #: (a parent agent's task: with ``parent``, the session is that parent's subagent)
    opened_by: str | None = None
    #: sessions that sent this one a subagent's report (``from.session`` of a message with
    #: origin ``subagent_report``): its subagents, whether or not a ``subagent`` record names them
    reports_from: list[str] = field(default_factory=list)
    activity: list[tuple[float, float]] = field(default_factory=list)

    @property
    def duration_seconds(self) -> float:
        if self.first_time is None or self.last_time is None:
            return 0.0
        return self.last_time - self.first_time

    @property
    def prompts(self) -> int:
        """Prompts the person typed (docs/stats.md, "Prompts")."""
        return len(self.prompt_times)

    @property
    def unattributed_prompts(self) -> int:
        """User-role prompts whose author the source does not record (docs/stats.md)."""
        return len(self.unattributed_times)

    @property
    def failed_tool_calls(self) -> int:
        return sum(1 for call in self.tool_calls if call.failed)

    @property
    def totals(self) -> Totals:
        totals = Totals()
        for response in self.responses:
            totals.add(response)
        return totals

    @property
    def tokens(self) -> Tokens:
        return self.totals.tokens

    @property
    def cost(self) -> float:
        return self.totals.cost

    @property
    def models(self) -> dict[str, Totals]:
        """Totals per model name, as the records name it (``"unknown"`` when none is named)."""
        by_model: dict[str, Totals] = {}
        for response in self.responses:
            by_model.setdefault(response.model or "unknown", Totals()).add(response)
        return by_model

    def outcomes(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for call in self.tool_calls:
            counts[call.outcome] = counts.get(call.outcome, 0) + 1
        return counts

    def as_dict(self, *, details: bool = True) -> dict[str, Any]:
        """JSON-ready; ``details`` adds every response and tool call."""
        data: dict[str, Any] = {
            "session": self.session,
            "agent": self.agent,
            "agentVersion": self.agent_version,
            "title": self.title,
            "cwd": self.cwd,
            "parent": self.parent,
            "file": self.file,
            "firstTs": self.first_ts,
            "lastTs": self.last_ts,
            "durationSeconds": self.duration_seconds,
            "activeSeconds": self.active_seconds,
            "records": self.records,
            "copiedRecords": self.copied_records,
            **self.totals.as_dict(),
            "toolCalls": len(self.tool_calls),
            "failedToolCalls": self.failed_tool_calls,
            "toolOutcomes": self.outcomes(),
            "prompts": self.prompts,
            "unattributedPrompts": self.unattributed_prompts,
            "firstPrompt": self.first_prompt,
            "errors": self.errors,
            "models": {name: totals.as_dict() for name, totals in sorted(self.models.items())},
            "subagents": [subagent.as_dict() for subagent in self.subagents],
        }
        if details:
            data["responseList"] = [response.as_dict() for response in self.responses]
            data["toolCallList"] = [call.as_dict() for call in self.tool_calls]
        return data
