"""Cline lone timelines, as a review of the shared samples found them wanting: a shown call is
named by the tool the model called where a result header says it, never by Cline's ui label
alone; a row's members (the plan's too, `partial: false`, empty attachment lists) are kept;
`model` only on what the model wrote; a failed stream's status on the row it cut; a prompt
folds into its request across `deleted_api_reqs` / `resume_task`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from golden_support import GOLDEN

from asr_adapters import validate_records
from asr_adapters.convert import Conversion

CASE = GOLDEN / "cline" / "ui-only-tool-names-resumed-feedback"


def convert(path: Path | bytes) -> tuple[list[dict[str, Any]], Any]:
    conversion = Conversion(path, "cline", as_dicts=True)
    return [r for stream in conversion.streams() for r in stream.records], conversion


def by_message(records: list[dict[str, Any]], message_id: str) -> dict[str, Any]:
    return next(r for r in records if r.get("messageId") == message_id)


def test_a_shown_call_is_named_by_the_header_of_the_result_that_answers_it() -> None:
    records, conversion = convert(CASE / "input.json")
    assert not validate_records(records) and conversion.accounting.balanced()
    calls = [r for r in records if r["type"] == "tool_call"]
    # one ui label (editedExistingFile) is two tools: the header says which
    assert [(c["name"], c["cline"].get("uiName")) for c in calls] == [
        ("read_file", "readFile"),
        ("replace_in_file", "editedExistingFile"),
        ("write_to_file", "editedExistingFile"),
        ("listFilesTopLevel", None),
    ]
    results = {r["callId"]: r["name"] for r in records if r["type"] == "tool_result"}
    assert all(results[c["callId"]] == c["name"] for c in calls[:3])
    # no request answers the last call: its name is only the label, and the record says so
    assert [c["capture"].get("name", {}).get("state") for c in calls] == [None, None, None, "masked"]


def test_model_is_only_on_what_the_model_wrote() -> None:
    records, _ = convert(CASE / "input.json")
    named = {(r["type"], r.get("role"), r.get("author")) for r in records if "model" in r}
    assert named == {("message", "assistant", "model"), ("tool_call", None, None)}
    prompt = by_message(records, "ui:1767700000100")
    assert "model" not in prompt and prompt["cline"]["modelInfo"]["modelId"] == "claude-sonnet-4-5"


def test_plan_rows_and_flags_keep_their_own_members() -> None:
    records, _ = convert(CASE / "input.json")
    plan = next(r for r in records if r["type"] == "plan")
    assert plan["cline"] == {
        "modelInfo": {"providerId": "anthropic", "modelId": "claude-sonnet-4-5", "mode": "act"},
        "conversationHistoryIndex": 0,
    }
    assert by_message(records, "ui:1767700002000")["cline"]["partial"] is False
    task_row = by_message(records, "ui:1767700000100")["displayRows"][0]
    assert task_row["images"] == [] and task_row["files"] == []


def test_feedback_folds_into_its_request_across_deleted_requests_and_a_resume() -> None:
    records, conversion = convert(CASE / "input.json")
    request = by_message(records, "ui:1767700210000")
    assert request["assembly"]["sourceIds"] == ["1767700060000", "1767700210000"]
    prompt = {"type": "text", "text": "also sort the keys", "author": "human", "origin": "prompt"}
    assert request["displayContent"][0] == prompt
    assert not any(r.get("messageId") == "ui:1767700060000" for r in records)
    assert conversion.accounting.balanced()


def test_a_failed_stream_s_status_is_on_the_row_it_cut() -> None:
    def row(ts: int, say: str, text: str, **more: Any) -> dict[str, Any]:
        return {"ts": ts, "type": "say", "say": say, "text": text, **more}

    info = {"request": "<task>\nhi\n</task>", "tokensIn": 5, "tokensOut": 3, "cancelReason": "streaming_failed"}
    rows = [
        row(1, "task", "hi"),
        row(2, "api_req_started", json.dumps(info)),
        row(3, "reasoning", "Plan it.", partial=False),
        row(4, "text", "Half a sen", partial=True),
        {"ts": 5, "type": "ask", "ask": "resume_task"},
    ]
    records, _ = convert(json.dumps(rows).encode())
    reasoning, text = by_message(records, "ui:3"), by_message(records, "ui:4")
    assert "status" not in reasoning and reasoning["usage"]["outputTokens"] == 3  # finished; the reply's cost
    assert text["status"] == "error" and text["cline"]["partial"] is True  # generation failed here
