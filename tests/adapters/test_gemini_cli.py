"""Gemini CLI adapter: mapping rules of both eras, discovery, and every shared sample."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from golden_support import golden_cases, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.gemini_cli import discover
from asr_adapters.adapters.gemini_cli.adapter import era
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

SID = "3f9c2a71-5b8e-4d20-9a1c-7e6b0d4f2a18"
HEADER = {"sessionId": SID, "projectHash": "ab" * 32, "startTime": "2026-03-18T10:00:00.000Z", "kind": "main"}


def run(data: bytes, name: str = "session-2026-03-18T10-00-3f9c2a71.jsonl") -> tuple[list[dict[str, Any]], Any]:
    conversion = Conversion(Source(data, name=name), "gemini-cli", as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    assert not validate_records(records), [f.describe() for f in validate_records(records)]
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    assert not coming_rule_findings(records), coming_rule_findings(records)
    return records, conversion.accounting


#: the native ids whose repetition the coming validator rule (issue 14.14) reports, per record type
NATIVE_IDS = {"message": "messageId", "tool_call": "callId", "plan": "planId", "input_request": "requestId"}


def coming_rule_findings(records: list[dict[str, Any]]) -> list[str]:
    """The validator rules of issue 14.14/15, as HELPERS.md states them: a native id written
    again must supersede its earlier record or carry copiedFrom; a tool_result names a
    tool_call; references (supersedes, removal lists) name records of the stream."""
    findings = []
    by_id = {r["id"]: r for r in records}
    calls = {r["callId"] for r in records if r["type"] == "tool_call"}
    seen: dict[tuple[str, str], str] = {}
    for record in records:
        field = NATIVE_IDS.get(record["type"])
        if field is not None and isinstance(record.get(field), str):
            key = (field, record[field])
            if key in seen and "copiedFrom" not in record:
                target = by_id.get(record.get("supersedes", ""))
                if target is None or target.get(field) != record[field]:
                    findings.append(f"{record['id']}: {field} {record[field]!r} written again by {seen[key]}")
            seen[key] = record["id"]
        if record["type"] == "tool_result" and record["callId"] not in calls:
            findings.append(f"{record['id']}: tool_result of {record['callId']!r} has no tool_call")
        for rid in record.get("reverted", ()):
            if rid not in by_id:
                findings.append(f"{record['id']}: reverted {rid!r} names no record")
    return findings


def jsonl(*lines: Any) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def document(messages: list[Any], **meta: Any) -> bytes:
    return json.dumps(
        {**HEADER, "lastUpdated": "2026-03-18T10:09:00.000Z", "messages": messages, **meta}, indent=2
    ).encode()


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


def gemini(mid: str, content: Any = "", **more: Any) -> dict[str, Any]:
    return {"id": mid, "timestamp": "2026-03-18T10:01:00.000Z", "type": "gemini", "content": content, **more}


def call(cid: str, name: str = "read_file", status: str = "success", output: str = "ok", **more: Any) -> dict[str, Any]:
    result = [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]
    return {
        "id": cid,
        "name": name,
        "args": {"p": 1},
        "result": result,
        "status": status,
        "timestamp": "2026-03-18T10:02:00.000Z",
        **more,
    }


# -- detection and eras -------------------------------------------------------------------


def test_detects_both_eras_and_tells_them_apart() -> None:
    pretty = document([])
    compact = jsonl(HEADER)
    assert registry.detect(Source(pretty)).name == "gemini-cli"
    assert registry.detect(Source(compact)).name == "gemini-cli"
    assert era(pretty[:8192]) == "json"
    assert era(compact) == "jsonl"
    assert era(json.dumps({**HEADER, "messages": []}).encode()) == "json"  # a one-line legacy document
    assert registry.get("gemini-cli").detect(Source(b'{"type":"session_meta"}\n')) == 0


# -- messages --------------------------------------------------------------------------------


def test_user_and_gemini_messages_keep_ids_tokens_model_and_thought_summaries() -> None:
    thoughts = [{"subject": "Plan", "description": "Read first.", "timestamp": "2026-03-18T09:59:00.000Z"}]
    records, accounting = run(
        document(
            [
                {"id": "u1", "timestamp": "2026-03-18T10:00:00.000Z", "type": "user", "content": "hi"},
                gemini("g1", "Hello.", thoughts=thoughts, tokens={"input": 3, "output": 1, "total": 4}, model="m-1"),
            ]
        ),
        name="session-x.json",
    )
    user, reply = of_type(records, "message")
    assert (user["messageId"], user["role"], user["author"], user["origin"]) == ("u1", "user", "human", "prompt")
    assert user["content"] == [{"type": "text", "text": "hi"}]
    assert (reply["messageId"], reply["role"], reply["author"]) == ("g1", "assistant", "model")
    assert reply["content"][0] == {
        "type": "reasoning",
        "visibility": "summary",
        "summary": ["Plan", "Read first."],
        "_meta": {"com.google.gemini-cli/thought": {"timestamp": "2026-03-18T09:59:00.000Z"}},
    }
    assert reply["content"][1] == {"type": "text", "text": "Hello."}
    assert reply["model"] == "m-1" and reply["nativeUsage"] == {"input": 3, "output": 1, "total": 4}
    assert reply["usage"] == {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}
    assert "audience" not in user and "audience" not in reply  # never defaulted (ASR-204)
    assert accounting.native_items == 2 and accounting.records == 2


def test_inline_data_becomes_image_and_audio_parts() -> None:
    parts = [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}, {"inlineData": {"mimeType": "audio/wav"}}]
    records, _ = run(document([{"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": parts}]))
    content = of_type(records, "message")[0]["content"]
    assert content == [
        {"type": "image", "mimeType": "image/png", "data": "AA=="},
        {"type": "audio", "mimeType": "audio/wav"},
    ]


def test_display_content_is_native_and_typed_text_is_the_humans() -> None:
    msg = {
        "id": "u1",
        "timestamp": "2026-03-18T10:00:00.000Z",
        "type": "user",
        "content": [{"text": "Expanded review prompt."}],
        "displayContent": [{"text": "/review"}],
    }
    message = of_type(run(document([msg]))[0], "message")[0]
    assert message["origin"] == "command" and "author" not in message
    assert message["content"] == [{"type": "text", "text": "Expanded review prompt."}]
    assert message["displayContent"] == [{"type": "text", "text": "/review", "author": "human"}]
    assert message["displayCorrespondence"] == "native"


def test_slash_text_the_cli_sent_verbatim_is_a_prompt_not_a_command() -> None:
    """Review finding E, decided: a "/..." that only ``content`` holds is what the model received
    unchanged. Gemini CLI records the typed text as ``displayContent`` beside the expansion when it
    ran a command (a custom TOML command, an MCP prompt) and sends a slash text no command matches
    to the model as a prompt, so "/handoff" with no display (the shared aim sample) was no command
    invocation: origin prompt, author human; the "/review" it expanded is origin command."""
    typed = {"id": "u1", "timestamp": "2026-03-18T10:00:00.000Z", "type": "user", "content": [{"text": "/handoff"}]}
    ran = {
        "id": "u2",
        "timestamp": "2026-03-18T10:00:01.000Z",
        "type": "user",
        "content": [{"text": "Expanded review prompt."}],
        "displayContent": [{"text": "/review"}],
    }
    by_id = {m["messageId"]: m for m in of_type(run(document([typed, ran]))[0], "message")}
    assert (by_id["u1"]["origin"], by_id["u1"]["author"]) == ("prompt", "human")
    assert "displayContent" not in by_id["u1"]
    assert by_id["u2"]["origin"] == "command"


def test_typed_text_that_reached_the_model_unchanged_is_the_humans() -> None:
    msg = {
        "id": "u1",
        "timestamp": "2026-03-18T10:00:00Z",
        "type": "user",
        "content": [{"text": "Lint it."}, {"text": "<hook_context>h</hook_context>"}],
        "displayContent": [{"text": "Lint it.\n"}],
    }
    message = of_type(run(document([msg]))[0], "message")[0]
    assert (message["author"], message["origin"]) == ("human", "prompt")
    assert message["content"][1]["author"] == "hook"


def test_reference_block_and_hook_context_are_split_off_with_every_character() -> None:
    text = "Explain @a.md\n--- Content from referenced files ---\nbody\n--- End of content ---"
    msg = {
        "id": "u1",
        "timestamp": "2026-03-18T10:00:00.000Z",
        "type": "user",
        "content": [{"text": text}, {"text": "<hook_context>x</hook_context>"}],
    }
    message = of_type(run(document([msg]))[0], "message")[0]
    parts = message["content"]
    assert "".join(p["text"] for p in parts[:2]) == text
    assert parts[0] == {"type": "text", "text": "Explain @a.md"}
    assert (parts[1]["author"], parts[1]["origin"]) == ("harness", "injected")
    assert (parts[2]["author"], parts[2]["origin"]) == ("hook", "injected")
    assert message["author"] == "human"


def test_session_context_snapshot_and_acknowledgement_are_harness_turns() -> None:
    records, _ = run(
        document(
            [
                {
                    "id": "c",
                    "timestamp": "2026-03-18T10:00:00Z",
                    "type": "user",
                    "content": [{"text": "<session_context>\nenv"}],
                },
                {
                    "id": "s",
                    "timestamp": "2026-03-18T10:00:01Z",
                    "type": "user",
                    "content": [{"text": "<state_snapshot>x"}],
                },
                gemini("k", [{"text": "Got it. Thanks for the additional context!"}]),
            ]
        )
    )
    assert [(m["author"], m["origin"]) for m in of_type(records, "message")] == [("harness", "injected")] * 3


def test_notices_are_harness_notices_for_the_user_even_before_the_first_prompt() -> None:
    records, _ = run(
        document(
            [
                {"id": "e1", "timestamp": "2026-03-18T10:00:00.000Z", "type": "error", "content": "boom"},
                {"id": "u1", "timestamp": "2026-03-18T10:00:01.000Z", "type": "user", "content": "hi"},
            ]
        )
    )
    notice = of_type(records, "message")[0]
    assert (notice["author"], notice["origin"], notice["audience"]) == ("harness", "notice", "user")
    assert "role" not in notice and notice["capture"]["role"]["state"] == "absent"
    assert notice["nativeType"] == "error" and notice["content"] == [{"type": "text", "text": "boom"}]


def test_binary_info_turn_goes_to_the_model_as_tool_output() -> None:
    msg = {
        "id": "i1",
        "timestamp": "2026-03-18T10:00:00Z",
        "type": "info",
        "content": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}],
    }
    message = of_type(run(document([msg]))[0], "message")[0]
    assert (message["role"], message["author"], message["audience"]) == ("user", "tool", "model")


def test_subagent_task_prompt_is_the_parent_agents_and_flat_files_get_their_own_reference() -> None:
    records, _ = run(
        document(
            [
                {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": [{"text": "Your task"}]},
                {"id": "u2", "timestamp": "2026-03-18T10:00:05Z", "type": "user", "content": [{"text": "Hurry up"}]},
            ],
            kind="subagent",
            summary="Task",
        )
    )
    head = records[0]
    assert head["session"] == f"gemini-cli:{SID}-subagent-20260318T100000000Z"
    assert head["parent"] == f"gemini-cli:{SID}" and head["idSource"] == "derived" and head["title"] == "Task"
    assert [m["author"] for m in of_type(records, "message")] == ["agent", "harness"]


def test_a_revised_subagent_task_stays_the_parents() -> None:
    head = {**HEADER, "kind": "subagent", "directories": []}
    task = {"id": "t1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": [{"text": "Task"}]}
    records, _ = run(jsonl(head, task, {**task, "content": [{"text": "Task, revised"}]}))
    assert [m["author"] for m in of_type(records, "message")] == ["agent", "agent"]


# -- tools and plans ----------------------------------------------------------------------


def test_tool_statuses_displays_and_capture_states() -> None:
    masked = "<tool_output_masked>\npreview\nOutput too large. Full output available at: /t/x.txt</tool_output_masked>"
    truncated = "Output too large. Showing first 4 and last 4 characters. For full output see: /t/y.txt\nab"
    calls = [
        call("c1", resultDisplay={"fileDiff": "@@"}),
        call(
            "c2",
            status="error",
            output="",
            result=[{"functionResponse": {"id": "c2", "name": "read_file", "response": {"error": "nope"}}}],
        ),
        call("c3", status="cancelled", result=None, resultDisplay=None),
        call("c4", output=masked),
        call("c5", output=truncated, resultDisplay="shown"),
    ]
    records, _ = run(document([gemini("g1", "Working.", toolCalls=calls)]))
    results = {r["callId"]: r for r in of_type(records, "tool_result")}
    assert results["c1"]["status"] == "complete" and results["c1"]["isError"] is False
    assert results["c1"]["displayContent"] == [
        {"type": "data", "data": {"fileDiff": "@@"}, "schema": "com.google.gemini-cli/resultDisplay"}
    ]
    assert results["c2"]["status"] == "error" and results["c2"]["isError"] is True
    assert results["c2"]["content"] == [{"type": "text", "text": "nope"}]
    assert results["c3"]["status"] == "com.google.gemini-cli/cancelled" and results["c3"]["content"] == []
    # cancelled with no output: the source states no error either way, and says nothing came back
    assert "isError" not in results["c3"]
    assert results["c3"]["capture"]["content"] == {
        "state": "absent",
        "reason": "Gemini CLI recorded no output for this call",
    }
    assert results["c4"]["capture"]["content"]["state"] == "masked"
    assert results["c5"]["capture"]["content"]["state"] == "truncated"
    assert results["c5"]["displayContent"] == [{"type": "text", "text": "shown"}]
    tool_calls = of_type(records, "tool_call")
    assert [c["messageId"] for c in tool_calls] == ["g1"] * 5 and tool_calls[0]["input"] == {"p": 1}


def test_tool_only_reply_writes_no_empty_message_and_keeps_model_and_usage() -> None:
    records, _ = run(document([gemini("g1", "", toolCalls=[call("c1")], tokens={"total": 9}, model="m")]))
    assert of_type(records, "message") == []
    tool_call = of_type(records, "tool_call")[0]
    assert tool_call["inferenceId"] == "g1" and "messageId" not in tool_call
    assert tool_call["model"] == "m" and tool_call["usage"] == {"totalTokens": 9}
    assert tool_call["nativeUsage"] == {"total": 9}
    assert all("usage" not in c for c in of_type(records, "tool_call")[1:])


def test_raw_function_call_parts_become_tool_calls_without_an_empty_message() -> None:
    reply = gemini("g1", [{"functionCall": {"name": "ls", "args": {"d": "."}}}], model="m")
    records, accounting = run(document([reply]))
    assert of_type(records, "message") == [] and of_type(records, "vendor") == []
    (tool_call,) = of_type(records, "tool_call")
    assert tool_call["callId"] == "g1:content[0]" and tool_call["idSource"] == "derived"
    assert tool_call["inferenceId"] == "g1" and tool_call["input"] == {"d": "."} and tool_call["model"] == "m"
    assert accounting.records == 1


def test_write_todos_revisions_and_plan_document() -> None:
    def todos(cid: str, *items: tuple[str, str], status: str = "success") -> dict[str, Any]:
        return call(
            cid, "write_todos", status=status, args={"todos": [{"description": d, "status": s} for d, s in items]}
        )

    plan_path = "/h/.gemini/tmp/p/sid/plans/migrate.md"
    records, _ = run(
        document(
            [
                gemini(
                    "g1",
                    "Plan.",
                    toolCalls=[
                        todos("t1", ("a", "pending")),
                        todos("t2", ("a", "completed"), ("b", "blocked")),
                        todos("t3", status="error"),
                        call("x1", "exit_plan_mode", args={"plan_path": plan_path}),
                    ],
                )
            ]
        )
    )
    plans = of_type(records, "plan")
    assert [p["planId"] for p in plans] == ["write_todos", "write_todos", "migrate"]
    assert plans[1]["supersedes"] == plans[0]["id"] and "supersedes" not in plans[0]
    assert plans[1]["entries"] == [
        {"content": "a", "status": "completed"},
        {"content": "b", "status": "com.google.gemini-cli/blocked"},
    ]
    assert plans[0]["idSource"] == "derived" and plans[0]["callId"] == "t1"
    assert plans[2]["planType"] == "document" and plans[2]["source"] == {"root": None, "path": plan_path}
    assert plans[2]["capture"]["content"]["state"] == "absent"


def test_plan_document_text_is_the_last_the_session_recorded() -> None:
    path = "/h/.gemini/tmp/p/s/plans/fix.md"
    write = {**call("w1", name="write_file"), "args": {"file_path": path, "content": "# v1"}}
    failed = {**call("w2", name="write_file", status="error"), "args": {"file_path": path, "content": "# no"}}
    other = {**call("w3", name="write_file"), "args": {"file_path": "/h/notes.md", "content": "# notes"}}
    exit_call = {**call("e1", name="exit_plan_mode"), "args": {"plan_path": "plans/fix.md"}}
    records, _ = run(document([gemini("g1", "Plan.", toolCalls=[write, failed, other, exit_call])]))
    (plan,) = of_type(records, "plan")
    assert plan["content"] == [{"type": "text", "text": "# v1"}] and "capture" not in plan
    records, _ = run(document([gemini("g1", "Plan.", toolCalls=[other, exit_call])]))
    (plan,) = of_type(records, "plan")
    assert "content" not in plan and plan["capture"]["content"]["state"] == "absent"


def test_agent_id_links_the_subagent_session() -> None:
    records, _ = run(
        jsonl(HEADER, gemini("g1", "Delegating.", toolCalls=[call("c1", "codebase_investigator", agentId="kid-1")]))
    )
    subagent = of_type(records, "subagent")[0]
    assert subagent == {
        "type": "subagent",
        "seq": subagent["seq"],
        "id": subagent["id"],
        "ts": "2026-03-18T10:02:00.000Z",
        "callId": "c1",
        "session": "gemini-cli:kid-1",
        "agentType": "codebase_investigator",
    }


def test_a_subagent_carries_the_time_of_its_tool_call_entry() -> None:
    """Issue 27.12: the subagent record is derived from the toolCalls[] entry: its ``timestamp``."""
    timed = call("c1", "codebase_investigator", agentId="kid-1", timestamp="2026-03-18T10:05:07.250Z")
    untimed = {k: v for k, v in call("c2", "codebase_investigator", agentId="kid-2").items() if k != "timestamp"}
    records, _ = run(jsonl(HEADER, gemini("g1", "Delegating.", toolCalls=[timed, untimed])))
    subagents = {s["callId"]: s for s in of_type(records, "subagent")}
    results = {r["callId"]: r for r in of_type(records, "tool_result")}
    assert subagents["c1"]["ts"] == results["c1"]["ts"] == "2026-03-18T10:05:07.250Z"
    assert "ts" not in subagents["c2"] and "ts" not in results["c2"]  # no time recorded: none invented


# -- JSONL replay -----------------------------------------------------------------------


def test_repeated_id_is_a_revision_and_identical_repeats_are_duplicates() -> None:
    first = gemini("g1", "Hi.", tokens=None, model="m")
    records, accounting = run(
        jsonl(HEADER, first, {**first, "tokens": {"total": 2}}, {**first, "tokens": {"total": 2}})
    )
    messages = of_type(records, "message")
    assert [m["messageId"] for m in messages] == ["g1", "g1"]
    assert messages[1]["supersedes"] == messages[0]["id"] and messages[1]["usage"] == {"totalTokens": 2}
    assert (accounting.native_items, accounting.records, accounting.duplicates) == (4, 3, 1)


def test_function_response_user_turn_keeps_its_id_and_time_beside_the_recorded_result() -> None:
    """Issue 27.11: the turn writes no second tool_result and is no prompt, but its native id
    and timestamp stay in the stream (a vendor record a ``messageId=`` ref and a rewind can name);
    the same line again adds nothing."""
    response = {
        "id": "u2",
        "timestamp": "2026-03-18T10:03:00.250Z",
        "type": "user",
        "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "ok"}}}],
    }
    records, accounting = run(jsonl(HEADER, gemini("g1", "Reading.", toolCalls=[call("c1")]), response, response))
    assert len(of_type(records, "tool_result")) == 1
    assert all(m.get("origin") != "prompt" for m in of_type(records, "message"))
    (turn,) = of_type(records, "vendor")
    assert turn["schema"] == "com.google.gemini-cli/functionResponseTurn" and turn["data"] == response
    assert (turn["messageId"], turn["ts"]) == ("u2", "2026-03-18T10:03:00.250Z") and "idSource" not in turn
    assert (accounting.vendor, accounting.duplicates) == (1, 1)
    # no native id: the derived one, said so
    records, _ = run(jsonl(HEADER, gemini("g1", "Reading.", toolCalls=[call("c1")]), {**response, "id": ""}))
    (turn,) = of_type(records, "vendor")
    assert turn["messageId"] == f"{SID}:line3" and turn["idSource"] == "derived"


def test_a_replys_empty_first_versions_fold_into_its_first_record() -> None:
    placeholder = gemini("g1", "", thoughts=[], tokens=None, model="m")
    with_tokens = {**placeholder, "tokens": {"input": 5, "total": 5}}
    reply = {**with_tokens, "content": "Done."}
    records, accounting = run(jsonl(HEADER, placeholder, with_tokens, reply, {"$rewindTo": "g1"}))
    assert not of_type(records, "vendor")[:-1]  # only the rewind: no vendor record for the reply
    (message,) = of_type(records, "message")
    assert message["assembly"] == {"mode": "folded", "sourceIds": ["g1"]} and message["usage"]["totalTokens"] == 5
    assert of_type(records, "vendor")[-1]["reverted"] == [message["id"]]
    assert accounting.folded == 2 and accounting.records == 2
    # never filled (the file ends, or another message comes first): written as before
    records, accounting = run(jsonl(HEADER, placeholder))
    assert [v["data"] for v in of_type(records, "vendor")] == [placeholder] and accounting.vendor == 1
    records, accounting = run(jsonl(placeholder, HEADER))  # held as the first line, no header before it
    assert accounting.vendor == 2 and accounting.duplicates == 0
    notice = {"id": "n1", "timestamp": "2026-03-18T10:01:01Z", "type": "info", "content": "Request cancelled."}
    records, _ = run(jsonl(HEADER, placeholder, notice))
    assert [r["type"] for r in records[1:]] == ["vendor", "message"]
    # a later version that does not keep what the empty one held (another model): not folded
    records, accounting = run(jsonl(HEADER, placeholder, {**reply, "model": "other"}))
    assert [r["type"] for r in records[1:]] == ["vendor", "message"] and accounting.folded == 0


def test_rewind_and_reset_keep_records_and_name_what_left_the_history() -> None:
    u1 = {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": "one"}
    u2 = {**u1, "id": "u2", "content": "two"}
    records, accounting = run(
        jsonl(HEADER, u1, u2, {"$rewindTo": "u2"}, {"$set": {"messages": [u1]}}, {"$rewindTo": "zz"}, u1)
    )
    vendors = [r for r in of_type(records, "vendor") if r["schema"] != "com.google.gemini-cli/metadata"]
    assert [v["schema"] for v in vendors] == [
        "com.google.gemini-cli/rewind",
        "com.google.gemini-cli/set",
        "com.google.gemini-cli/rewind",
    ]
    # the removal names the records the removed messages stand for (u2, then u1's first record)
    assert [v["reverted"] for v in vendors] == [["r3"], [], ["r2"]]
    assert vendors[0]["data"] == {"$rewindTo": "u2"}
    messages = of_type(records, "message")
    assert [m["messageId"] for m in messages] == ["u1", "u2", "u1"]  # u1 came back after the rewind
    assert messages[2]["supersedes"] == messages[0]["id"]
    assert accounting.native_items == 7 and accounting.vendor == 3


def test_each_call_keeps_only_its_own_response_after_the_masking_sync() -> None:
    """updateMessagesFromHistory sets every toolCalls[] entry's result to all the responses of
    the function-response turn: each tool_result keeps the one matching its id (or, without
    ids, its name and position), so nothing is revised and isError does not flip."""
    ok = {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "AAA"}}}
    bad = {"functionResponse": {"id": "c2", "name": "run_shell_command", "response": {"error": "denied"}}}
    first = [call("c1", output="AAA"), call("c2", name="run_shell_command", status="error")]
    first[1]["result"] = [bad]
    reply = gemini("g1", "Two calls.", toolCalls=first)
    synced = {**reply, "toolCalls": [{**c, "result": [ok, bad]} for c in first]}
    records, accounting = run(jsonl(HEADER, reply, synced))
    results = of_type(records, "tool_result")
    assert [(r["callId"], r["isError"], r["content"]) for r in results] == [
        ("c1", False, [{"type": "text", "text": "AAA"}]),
        ("c2", True, [{"type": "text", "text": "denied"}]),
    ]
    assert accounting.duplicates == 1
    # responses without ids: the one at the call's position, when its name is the call's
    anonymous = [
        {"functionResponse": {"name": p["functionResponse"]["name"], "response": p["functionResponse"]["response"]}}
        for p in (ok, bad)
    ]
    records, _ = run(jsonl(HEADER, {**reply, "toolCalls": [{**c, "result": anonymous} for c in first]}))
    assert [r["content"][0]["text"] for r in of_type(records, "tool_result")] == ["AAA", "denied"]


def test_a_function_response_revision_keeps_what_the_call_entry_recorded() -> None:
    masked = "<tool_output_masked>\np\nOutput too large. Full output available at: /t/x</tool_output_masked>"
    reply = gemini("g1", "Reading.", toolCalls=[call("c1", resultDisplay="Read 1 line")])
    response = {
        "id": "u2",
        "timestamp": "2026-03-18T10:03:00Z",
        "type": "user",
        "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": masked}}}],
    }
    records, _ = run(jsonl(HEADER, reply, response))
    first, revision = of_type(records, "tool_result")
    assert revision["supersedes"] == first["id"] and revision["capture"]["content"]["state"] == "masked"
    for key in ("status", "isError", "displayContent"):
        assert revision[key] == first[key], key


def test_masking_rewrite_revises_the_tool_result() -> None:
    masked = "<tool_output_masked>\np\nOutput too large. Full output available at: /t/x</tool_output_masked>"
    reply = gemini("g1", "Reading.", toolCalls=[call("c1")])
    rewritten = {**reply, "toolCalls": [call("c1", output=masked)]}
    records, _ = run(jsonl(HEADER, reply, {"$set": {"messages": [rewritten]}}))
    first, second = of_type(records, "tool_result")
    assert second["supersedes"] == first["id"] and second["capture"]["content"]["state"] == "masked"
    assert "capture" not in first and len(of_type(records, "tool_call")) == 1


def unskipped(monkeypatch: pytest.MonkeyPatch, data: bytes) -> tuple[list[dict[str, Any]], Any]:
    """``run`` with no native digests: every message and toolCalls[] entry mapped again."""
    from asr_adapters.adapters.gemini_cli import calls
    from asr_adapters.adapters.gemini_cli import jsonl as reader
    from asr_adapters.core.adapter import Context

    lines = Context.parsed_lines
    with monkeypatch.context() as patch:
        patch.setattr(calls, "native_digest", lambda value: None)
        patch.setattr(reader, "native_digest", lambda value: None)
        patch.setattr(
            Context, "parsed_lines", lambda context, *names: ((n, v, b"") for n, v, _ in lines(context, *names))
        )
        return run(data)


def response_turn(mid: str, cid: str, output: str) -> dict[str, Any]:
    parts = [{"functionResponse": {"id": cid, "name": "read_file", "response": {"output": output}}}]
    return {"id": mid, "timestamp": "2026-03-18T10:03:00Z", "type": "user", "content": parts}


REPLY = gemini("g1", "Reading.", toolCalls=[call("c1"), call("c2")])
REVISED = {**REPLY, "toolCalls": [call("c1", output="changed"), call("c2")]}
USER = {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": "one"}
SKIP_CASES = {
    # a function-response turn reads the result a reply wrote; the reply revises it; the turn comes back
    "response after revision": [
        HEADER,
        REPLY,
        response_turn("u2", "c1", "ok"),
        REVISED,
        response_turn("u2", "c1", "ok"),
    ],
    "reset after revision": [
        HEADER,
        REPLY,
        response_turn("u2", "c1", "ok"),
        {"$set": {"messages": [REVISED, response_turn("u2", "c1", "ok")]}},
        {"$set": {"messages": [REPLY, response_turn("u2", "c1", "ok")]}},
    ],
    # two replies share a call id: each one's unchanged repeat still revises what the other wrote
    "shared call id": [HEADER, REPLY, gemini("g2", "Again.", toolCalls=[call("c1", output="x")]), REPLY],
    "raw call part": [HEADER, gemini("g2", [{"functionCall": {"id": "c1", "name": "n", "args": {}}}]), REPLY, REPLY],
    # a toolCalls[] entry that is not an object is written each time its message is
    "entry not an object": [HEADER, gemini("g1", "x", toolCalls=[7]), gemini("g1", "x", toolCalls=[7])],
    "unchanged repeats": [HEADER, USER, REPLY, REPLY, {"$set": {"messages": [USER, REPLY]}}, USER, REVISED, REVISED],
    "derived ids": [HEADER, {**USER, "id": ""}, {**USER, "id": ""}, REPLY, REPLY],
    # a native id that spells a derived one (line 3's)
    "derived id taken": [
        HEADER,
        {**USER, "id": f"{SID}:line3"},
        {**USER, "id": "", "content": "2"},
        {**USER, "id": f"{SID}:line3"},
    ],
    "rewind and back": [HEADER, USER, REPLY, {"$rewindTo": "g1"}, REPLY, REPLY, {"$set": {"messages": []}}, USER],
}


@pytest.mark.parametrize("lines", SKIP_CASES.values(), ids=list(SKIP_CASES))
def test_skipping_unchanged_natives_writes_what_mapping_them_again_writes(
    monkeypatch: pytest.MonkeyPatch, lines: list[Any]
) -> None:
    records, accounting = run(jsonl(*lines))
    expected, expected_accounting = unskipped(monkeypatch, jsonl(*lines))
    assert records == expected
    assert accounting.as_dict() == expected_accounting.as_dict()


HISTORY_CASE = [
    HEADER,
    USER,
    REPLY,
    response_turn("u2", "c1", "ok"),
    {**USER, "id": "u3"},
    {"$rewindTo": "u2"},
    REVISED,
    {"$set": {"messages": [USER, REVISED, {**USER, "id": "u3"}]}},
    {"$rewindTo": "nowhere"},
    REPLY,
    {**USER, "id": "u3", "content": "three"},
    {"$set": {"messages": [REPLY, USER, {**USER, "id": "u4"}, USER]}},
    {"$rewindTo": "u4"},
    USER,
]


@pytest.mark.parametrize("lines", [*SKIP_CASES.values(), HISTORY_CASE], ids=[*SKIP_CASES, "history"])
def test_state_moved_to_disk_answers_as_in_memory(monkeypatch: pytest.MonkeyPatch, lines: list[Any]) -> None:
    """Per-id state and the replayed history live in SpillMaps: with one entry kept in memory
    (everything older read back from disk), rewinds, resets and skips write the same."""
    from asr_adapters.core import spill

    expected, expected_accounting = run(jsonl(*lines))
    monkeypatch.setattr(spill, "DEFAULT_LIMIT", 1)
    records, accounting = run(jsonl(*lines))
    assert records == expected
    assert accounting.as_dict() == expected_accounting.as_dict()


def test_a_rewind_names_what_left_in_history_order() -> None:
    records, _ = run(jsonl(*HISTORY_CASE))
    reverted = [r["reverted"] for r in of_type(records, "vendor") if "reverted" in r]
    # u2 (a function-response turn repeating r5) stands for its own vendor record r8 (issue 27.11);
    # a removed reply names the latest revision of each of its records (r11 revised r5), in history order
    assert reverted == [["r8", "r9"], [], ["r2", "r3", "r4", "r11", "r6", "r7", "r12"], ["r20"], ["r22"]]


def test_an_unchanged_repeat_is_not_mapped_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from asr_adapters.adapters.gemini_cli import mapping

    mapped: list[str] = []
    build = mapping.Mapper._tool_call

    def counting(self: Any, call: dict[str, Any], *args: Any) -> None:
        mapped.append(call["id"])
        build(self, call, *args)

    monkeypatch.setattr(mapping.Mapper, "_tool_call", counting)
    _, accounting = run(jsonl(HEADER, USER, REPLY, REPLY, {"$set": {"messages": [USER, REVISED]}}))
    assert mapped == ["c1", "c2", "c1"]  # the line repeat not at all, the reset only the changed entry
    assert accounting.duplicates == 1


def test_torn_last_line_is_unreadable_and_reported() -> None:
    data = (
        jsonl(HEADER, {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": "x"})
        + b'{"id":"u2","ty'
    )
    records, accounting = run(data)
    assert accounting.unreadable == 1 and accounting.diagnostics[0].line == 3
    assert len(of_type(records, "message")) == 1


def test_unknown_kinds_are_vendor_records_verbatim() -> None:
    odd = {"id": "q1", "timestamp": "2026-03-18T10:00:00Z", "type": "thinking_log", "content": "?"}
    records, accounting = run(jsonl(HEADER, odd, [1, 2], {"what": "else"}))
    vendors = of_type(records, "vendor")
    assert [v["data"] for v in vendors] == [odd, [1, 2], {"what": "else"}]
    assert accounting.vendor == 3


def test_output_is_deterministic_and_stable_when_the_log_grows() -> None:
    lines = [HEADER, gemini("g1", "A.", tokens=None), {"$set": {"lastUpdated": "x"}}]
    grown = [*lines, {**lines[1], "tokens": {"total": 1}}]
    short, _ = run(jsonl(*lines))
    long, _ = run(jsonl(*grown))
    assert run(jsonl(*lines))[0] == short
    assert long[: len(short)] == short


def test_header_keeps_every_metadata_member_and_the_title() -> None:
    head = run(jsonl({**HEADER, "summary": "Fix it", "directories": ["/w"]}))[0][0]
    assert head["session"] == f"gemini-cli:{SID}" and head["ts"] == "2026-03-18T10:00:00.000Z"
    assert head["title"] == "Fix it" and head["source"] == {
        "format": "gemini-cli-chat",
        "variant": "jsonl",
        "file": "session-2026-03-18T10-00-3f9c2a71.jsonl",
    }
    assert head["meta"] == {**HEADER, "summary": "Fix it", "directories": ["/w"]}


def test_display_only_message_has_empty_content_with_capture_absent() -> None:
    msg = {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": [], "displayContent": "/go"}
    message = of_type(run(document([msg]))[0], "message")[0]
    assert message["content"] == [] and message["capture"]["content"]["state"] == "absent"
    assert "displayCorrespondence" not in message


def test_empty_or_unreadable_input_is_an_input_error() -> None:
    from asr_adapters.core.errors import InputError

    for data in (b"", b"\n\n", b"{not json\n"):
        with pytest.raises(InputError):
            run(data)


def test_subagent_in_its_parents_folder_links_the_parent(tmp_path: Path) -> None:
    folder = tmp_path / "chats" / SID
    folder.mkdir(parents=True)
    path = folder / "kid-1.jsonl"
    path.write_bytes(jsonl({**HEADER, "sessionId": "kid-1", "kind": "subagent", "directories": []}))
    head = next(r for s in Conversion(path, "gemini-cli", as_dicts=True).streams() for r in s.records)
    assert head["session"] == "gemini-cli:kid-1" and head["parent"] == f"gemini-cli:{SID}"


def test_jsonl_streams_without_reading_the_whole_file() -> None:
    class Counting(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data, self.read_bytes = data, 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            chunk = self.data[self.read_bytes : self.read_bytes + len(buffer)]
            buffer[: len(chunk)] = chunk
            self.read_bytes += len(chunk)
            return len(chunk)

    line = {"id": "u", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": "x" * 1000}
    data = jsonl(HEADER, *({**line, "id": f"u{i}"} for i in range(5000)))
    raw = Counting(data)
    conversion = Conversion(Source(io.BufferedReader(raw), name="s.jsonl"), "gemini-cli", as_dicts=True)
    records = next(iter(conversion.streams())).records
    for _ in range(10):
        next(records)
    assert raw.read_bytes < len(data) // 10


# -- discovery -------------------------------------------------------------------------------


def test_discovery_prefers_the_newer_copy_of_a_session(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / "proj" / "chats"
    (chats / SID).mkdir(parents=True)
    (tmp_path / ".gemini" / "tmp" / "proj" / "logs").mkdir()
    legacy = chats / "session-2026-03-18T10-00-3f9c2a71.json"
    legacy.write_bytes(document([]))
    resumed = chats / "session-2026-03-18T10-00-3f9c2a71.jsonl"
    resumed.write_bytes(jsonl(HEADER, gemini("g1", "Hi."), {"$set": {"lastUpdated": "2026-03-18T11:00:00.000Z"}}))
    orphan = chats / "session-2026-03-18T12-00-3f9c2a71.jsonl"
    orphan.write_bytes(jsonl({**HEADER, "lastUpdated": "2026-03-18T10:30:00.000Z"}))
    subagent = chats / SID / "kid-1.jsonl"
    subagent.write_bytes(jsonl({**HEADER, "sessionId": "kid-1", "kind": "subagent"}))
    debug = tmp_path / ".gemini" / "tmp" / "proj" / "logs" / f"session-{SID}.jsonl"
    debug.write_bytes(b"{}\n")
    assert not discover.is_session_file(legacy)  # its .jsonl copy exists
    assert discover.is_session_file(resumed)  # updated last
    assert not discover.is_session_file(orphan)
    # an orphan written by --resume after the conversation stops being updated
    orphan.write_bytes(jsonl({**HEADER, "lastUpdated": "2026-03-18T23:00:00.000Z"}))
    assert not discover.is_session_file(orphan) and discover.is_session_file(resumed)
    assert discover.is_session_file(subagent)
    assert not discover.is_session_file(debug)
    assert discover.parent_from_path(subagent) == f"gemini-cli:{SID}"
    exported = tmp_path / "exports" / "my-session.json"  # any name: the sniff already said Gemini
    exported.parent.mkdir()
    exported.write_bytes(document([]))
    assert discover.is_session_file(exported)
    assert not discover.is_session_file(tmp_path / "notes.txt")
    assert discover.default_homes({"GEMINI_CLI_HOME": str(tmp_path)}) == [tmp_path / ".gemini" / "tmp"]
    assert discover.default_homes({"HOME": "/h"}) == [Path("/h/.gemini/tmp")]


# -- shared samples ------------------------------------------------------------------------

SAMPLES = shared_samples("gemini-cli")


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/gemini-cli is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_converts_validates_and_balances(path: Path) -> None:
    conversion = Conversion(path, "gemini-cli", as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    assert not validate_records(records)
    assert not coming_rule_findings(records), coming_rule_findings(records)
    accounting = conversion.accounting
    messages = json.loads(path.read_bytes()).get("messages", [])
    assert accounting.balanced() and accounting.native_items == len(messages)
    assert accounting.unreadable == 0 and not accounting.diagnostics
    assert len([r for r in records if r["type"] == "message"]) == len(messages)
    calls = sum(len(m.get("toolCalls") or []) for m in messages)
    assert len([r for r in records if r["type"] == "tool_call"]) == calls
    assert len([r for r in records if r["type"] == "tool_result"]) == calls
    replies = [
        m["tokens"]
        for m in messages
        if m.get("type") == "gemini" and isinstance(m.get("tokens"), dict) and any(m["tokens"].values())
    ]  # all zeros on a reply with output: not measured, no usage
    assert len([r for r in records if "usage" in r]) == len(replies)  # each reply's usage exactly once
    assert total_usage(records).get("totalTokens", 0) == sum(t.get("total", 0) for t in replies)
    # a plan file the session wrote (write_file/replace) gives its plan document a text
    written = {
        c["args"].get("file_path") for m in messages for c in m.get("toolCalls") or [] if c.get("name") == "write_file"
    }
    for plan in (r for r in records if r["type"] == "plan" and r["planType"] == "document"):
        assert ("content" in plan) == (plan["source"]["path"] in written), plan["planId"]
    agents = [
        c["id"] for m in messages for c in m.get("toolCalls") or [] if c.get("name") in ("cli_help", "invoke_agent")
    ]
    assert {r["callId"] for r in records if r["type"] == "subagent"} >= set(agents)  # every delegation
    # each subagent record carries its toolCalls[] entry's time, as that call's tool_result does
    entry_times = {c["id"]: c.get("timestamp") for m in messages for c in m.get("toolCalls") or []}
    for subagent in (r for r in records if r["type"] == "subagent"):
        assert subagent.get("ts") == entry_times[subagent["callId"]], subagent["callId"]


def test_samples_folder_is_where_the_harness_looks() -> None:
    if not SAMPLES:
        pytest.skip("../shared/samples/gemini-cli is absent")
    assert all(os.path.basename(p).endswith(".json") for p in SAMPLES)


# -- issue 14 items: usage, notices, subagents, title, removals, compression copies ------


def total_usage(records: list[dict[str, Any]]) -> dict[str, int]:
    """What a consumer gets by summing ``usage`` over every record of the stream."""
    sums: dict[str, int] = {}
    for record in records:
        for key, value in record.get("usage", {}).items():
            sums[key] = sums.get(key, 0) + value
    return sums


def test_usage_is_normalized_and_counted_once_across_rewrites() -> None:
    tokens = {"input": 900, "output": 60, "cached": 800, "thoughts": 20, "tool": 5, "total": 985}
    first = gemini("g1", "", thoughts=[{"subject": "S", "description": "D"}], tokens=None, model="m")
    with_tokens = {**first, "tokens": tokens}
    with_calls = {**with_tokens, "toolCalls": [call("c1")]}
    thought = {"text": "**S**\n\nD", "thought": True, "thoughtSignature": "c2ln"}
    raw = {**with_calls, "content": [thought, {"functionCall": {"id": "c1"}}]}
    second = gemini("g2", "", toolCalls=[call("c2")], tokens={"input": 10, "output": 1, "total": 11}, model="m")
    second_raw = {**second, "content": [{"text": "thinking", "thought": True}]}
    records, _ = run(jsonl(HEADER, first, with_tokens, with_calls, {"$set": {"messages": [raw]}}, second, second_raw))
    g1 = [m for m in of_type(records, "message") if m["messageId"] == "g1"]
    assert "usage" not in g1[0] and "nativeUsage" not in g1[0]  # tokens: null
    # issue 26: the tool-use prompt is input, the thoughts are output; no cache writes recorded
    assert g1[1]["usage"] == {
        "inputTokens": 905,
        "outputTokens": 80,
        "cacheReadTokens": 800,
        "reasoningTokens": 20,
        "totalTokens": 985,
    }
    assert g1[1]["nativeUsage"] == tokens and len(g1) == 3
    assert "usage" not in g1[2] and g1[2]["nativeUsage"] == tokens  # a revision: counted once
    # the rebuilt history's raw thought part renders the thoughts[] entry: one reasoning part,
    # with the signature it adds (the revision's only change)
    assert [p for p in g1[2]["content"] if p["type"] == "reasoning"] == [
        {"type": "reasoning", "visibility": "summary", "summary": ["S", "D"], "signature": "c2ln"}
    ]
    # g2 has no text: its usage rides on its first tool_call; the later message does not repeat it
    g2_call = next(c for c in of_type(records, "tool_call") if c["callId"] == "c2")
    assert g2_call["usage"] == {"inputTokens": 10, "outputTokens": 1, "totalTokens": 11}
    g2 = next(m for m in of_type(records, "message") if m["messageId"] == "g2")
    assert "usage" not in g2 and g2["nativeUsage"] == second["tokens"]
    assert total_usage(records)["totalTokens"] == 985 + 11


def test_a_revision_with_other_tokens_does_not_count_the_reply_again() -> None:
    reply = gemini("g1", "Hi.", tokens={"input": 5, "total": 5}, model="m")
    records, _ = run(jsonl(HEADER, reply, {**reply, "content": "Hi!", "tokens": {"input": 7, "total": 7}}))
    first, revision = of_type(records, "message")
    assert revision["supersedes"] == first["id"] and revision["nativeUsage"] == {"input": 7, "total": 7}
    assert "usage" not in revision and total_usage(records)["totalTokens"] == 5


def test_a_rebuilt_reply_repeats_no_reasoning() -> None:
    """sessionUtils convertSessionToClientHistory renders each thoughts[] entry as a raw
    thought part ``**subject** description``: the reply rebuilt on resume adds nothing."""
    thoughts = [{"subject": "Reviewing", "description": "the mandate.", "timestamp": "2026-03-18T10:00:59Z"}]
    reply = gemini("g1", "Back.", thoughts=thoughts, tokens={"input": 5, "total": 5}, model="m")
    rebuilt = {**reply, "content": [{"text": "**Reviewing** the mandate.", "thought": True}, {"text": "Back."}]}
    other = {**rebuilt, "content": [{"text": "an unrelated thought", "thought": True}, {"text": "Back."}]}
    records, _ = run(jsonl(HEADER, reply, {"$set": {"messages": [rebuilt]}}))
    assert len(of_type(records, "message")) == 1
    records, _ = run(jsonl(HEADER, reply, {"$set": {"messages": [other]}}))  # not a rendering: kept
    assert [len(m["content"]) for m in of_type(records, "message")] == [2, 3]


def test_usage_keys_only_where_the_source_has_the_number() -> None:
    records, _ = run(document([gemini("g1", "Hi.", tokens={"input": 3, "total": 3, "cached": None})]))
    (reply,) = of_type(records, "message")
    assert reply["usage"] == {"inputTokens": 3, "totalTokens": 3}
    assert reply["nativeUsage"] == {"input": 3, "total": 3, "cached": None}


def test_all_zero_tokens_on_a_reply_with_output_are_no_usage() -> None:
    """Upstream fills absent counts with ``?? 0``: zeros on a reply that produced output were
    never measured, so no normalized usage (the object stays as nativeUsage)."""
    zeros = {"input": 0, "output": 0, "cached": 0, "thoughts": 0, "tool": 0, "total": 0}
    records, _ = run(
        document(
            [
                gemini("g1", "Hi.", tokens=zeros),
                gemini("g2", "", tokens=zeros, toolCalls=[call("c1")]),
                gemini("g3", "Hi.", tokens={**zeros, "input": 5, "total": 5}),
            ]
        )
    )
    reply, measured = of_type(records, "message")
    (rider,) = of_type(records, "tool_call")
    assert "usage" not in reply and reply["nativeUsage"] == zeros
    assert "usage" not in rider and rider["nativeUsage"] == zeros
    assert measured["usage"] == {
        "inputTokens": 5,
        "outputTokens": 0,
        "cacheReadTokens": 0,
        "reasoningTokens": 0,
        "totalTokens": 5,
    }


@pytest.mark.parametrize("content", ["", [], None])
@pytest.mark.parametrize("kind", ["info", "warning", "error"])
@pytest.mark.parametrize("era_of", ["json", "jsonl"])
def test_an_empty_notice_is_still_a_harness_notice(content: Any, kind: str, era_of: str) -> None:
    notice = {"id": "n1", "timestamp": "2026-03-18T10:00:00Z", "type": kind, "content": content}
    data = document([notice]) if era_of == "json" else jsonl(HEADER, notice)
    records, accounting = run(data)
    (message,) = of_type(records, "message")
    assert (message["author"], message["origin"], message["audience"]) == ("harness", "notice", "user")
    assert message["content"] == [{"type": "text", "text": ""}] and message["nativeType"] == kind
    assert of_type(records, "vendor") == [] and accounting.vendor == 0


def subagent_output(name: str) -> list[dict[str, Any]]:
    text = f"Subagent '{name}' finished.\nTermination Reason: GOAL\nResult:\nok"
    return [{"functionResponse": {"id": "x", "name": name, "response": {"output": text}}}]


def agent_call(cid: str, name: str, args: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {**call(cid, name=name), "args": args, **more}


def test_subagent_type_is_the_agents_name_and_description_the_prompt() -> None:
    progress = {"isSubagentProgress": True, "agentName": "investigator", "recentActivity": []}
    calls = [
        agent_call("c1", "invoke_agent", {"agent_name": "cli_help", "prompt": "How do hooks work?"}, agentId="kid-1"),
        agent_call("c2", "invoke_agent", {"prompt": "Look around."}, resultDisplay=progress),
        agent_call("c3", "invoke_agent", {"prompt": "No name anywhere."}),
        agent_call("c4", "codebase_investigator", {"objective": "find tests"}, agentId="kid-4"),
        agent_call("c5", "read_file", {"file_path": "a"}),
        agent_call("c6", "cli_help", {"question": "Where are hooks?"}, resultDisplay="\nSubagent cli_help Finished\n"),
        {**agent_call("c7", "docs_reviewer", {"prompt": "check"}), "result": subagent_output("docs_reviewer")},
        {**agent_call("c8", "run_shell_command", {"command": "x"}), "result": subagent_output("docs_reviewer")},
    ]
    records, _ = run(jsonl(HEADER, gemini("g1", "Delegating.", toolCalls=calls)))
    subagents = {s["callId"]: s for s in of_type(records, "subagent")}
    assert subagents["c1"] == {
        "type": "subagent",
        "seq": subagents["c1"]["seq"],
        "id": subagents["c1"]["id"],
        "ts": "2026-03-18T10:02:00.000Z",
        "callId": "c1",
        "session": "gemini-cli:kid-1",
        "agentType": "cli_help",
        "description": "How do hooks work?",
    }
    assert subagents["c2"]["agentType"] == "investigator" and "session" not in subagents["c2"]
    assert "agentType" not in subagents["c3"] and subagents["c3"]["description"] == "No name anywhere."
    # an older per-agent tool is named after its agent; its task argument is ``objective``
    assert subagents["c4"]["agentType"] == "codebase_investigator" and subagents["c4"]["description"] == "find tests"
    assert "c5" not in subagents
    # per-agent tools without agentId or progress display: cli_help, and any tool whose output is
    # its own subagent's "Subagent '<name>' finished."; another tool quoting it is no delegation
    assert (subagents["c6"]["agentType"], subagents["c6"]["description"]) == ("cli_help", "Where are hooks?")
    assert (subagents["c7"]["agentType"], subagents["c7"]["description"]) == ("docs_reviewer", "check")
    assert "c8" not in subagents


def test_title_from_the_header_then_each_later_summary_revises_it() -> None:
    prompt = {"id": "u1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": "one"}
    records, _ = run(
        jsonl(
            {**HEADER, "summary": "First"},
            prompt,
            {"$set": {"summary": "Second"}},
            {"$set": {"lastUpdated": "2026-03-18T10:05:00Z"}},
            {"$set": {"summary": "Third"}},
        )
    )
    assert records[0]["title"] == "First"
    titles = [r["title"] for r in records[1:] if "title" in r]
    assert titles == ["Second", "Third"]
    latest = [records[0]["title"], *titles][-1]
    assert latest == "Third"
    (json_header, *_) = run(document([prompt], summary="Only"))[0]
    assert json_header["title"] == "Only"


class Recorder:
    """Lines as Gemini CLI's recorder (v0.44+, chatRecordingService.ts at upstream HEAD)
    writes them: prompts, replies (a placeholder line, then tokens, then tool calls),
    function-response turns, compression (a new chat from Content[]: every kept turn gets a
    new id in the ``$set.messages`` reset) and ``setHistory`` with Content[] (masking: every
    turn recorded again under a new id, then the reset)."""

    ENV = "d04923d38bb0f6017037e74183378ef4"

    def __init__(self) -> None:
        self.count = 0
        env = {"role": "user", "parts": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}
        self.history: list[tuple[str, dict[str, Any]]] = [(self.ENV, env)]  # (id, Content)
        self.recorded: dict[str, dict[str, Any]] = {}  # the last line of each message id
        self.lines: list[Any] = [HEADER, {"$set": {"messages": [self.message(self.ENV, env)]}}]
        self.totals = 0

    def new_id(self) -> str:
        self.count += 1
        return f"id-{self.count:04d}"

    def ts(self) -> str:
        return f"2026-03-18T10:{self.count // 60:02d}:{self.count % 60:02d}.000Z"

    def message(self, mid: str, content: dict[str, Any]) -> dict[str, Any]:
        """``updateMessagesFromHistory``: an existing message with the turn's parts, or a new one."""
        kind = "user" if content["role"] == "user" else "gemini"
        existing = self.recorded.get(mid, {"id": mid, "timestamp": self.ts(), "type": kind})
        return {**existing, "content": content["parts"]}

    def append(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        self.recorded[line["id"]] = line

    def prompt(self, text: str, tool: bool) -> None:
        uid = self.new_id()
        self.append({"id": uid, "timestamp": self.ts(), "type": "user", "content": [{"text": text}]})
        self.history.append((uid, {"role": "user", "parts": [{"text": text}]}))
        gid, answer = self.new_id(), f"Answer to {text}."
        thoughts = [{"subject": "Thinking", "description": text, "timestamp": self.ts()}]
        reply = {"id": gid, "timestamp": self.ts(), "type": "gemini", "content": answer, "thoughts": thoughts}
        self.append({**reply, "tokens": None, "model": "gemini-3-flash-preview"})
        self.totals += 100 + self.count
        # a total unique to this reply, and input + output as the API's total is (issue 26)
        tokens = {
            "input": 90 + self.count,
            "output": 10,
            "cached": 0,
            "thoughts": 0,
            "tool": 0,
            "total": 100 + self.count,
        }
        reply = {**reply, "tokens": tokens, "model": "gemini-3-flash-preview"}
        self.append(reply)
        parts: list[dict[str, Any]] = [
            {"text": f"**Thinking**\n\n{text}", "thought": True, "thoughtSignature": "c2ln"},
            {"text": answer},
        ]
        if tool:
            cid = f"read_file_{self.count}_0"
            self.append({**reply, "toolCalls": [call(cid)]})
            parts.append({"functionCall": {"id": cid, "name": "read_file", "args": {"p": 1}}})
            self.history.append((gid, {"role": "model", "parts": parts}))
            rid = self.new_id()
            response = [{"functionResponse": {"id": cid, "name": "read_file", "response": {"output": "ok"}}}]
            self.append({"id": rid, "timestamp": self.ts(), "type": "user", "content": response})
            self.history.append((rid, {"role": "user", "parts": response}))
        else:
            self.history.append((gid, {"role": "model", "parts": parts}))

    def reset(self, turns: list[tuple[str, dict[str, Any]]]) -> None:
        self.history = turns
        self.lines.append({"$set": {"messages": [self.message(mid, c) for mid, c in turns], "lastUpdated": self.ts()}})

    def compress(self, keep: int) -> None:
        self.lines.append({"id": self.new_id(), "timestamp": self.ts(), "type": "info", "content": "Compressed."})
        snapshot = {"role": "user", "parts": [{"text": "<state_snapshot>\n<overall_goal>Parser.</overall_goal>"}]}
        ack = {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]}
        kept = [content for _, content in self.history[-keep:]]
        self.lines.append({"$set": {"sessionId": SID}})
        turns = [(self.ENV, self.history[0][1])] + [(self.new_id(), c) for c in [snapshot, ack, *kept]]
        self.reset(turns)

    def mask(self) -> None:
        turns = []
        for _, content in self.history:
            mid = self.new_id()
            line = self.message(mid, content)
            if line["type"] == "gemini":
                line.update(thoughts=[], tokens=None)
            self.append(line)
            self.lines.append({"$set": {"lastUpdated": self.ts()}})
            turns.append((mid, content))
        self.reset(turns)


