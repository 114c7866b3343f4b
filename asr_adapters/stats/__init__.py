"""Tokens, cost and activity over sessions of every agent (``asr stats``, docs/stats.md).

``session_summary(stream)`` sums up one session stream; more to come in this package.
"""

from .prices import Price, Prices, Tokens
from .scanner import IDLE_SECONDS, SessionScanner, session_summary
from .summary import OUTCOMES, Response, SessionSummary, Subagent, ToolCall, Totals

__all__ = [
    "IDLE_SECONDS",
    "OUTCOMES",
    "Price",
    "Prices",
    "Response",
    "SessionScanner",
    "SessionSummary",
    "Subagent",
    "Tokens",
    "ToolCall",
    "Totals",
    "session_summary",
]
