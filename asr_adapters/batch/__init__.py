"""Batch conversion of session folders and discovery of every agent's home.

``discover()`` lists sessions without converting them; ``run_batch()`` converts folders into
``OUTDIR/<agent>/<session>.asr.jsonl`` incrementally and in parallel (``asr batch``).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

# ``discover`` is both a submodule and its function: bound here, as before, so that the name
# is the function however the submodule was imported. The rest is imported at first use
# (``asr_adapters._lazy``): discovery must not load the runner, the pool or the manifest.
from .discover import SessionDescriptor, discover

_LAZY = {
    "BatchOptions": ".runner",
    "BatchOutputError": ".runner",
    "BatchUsageError": ".runner",
    "Filters": ".scan",
    "Home": ".homes",
    "MergeSummary": ".merge",
    "Shard": ".plan",
    "Summary": ".summary",
    "agent_homes": ".homes",
    "merge_manifests": ".merge",
    "run_batch": ".runner",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, ["SessionDescriptor", "discover"])

if TYPE_CHECKING:
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
