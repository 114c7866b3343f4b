"""Batch conversion of session folders and discovery of every agent's home.

``discover()`` lists sessions without converting them; ``run_batch()`` converts folders into
``OUTDIR/<agent>/<session>.asr.jsonl`` incrementally and in parallel (``asr batch``).
"""

from .discover import SessionDescriptor, discover
from .homes import Home, agent_homes
from .merge import MergeSummary, merge_manifests
from .plan import Shard
from .runner import BatchOptions, BatchOutputError, BatchUsageError, run_batch
from .scan import Filters
from .summary import Summary

__all__ = [
    "BatchOptions",
    "BatchOutputError",
    "BatchUsageError",
    "Filters",
    "Home",
    "MergeSummary",
    "SessionDescriptor",
    "Shard",
    "Summary",
    "agent_homes",
    "discover",
    "merge_manifests",
    "run_batch",
]
