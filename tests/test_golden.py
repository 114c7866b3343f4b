"""Every golden case: the adapter's output equals the reviewed expected streams."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from golden_support import GoldenCase, convert_case, golden_cases, golden_extension

from asr_adapters import registry, validate
from asr_adapters.core.source import Source

CASES = golden_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_output(case: GoldenCase, snapshot, tmp_path: Path) -> None:
    outputs, conversion = convert_case(case, tmp_path)
    for basename, data in sorted(outputs.items()):
        assert snapshot(extension_class=golden_extension(case, basename)) == data
    accounting = conversion.accounting
    assert accounting.balanced(), accounting.as_dict()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case_is_documented_and_detected(case: GoldenCase, tmp_path: Path) -> None:
    readme = case.folder / "README.md"
    assert readme.is_file(), f"{case.id} has no README.md saying what it shows"
    assert readme.read_text(encoding="utf-8").strip(), f"{case.id}: README.md is empty"
    from golden_support import materialize_input

    source = Source(materialize_input(case, tmp_path))
    assert registry.detect(source).name == case.agent


# Warnings a case shows on purpose, as "<stream file>: seq <n> <rule>: <message>". Every other
# finding, and any warning listed here that no longer appears, fails the case.
EXPECTED_WARNINGS: dict[str, set[str]] = {
    "codex/10-tool-calls-every-kind": {
        "expected.asr.jsonl: seq 16 PROFILE-ref: tool_result callId 'call_ORPHAN' names no tool_call of this stream",
    },
    "codex/34-cut-before-header": {
        "expected.asr.jsonl: seq 7 PROFILE-ref: tool_result callId 'call_NOWHERE' names no tool_call of this stream",
    },
}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_streams_validate(case: GoldenCase) -> None:
    files = case.expected_files()
    assert files, f"{case.id} has no expected stream yet (run pytest --snapshot-update and read it)"
    findings = [finding for path in files for finding in validate(path)]
    errors = [finding.describe() for finding in findings if finding.is_error]
    assert not errors, "\n".join(errors)
    warnings = {f"{Path(f.file or '').name}: seq {f.seq} {f.rule}: {f.message}" for f in findings}
    assert warnings == EXPECTED_WARNINGS.get(case.id, set())


def test_expected_warnings_name_existing_cases() -> None:
    assert set(EXPECTED_WARNINGS) <= {case.id for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_path_writes_the_same_bytes(case: GoldenCase, tmp_path: Path) -> None:
    """The pydantic models are the public face; the hot path builds plain dicts. Reading every
    record back through the models and writing it again must not change a byte."""
    from golden_support import materialize_input

    from asr_adapters.convert import Conversion
    from asr_adapters.model.api import to_dict, to_model

    conversion = Conversion(materialize_input(case, tmp_path), case.agent, as_dicts=True)
    for stream in conversion.streams():
        for record in stream.records:
            expected = orjson.dumps(record)
            assert orjson.dumps(to_dict(to_model(record))) == expected, record.get("id")


@pytest.mark.parametrize("limit", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_spilled_state_writes_the_same_bytes(
    case: GoldenCase, limit: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-id state that moves to disk (``core.spill`` and ``core.digests``, once a map holds
    more than its limit) must answer as it did in memory: with a limit of one or two entries,
    lookups of older ids go to disk, and every stream must still be the reviewed one, byte for
    byte."""
    from asr_adapters.core import digests, spill

    monkeypatch.setattr(spill, "DEFAULT_LIMIT", limit)
    monkeypatch.setattr(digests, "DEFAULT_LIMIT", limit)
    outputs, conversion = convert_case(case, tmp_path)
    assert sorted(f"{name}.asr.jsonl" for name in outputs) == sorted(p.name for p in case.expected_files())
    for name, data in outputs.items():
        assert data == (case.folder / f"{name}.asr.jsonl").read_bytes(), name
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
