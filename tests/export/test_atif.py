"""ATIF export checked by the consumer's own rules: Harbor's schema and model validators, round trips."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

import asr_adapters
from asr_adapters.cli import main
from asr_adapters.export import export_path
from asr_adapters.stream.reader import read_records
from asr_adapters.validate import validate

from .atif_rules import problems

HERE = Path(__file__).parent
SCHEMA = json.loads((HERE / "atif.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
#: The golden streams asr validate accepts: a stream it rejects is not exported (test_invalid_golden...).
STREAMS = [p for p in sorted(GOLDEN.glob("*/*/*.asr.jsonl")) if not [f for f in validate(p) if f.is_error]]
INVALID = [p for p in sorted(GOLDEN.glob("*/*/*.asr.jsonl")) if p not in STREAMS]
EVERY_KIND = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"


def exported(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    export_path(path, out)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def assert_valid_atif(document: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]
    assert errors == [], errors[:5]
    assert problems(document) == []


def message_texts(steps: list[dict[str, Any]]) -> list[str]:
    texts: list[str] = []
    for step in steps:
        message = step["message"]
        texts += [message] if isinstance(message, str) else [p["text"] for p in message if p["type"] == "text"]
    return texts


def result_texts(steps: list[dict[str, Any]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for step in steps:
        for result in (step.get("observation") or {}).get("results", []):
            content = result.get("content")
            texts = [content] if isinstance(content, str) else [p["text"] for p in content or [] if p["type"] == "text"]
            found.setdefault(result.get("source_call_id") or "", []).extend(texts)
    return found


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_every_golden_stream_exports_to_valid_atif_and_round_trips(stream: Path) -> None:
    document = exported(stream)
    assert_valid_atif(document)
    steps = document["steps"]
    texts = message_texts(steps)
    reasoning = "\n".join(s.get("reasoning_content", "") for s in steps)
    calls: dict[str, list[dict[str, Any]]] = {}  # a call revised later (supersedes) is exported at each version
    for step in steps:
        for exported_call in step.get("tool_calls") or []:
            calls.setdefault(exported_call["tool_call_id"], []).append(exported_call)
    results = result_texts(steps)
    orphans = [t for key, values in results.items() for t in values if key == ""]
    for record in read_records(stream):
        kind = record["type"]
        if kind == "message" and record.get("status") != "withdrawn":
            for part in record["content"]:
                if part["type"] == "text":
                    assert part["text"] in texts, (record["id"], part["text"][:60])
                if part["type"] == "reasoning" and part.get("visibility") == "full" and record["role"] == "assistant":
                    assert part["text"] in reasoning
        elif kind == "tool_call":
            versions = calls[record["callId"]]
            assert record["name"] in [c["function_name"] for c in versions]
            if isinstance(record.get("input"), dict) and not record.get("opaqueInput"):
                assert record["input"] in [c["arguments"] for c in versions]
        elif kind == "tool_result":
            wanted = [p["text"] for p in record.get("content") or [] if p["type"] == "text"]
            have = results.get(record["callId"], []) + orphans
            assert all(text in have for text in wanted), record["id"]


@pytest.mark.parametrize(
    "native", [GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl"], ids=lambda p: p.parent.name
)
def test_subagent_streams_become_embedded_trajectories_the_parent_refers_to(native: Path) -> None:
    document = exported(native)
    assert_valid_atif(document)
    embedded = {child["trajectory_id"] for child in document["subagent_trajectories"]}
    refs = {
        ref["trajectory_id"]
        for step in document["steps"]
        for result in (step.get("observation") or {}).get("results", [])
        for ref in result.get("subagent_trajectory_ref") or []
    }
    assert refs and refs <= embedded


def test_opaque_data_and_signatures_never_leave_the_stream() -> None:
    secrets = []
    for record in read_records(EVERY_KIND):
        for part in record.get("content") or []:
            if isinstance(part.get("opaque"), dict) and "data" in part["opaque"]:
                secrets.append(part["opaque"]["data"])
    assert secrets, "the case must hold encrypted reasoning"
    text = json.dumps(exported(EVERY_KIND))
    assert not [s for s in secrets if s in text]
    assert '"visibility": "encrypted", "opaque": true' in text


def test_only_full_reasoning_becomes_reasoning_content() -> None:
    steps = exported(EVERY_KIND)["steps"]
    reasoning = [s["reasoning_content"] for s in steps if "reasoning_content" in s]
    assert reasoning == ["The dentist is on Thursday; Friday 10:00 is free."]
    assert "Checked the calendar." not in reasoning[0]


def test_withdrawn_input_is_not_a_step() -> None:
    steps = exported(EVERY_KIND)["steps"]
    assert "Never mind the time." not in message_texts(steps)


def test_the_report_counts_every_outcome_and_says_how(tmp_path: Path) -> None:
    out, report = tmp_path / "t.json", tmp_path / "r.json"
    result = CliRunner().invoke(
        main, ["export", "--to", "atif", str(EVERY_KIND), "-o", str(out), "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    assert_valid_atif(json.loads(out.read_text()))
    data = json.loads(report.read_text())
    rows = {(row["record"], row["field"]): row for row in data["fields"]}
    assert rows[("message", "content[text]")]["carried"] >= 1
    assert "flag" in rows[("message", "content[reasoning:encrypted]")]["how"]["approximate"]
    assert rows[("vendor", "*")]["dropped"] == 1
    assert data["records"]["message"] == 9 and data["version"] == "ATIF-v1.8"


def test_without_report_the_summary_goes_to_stderr() -> None:
    result = CliRunner().invoke(main, ["export", "--to", "atif", str(EVERY_KIND)])
    assert result.exit_code == 0
    assert "asr export: 1 trajectory(ies) as atif ATIF-v1.8" in result.stderr
    assert json.loads(result.stdout)["schema_version"] == "ATIF-v1.8"


def test_a_native_file_exports_like_its_stream() -> None:
    case = GOLDEN / "codex" / "10-tool-calls-every-kind"
    assert exported(case / "input.jsonl")["steps"] == exported(case / "expected.asr.jsonl")["steps"]


def test_the_library_call_returns_the_document_and_report() -> None:
    result = asr_adapters.export(read_records(EVERY_KIND), to="atif")
    assert result.document is not None
    assert_valid_atif(json.loads(result.document))
    assert result.report.trajectories == 1
    with pytest.raises(asr_adapters.InputError):
        asr_adapters.export([], to="nope")


def test_an_unreadable_source_is_one_error_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2, 3]\n")
    result = CliRunner().invoke(main, ["export", "--to", "atif", str(junk), "-o", str(tmp_path / "o.json")])
    assert result.exit_code == 1 and "asr: error:" in result.stderr
    assert not (tmp_path / "o.json").exists()


NATIVE = sorted(
    p for p in GOLDEN.glob("*/*/input.*") if p.suffix != ".sql" and not p.parent.parent.name.startswith("_")
)


@pytest.mark.parametrize("native", NATIVE, ids=lambda p: str(p.parent.relative_to(GOLDEN)))
def test_every_golden_native_input_exports_to_valid_atif_with_its_subagents(native: Path) -> None:
    document = exported(native)
    assert_valid_atif(document)
    for child in document.get("subagent_trajectories") or []:
        assert child["trajectory_id"] and child["steps"]


def test_a_result_whose_call_is_elsewhere_keeps_its_call_id_in_a_system_step() -> None:
    case = GOLDEN / "codex" / "10-tool-calls-every-kind" / "expected.asr.jsonl"
    steps = exported(case)["steps"]
    orphan = [r for s in steps for r in (s.get("observation") or {}).get("results", []) if "source_call_id" not in r]
    assert [r["extra"]["asr"]["callId"] for r in orphan] == ["call_ORPHAN"]
    assert [s["source"] for s in steps if s.get("observation", {}).get("results") == orphan] == ["system"]


def t3code_database(case: str, scratch: Path) -> Path:
    import sqlite3

    from golden_support import sql_script

    (scratch / case).mkdir()
    database = scratch / case / "input.sqlite"  # the name the golden streams' headers hold
    connection = sqlite3.connect(database)
    connection.executescript(sql_script(GOLDEN / "t3code" / case / "input.sql"))
    connection.commit()
    connection.close()
    return database


def test_a_database_of_one_thread_exports_that_thread(tmp_path: Path) -> None:
    """A T3 Code database holds threads and no main stream; with one thread, that thread is the document."""
    database = t3code_database("v1-activities", tmp_path)
    document = exported(database)
    assert_valid_atif(document)
    (stream,) = (GOLDEN / "t3code" / "v1-activities").glob("expected*.asr.jsonl")
    assert document == exported(stream)


def test_a_database_of_several_threads_says_to_export_a_batch_folder(tmp_path: Path) -> None:
    database = t3code_database("v1-two-threads", tmp_path)
    result = CliRunner().invoke(main, ["export", "--to", "atif", str(database), "-o", str(tmp_path / "o.json")])
    assert result.exit_code == 1
    assert result.stderr == (
        f"asr: error: {database}: the input holds more than one thread and no main stream: convert it with "
        "asr batch (one stream per thread) and export that folder\n"
    )
    assert not (tmp_path / "o.json").exists(), "no document: the first thread alone is not the input"


def test_a_golden_stream_validate_rejects_is_refused_with_its_first_finding() -> None:
    """The hostile page cases break rules on purpose (for asr show); export says so in one line."""
    assert [p.parent.name for p in INVALID] == ["hostile-content", "hostile-opaque"]
    for to in ("atif", "otel"):
        result = CliRunner().invoke(main, ["export", "--to", to, str(INVALID[0])])
        assert result.exit_code == 1
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"asr: error: {INVALID[0]}:2: not a valid ASR stream: seq 2 PROFILE-open-value: ")
        assert line.endswith(f"asr validate {INVALID[0]} lists every finding)")
