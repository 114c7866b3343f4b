"""The record model: unknown types, parts and fields survive read -> write (ASR-218)."""

from __future__ import annotations

import orjson
import pytest

from asr_adapters import schema, to_dict, to_model
from asr_adapters.model import MessageRecord, PlanRecord, VendorRecord
from asr_adapters.model.order import canonical_order

MESSAGE = {
    "type": "message",
    "seq": 5,
    "id": "r5",
    "ts": "2026-10-26T09:12:41.003Z",
    "turnId": "t1",
    "messageId": "msg_0a7c",
    "role": "user",
    "from": {"session": "codex:019a", "address": "/root"},
    "content": [
        {"type": "text", "text": "# AGENTS.md", "author": "harness", "origin": "injected"},
        {"type": "hologram", "depth": 3, "author": "human"},
        {"type": "image", "mimeType": "image/png", "blob": {"blob": "sha256:ab", "size": 3, "mimeType": "image/png"}},
        {"type": "reasoning", "visibility": "encrypted", "summary": [], "opaque": {"format": "x", "data": "Z"}},
        {"type": "data", "data": {"file": "a.rs"}, "schema": "com.anthropic.claude-code/attachment/x"},
    ],
    "capture": {"content": {"state": "truncated", "reason": "limit"}},
    "assembly": {"mode": "folded", "sourceIds": ["a", "b"]},
    "futureField": {"nested": [1, 2.5, None]},
}


def test_message_round_trips_byte_for_byte() -> None:
    model = to_model(MESSAGE)
    assert isinstance(model, MessageRecord)
    assert orjson.dumps(to_dict(model)) == orjson.dumps(MESSAGE)


def test_unknown_record_type_round_trips() -> None:
    record = {"type": "telemetry", "seq": 9, "id": "r9", "ts": "2026-01-01T00:00:00Z", "anything": {"a": [1]}}
    assert orjson.dumps(to_dict(to_model(record))) == orjson.dumps(record)


def test_known_types_get_their_models() -> None:
    plan = {"type": "plan", "seq": 2, "id": "r2", "planId": "p", "planType": "items", "entries": []}
    assert isinstance(to_model(plan), PlanRecord)
    vendor = {"type": "vendor", "seq": 3, "id": "r3", "schema": "com.openai.codex/turn_context", "data": {"x": 1}}
    model = to_model(vendor)
    assert isinstance(model, VendorRecord)
    assert to_dict(model) == vendor


def test_model_requires_message_members() -> None:
    with pytest.raises(ValueError):
        to_model({"type": "message", "seq": 1, "id": "r1", "role": "user"})


def test_canonical_order_moves_envelope_first_and_keeps_unknown_keys_in_order() -> None:
    messy = {"content": [], "zeta": 1, "messageId": "m", "alpha": 2, "id": "r1", "type": "message", "seq": 1}
    ordered = canonical_order(messy)
    assert list(ordered) == ["type", "seq", "id", "messageId", "content", "zeta", "alpha"]
    already = {"type": "message", "seq": 1, "id": "r1", "messageId": "m", "content": []}
    assert canonical_order(already) is already


def test_schema_covers_every_record_type() -> None:
    text = orjson.dumps(schema()).decode()
    for name in ("SessionRecord", "MessageRecord", "PlanRecord", "DeliveryRecord", "ToolCallRecord", "VendorRecord"):
        assert name in text
