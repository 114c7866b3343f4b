"""The cost an agent recorded itself for a response, where its adapter keeps it.

Four agents compute and store a response's cost in USD: pi and OpenClaw (pi's ``usage.cost``,
an object whose ``total`` is the cost), Cline (``cost`` in the ``api_req_started`` row) and
OpenCode (``cost`` of a ``step-finish`` part, or of an early message). Their adapters keep that
object verbatim as the record's ``nativeUsage`` (docs/agents/<agent>.md), beside the
normalized ``usage``. This table and ``stats.providers`` (where records name their provider) are
the only agent knowledge in ``asr_adapters.stats``.

A recorded cost of 0 for a response that used tokens is not taken as a price: pi and OpenCode
write 0 when their model table has no price for the model (custom or proxied providers, and
subscriptions), so the response is priced by genai-prices instead, like any other
(docs/stats.md, "Cost").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 and value == value:
        return float(value)
    return None


def _member_cost(native: dict[str, Any]) -> float | None:
    return _number(native.get("cost"))


def _pi_cost(native: dict[str, Any]) -> float | None:
    cost = native.get("cost")
    if isinstance(cost, dict):
        return _number(cost.get("total"))
    return _number(cost)


#: agent short name -> how to read its recorded cost from ``nativeUsage``.
RECORDED_COST: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "openclaw": _pi_cost,
    "pi": _pi_cost,
    "cline": _member_cost,
    "opencode": _member_cost,
}


def cache_write_1h(native_usage: Any) -> int:
    """The one-hour part of the cache writes an Anthropic usage object records
    (``cache_creation.ephemeral_1h_input_tokens``: Claude Code's ``nativeUsage``); 0 without."""
    if not isinstance(native_usage, dict):
        return 0
    creation = native_usage.get("cache_creation")
    value = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, dict) else None
    return value if value.__class__ is int and value > 0 else 0


def recorded_cost(agent: str | None, native_usage: Any) -> float | None:
    """The USD cost the agent recorded in this record's ``nativeUsage``, or None."""
    reader = RECORDED_COST.get(agent or "")
    if reader is None or not isinstance(native_usage, dict):
        return None
    return reader(native_usage)
