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
    assert [c["name"] for c in calls] == ["readFile", "use_mcp_tool", "execute_command", "attempt_completion"]
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
    assert failed["status"] == "error" and failed["usage"] == {"inputTokens": 7, "outputTokens": 2, "totalTokens": 9}
    completion = next(r for r in records if r.get("messageId") == "ui:11")
    assert completion["displayContent"] == [
        {"type": "text", "text": "Done.", "phase": "final"},
        {"type": "text", "text": "HAS_CHANGES", "author": "harness", "origin": "injected"},
    ]
    unanswered = next(r for r in records if r.get("messageId") == "ui:15")
    assert unanswered["status"] == "bot.cline/streaming_failed"  # no reply: not a prompt the model answered
    assert "status" not in next(r for r in records if r.get("messageId") == "ui:6")  # its reply has one
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
    assert all(str(h).startswith(str(tmp_path)) for h in homes)


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
