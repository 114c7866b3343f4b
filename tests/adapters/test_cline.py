"""Cline (and Roo Code / Kilo Code) task folders: detection, the task folder and its
companions, the split of the person's words from harness text, tool calls and results,
usage once per request, plans, truncation, discovery, and every shared sample."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from golden_support import GOLDEN, golden_cases, materialize_input, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.cline import discover, files, parts
from asr_adapters.adapters.cline.split import (
    HARNESS,
    HUMAN,
    RESULT,
    XmlCall,
    result_state,
    split_assistant,
    split_text,
)
from asr_adapters.adapters.cline.timeline import epoch_millis
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source
from asr_adapters.core.timestamps import from_epoch_millis

SAMPLES = shared_samples("cline")
XML_CASE = GOLDEN / "cline" / "xml-tools-task-folder"
NATIVE_CASE = GOLDEN / "cline" / "native-tools-task-folder"
RETRY_CASE = GOLDEN / "cline" / "ui-only-retries-reasoning"
NATIVE_IDS = {"message": "messageId", "tool_call": "callId", "input_request": "requestId", "plan": "planId"}


def convert(path: Path | bytes, agent: str | None = "cline") -> tuple[list[dict[str, Any]], Any]:
    conversion = Conversion(path, agent, as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    return records, conversion


def coming_rule_findings(records: list[dict[str, Any]]) -> list[str]:
    """HELPERS.md's coming validator rules: a native id written again must supersede the
    earlier record; a tool_result names a tool_call; supersedes names a record."""
    findings = []
    by_id = {r["id"]: r for r in records}
    calls = {r["callId"] for r in records if r["type"] == "tool_call"}
    seen: dict[tuple[str, str], str] = {}
    for record in records:
        field = NATIVE_IDS.get(record["type"])
        if field is not None and isinstance(record.get(field), str):
            key = (field, record[field])
            if key in seen:
                target = by_id.get(record.get("supersedes", ""))
                if target is None or target.get(field) != record[field]:
                    findings.append(f"{record['id']}: {field} {record[field]!r} written again")
            seen[key] = record["id"]
        if record["type"] == "tool_result" and record["callId"] not in calls:
            findings.append(f"{record['id']}: tool_result of {record['callId']!r} has no tool_call")
        if "supersedes" in record and record["supersedes"] not in by_id:
            findings.append(f"{record['id']}: supersedes names no record")
    return findings


def task_folder(root: Path, case: Path, extension: str = "saoudrizwan.claude-dev", task: str = "1761000000000") -> Path:
    """A golden case copied into ``<root>/…/globalStorage/<extension>/tasks/<task>/``."""
    folder = root / "Code" / "User" / "globalStorage" / extension / "tasks" / task
    folder.mkdir(parents=True)
    for item in case.iterdir():
        if item.name == "input.json":
            shutil.copy(item, folder / "ui_messages.json")
        elif item.name.endswith(".json"):
            shutil.copy(item, folder / item.name)
    return folder


def total_usage(records: list[dict[str, Any]]) -> dict[str, int]:
    sums: dict[str, int] = {}
    for record in records:
        for key, value in record.get("usage", {}).items():
            sums[key] = sums.get(key, 0) + value
    return sums


# -- detection ---------------------------------------------------------------------------


def test_detects_timelines_and_api_histories_only_by_their_shape(tmp_path: Path) -> None:
    adapter = registry.get("cline")
    ui = (XML_CASE / "input.json").read_bytes()
    api = (XML_CASE / "api_conversation_history.json").read_bytes()
    assert adapter.detect(Source(ui, name="anything.json")) == 90
    assert adapter.detect(Source(api, name="api_conversation_history.json")) == 90
    assert adapter.detect(Source(api, name="copy.json")) == 70  # holds <task>
    assert adapter.detect(Source(b'[{"role":"user","content":"hi"}]', name="other.json")) == 0
    assert adapter.detect(Source(b'{"type":"say","say":"text","ts":1}', name="ui_messages.json")) == 0
    assert adapter.detect(Source(b"[1, 2, 3]", name="ui_messages.json")) == 0
    pretty = b'[\n  {\n    "type": "ask",\n    "ask": "followup",\n    "ts": 1760534080239\n  }\n]'
    assert adapter.detect(Source(pretty, name="copy.json")) == 90  # key order and spacing do not matter


def test_other_agents_files_are_not_claimed_and_cline_files_are_not_theirs(tmp_path: Path) -> None:
    adapter = registry.get("cline")
    for case in golden_cases():
        scratch = tmp_path / case.id.replace("/", "_")
        scratch.mkdir()
        source = Source(materialize_input(case, scratch))
        scores = {a.name: a.detect(source) for a in registry.all_adapters()}
        if case.agent == "cline":
            assert scores["cline"] > 0 and all(v == 0 for k, v in scores.items() if k != "cline"), (case.id, scores)
        else:
            assert adapter.detect(source) == 0, case.id
    for path in SAMPLES:
        scores = {a.name: a.detect(Source(path)) for a in registry.all_adapters()}
        assert scores["cline"] == 90 and all(v == 0 for k, v in scores.items() if k != "cline"), (path.name, scores)


# -- the task folder and its companions ---------------------------------------------------


def test_task_folder_gives_native_task_id_host_and_the_same_records_from_either_entry(tmp_path: Path) -> None:
    folder = task_folder(tmp_path, XML_CASE)
    from_ui, conversion = convert(folder / "ui_messages.json", None)
    assert conversion.adapter.name == "cline" and conversion.accounting.balanced()
    head = from_ui[0]
    assert head["session"] == "cline:1761000000000" and "idSource" not in head
    assert head["host"] == {"extension": "saoudrizwan.claude-dev", "product": "Cline"}
    assert head["companions"] == ["api_conversation_history.json", "task_metadata.json"]
    assert head["cwd"] == "/home/dev/proj"  # stated in the first request's environment details
    from_api, _ = convert(folder / "api_conversation_history.json", None)
    assert from_api[0]["companions"] == ["ui_messages.json", "task_metadata.json"]
    assert [r for r in from_api[1:]] == [r for r in from_ui[1:]]
    assert not validate_records(from_ui) and not coming_rule_findings(from_ui)


@pytest.mark.parametrize(
    ("extension", "product"), [("rooveterinaryinc.roo-cline", "Roo Code"), ("kilocode.kilo-code", "Kilo Code")]
)
def test_forks_are_told_by_their_extension_id(tmp_path: Path, extension: str, product: str) -> None:
    folder = task_folder(tmp_path, XML_CASE, extension, "0b4d3c2a-5e6f-4a1b-9c8d-7e6f5a4b3c2d")
    records, _ = convert(folder / "ui_messages.json")
    assert records[0]["host"] == {"extension": extension, "product": product}
    assert records[0]["session"] == "cline:0b4d3c2a-5e6f-4a1b-9c8d-7e6f5a4b3c2d"


def test_lone_timeline_has_a_derived_id_and_no_companions(tmp_path: Path) -> None:
    records, conversion = convert(RETRY_CASE / "input.json")
    head = records[0]
    assert head["session"] == "cline:1767600000000" and head["idSource"] == "derived"
    assert head["source"]["variant"] == "ui-only" and "companions" not in head and "host" not in head
    assert conversion.accounting.balanced()


def test_companion_outside_the_folder_oversized_or_broken_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = task_folder(tmp_path, XML_CASE)
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes((XML_CASE / "api_conversation_history.json").read_bytes())
    (folder / "api_conversation_history.json").unlink()
    os.symlink(outside, folder / "api_conversation_history.json")
    records, conversion = convert(folder / "ui_messages.json")
    assert records[0]["source"]["variant"] == "ui-only"
    assert any("not a regular file inside the task folder" in d.reason for d in conversion.accounting.diagnostics)
    assert not validate_records(records)

    (folder / "api_conversation_history.json").unlink()
    (folder / "api_conversation_history.json").write_bytes(b"[{torn")
    records, conversion = convert(folder / "ui_messages.json")
    assert records[0]["source"]["variant"] == "ui-only"
    assert any("not JSON" in d.reason for d in conversion.accounting.diagnostics)

    shutil.copy(XML_CASE / "api_conversation_history.json", folder / "api_conversation_history.json")
    monkeypatch.setattr(files, "MAX_DOCUMENT_BYTES", 100)
    records, conversion = convert(folder / "ui_messages.json")
    assert records[0]["source"]["variant"] == "ui-only"
    assert any("limit" in d.reason for d in conversion.accounting.diagnostics)


def test_a_companion_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    folder = task_folder(tmp_path, XML_CASE)
    shutil.copy(folder / "ui_messages.json", folder / "api_conversation_history.json")
    records, conversion = convert(folder / "ui_messages.json")
    assert records[0]["source"]["variant"] == "ui-only"
    assert any("not a Cline api file" in d.reason for d in conversion.accounting.diagnostics)


# -- the person's words, harness text and tool output ----------------------------------------


def test_split_keeps_every_character_and_marks_who_wrote_what() -> None:
    text = "<task>\nfix it\n</task>\n\n<environment_details>\ncwd\n</environment_details>"
    pieces = split_text(text)
    assert "".join(p.text for p in pieces) == text
    assert [(p.kind, p.text) for p in pieces] == [
        (HARNESS, "<task>\n"),
        (HUMAN, "fix it"),
        (HARNESS, "\n</task>\n\n<environment_details>\ncwd\n</environment_details>"),
    ]
    request = (
        "[read_file for 'a.md'] Result:\n# A\n\ntext\n\n<feedback>\nmore\n</feedback>\n\n[TASK RESUMPTION] resumed"
    )
    pieces = split_text(request, flattened=True)
    assert "".join(p.text for p in pieces) == request
    assert pieces[0].kind == RESULT and pieces[0].tool == "read_file" and pieces[0].target == "a.md"
    assert pieces[0].text == "[read_file for 'a.md'] Result:\n# A\n\ntext\n\n"
    assert [p.kind for p in pieces[1:]] == [HARNESS, HUMAN, HARNESS]


def test_mentions_cline_rewrote_are_not_the_persons_words() -> None:
    text = (
        "<task>\nfix 'src/a.py' (see below for file content) and Workspace Problems (see below for diagnostics)\n"
        "</task>"
    )
    pieces = split_text(text)
    assert "".join(p.text for p in pieces) == text
    assert [(p.kind, p.text) for p in pieces] == [
        (HARNESS, "<task>\n"),
        (HUMAN, "fix "),
        (HARNESS, "'src/a.py' (see below for file content)"),
        (HUMAN, " and "),
        (HARNESS, "Workspace Problems (see below for diagnostics)\n</task>"),
    ]


def test_wrapper_tags_quoted_in_tool_output_are_not_the_persons_words() -> None:
    quoted = '[read_file for \'ui.json\'] Result:\n{"text": "<feedback>\nnow wire it\n</feedback> later"}\n\n'
    pieces = split_text(quoted + "<environment_details>\nx\n</environment_details>", flattened=True)
    assert [p.kind for p in pieces] == [RESULT, HARNESS] and pieces[0].text == quoted
    appended = "[attempt_completion] Result: Done\n\nThe user has provided feedback.\n\n<feedback>\nok\n</feedback>"
    pieces = split_text(appended)
    assert [(p.kind, p.text) for p in pieces] == [
        (RESULT, "[attempt_completion] Result: Done\n\n"),
        (HARNESS, "The user has provided feedback.\n\n<feedback>\n"),
        (HUMAN, "ok"),
        (HARNESS, "\n</feedback>"),
    ]


def test_a_followup_answer_is_the_persons_and_its_result_header_is_not() -> None:
    text = "[ask_followup_question for 'Routing or startup?'] Result:\n<answer>\nRouting\n</answer>"
    pieces = split_text(text)
    assert [(p.kind, p.text) for p in pieces] == [
        (RESULT, "[ask_followup_question for 'Routing or startup?'] Result:\n"),
        (HARNESS, "<answer>\n"),
        (HUMAN, "Routing"),
        (HARNESS, "\n</answer>"),
    ]
    assert pieces[0].target == "Routing or startup?"


def test_result_texts_state_mcp_errors_and_denials_only_in_clines_own_words() -> None:
    assert result_state("use_mcp_tool", "[use_mcp_tool for 's'] Result:\n\nError:\nError: not connected") == (
        True,
        None,
    )
    assert result_state("use_mcp_tool", "[use_mcp_tool for 's'] Result:Error:\nx") == (True, None)
    assert result_state("read_file", "[read_file for 'a'] Result:\nError:\nquoted") == (None, None)
    assert result_state("x", "[x] Result:\nThe user denied this operation.") == (None, "bot.cline/denied")
    assert result_state("x", "[x] Result:\nok\nThe user denied this operation.") == (None, None)
    long_command = "[execute_command for '" + "a" * 300 + "'] Result:\nThe user denied this operation."
    assert result_state("execute_command", long_command) == (None, "bot.cline/denied")


def test_xml_tool_tags_are_taken_out_of_assistant_text() -> None:
    text = "Reading.\n\n<read_file>\n<path>a.py</path>\n</read_file>\n\n<thinking>x</thinking>"
    pieces = split_assistant(text)
    assert pieces[0] == "Reading.\n\n"
    call = pieces[1]
    assert isinstance(call, XmlCall) and call.name == "read_file" and call.params == {"path": "a.py"}
    assert pieces[2] == "\n\n<thinking>x</thinking>"  # thinking prose is the model's text


def test_api_messages_split_human_harness_and_tool_results() -> None:
    records, _ = convert(XML_CASE / "input.json")
    first = next(r for r in records if r.get("messageId") == "api:0")
    assert [(p.get("author"), p["text"]) for p in first["content"][:3]] == [
        ("harness", "<task>\n"),
        ("human", "Add a --verbose flag to cli.py"),
        ("harness", "\n</task>"),
    ]
    assert first["displayContent"] == [
        {"type": "text", "text": "Add a --verbose flag to cli.py", "author": "human", "origin": "prompt"}
    ]
    assert first["displayCorrespondence"] == "native"
    calls = [r for r in records if r["type"] == "tool_call"]
    results = [r for r in records if r["type"] == "tool_result"]
    assert [c["name"] for c in calls] == ["read_file", "replace_in_file", "replace_in_file", "attempt_completion"]
    assert [r["callId"] for r in results] == [c["callId"] for c in calls[:3]]
    denied = results[1]["content"]
    assert denied[-1]["text"] == "The user denied this operation and provided the following feedback:\n"
    feedback = next(r for r in records if r.get("messageId") == "api:4")
    assert [p.get("author") for p in feedback["content"]] == ["harness", "human", "harness", "harness"]
    assert [row["ts"] for row in first["displayRows"]] == [1761000000000]  # the folded row's members are kept
    resumed = next(r for r in records if r.get("messageId") == "api:8")
    assert resumed["apiRequest"] == {
        "tokensIn": 0,
        "tokensOut": 0,
        "cacheWrites": 0,
        "cacheReads": 0,
        "cost": 0.0,
        "cancelReason": "user_cancelled",
    }  # no reply carries this request's numbers
    assert resumed["status"] == "bot.cline/user_cancelled"
    assert resumed["content"][0]["text"].startswith("[TASK RESUMPTION]")
    assert resumed["content"][0]["author"] == "harness" and resumed["content"][1]["author"] == "human"


def test_task_folder_rows_showing_a_call_only_response_fold_into_that_call() -> None:
    records, conversion = convert(XML_CASE / "input.json")
    completion = next(r for r in records if r.get("name") == "attempt_completion")
    assert completion["displayContent"] == [{"type": "text", "text": "Added -v/--verbose to cli.py.", "phase": "final"}]
    assert [row["say"] for row in completion["displayRows"]] == ["completion_result"]
    assert not [r for r in records if r["type"] == "message" and r["messageId"].startswith("ui:")]
    denied = next(r for r in records if r["type"] == "tool_result" and r["callId"] == "api:3:call[0]")
    assert denied["status"] == "bot.cline/denied" and "isError" not in denied
    records, conversion = convert(NATIVE_CASE / "input.json")
    plan = next(r for r in records if r.get("name") == "plan_mode_respond")
    assert plan["displayContent"][0]["text"] == plan["input"]["response"]
    assert not [r for r in records if r["type"] == "message" and r.get("role") == "assistant" and not r["content"]]
    assert conversion.accounting.balanced()


def test_ui_only_row_is_display_content_with_content_absent() -> None:
    records, _ = convert(RETRY_CASE / "input.json")
    completion = next(r for r in records if r.get("messageId") == "ui:1767600009000")
    assert completion["content"] == [] and completion["capture"]["content"]["state"] == "absent"
    assert completion["displayContent"][0]["phase"] == "final"
    revision = [r for r in records if r.get("messageId") == "ui:1767600009000"]
    assert len(revision) == 2 and revision[1]["supersedes"] == revision[0]["id"]
    prompt = next(r for r in records if r.get("messageId") == "ui:1767600002000")
    assert prompt["displayContent"][0] == {
        "type": "text",
        "text": "what is this project?",
        "author": "human",
        "origin": "prompt",
    }
    assert prompt["assembly"]["sourceIds"] == ["1767600000000", "1767600002000"]


def test_alignment_falls_back_to_order_without_history_indexes(tmp_path: Path) -> None:
    case = tmp_path / "case"
    case.mkdir()
    ui = json.loads((XML_CASE / "input.json").read_bytes())
    for row in ui:
        row.pop("conversationHistoryIndex", None)
    (case / "input.json").write_text(json.dumps(ui))
    shutil.copy(XML_CASE / "api_conversation_history.json", case)
    records, conversion = convert(case / "input.json")
    first = next(r for r in records if r.get("messageId") == "api:0")
    assert first["displayCorrespondence"] == "derived"
    assert first["displayContent"][0]["text"] == "Add a --verbose flag to cli.py"
    feedback = next(r for r in records if r.get("messageId") == "api:4")
    assert feedback["displayContent"][0]["text"] == "Use -v as the short form too"
    assert conversion.accounting.balanced() and not validate_records(records)


def _request_row(ts: int, request: str, **info: Any) -> dict[str, Any]:
    return {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps({"request": request, **info})}


ENV = "<environment_details>\nx\n</environment_details>"
LONE_ROWS: list[dict[str, Any]] = [
    {"ts": 1, "type": "say", "say": "task", "text": "read @/a.md"},
    _request_row(2, f"<task>\nread 'a.md' (see below for file content)\n</task>\n\n[Image]\n\n{ENV}", tokensIn=5),
    {
        "ts": 3,
        "type": "say",
        "say": "tool",
        "text": json.dumps({"tool": "readFile", "path": "a.md", "content": "/w/a.md"}),
    },
    {"ts": 4, "type": "ask", "ask": "use_mcp_server", "text": json.dumps({"type": "use_mcp_tool", "serverName": "s"})},
    {"ts": 5, "type": "ask", "ask": "command", "text": "ls 2>&1REQ_APP"},
    _request_row(
        6,
        "[read_file for 'a.md'] Result:\n# A\n\n[use_mcp_tool for 's'] Result:\nError:\nnot connected\n\n"
        f"[execute_command for 'ls 2>&1'] Result:\nThe user denied this operation.\n\n{ENV}",
        tokensIn=7,
        tokensOut=2,
        cancelReason="streaming_failed",
    ),
    {"ts": 7, "type": "say", "say": "text", "text": "Half"},
    {"ts": 8, "type": "ask", "ask": "followup", "text": json.dumps({"question": "Which?", "options": ["a", "b"]})},
    {"ts": 9, "type": "say", "say": "user_feedback", "text": "b"},
    _request_row(10, f"[ask_followup_question for 'Which?'] Result:\n<answer>\nb\n</answer>\n\n{ENV}", tokensIn=9),
    {"ts": 11, "type": "say", "say": "completion_result", "text": "Done.HAS_CHANGES"},
    {"ts": 12, "type": "say", "say": "checkpoint_created", "text": ""},
    {"ts": 13, "type": "ask", "ask": "command", "text": "open a.md"},
    {"ts": 14, "type": "say", "say": "user_feedback", "text": "thanks"},
    _request_row(
        15,
        "[attempt_completion] Result: Done\n\nThe user has provided feedback on the results.\n<feedback>\nthanks\n"
        f"</feedback>\n\n{ENV}",
        cancelReason="streaming_failed",
    ),
]


def test_a_lone_request_text_is_its_display_rendering_never_model_facing() -> None:
    records, conversion = convert(json.dumps(LONE_ROWS).encode())
    assert not validate_records(records) and not coming_rule_findings(records) and conversion.accounting.balanced()
    requests = [r for r in records if r.get("messageId") in ("ui:2", "ui:6", "ui:10", "ui:15")]
    assert len(requests) == 4
    for request in requests:
        assert request["content"] == [] and request["capture"]["content"]["state"] == "absent"
        assert "display rendering" in request["capture"]["content"]["reason"]
    first = requests[0]["displayContent"]
    assert first[0] == {"type": "text", "text": "read @/a.md", "author": "human", "origin": "prompt"}
    # Cline's rewritten mention and its [Image] are the rendering's, not the person's words
    assert [(p.get("author"), p["text"]) for p in first[1:]] == [
        ("harness", "<task>\n"),
        (None, "read "),
        ("harness", "'a.md' (see below for file content)\n</task>"),
        (None, "\n\n[Image]\n\n"),
        ("harness", ENV),
    ]
    human = [
        p["text"]
        for r in records
        for key in ("content", "displayContent")
        for p in r.get(key, [])
        if p.get("author") == "human"
    ]
    assert human == ["read @/a.md", "b", "thanks"]  # typed rows only; the answer below is a reference
    results = [r for r in records if r["type"] == "tool_result"]
    assert all(r["content"] == [] and r["capture"]["content"]["state"] == "absent" for r in results)
    # no join separator in a block's text
    assert results[0]["displayContent"] == [{"type": "text", "text": "[read_file for 'a.md'] Result:\n# A"}]
    assert [(r["name"], r.get("isError"), r.get("status")) for r in results] == [
        ("read_file", None, None),
        ("use_mcp_tool", True, None),
        ("execute_command", None, "bot.cline/denied"),
        ("attempt_completion", None, None),
    ]


def test_lone_ui_calls_keep_the_ui_payload_not_a_claimed_input() -> None:
    records, _ = convert(json.dumps(LONE_ROWS).encode())
    calls = [r for r in records if r["type"] == "tool_call"]
    # the read's name is the one its result header gives (the tool the model called); the
    # row's `tool` is Cline's ui label, kept under `cline.uiName` (docs/agents/cline.md)
    assert [c["name"] for c in calls] == ["read_file", "use_mcp_tool", "execute_command", "attempt_completion"]
    assert calls[0]["cline"]["uiName"] == "readFile" and "name" not in calls[0]["capture"]
    for call in calls:
        assert "input" not in call and "arguments" not in call and call["capture"]["input"]["state"] == "absent"
    assert calls[0]["uiTool"] == {"tool": "readFile", "path": "a.md", "content": "/w/a.md"}
    assert calls[2]["uiTool"] == "ls 2>&1REQ_APP"
    # the command row after a completion_result is attempt_completion's `command`, answered by its result
    result = next(r for r in records if r["type"] == "tool_result" and r["name"] == "attempt_completion")
    assert result["callId"] == calls[3]["callId"] == "ui:13"
    intro = next(r for r in records if r.get("messageId") == "ui:15")["displayContent"][1]
    assert intro["text"].startswith("The user has provided feedback") and intro["author"] == "harness"


def test_lone_timeline_answers_failures_flags_and_vendor_times() -> None:
    records, _ = convert(json.dumps(LONE_ROWS).encode())
    interrupted = [
        {"ts": 1, "type": "ask", "ask": "followup", "text": json.dumps({"question": "Which?"})},
        {"ts": 2, "type": "ask", "ask": "resume_task", "text": ""},
        {"ts": 3, "type": "say", "say": "user_feedback", "text": "something else"},
    ]
    unanswered, _ = convert(json.dumps(interrupted).encode())
    assert "answer" not in unanswered[1] and "status" not in unanswered[1]
    question = next(r for r in records if r["type"] == "input_request")
    assert question["answer"] == [{"type": "text", "text": "b", "author": "human"}]
    assert question["status"] == "bot.cline/answered"
    failed = next(r for r in records if r.get("messageId") == "ui:7")
    # the reply's first row carries its usage; the failure cut its last row, the question, which
    # was answered and keeps that status: the request's apiRequest keeps Cline's cancelReason
    assert failed["usage"] == {"inputTokens": 7, "outputTokens": 2, "totalTokens": 9} and "status" not in failed
    assert next(r for r in records if r.get("messageId") == "ui:6")["apiRequest"]["cancelReason"] == "streaming_failed"
    completion = next(r for r in records if r.get("messageId") == "ui:11")
    assert completion["displayContent"] == [
        {"type": "text", "text": "Done.", "phase": "final"},
        {"type": "text", "text": "HAS_CHANGES", "author": "harness", "origin": "injected"},
    ]
    unanswered = next(r for r in records if r.get("messageId") == "ui:15")
    assert unanswered["status"] == "bot.cline/streaming_failed"  # no reply: not a prompt the model answered
    assert "status" not in next(r for r in records if r.get("messageId") == "ui:6")  # it has a reply
    vendor = next(r for r in records if r["type"] == "vendor")
    assert vendor["ts"] == "1970-01-01T00:00:00.012Z"


# -- requests, usage, retries, plans, truncation ----------------------------------------------


def _requests(path: Path) -> list[dict[str, Any]]:
    rows = json.loads(path.read_bytes())
    return [json.loads(r["text"]) for r in rows if r.get("say") == "api_req_started"]


def test_usage_is_written_once_per_answered_request_and_retries_are_not_requests() -> None:
    records, _ = convert(RETRY_CASE / "input.json")
    carriers = [r for r in records if "usage" in r]
    answered = [info for info in _requests(RETRY_CASE / "input.json") if not info.get("cancelReason")]
    assert len(carriers) == len(answered) == 3
    # issue 26: inputTokens holds the cache reads and writes Cline counts beside tokensIn
    whole = sum(i["tokensIn"] + i.get("cacheReads", 0) + i.get("cacheWrites", 0) for i in answered)
    assert total_usage(records)["inputTokens"] == whole
    assert all(r["type"] in ("message", "tool_call") and r.get("role") != "user" for r in carriers)
    retried = [r for r in records if r["type"] == "vendor" and r["schema"] == "bot.cline/say/api_req_retried"]
    failed = [r for r in records if r["type"] == "vendor" and r["schema"] == "bot.cline/say/api_req_started"]
    assert len(retried) == 1 and len(failed) == 1


def test_task_folder_usage_comes_from_the_request_row_not_twice_from_metrics() -> None:
    records, _ = convert(NATIVE_CASE / "input.json")
    requests = _requests(NATIVE_CASE / "input.json")
    whole = sum(i["tokensIn"] + i.get("cacheReads", 0) + i.get("cacheWrites", 0) for i in requests)
    assert total_usage(records)["inputTokens"] == whole
    first_call = next(r for r in records if r["type"] == "tool_call")
    first = requests[0]
    assert first_call["callId"] == "tooluse_A1" and first["tokensIn"] == 10049
    assert first_call["usage"]["inputTokens"] == 10049 + first.get("cacheReads", 0) + first.get("cacheWrites", 0)
    thinking = next(r for r in records if r.get("messageId") == "api:3")
    assert thinking["content"][0] == {
        "type": "reasoning",
        "text": "The subagents covered config and data; check the README next.",
        "signature": "EqQBCkgIBRAB",
    }
    assert thinking["cline"]["metrics"]["tokens"]["prompt"] == 2200


def test_task_progress_rows_are_plan_revisions_and_repeats_are_duplicates() -> None:
    records, conversion = convert(RETRY_CASE / "input.json")
    plans = [r for r in records if r["type"] == "plan"]
    assert len(plans) == 1 and conversion.accounting.duplicates == 1
    records, _ = convert(XML_CASE / "input.json")
    plans = [r for r in records if r["type"] == "plan"]
    assert [p["entries"][0]["status"] for p in plans] == ["pending", "completed"]
    assert plans[1]["supersedes"] == plans[0]["id"] and plans[0]["planId"] == "task_progress"


def test_context_truncation_is_recorded() -> None:
    records, _ = convert(NATIVE_CASE / "input.json")
    marked = [r for r in records if "contextTruncation" in r]
    assert len(marked) == 1 and marked[0]["contextTruncation"] == {"deletedRange": [1, 2]}


def test_partial_unknown_and_non_json_rows_are_kept() -> None:
    rows = [
        {"ts": 1, "type": "say", "say": "text", "text": "hello", "conversationHistoryIndex": -1},
        {"ts": 2, "type": "say", "say": "text", "text": "", "partial": True},
        {"ts": 3, "type": "say", "say": "text", "text": "half a sen", "partial": True},
        {"ts": 4, "type": "say", "say": "brand_new_say", "text": "?"},
        {"ts": 5, "type": "say", "say": "api_req_started", "text": "not json"},
        {"ts": 6, "type": "ask", "ask": "use_mcp_server", "text": "{broken"},
        "not a row",
    ]
    records, conversion = convert(json.dumps(rows).encode())
    kinds = [(r["type"], r.get("schema"), r.get("status")) for r in records[1:]]
    assert kinds == [
        ("message", None, None),
        ("vendor", "bot.cline/say/text", None),
        ("message", None, "partial"),
        ("vendor", "bot.cline/say/brand_new_say", None),
        ("vendor", "bot.cline/say/api_req_started", None),
        ("tool_call", None, None),
        ("vendor", "bot.cline/row", None),
    ]
    assert records[6]["uiTool"] == "{broken" and "arguments" not in records[6] and "input" not in records[6]
    assert conversion.accounting.balanced() and conversion.accounting.native_items == len(rows)
    assert not validate_records(records)


# -- discovery --------------------------------------------------------------------------------


def test_default_homes_cover_every_os_layout_editor_and_extension(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "APPDATA": str(tmp_path / "roaming"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    homes = registry.get("cline").default_homes(env)
    tail = Path("User") / "globalStorage" / "saoudrizwan.claude-dev" / "tasks"
    assert tmp_path / "roaming" / "Code" / tail in homes
    assert tmp_path / "xdg" / "Cursor" / tail in homes
    assert home / ".config" / "Code" / tail in homes
    assert home / "Library" / "Application Support" / "Code" / tail in homes
    roo = Path("User") / "globalStorage" / "rooveterinaryinc.roo-cline" / "tasks"
    assert home / ".config" / "Code" / roo in homes
    assert home / ".cline" / "data" / "sessions" in homes  # Cline CLI 3.x (issue 27 item 28)
    assert all(str(h).startswith(str(tmp_path)) for h in homes)
    from asr_adapters.adapters.cline.discover import cli_sessions_dir

    assert cli_sessions_dir({"HOME": "/h", "CLINE_DIR": "/c"}) == Path("/c/data/sessions")
    assert cli_sessions_dir({"HOME": "/h", "CLINE_DATA_DIR": "/d", "CLINE_DIR": "/c"}) == Path("/d/sessions")
    assert cli_sessions_dir({"CLINE_SESSION_DATA_DIR": "/s", "CLINE_DATA_DIR": "/d"}) == Path("/s")


def test_entries_companions_and_batch_discovery(tmp_path: Path) -> None:
    from asr_adapters.batch import discover as find

    home = tmp_path / "home"
    folder = task_folder(home / ".config", XML_CASE)
    assert discover.is_session_file(folder / "ui_messages.json")
    assert not discover.is_session_file(folder / "api_conversation_history.json")
    assert not discover.is_session_file(folder / "task_metadata.json")
    assert [p.name for p in discover.companion_files(folder / "ui_messages.json")] == [
        "api_conversation_history.json",
        "task_metadata.json",
    ]
    found = list(find(env={"HOME": str(home)}, agents=["cline"]))
    assert [(d.agent, d.session_id, d.path.name) for d in found] == [("cline", "1761000000000", "ui_messages.json")]
    (folder / "ui_messages.json").rename(folder / "claude_messages.json")  # the 2024 name
    assert discover.is_session_file(folder / "claude_messages.json")
    assert not discover.is_session_file(folder / "api_conversation_history.json")
    records, _ = convert(folder / "api_conversation_history.json")
    assert records[0]["companions"] == ["claude_messages.json", "task_metadata.json"]
    (folder / "claude_messages.json").unlink()
    assert discover.is_session_file(folder / "api_conversation_history.json")


# -- the shared real samples ---------------------------------------------------------------------


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/cline is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_converts_validates_and_balances(path: Path) -> None:
    records, conversion = convert(path, None)
    assert conversion.adapter.name == "cline"
    assert not validate_records(records)
    assert not coming_rule_findings(records), coming_rule_findings(records)[:5]
    accounting = conversion.accounting
    rows = json.loads(path.read_bytes())
    assert accounting.balanced() and accounting.native_items == len(rows)
    assert accounting.unreadable == 0 and not accounting.diagnostics
    answered = [r for r in rows if r.get("say") == "api_req_started"]
    carriers = [r for r in records if "usage" in r]
    assert len(carriers) <= len(answered)
    assert total_usage(records).get("outputTokens", 0) <= sum(json.loads(r["text"])["tokensOut"] for r in answered)
    tasks = [r for r in rows if r.get("say") in ("task", "user_feedback") or (r is rows[0])]
    shown = [
        p["text"]
        for r in records
        if r["type"] == "message"
        for p in r.get("displayContent", [])
        if p["type"] == "text" and p.get("author", r.get("author")) == "human"
    ]
    assert shown == [r["text"] for r in tasks]  # every prompt the person typed, once, in order
    # a lone timeline holds nothing the model received: no user-side content, no call input
    assert not [r["id"] for r in records if r.get("role") == "user" and r["content"]]
    assert not [
        r["id"] for r in records if r["type"] in ("tool_call", "tool_result") and (r.get("input") or r.get("content"))
    ]
    assert all("ts" in r for r in records if r["type"] == "vendor")


@pytest.mark.parametrize(
    "value",
    [
        0,
        1,
        999,
        1000,
        86_399_999,
        86_400_000,
        951_782_400_000,  # 2000-02-29
        1_761_000_000_123,
        1_761_000_000_999,
        1_767_225_599_999,  # the last millisecond of 2025
        2**31 * 1000 - 1,  # the last value of the whole-number path
        2**31 * 1000,
        -1,
        4_102_444_800_001,
        1_761_000_000_123.5,
        True,
        "1761000000000",
        None,
    ],
)
def test_epoch_millis_writes_what_from_epoch_millis_writes(value: Any) -> None:
    assert epoch_millis(value) == from_epoch_millis(value)


def test_epoch_millis_matches_from_epoch_millis_over_a_spread_of_values() -> None:
    step = 2**31 * 1000 // 20_011  # a prime count of steps: every millisecond digit and hour shows up
    for value in range(7, 2**31 * 1000, step):
        assert epoch_millis(value) == from_epoch_millis(value), value


@pytest.mark.parametrize(
    "url",
    [
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/svg+xml;base64,PHN2Zz4=\n",
        "data:image/png;base64,",
        "data:;base64,AAAA",
        "data:image/png;charset=utf-8;base64,AAAA",
        "data:image png;base64,AAAA",
        "data:image/png,AAAA",
        "data:imagé/png;base64,AAAA",
        "DATA:image/png;base64,AAAA",
        "https://example.com/a.png",
        "",
    ],
)
def test_data_url_cut_as_the_pattern_reads_it(url: str) -> None:
    match = re.match(r"data:([\w.+\-/]+);base64,(.*)\Z", url, re.S)
    expected = None if match is None else {"type": "image", "mimeType": match[1], "data": match[2]}
    assert parts._data_url(url) == expected


def test_input_holds_the_cache_once_whichever_way_the_provider_counts_it() -> None:
    """Issue 26: Cline's tokensIn is the provider handler's count: without the cache for
    Anthropic-style handlers (anthropic, cline, openrouter, …), with it for OpenAI-compatible
    ones (openai, litellm, …). inputTokens holds every input token once either way."""
    from asr_adapters.adapters.cline.parts import metrics_usage, request_usage

    info = {"tokensIn": 500, "tokensOut": 20, "cacheReads": 300, "cacheWrites": 100}
    apart, _, _ = request_usage(info, "anthropic")
    inside, _, _ = request_usage(info, "openai")
    unnamed, _, _ = request_usage(info, None)
    assert apart is not None and inside is not None and unnamed is not None
    assert (apart["inputTokens"], inside["inputTokens"], unnamed["inputTokens"]) == (900, 500, 900)
    assert inside["cacheReadTokens"] == 300 and inside["totalTokens"] == 520
    # an "inside" provider whose cache counts exceed the whole counted them apart after all
    odd, _, _ = request_usage({"tokensIn": 5, "tokensOut": 1, "cacheReads": 300}, "openai")
    assert odd is not None and odd["inputTokens"] == 305
    metrics = {"tokens": {"prompt": 40, "completion": 7, "cached": 1000}}
    assert metrics_usage(metrics, "anthropic") == {"inputTokens": 1040, "outputTokens": 7, "totalTokens": 1047}


# -- issue 27: results find their own call, cut-short replies, retries, finished reasoning, header --

#: ``[tool for 'target'] Result:`` as Cline writes it (the target may span lines)
_HEADER = re.compile(r"\[([A-Za-z0-9_.:\-]+)(?: for '([\s\S]*?)')?\] Result:")
CASES = GOLDEN / "cline"


def _result_text(record: dict[str, Any]) -> str:
    parts = record.get("content") or record.get("displayContent") or []
    return "".join(p.get("text", "") for p in parts if p.get("type") == "text")


def misattached_results(records: list[dict[str, Any]]) -> list[str]:
    """Every tool_result must answer the nearest preceding call of its tool and target: a call of
    the same exchange (no user message between the call and the result), of the tool its header
    names, on the target it names (a call's own argument, or the path / command the ui row shows),
    with no nearer unanswered call of that tool and target; and no request text may leave a
    ``[tool] Result:`` piece as plain text while a shown call of that tool waits for it."""
    from asr_adapters.adapters.cline.rows import ui_tool_matches
    from asr_adapters.adapters.cline.split import skipped, targets

    problems = []
    where = {r["callId"]: n for n, r in enumerate(records) if r["type"] == "tool_call"}
    answered: set[str] = set()
    for n, record in enumerate(records):
        if record["type"] == "message" and record.get("role") == "user":
            waiting = [r for r in records[:n] if r["type"] == "tool_call" and r["callId"] not in answered]
            for part in record.get("displayContent", []) + record.get("content", []):
                header = _HEADER.match(part.get("text", "")) if part.get("type") == "text" else None
                if header and any(ui_tool_matches((c["name"], c.get("uiTool")), header[1], header[2]) for c in waiting):
                    problems.append(f"{record['id']}: {header[0][:60]!r} left as text")
        if record["type"] != "tool_result":
            continue
        text = _result_text(record)
        header, skip = _HEADER.match(text), skipped(text)
        tool, target = (header[1], header[2]) if header else skip if skip else (record.get("name"), None)

        def fits(call: dict[str, Any], tool: Any = tool, target: Any = target) -> bool:
            if "input" in call:
                return call.get("name") == tool and (target is None or targets(call["input"], target))
            return ui_tool_matches((call.get("name"), call.get("uiTool")), tool, target)

        at = where.get(record["callId"])
        if at is None or record["callId"] in answered:
            problems.append(f"{record['id']}: answers no call, or one answered already")
        elif any(r["type"] == "message" and r.get("role") == "user" for r in records[at:n]):
            problems.append(f"{record['id']}: answers {records[at]['id']}, a call of an earlier exchange")
        elif target is not None and any(
            r["type"] == "tool_call" and r["callId"] not in answered and fits(r) for r in records[at + 1 : n]
        ):
            problems.append(f"{record['id']}: a nearer call of {tool} on {target[:40]!r} waits")
        answered.add(record["callId"])
    return problems


def test_result_headers_are_matched_across_newlines() -> None:
    from asr_adapters.adapters.cline.split import result_header

    assert result_header("[execute_command for 'cd app &&\nnpm test'] Result:") == (
        "execute_command",
        "cd app &&\nnpm test",
    )
    pieces = split_text(
        "[execute_command for 'a &&\n\nb'] Result:\nCommand executed.\n\n"
        "<environment_details>\nx\n</environment_details>",
        flattened=True,
    )
    assert [(p.kind, p.tool, p.target) for p in pieces] == [
        (RESULT, "execute_command", "a &&\n\nb"),
        (HARNESS, None, None),
    ]
    assert "".join(p.text for p in pieces).startswith(
        "[execute_command for 'a &&\n\nb'] Result:\nCommand executed.\n\n"
    )
    # an unclosed header is no header, and costs one bounded scan
    assert result_header("[execute_command for 'never closed\n" + "x" * 200_000) is None


@pytest.mark.parametrize(
    "case", ["api-only-multiline-command-results", "api-only-native-skipped-calls", "ui-only-multiline-command-result"]
)
def test_every_result_answers_its_own_call(case: str) -> None:
    """Issue 27 item 24: before, the two-line header was not matched, its result stayed text of no
    author, and each later result of that tool took the call of the reply before it."""
    records, _ = convert(CASES / case / "input.json")
    assert not misattached_results(records), misattached_results(records)
    results = {r["callId"]: r for r in records if r["type"] == "tool_result"}
    calls = [r for r in records if r["type"] == "tool_call" and r["name"] != "attempt_completion"]
    assert calls and all(c["callId"] in results for c in calls)  # none left unanswered
    texts = [
        p.get("text", "") for r in records if r["type"] == "message" for p in r.get("displayContent", []) + r["content"]
    ]
    assert not [t for t in texts if t.startswith(("[execute_command", "Tool [read_file]"))]


def test_skipped_calls_are_cancelled_results_in_every_wording() -> None:
    from asr_adapters.adapters.cline.split import skipped

    already = "Tool [read_file] was not executed because a tool has already been used in this message. Only one tool …"
    assert skipped(already) == ("read_file", None) and result_state("read_file", already) == (
        None,
        "bot.cline/cancelled",
    )
    for text, expected in [
        ("Skipping tool due to user rejecting a previous tool. [read_file for 'a.ts']", ("read_file", "a.ts")),
        (
            "Tool was interrupted and not executed due to user rejecting a previous tool."
            " [execute_command for 'ls\n-la']",
            ("execute_command", "ls\n-la"),
        ),
        ("Skipping tool [write_to_file for 'b.ts'] due to user rejecting a previous tool.", ("write_to_file", "b.ts")),
        (
            "Tool [list_files for '.'] was interrupted and not executed due to user rejecting a previous tool.",
            ("list_files", "."),
        ),
    ]:
        assert skipped(text) == expected
        assert result_state(expected[0], text) == (None, "bot.cline/cancelled")
    assert skipped("Tool [read_file] was used") is None and skipped("The tool [x] was not executed because") is None
    records, _ = convert(CASES / "api-only-native-skipped-calls" / "input.json")
    cancelled = [r for r in records if r["type"] == "tool_result" and r.get("status") == "bot.cline/cancelled"]
    assert [r["callId"] for r in cancelled] == ["toolu_01B"] and "isError" not in cancelled[0]


def test_results_answer_only_the_calls_of_the_reply_before_them() -> None:
    records, _ = convert(CASES / "api-only-native-skipped-calls" / "input.json")
    pairs = [(r["callId"], _result_text(r)[:20]) for r in records if r["type"] == "tool_result"]
    assert pairs == [
        ("toolu_01A", "[read_file for 'A.cs"),
        ("toolu_01B", "Tool [read_file] was"),
        ("toolu_02B", "[read_file for 'B.cs"),
    ]


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/cline is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_result_of_a_real_task_attaches_to_the_nearest_call_of_its_tool_and_target(path: Path) -> None:
    records, _ = convert(path, None)
    assert [r for r in records if r["type"] == "tool_result"]
    assert not misattached_results(records), misattached_results(records)[:5]


def test_golden_results_attach_to_the_nearest_call_of_their_tool_and_target() -> None:
    for case in golden_cases("cline"):
        records, _ = convert(materialize_input(case, case.folder), "cline")
        assert not misattached_results(records), (case.id, misattached_results(records)[:5])


def test_a_reply_cline_cut_short_is_interrupted_its_marker_is_cline_s_and_its_usage_stays() -> None:
    """Issue 27 item 25."""
    case = CASES / "task-folder-interrupted-replies"
    records, _ = convert(case / "input.json")
    replies = {r["messageId"]: r for r in records if r.get("role") == "assistant"}
    user, api_error = replies["api:3"], replies["api:5"]
    assert user["status"] == "interrupted" and api_error["status"] == "error"
    assert user["content"] == [
        {"type": "text", "text": "\n\n[Response interrupted by user]", "author": "harness", "origin": "injected"}
    ]
    assert api_error["content"][0] == {"type": "text", "text": "Let me check the file again."}  # the model's words
    assert api_error["content"][1]["author"] == "harness"
    rows = json.loads((case / "input.json").read_bytes())
    info = json.loads(rows[5]["text"])  # the request of the interrupted reply: tokens, no cancelReason
    assert "cancelReason" not in info
    assert user["usage"]["inputTokens"] == info["tokensIn"] + info["cacheReads"] + info["cacheWrites"] != 0
    assert user["usage"]["outputTokens"] == info["tokensOut"] == 1
    from asr_adapters.adapters.cline.split import interrupted

    for marker, status in [
        ("user", "interrupted"),
        ("API Error", "error"),
        ("user feedback", "interrupted"),
        (
            "a tool use result. Only one tool may be used at a time and should be placed at the end of the message.",
            "interrupted",
        ),
    ]:
        assert interrupted(f"text<x/>\n\n[Response interrupted by {marker}]") == (
            "text<x/>",
            f"\n\n[Response interrupted by {marker}]",
            status,
        )
    assert interrupted("quoted [Response interrupted by user] in the middle.") is None


def test_a_request_is_a_retry_only_when_cline_says_so_and_its_tokens_stay_in_usage() -> None:
    """Issue 27 item 26."""
    case = CASES / "ui-only-retry-only-when-said"
    records, _ = convert(case / "input.json")
    rows = json.loads((case / "input.json").read_bytes())
    by_ts = {r.get("messageId", "").removeprefix("ui:"): r for r in records if r["type"] == "message"}
    vendors = [
        r["data"]["ts"] for r in records if r["type"] == "vendor" and r["schema"] == "bot.cline/say/api_req_started"
    ]
    requests = [r for r in rows if r.get("say") == "api_req_started"]
    first, _, said_free, _, said_spent, _ = requests
    assert vendors == [said_free["ts"]]  # only the retry the source states and that cost nothing
    for row in (first, said_spent):
        message = by_ts[str(row["ts"])]
        assert message["status"] == "bot.cline/streaming_failed" and "tokensIn" not in message["apiRequest"]
        assert message["usage"]["inputTokens"] == sum(
            json.loads(row["text"])[k] for k in ("tokensIn", "cacheReads", "cacheWrites")
        )
    whole = sum(i["tokensIn"] + i["cacheReads"] + i["cacheWrites"] for i in (json.loads(r["text"]) for r in requests))
    assert total_usage(records)["inputTokens"] == whole  # no reported token dropped
    prompts = [
        p["text"]
        for r in records
        if r["type"] == "message"
        for p in r.get("displayContent", [])
        if p.get("author") == "human"
    ]
    assert prompts == ["fix the build", "also run the tests", "now commit it"]  # each once


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/cline is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_a_real_task_s_usage_is_every_request_row_s_count_once(path: Path) -> None:
    """Issue 27 item 26 over a whole real file: summing usage gives what the request rows report."""
    records, _ = convert(path, None)
    rows = json.loads(path.read_bytes())
    reported: dict[str, int] = {}
    for row in rows:
        if row.get("say") == "api_req_started":
            usage, _, _ = parts.request_usage(json.loads(row["text"]), parts.provider_of(row))
            for key, value in (usage or {}).items():
                reported[key] = reported.get(key, 0) + value
    assert total_usage(records) == reported


def test_finished_reasoning_rows_are_not_partial_and_the_header_names_version_and_host() -> None:
    """Issue 27 item 27."""
    case = CASES / "ui-only-finished-reasoning-version-host"
    records, _ = convert(case / "input.json")
    head = records[0]
    assert head["agent"] == {"name": "cline", "version": "3.57.1"}
    assert head["host"] == {"name": "Visual Studio Code", "version": "1.109.0"}
    reasoning = [r for r in records if r.get("role") == "assistant" and r["displayContent"][0]["type"] == "reasoning"]
    assert [(r.get("status"), r.get("cline", {}).get("partial")) for r in reasoning] == [
        (None, True),  # the completion followed
        (None, True),  # a text row followed: finished, though the request was cut short after it
        ("partial", None),  # the task stopped right after it
    ]
    # streaming_failed: generation failed (ASR-206 error) where the stream stopped, the text row
    # left partial, not the finished reasoning before it; the reply's usage stays on its first row
    cut = next(r for r in records if r.get("messageId") == "ui:1770577665000")
    assert cut["status"] == "error" and cut["cline"]["partial"] is True and "usage" not in cut
    assert "usage" in next(r for r in records if r.get("messageId") == "ui:1770577664000")


def test_the_header_takes_version_and_host_from_the_first_environment_entry(tmp_path: Path) -> None:
    folder = task_folder(tmp_path, CASES / "ui-only-finished-reasoning-version-host")
    head = convert(folder / "ui_messages.json")[0][0]
    assert head["agent"]["version"] == "3.57.1"
    assert head["host"] == {
        "extension": "saoudrizwan.claude-dev",
        "product": "Cline",
        "name": "Visual Studio Code",
        "version": "1.109.0",
    }
    metadata = json.loads((folder / "task_metadata.json").read_text())
    metadata["environment_history"][0].update(cline_version="Unknown", host_name="Unknown", host_version="Unknown")
    (folder / "task_metadata.json").write_text(json.dumps(metadata))
    head = convert(folder / "ui_messages.json")[0][0]
    assert head["agent"] == {"name": "cline"} and head["host"] == {
        "extension": "saoudrizwan.claude-dev",
        "product": "Cline",
    }


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/cline is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_no_reasoning_row_of_a_real_task_is_partial_once_its_reply_went_on(path: Path) -> None:
    """Issue 27 item 27 over a whole real file: a reasoning row followed, before the next request
    or prompt, by another row of its reply is not partial."""
    from asr_adapters.adapters.cline.rows import REQUEST, call_kind, human_kind, subtypes, text_kind

    rows = json.loads(path.read_bytes())
    kinds = subtypes(rows)
    went_on = set()
    for n, row in enumerate(rows):
        if kinds[n] == ("say", "reasoning") and row.get("partial") is True:
            for later in range(n + 1, len(rows)):
                if kinds[later] == REQUEST or human_kind(kinds[later], later):
                    break
                if (
                    text_kind(kinds[later], rows[later])
                    or call_kind(kinds[later])
                    or kinds[later] == ("ask", "followup")
                ):
                    went_on.add(f"ui:{row['ts']}")
                    break
    records, _ = convert(path, None)
    partial = {r["messageId"] for r in records if r.get("status") == "partial"}
    assert not went_on & partial


# -- issue 27 item 28: Cline CLI 3.x sessions (<sessionId>.messages.json, contract v1) --

CLI3 = CASES / "cli3-messages-session"
CLI3_COMPACTED = CASES / "cli3-messages-compacted"


def cli3_session(tmp_path: Path, document: dict[str, Any], name: str | None = None) -> Path:
    session_id = document.get("sessionId", "s")
    folder = tmp_path / ".cline" / "data" / "sessions" / str(session_id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{session_id}.messages.json")
    path.write_bytes(json.dumps(document, indent="\t").encode())
    return path


def test_a_cli3_session_is_detected_by_its_content_and_converted() -> None:
    """Before this change no adapter claimed the file ("cannot tell which agent wrote this file")."""
    records, conversion = convert(CLI3 / "input.json", None)
    assert conversion.adapter.name == "cline" and conversion.accounting.balanced()
    assert not validate_records(records) and not coming_rule_findings(records)
    head = records[0]
    assert head["session"] == "cline:1784538800000_k3v9q" and head["source"]["format"] == "cline-messages"
    assert head["cwd"] == "/work/acme" and head["ts"] == "2026-07-20T09:13:20.004Z"  # from the manifest
    assert head["agent"] == {"name": "cline", "version": "3.0.56"} and head["host"] == {"source": "cli"}
    document = json.loads((CLI3 / "input.json").read_bytes())
    native = [m for m in document["messages"] if m["role"] in ("user", "assistant")]
    ids = {r.get("messageId") for r in records} | {r.get("cline", {}).get("id") for r in records}
    assert {m["id"] for m in native} <= ids  # every message keeps its native id
    metrics = [m["metrics"] for m in native if "metrics" in m]
    assert [r["nativeUsage"] for r in records if "usage" in r] == metrics  # usage once per response
    assert total_usage(records)["inputTokens"] == sum(m["inputTokens"] for m in metrics)
    typed = [p["text"] for r in records if r["type"] == "message" for p in r["content"] if p.get("author") == "human"]
    assert typed == ["make parse_empty return an empty list @src/parser.rs", "why did it fail?"]
    failed = [r for r in records if r["type"] == "tool_result" and r.get("isError")]
    assert [r["callId"] for r in failed] == ["toolu_02R"]  # is_error false (the writer's default) claims nothing
    assert [r["schema"] for r in records if r["type"] == "vendor"] == ["bot.cline/message"]  # role "tool": kept


def test_a_cli3_compaction_message_is_the_summary_and_commands_are_the_person_s() -> None:
    records, conversion = convert(CLI3_COMPACTED / "input.json", None)
    assert conversion.accounting.balanced() and not validate_records(records)
    summary = [r for r in records if r.get("summaryOf") == "compaction"]
    assert [r["messageId"] for r in summary] == ["msg_r1"] and summary[0]["compaction"] == {}
    assert summary[0]["content"][1]["author"] == "harness" and "author" not in summary[0]["content"][0]
    command = next(r for r in records if r.get("messageId") == "msg_r3")
    assert [(p["text"], p["author"], p["origin"]) for p in command["content"]][1] == ("/commit", "human", "command")


def test_a_cli3_subagent_s_task_is_its_lead_s_words_and_names_the_parent(tmp_path: Path) -> None:
    document = {
        "version": 1,
        "updated_at": "2026-07-20T10:00:00.000Z",
        "agent": "subagent",
        "sessionId": "1784538800000_k3v9q__sub_1",
        "taskType": "subagent_task",
        "origin": {"source": "cli", "mode": "user", "sessionId": "x", "parentThreadId": "1784538800000_k3v9q"},
        "messages": [
            {"id": "m1", "role": "user", "content": [{"type": "text", "text": "List the parser's callers."}]},
            {"id": "m2", "role": "user", "content": []},
        ],
    }
    records, conversion = convert(cli3_session(tmp_path, document), None)
    assert records[0]["parent"] == "cline:1784538800000_k3v9q" and records[0]["source"]["variant"] == "subagent"
    assert records[-1]["content"] == [{"type": "text", "text": "List the parser's callers.", "author": "agent"}]
    assert conversion.accounting.balanced() and "companions" not in records[0]  # no manifest beside it


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"version": 2, "updated_at": "x", "agent": "lead", "sessionId": "s", "messages": []}, "contract version 2"),
        (
            {"version": 1, "session_id": "s", "status": "completed", "messages_path": "/h/.cline/s/s.messages.json"},
            "a Cline CLI session manifest, not its transcript: convert s.messages.json beside it",
        ),
        (
            {"version": 1, "updated_at": "2026-07-20T10:00:00.000Z", "source_message_count": 4, "messages": []},
            "a Cline CLI session's compaction state",
        ),
        ({"sessionId": "s", "hello": "world"}, "neither a Cline CLI messages.json nor its manifest"),
    ],
)
def test_asr_convert_says_which_cline_cli_file_it_found_and_why_it_is_not_read(
    tmp_path: Path, document: dict[str, Any], said: str
) -> None:
    from click.testing import CliRunner

    from asr_adapters.cli import main

    path = cli3_session(tmp_path, document, name="s.json" if "session_id" in document else None)
    for agent in ([], ["--agent", "cline"]) if "version" in document else (["--agent", "cline"],):
        result = CliRunner().invoke(main, ["convert", str(path), *agent])
        assert result.exit_code == 1 and said in result.stderr and "Traceback" not in result.stderr


def test_other_agents_json_objects_are_not_cli3_sessions() -> None:
    from asr_adapters.adapters.cline import sniff

    gemini = b'{\n  "sessionId": "a",\n  "projectHash": "b",\n  "startTime": "t",\n  "messages": []\n}'
    assert sniff.sdk_detect(gemini) == 0
    assert (
        sniff.sdk_detect(b'{"version": 1, "updated_at": "t", "agent": "lead", "sessionId": "s", "messages": []}') == 90
    )


def test_a_cli3_session_folder_has_one_entry_whose_manifest_is_its_companion(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "s1"
    folder.mkdir(parents=True)
    for name in ("s1.messages.json", "s1.json", "s1.compaction.json"):
        (folder / name).write_text("{}")
    assert [discover.is_session_file(folder / n) for n in ("s1.messages.json", "s1.json", "s1.compaction.json")] == [
        True,
        False,
        False,
    ]
    assert discover.companion_files(folder / "s1.messages.json") == [folder / "s1.json"]


def test_native_result_blocks_of_calls_not_run_are_cancelled_or_denied_not_errors(tmp_path: Path) -> None:
    """A native ``tool_result`` block holding Cline's (or Roo Code's, Kilo Code's) notice for a call it
    did not run, or the person's refusal, states that outcome: status cancelled / denied and no
    isError, whatever ``is_error`` the block carries (kept under ``block``). Before: isError true."""
    uses = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": {}} for n, name in enumerate(("a", "b", "c"))
    ]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_0",
            "content": "The user denied this operation.",
            "is_error": True,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "Skipping MCP tool b due to user rejecting a previous tool.",
            "is_error": True,
        },
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Error: no such file", "is_error": True},
    ]
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nx\n</task>"}]},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(history))
    records, _ = convert(path)
    outcomes = [
        (r["callId"], r.get("status"), r.get("isError"), r.get("block")) for r in records if r["type"] == "tool_result"
    ]
    assert outcomes == [
        ("toolu_0", "bot.cline/denied", None, {"is_error": True}),
        ("toolu_1", "bot.cline/cancelled", None, {"is_error": True}),
        ("toolu_2", None, True, None),
    ]
    assert not validate_records(records)


def test_a_task_folder_s_failed_try_that_reported_tokens_keeps_them(tmp_path: Path) -> None:
    """Issue 27 item 26 with an api history: the api history holds one user message for a request
    Cline sent twice; the first try failed mid-stream after the provider counted 5,000 input
    tokens. That try is not folded away as a retry: it stays a (display-only) request message
    carrying its usage, so the task's usage is every request row's count. Before: a vendor
    record, and its tokens left usage."""
    request = "<task>\nfix it\n</task>"
    failed = {"request": request, "tokensIn": 5000, "tokensOut": 12, "cacheWrites": 0, "cacheReads": 0, "cost": 0.02}
    failed.update(cancelReason="streaming_failed")
    sent = {"request": request, "tokensIn": 5100, "tokensOut": 40, "cacheWrites": 0, "cacheReads": 0, "cost": 0.03}
    ui = [
        {"ts": 1000, "type": "say", "say": "task", "text": "fix it", "conversationHistoryIndex": -1},
        {
            "ts": 1001,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps(failed),
            "conversationHistoryIndex": -1,
        },
        {"ts": 1002, "type": "say", "say": "error_retry", "text": '{"attempt":1}', "conversationHistoryIndex": -1},
        {"ts": 1003, "type": "say", "say": "api_req_retried", "conversationHistoryIndex": -1},
        {"ts": 1004, "type": "say", "say": "api_req_started", "text": json.dumps(sent), "conversationHistoryIndex": -1},
        {"ts": 1005, "type": "say", "say": "text", "text": "Fixed.", "partial": False, "conversationHistoryIndex": 0},
    ]
    api = [
        {"role": "user", "content": [{"type": "text", "text": request}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]},
    ]
    folder = tmp_path / "tasks" / "1000"
    folder.mkdir(parents=True)
    (folder / "ui_messages.json").write_text(json.dumps(ui))
    (folder / "api_conversation_history.json").write_text(json.dumps(api))
    records, conversion = convert(folder / "ui_messages.json")
    assert total_usage(records)["inputTokens"] == 10100 and total_usage(records)["outputTokens"] == 52
    tries = [r for r in records if r.get("messageId") == "ui:1001"]
    assert len(tries) == 1 and tries[0]["status"] == "bot.cline/streaming_failed" and tries[0]["content"] == []
    assert conversion.accounting.balanced() and not validate_records(records)


def test_batch_leaves_a_cli_session_manifest_under_another_name_unclaimed(tmp_path: Path) -> None:
    """A Cline CLI 3.x manifest beside its transcript is not a session of its own, whatever its
    file name (the golden case renames the transcript): batch converts the transcript and leaves
    the manifest unclaimed, exit 0 (before, `asr batch golden` failed on it)."""
    from click.testing import CliRunner

    from asr_adapters.cli import main

    folder = GOLDEN / "cline" / "cli3-messages-session"
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["converted"] == 1