def counted(records: list[dict[str, Any]], author: str, origin: str | None = None) -> int:
    """Messages a consumer counts as new: neither a revision nor a copy."""
    return sum(
        1
        for r in records
        if r["type"] == "message"
        and r.get("author") == author
        and r.get("origin") == origin
        and "supersedes" not in r
        and "copiedFrom" not in r
    )


@pytest.mark.parametrize("compressions", [0, 1, 2, 3])
@pytest.mark.parametrize("masking", [False, True])
def test_five_prompts_stay_five_after_any_number_of_compressions(compressions: int, masking: bool) -> None:
    recorder = Recorder()
    for index in range(5):
        recorder.prompt(f"prompt {index}", tool=index % 2 == 1)
        if index >= 5 - compressions:
            recorder.compress(keep=3)
        if masking and index in (2, 4):
            recorder.mask()
    records, _ = run(jsonl(*recorder.lines))
    assert counted(records, "human", "prompt") == 5
    assert counted(records, "model") == 5
    assert total_usage(records)["totalTokens"] == recorder.totals
    copies = [r for r in records if "copiedFrom" in r]
    assert bool(compressions or masking) == bool(copies)
    # originals: messages, and function-response turns (kept as vendor records with their messageId)
    originals = {r["messageId"] for r in records if "messageId" in r and "copiedFrom" not in r}
    for copy in copies:  # each copy names an original message, never another copy
        session, _, target = copy["copiedFrom"].partition("#messageId=")
        assert session == f"gemini-cli:{SID}" and target in originals


