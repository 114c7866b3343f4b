"""One model response from the record that carries it: the usage and price rules that every
summary of a stream applies (``SessionScanner``, ``TotalsScanner``, and any pipeline that
wants per-response figures without a summary): docs/stats.md, "Responses and tokens", "Cost".

``ResponseReader`` follows a stream's records in order (the agent from the header, the model
and provider named last, the time of the latest record that had one) and gives, for each
record that carries a response's usage (or a cost the agent recorded), its ``Response``,
priced. It keeps nothing else: memory is one record's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .prices import Prices, Tokens
from .providers import header_provider, record_provider
from .recorded import cache_write_1h, recorded_cost
from .summary import PRICED_BY_AGENT, PRICED_BY_US, Response

_USAGE_MEMBERS = (
    ("inputTokens", 0),
    ("cacheReadTokens", 1),
    ("cacheWriteTokens", 2),
    ("outputTokens", 3),
    ("reasoningTokens", 4),
)
_fromisoformat = datetime.fromisoformat


def tokens_of(usage: dict[str, Any]) -> Tokens:
    """A normalized ``usage`` object's counts (a member absent, or not a count, is 0)."""
    counts = [0, 0, 0, 0, 0]
    for name, index in _USAGE_MEMBERS:
        value = usage.get(name)
        if value.__class__ is int and value > 0:
            counts[index] = value
    return Tokens(*counts)


def record_time(ts: Any) -> float | None:
    """Epoch seconds of a record's ``ts``; None when absent, unreadable or without a zone."""
    if ts.__class__ is not str:
        return None
    try:
        moment = _fromisoformat(ts)
    except ValueError:
        return None
    return moment.timestamp() if moment.tzinfo is not None else None  # a bare ts is no moment


def is_model_record(record: dict[str, Any]) -> bool:
    """Whether a record is (part of) a model response: the model's message, or a tool call
    no one else is named as the author of."""
    author = record.get("author")
    return author == "model" or (author is None and record.get("type") == "tool_call")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class ResponseReader:
    """``read(record)`` each record of one stream in order: the ``Response`` it carries, or None.

    ``prices`` None prices nothing with genai-prices (a cost the agent recorded still counts).
    ``agent``, ``model``, ``provider`` and ``last_time`` are what the stream said so far.
    """

    def __init__(self, prices: Prices | None) -> None:
        self.prices = prices
        self.agent: str | None = None
        self.model: str | None = None  # the model the stream named last
        self.provider: str | None = None  # the provider the header names for every response
        self.last_time: float | None = None  # the time of the latest record that had one

    def follow(self, record: dict[str, Any], now: float | None) -> None:
        """Take what a record says about the responses after it: the agent (a header), the
        model named, the time. ``read`` calls it; a caller that reads times itself passes them."""
        model = record.get("model")
        if model.__class__ is str and model:
            self.model = model
        if record.get("type") == "session":
            agent = record.get("agent")
            self.agent = _text(agent.get("name")) if isinstance(agent, dict) else None
            self.provider = header_provider(self.agent, record)
        if now is not None:
            self.last_time = now

    def read(self, record: dict[str, Any]) -> Response | None:
        """Follow ``record`` and return the response it carries (None for most records)."""
        self.follow(record, record_time(record.get("ts")))
        return self.response(record, self.last_time)

    def response(self, record: dict[str, Any], when: float | None) -> Response | None:
        """The response ``record`` carries at ``when``, by the stream followed so far
        (docs/stats.md, "Responses and tokens"): a record with ``usage`` is a response with
        those tokens (zeros included); a model's record with only the source's own usage
        object (``nativeUsage``, no count the adapter could take) is a response with unknown
        usage (``has_usage`` False, no cost); None for any other record."""
        if "usage" not in record and "nativeUsage" not in record:
            return None
        usage = record.get("usage")
        if not isinstance(usage, dict):
            usage = None
        native = record.get("nativeUsage")
        recorded = recorded_cost(self.agent, native)
        if usage is None and not recorded:
            if not is_model_record(record):
                return None  # a harness's synthetic reply (a delivery mirror): no model response
            model = record.get("model")
            model = model if isinstance(model, str) and model else self.model
            return Response(_text(record.get("id")), _text(record.get("ts")), when, model, Tokens(), has_usage=False)
        tokens = tokens_of(usage) if usage is not None else Tokens()
        if tokens.cache_write:
            tokens.cache_write_1h = min(cache_write_1h(native), tokens.cache_write)
        model = record.get("model")
        model = model if isinstance(model, str) and model else self.model
        response = Response(_text(record.get("id")), _text(record.get("ts")), when, model, tokens, usage is not None)
        response.partial = usage is not None and usage.get("partial") is True
        if recorded is not None and (recorded > 0 or not tokens):
            response.cost, response.cost_by = recorded, PRICED_BY_AGENT
        elif not tokens:
            response.cost = 0.0  # nothing to price
        elif self.prices is not None and model is not None:
            provider = record_provider(self.agent, record) or self.provider
            price = self.prices.price(model, tokens, when, provider)
            if price is not None:
                response.cost, response.cost_by = price.usd, PRICED_BY_US
                response.priced_as = f"{price.provider}/{price.model}"
        return response
