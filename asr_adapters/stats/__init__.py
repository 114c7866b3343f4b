"""Tokens, cost and activity over sessions of every agent (``asr stats``, docs/stats.md).

``session_summary(stream)`` sums up one session stream; ``stats(paths, by=...)`` reads native
files, folders, ASR streams or batch archives (every agent's home when no path is given) and
returns grouped rows; ``report(...)`` returns the rows with their total and what was skipped.
Calling this subpackage calls ``stats`` (``asr_adapters.stats(by="model")``; see ``_callable``).
"""

from .._callable import make_callable
from .group import GROUPINGS, Selection
from .prices import Price, Prices, Tokens
from .report import Report, report, stats
from .rows import ModelPart, Row
from .scanner import IDLE_SECONDS, SessionScanner, session_summary
from .summary import OUTCOMES, Response, SessionSummary, Subagent, ToolCall, Totals

__all__ = [
    "GROUPINGS",
    "IDLE_SECONDS",
    "OUTCOMES",
    "ModelPart",
    "Price",
    "Prices",
    "Report",
    "Response",
    "Row",
    "Selection",
    "SessionScanner",
    "SessionSummary",
    "Subagent",
    "Tokens",
    "ToolCall",
    "Totals",
    "report",
    "session_summary",
    "stats",
]

make_callable(__name__, "stats")
