"""The ASR record model: pydantic models for the public API and the JSON Schema.

Adapters build plain dicts on the hot path; ``to_model`` and ``to_dict`` move between the
two forms without changing a byte of the serialized record. The pydantic models load on
first use, so commands that only stream dicts start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .order import canonical_deep, canonical_order

if TYPE_CHECKING:
    from .api import (
        PART_MODELS,
        RECORD_MODELS,
        Actor,
        Assembly,
        BlobRef,
        CaptureState,
        ContentPart,
        DeliveryRecord,
        Derivation,
        Envelope,
        MessageRecord,
        PathRef,
        PlanRecord,
        Recipient,
        Record,
        SessionRecord,
        ToolCallRecord,
        ToolResultRecord,
        VendorRecord,
        json_schema,
        to_dict,
        to_model,
    )

__all__ = [
    "PART_MODELS",
    "RECORD_MODELS",
    "Actor",
    "Assembly",
    "BlobRef",
    "CaptureState",
    "ContentPart",
    "DeliveryRecord",
    "Derivation",
    "Envelope",
    "MessageRecord",
    "PathRef",
    "PlanRecord",
    "Recipient",
    "Record",
    "SessionRecord",
    "ToolCallRecord",
    "ToolResultRecord",
    "VendorRecord",
    "canonical_deep",
    "canonical_order",
    "json_schema",
    "to_dict",
    "to_model",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
