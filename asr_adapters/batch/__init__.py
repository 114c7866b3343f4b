"""Batch conversion of session folders and discovery of every agent's home.

``discover()`` lists sessions without converting them; ``run_batch()`` converts folders into
``OUTDIR/<agent>/<session>.asr.jsonl`` incrementally and in parallel (``asr batch``).
"""

from .discover import SessionDescriptor, discover
from .homes import Home, agent_homes
from .runner import BatchOptions, BatchOutputError, BatchUsageError, Summary, run_batch
from .scan import Filters

__all__ = [
    "BatchOptions",
    "BatchOutputError",
    "BatchUsageError",
    "Filters",
    "Home",
    "SessionDescriptor",
    "Summary",
    "agent_homes",
    "discover",
    "run_batch",
]