def test_a_copy_of_a_thought_only_reply_is_a_copy() -> None:
    thoughts = [{"subject": "Hmm", "description": "thinking only", "timestamp": "2026-03-18T10:00:59Z"}]
    prompt = {"id": "p1", "timestamp": "2026-03-18T10:00:00Z", "type": "user", "content": [{"text": "hi"}]}
    reply = gemini("g1", "", thoughts=thoughts, tokens={"input": 1, "total": 1}, model="m")
    summary = {"id": "s1", "timestamp": "2026-03-18T10:02:00Z", "type": "user", "content": "<state_snapshot>x"}
    kept = [
        summary,
        {**prompt, "id": "p1c"},
        {**reply, "id": "g1c", "thoughts": [], "content": [{"text": "**Hmm**\n\nthinking only", "thought": True}]},
    ]
    records, _ = run(jsonl(HEADER, prompt, reply, {"$set": {"messages": kept}}))
    copy = next(m for m in of_type(records, "message") if m["messageId"] == "g1c")
    assert copy["copiedFrom"] == f"gemini-cli:{SID}#messageId=g1"


@pytest.mark.parametrize("case", golden_cases("gemini-cli"), ids=lambda case: case.id)
def test_golden_streams_satisfy_the_coming_validator_rules(case: Any) -> None:
    """Every reviewed Gemini CLI golden stream, against the rules of issue 14.14/15."""
    for expected in case.expected_files():
        records = [json.loads(line) for line in expected.read_text(encoding="utf-8").splitlines()]
        assert not coming_rule_findings(records), (expected.name, coming_rule_findings(records))
