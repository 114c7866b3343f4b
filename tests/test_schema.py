"""`asr schema` works with a standard JSON Schema validator (the ``jsonschema`` library).

Every golden expected stream and every shared sample's conversion validates against it, and
each broken record below is rejected by it and by ``asr validate`` alike.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, shared_samples

from asr_adapters import Conversion, registry, schema, validate_records
from asr_adapters.cli import main

HEADER = {
    "type": "session",
    "seq": 1,
    "id": "r1",
    "session": "codex:019a3c2e",
    "agent": {"name": "codex"},
    "producer": {"name": "asr-adapters", "version": "0.1.0"},
}
MESSAGE = {
    "type": "message",
    "seq": 2,
    "id": "r2",
    "messageId": "m1",
    "role": "user",
    "content": [{"type": "text", "text": "Fix the failing parser test."}],
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    document = schema()
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def _errors(validator: jsonschema.Draft202012Validator, record: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(record)]


def test_schema_names_its_dialect_and_id() -> None:
    document = orjson.loads(CliRunner().invoke(main, ["schema"]).stdout)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"]
    assert document == orjson.loads(orjson.dumps(schema()))


def test_every_golden_expected_stream_validates(validator: jsonschema.Draft202012Validator) -> None:
    files = sorted(GOLDEN.rglob("expected*.asr.jsonl"))
    assert files
    checked = 0
    for path in files:
        for number, line in enumerate(path.read_bytes().splitlines(), 1):
            errors = _errors(validator, orjson.loads(line))
            assert not errors, f"{path}:{number}: {errors}"
            checked += 1
    assert checked > 500


@pytest.mark.samples  # every shared sample (.ci/run runs -m samples)
def test_every_shared_sample_conversion_validates(validator: jsonschema.Draft202012Validator) -> None:
    samples = [path for agent in registry.names() for path in shared_samples(agent)]
    if not samples:
        pytest.skip("no shared samples at ../shared/samples")
    for path in samples:
        conversion = Conversion(path, as_dicts=True)
        for stream in conversion.streams():
            for record in stream.records:
                errors = _errors(validator, record)
                assert not errors, f"{path} {stream.key} seq {record.get('seq')}: {errors}"


def test_unknown_types_fall_to_the_open_definition_only(validator: jsonschema.Draft202012Validator) -> None:
    future = {"type": "telemetry", "seq": 3, "id": "r3", "anything": {"a": [1]}}
    assert _errors(validator, future) == []
    part = {**MESSAGE, "content": [{"type": "hologram", "depth": 3}, {"type": "text", "text": "x"}]}
    assert _errors(validator, part) == []
    usage = {**MESSAGE, "usage": {"inputTokens": 10, "outputTokens": 2}, "nativeUsage": {"input_tokens": 10}}
    assert _errors(validator, usage) == []


BROKEN: list[tuple[str, dict[str, Any]]] = [
    ("role is a number", {**MESSAGE, "role": 123}),
    ("content is not a list", {**MESSAGE, "content": "not a list"}),
    ("message without messageId", {k: v for k, v in MESSAGE.items() if k != "messageId"}),
    ("message without content", {k: v for k, v in MESSAGE.items() if k != "content"}),
    ("text part without text", {**MESSAGE, "content": [{"type": "text"}]}),
    ("text part whose text is a number", {**MESSAGE, "content": [{"type": "text", "text": 5}]}),
    ("image part without mimeType", {**MESSAGE, "content": [{"type": "image", "data": "AAAA"}]}),
    ("part without a type", {**MESSAGE, "content": [{"text": "hi"}]}),
    ("seq is a string", {**MESSAGE, "seq": "2"}),
    ("record without id", {k: v for k, v in MESSAGE.items() if k != "id"}),
    ("tool_call without callId", {"type": "tool_call", "seq": 2, "id": "r2", "name": "shell"}),
    ("tool_result content not a list", {"type": "tool_result", "seq": 2, "id": "r2", "callId": "c", "content": {}}),
    ("plan without planType", {"type": "plan", "seq": 2, "id": "r2", "planId": "p"}),
    ("delivery without status", {"type": "delivery", "seq": 2, "id": "r2"}),
    ("vendor without schema", {"type": "vendor", "seq": 2, "id": "r2", "data": {}}),
    ("negative token count", {**MESSAGE, "usage": {"inputTokens": -1}}),
    ("token count as a string", {**MESSAGE, "usage": {"outputTokens": "7"}}),
    ("record type is not a string", {**MESSAGE, "type": 7}),
]


@pytest.mark.parametrize(("why", "record"), BROKEN, ids=[why for why, _ in BROKEN])
def test_broken_records_are_rejected_by_schema_and_validator(
    validator: jsonschema.Draft202012Validator, why: str, record: dict[str, Any]
) -> None:
    assert _errors(validator, record), f"the schema accepts a record with {why}"
    findings = validate_records([HEADER, record])
    assert findings, f"asr validate accepts a record with {why}"
    assert _errors(validator, HEADER) == [] and validate_records([HEADER, MESSAGE]) == []
