"""asr-adapters: agent session logs to Agent Session Record (ASR) streams.

The library in five calls::

    import asr_adapters
    for record in asr_adapters.convert("rollout.jsonl", as_dicts=True): ...
    asr_adapters.write_jsonl(asr_adapters.convert("rollout.jsonl"), "out.asr.jsonl")
    findings = asr_adapters.validate("out.asr.jsonl")
    trajectory = asr_adapters.export(asr_adapters.read_records("out.asr.jsonl"), to="atif").document
    asr_adapters.schema()
"""

import typing as _typing
from typing import Any as _Any

from ._lazy import lazy_names
from .version import __version__

# Every other public name is imported at its first use (``_lazy``): ``import asr_adapters``
# loads no adapter, no batch machinery, no validator and no exporter until they are asked for.
# ``convert``, ``validate``, ``export`` and ``stats`` are the submodules, callable as their functions
# (``_callable``): a function of the same name would shadow the submodule. A type checker
# sees the functions.
_LAZY = {
    "ASRError": ".core.errors",
    "Accounting": ".core.accounting",
    "Conversion": ".convert",
    "Diagnostic": ".core.accounting",
    "Finding": ".validate",
    "IncrementalResult": ".incremental",
    "IncrementalState": ".incremental",
    "InputError": ".core.errors",
    "SessionDescriptor": ".batch.discover",
    "SessionSummary": ".stats.summary",
    "UnknownAgentError": ".core.errors",
    "convert": ".convert",
    "convert_incremental": ".incremental",
    "discover": ".batch.discover",
    "export": ".export",
    "read_models": ".stream",
    "read_records": ".stream",
    "session_summary": ".stats.scanner",
    "stats": ".stats",
    "validate": ".validate",
    "validate_records": ".validate",
    "write_jsonl": ".stream",
}
__getattr__, __dir__ = lazy_names(
    __name__, _LAZY, ["__version__", "schema", "to_dict", "to_model"], ("convert", "export", "stats", "validate")
)

if _typing.TYPE_CHECKING:
    from .batch.discover import SessionDescriptor, discover
    from .convert import Conversion
    from .convert import convert as convert
    from .core.accounting import Accounting, Diagnostic
    from .core.errors import ASRError, InputError, UnknownAgentError
    from .export import export as export
    from .incremental import IncrementalResult, IncrementalState, convert_incremental
    from .stats import stats as stats
    from .stats.scanner import session_summary
    from .stats.summary import SessionSummary
    from .stream import read_models, read_records, write_jsonl
    from .validate import Finding, validate_records
    from .validate import validate as validate


def schema() -> dict[str, _Any]:
    """The JSON Schema of every record type, generated from the model."""
    from .model.api import json_schema

    return json_schema()


def to_model(record: dict[str, _Any]) -> _Any:
    """A plain record dict as its pydantic model (unknown types and fields kept)."""
    from .model.api import to_model as validate_model

    return validate_model(record)


def to_dict(record: _Any) -> dict[str, _Any]:
    """A record (pydantic model or dict) as the canonically ordered dict the writer writes."""
    from .model.api import to_dict as dump_model

    return dump_model(record)


__all__ = [
    "ASRError",
    "Accounting",
    "Conversion",
    "Diagnostic",
    "Finding",
    "IncrementalResult",
    "IncrementalState",
    "InputError",
    "SessionDescriptor",
    "SessionSummary",
    "UnknownAgentError",
    "__version__",
    "convert",
    "convert_incremental",
    "discover",
    "export",
    "read_models",
    "read_records",
    "schema",
    "session_summary",
    "stats",
    "to_dict",
    "to_model",
    "validate",
    "validate_records",
    "write_jsonl",
]
