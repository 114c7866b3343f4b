"""The pydantic side of the model: validating dicts into models and back, and the schema."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from .common import Actor, Assembly, BlobRef, CaptureState, Derivation, PathRef, Recipient
from .order import canonical_deep, canonical_order
from .parts import PART_MODELS, ContentPart
from .records import (
    RECORD_MODELS,
    DeliveryRecord,
    Envelope,
    MessageRecord,
    PlanRecord,
    Record,
    SessionRecord,
    ToolCallRecord,
    ToolResultRecord,
    VendorRecord,
)

_RECORD_ADAPTER: TypeAdapter[Any] = TypeAdapter(Record)


def to_model(record: dict[str, Any]) -> Envelope:
    """Validate a plain record dict into its pydantic model (unknown types and fields kept)."""
    model: Envelope = _RECORD_ADAPTER.validate_python(record)
    return model


def to_dict(record: Envelope | dict[str, Any]) -> dict[str, Any]:
    """The plain, canonically ordered dict of a record, as the writer serializes it."""
    if isinstance(record, dict):
        return canonical_order(record)
    data: dict[str, Any] = record.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return canonical_deep(data)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a record, generated from the model, with a discriminator on
    ``type`` for records and content parts (see ``schema.build``)."""
    from .schema import build

    raw: dict[str, Any] = _RECORD_ADAPTER.json_schema(by_alias=True)
    records = {kind: model.__name__ for kind, model in RECORD_MODELS.items()}
    parts = {kind: model.__name__ for kind, model in PART_MODELS.items()}
    return build(raw, records, parts)


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
    "canonical_order",
    "json_schema",
    "to_dict",
    "to_model",
]
