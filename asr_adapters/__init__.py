"""asr-adapters: agent session logs to Agent Session Record (ASR) streams.

The library in five calls::

    import asr_adapters
    for record in asr_adapters.convert("rollout.jsonl", as_dicts=True): ...
    asr_adapters.write_jsonl(asr_adapters.convert("rollout.jsonl"), "out.asr.jsonl")
    findings = asr_adapters.validate("out.asr.jsonl")
    asr_adapters.schema()
"""

from __future__ import annotations

from typing import Any

from .convert import Conversion, convert
from .core.accounting import Accounting, Diagnostic
from .core.errors import ASRError, InputError, UnknownAgentError
from .model import json_schema, to_dict, to_model
from .stream import read_models, read_records, write_jsonl
from .validate import Finding, validate, validate_records
from .version import __version__


def schema() -> dict[str, Any]:
    """The JSON Schema of every record type, generated from the model."""
    return json_schema()


__all__ = [
    "ASRError",
    "Accounting",
    "Conversion",
    "Diagnostic",
    "Finding",
    "InputError",
    "UnknownAgentError",
    "__version__",
    "convert",
    "read_models",
    "read_records",
    "schema",
    "to_dict",
    "to_model",
    "validate",
    "validate_records",
    "write_jsonl",
]
