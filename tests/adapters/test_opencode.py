"""OpenCode: detection, the three stores and their de-duplication, ids from names, usage once per
model call, the person's text split from harness and UI-only text, tools, subagents, plans,
discovery, and the viewer and exporters on its streams."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, golden_cases, materialize_input, shared_samples, sql_script

from asr_adapters import registry, validate_records
from asr_adapters.adapters.opencode import discover
from asr_adapters.adapters.opencode.assistant import content_part
from asr_adapters.batch import discover as batch_discover
from asr_adapters.cli import main
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError
from asr_adapters.core.source import Source

TURN = GOLDEN / "opencode" / "sqlite-turn-tools-usage"
SUBAGENT = GOLDEN / "opencode" / "sqlite-subagent-todos-compaction"
GLOBAL_TREE = GOLDEN / "opencode" / "json-global-tree"
PROJECT_TREE = GOLDEN / "opencode" / "json-project-tree"
ABORT = GOLDEN / "opencode" / "sqlite-abort-steps-undo"
ABORT_KEY, UNDO_KEY = "opencode:ses_37a2f7000ffeAbortSteps00001", "opencode:ses_37a2f7100ffePartRevert0002"
CASES = golden_cases("opencode")


def streams(path: Path) -> tuple[dict[str, list[dict[str, Any]]], Conversion]:
    conversion = Conversion(path, "opencode", as_dicts=True)
    out = {stream.key: list(stream.records) for stream in conversion.streams()}
    return out, conversion


def records(path: Path) -> list[dict[str, Any]]:
    return [r for rs in streams(path)[0].values() for r in rs]


def database(case: Path, target: Path) -> Path:
    connection = sqlite3.connect(target)
    connection.executescript(sql_script(case / "input.sql"))
    connection.commit()
    connection.close()
    return target


# -- detection ---------------------------------------------------------------------------


def test_every_store_is_detected_and_no_other_agents_input_is_claimed(tmp_path: Path) -> None:
    assert registry.detect(Source(database(TURN, tmp_path / "opencode.db"))).name == "opencode"
    assert registry.detect(Source(GLOBAL_TREE / "input.json")).name == "opencode"
    assert registry.detect(Source(PROJECT_TREE / "input.json")).name == "opencode"
    adapter = registry.get("opencode")
    for case in golden_cases():
        if case.agent != "opencode":
            scratch = tmp_path / case.agent / case.name
            scratch.mkdir(parents=True)
            source = Source(materialize_input(case, scratch))
            assert adapter.detect(source) < registry.get(case.agent).detect(source), case.id


def test_message_and_part_files_are_ours_but_never_a_session_of_their_own() -> None:
    message = next((GLOBAL_TREE / "storage" / "message").rglob("msg_*.json"))
    part = next((GLOBAL_TREE / "storage" / "part").rglob("prt_*.json"))
    adapter = registry.get("opencode")
    assert 0 < adapter.detect(Source(message)) < 90 and 0 < adapter.detect(Source(part)) < 90
    for path in (message, part):
        assert not discover.is_session_file(path)
        with pytest.raises(Exception, match="message or part file"):
            streams(path)


def test_an_export_document_is_converted_and_a_json_without_a_session_id_is_an_error(tmp_path: Path) -> None:
    export = GOLDEN / "opencode" / "export-document" / "input.json"
    assert registry.get("opencode").detect(Source(export)) == 85
    by_key, conversion = streams(export)
    assert list(by_key) == ["opencode:ses_37a2f7200ffeExportedSess003"]
    assert conversion.accounting.native_items == 8  # the session, two messages, five parts
    for body in ({"info": {"title": "t"}, "messages": []}, {"title": "no id"}):
        path = tmp_path / "odd.json"
        path.write_text(json.dumps(body))
        with pytest.raises(InputError, match=r"odd\.json: not an OpenCode storage file or export: no session id"):
            streams(path)


# -- ids, order, usage --------------------------------------------------------------------


def test_ids_come_from_file_names_not_from_stale_bodies() -> None:
    found = records(GLOBAL_TREE / "input.json")
    user = next(r for r in found if r.get("role") == "user")
    files = sorted(p.stem for p in (GLOBAL_TREE / "storage" / "message").rglob("msg_*.json"))
    assert user["messageId"] == files[0] != "msg_STALE_BODY_ID"
    assert "ses_STALE" not in json.dumps(found)


def test_usage_is_counted_once_per_model_call_from_step_finish(tmp_path: Path) -> None:
    found = records(database(TURN, tmp_path / "opencode.db"))
    carried = [r for r in found if "usage" in r]
    # not counted twice (message + step); input with the cache (issue 26): 7413 + 64, 50 + 7400
    assert [r["usage"]["inputTokens"] for r in carried] == [7477, 7450]
    # OpenCode's own totals: the sum of all its parts, which is input + output here too
    assert [r["usage"]["totalTokens"] for r in carried] == [7510, 7490]
    assert carried[0]["usage"]["outputTokens"] == 11 + 22  # output + reasoning: OpenCode counts them apart


def test_a_message_of_several_steps_puts_each_steps_usage_on_one_record() -> None:
    found = records(GLOBAL_TREE / "input.json")
    carried = {r["type"]: r["usage"] for r in found if "usage" in r}
    assert carried == {
        "tool_call": {
            "inputTokens": 2100,  # 2000 + the 100 written to the cache (issue 26)
            "outputTokens": 40,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 100,
            "reasoningTokens": 0,
            "totalTokens": 2140,
        },
        "message": {
            "inputTokens": 2060,  # 60 + the 2000 read from the cache
            "outputTokens": 150,  # 120 + the 30 of reasoning OpenCode counts beside it
            "cacheReadTokens": 2000,
            "cacheWriteTokens": 0,
            "reasoningTokens": 30,
            "totalTokens": 2210,
        },
    }


def test_records_follow_stored_part_order_with_each_steps_usage_on_its_own_record(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    steps = [r for r in found if r.get("turnId") == "msg_c85d0b00e000Ab3Xk9Qm2Lp7Zr" and r.get("role") != "user"]
    kinds = [(r["type"], r.get("messageId"), r.get("usage", {}).get("inputTokens")) for r in steps]
    native = "msg_c85d0b010000Ab3Xk9Qm2Lp7Zr"
    assert kinds == [
        ("message", native, 200),  # the text-only first step: its own record, its own usage
        ("message", f"{native}/prt_c85d0b015000Ab3Xk9Qm2Lp7Zr", 300),
        ("tool_call", f"{native}/prt_c85d0b015000Ab3Xk9Qm2Lp7Zr", None),
        ("tool_result", None, None),
        ("message", f"{native}/prt_c85d0b017000Ab3Xk9Qm2Lp7Zr", None),  # text after the call comes after it
    ]
    assert all(r.get("idSource") == "derived" for r in steps if r["type"] == "message" and "/" in r["messageId"])


def test_a_reasoning_part_is_a_reasoning_only_message_with_the_parts_own_id(tmp_path: Path) -> None:
    found = records(database(TURN, tmp_path / "opencode.db"))
    native = "msg_c85d0a063000Ab3Xk9Qm2Lp7Zr"
    reasoning = next(r for r in found if r.get("messageId") == "prt_c85d0a065000Ab3Xk9Qm2Lp7Zr")
    assert reasoning["content"] == [
        {
            "type": "reasoning",
            "text": "Run the suite first to see which test fails.",
            "opaque": {
                "format": "ai.opencode/reasoning-metadata",
                "data": '{"anthropic":{"signature":"EqQBCkgIBRAB"}}',
            },
            "signature": "EqQBCkgIBRAB",
        }
    ]  # one reasoning part, no visibility claimed (ASR-219)
    assert "idSource" not in reasoning and reasoning["inferenceId"] == native
    assert (reasoning["role"], reasoning["author"], reasoning["model"]) == ("assistant", "model", "claude-sonnet-4-5")
    assert reasoning["ts"] == "2026-07-14T03:33:22.100Z"  # the part's own time.start
    assert reasoning["turnId"] == "msg_c85d0a061000Ab3Xk9Qm2Lp7Zr" and "usage" not in reasoning
    # the step's tool calls name the message (inferenceId), the first one carries the step's usage
    calls = [r for r in found if r["type"] == "tool_call" and r.get("inferenceId") == native]
    assert [("messageId" in c, "usage" in c) for c in calls] == [(False, True), (False, False)]
    # no message record folds reasoning with anything else
    messages = [r for r in found if r["type"] == "message"]
    assert all(len(r["content"]) == 1 for r in messages if any(p["type"] == "reasoning" for p in r["content"]))


def test_a_model_call_that_only_reasoned_carries_its_usage_on_its_reasoning_only_message(tmp_path: Path) -> None:
    document = json.loads((GOLDEN / "opencode" / "export-document" / "input.json").read_text())
    assistant = document["messages"][1]
    ids = {"sessionID": document["info"]["id"], "messageID": assistant["info"]["id"]}
    tokens = {"input": 7, "output": 3, "reasoning": 3, "cache": {"read": 0, "write": 0}}
    assistant["parts"] = [
        {"id": "prt_c85d0c004100Ab3Xk9Qm2Lp7Zr", "type": "step-start", **ids},
        {"id": "prt_c85d0c004200Ab3Xk9Qm2Lp7Zr", "type": "reasoning", "text": "Hm.", **ids},
        {"id": "prt_c85d0c004300Ab3Xk9Qm2Lp7Zr", "type": "step-finish", "tokens": tokens, "cost": 0, **ids},
        *assistant["parts"],
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    found = records(path)
    carried = [(r["type"], r.get("messageId"), r["usage"]["inputTokens"]) for r in found if "usage" in r]
    assert carried == [
        ("message", "prt_c85d0c004200Ab3Xk9Qm2Lp7Zr", 7),  # the first call: only reasoning
        ("tool_call", None, 500),  # the second: its first text/tool record (a tool call, then text)
    ]


def test_an_exported_reasoning_part_without_its_own_id_gets_a_derived_id_and_a_repeated_one_is_a_duplicate(
    tmp_path: Path,
) -> None:
    document = json.loads((GOLDEN / "opencode" / "export-document" / "input.json").read_text())
    assistant = document["messages"][1]
    native = assistant["info"]["id"]
    thought = {"type": "reasoning", "text": "Look first.", "sessionID": document["info"]["id"], "messageID": native}
    assistant["parts"][1:1] = [{**thought, "id": "prt_c85d0c004800Ab3Xk9Qm2Lp7Zr"}, thought]
    assistant["parts"].insert(3, {**thought, "id": "prt_c85d0c004800Ab3Xk9Qm2Lp7Zr"})
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    out, conversion = streams(path)
    found = [r for rs in out.values() for r in rs]
    ids = [(r["messageId"], r.get("idSource")) for r in found if r["type"] == "message" and r["role"] == "assistant"]
    assert ids == [
        ("prt_c85d0c004800Ab3Xk9Qm2Lp7Zr", None),
        (f"{native}/reasoning@2", "derived"),  # no id: its stored position
        (native, None),  # the repeated part is a copy: no second record
    ]
    assert conversion.accounting.duplicates == 1
    assert not [f for f in validate_records(found) if f.is_error]


def test_a_part_repeated_in_an_export_document_is_a_duplicate_not_repeated_content(tmp_path: Path) -> None:
    # the reviewer's shape: a reasoning part and a text part each stored twice in one message
    ses, msg = "ses_E0000000000000000000000001", "msg_e002"
    ids = {"sessionID": ses, "messageID": msg}
    tokens = {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    thought = {"id": "prt_e002b", "type": "reasoning", "text": "r1", "time": {"start": 1784000002100}, **ids}
    answer = {"id": "prt_e002d", "type": "text", "text": "ans", **ids}
    document = {
        "info": {"id": ses, "directory": "/w", "title": "t", "time": {"created": 1784000000000}},
        "messages": [
            {
                "info": {"id": "msg_e001", "sessionID": ses, "role": "user", "time": {"created": 1784000001000}},
                "parts": [{"id": "prt_e001a", "type": "text", "text": "hi", "sessionID": ses, "messageID": "msg_e001"}],
            },
            {
                "info": {
                    "id": msg,
                    "sessionID": ses,
                    "role": "assistant",
                    "parentID": "msg_e001",
                    "modelID": "m",
                    "time": {"created": 1784000002000, "completed": 1784000003000},
                    "tokens": tokens,
                },
                "parts": [
                    {"id": "prt_e002a", "type": "step-start", **ids},
                    thought,
                    dict(thought),
                    {"type": "reasoning", "text": "noid", **ids},
                    answer,
                    dict(answer),
                    {"id": "prt_e002e", "type": "step-finish", "reason": "stop", "tokens": tokens, **ids},
                ],
            },
        ],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    out, conversion = streams(path)
    found = [r for rs in out.values() for r in rs]
    assistant = [r for r in found if r["type"] == "message" and r["role"] == "assistant"]
    assert [(r["messageId"], [p.get("text") for p in r["content"]]) for r in assistant] == [
        ("prt_e002b", ["r1"]),
        (f"{msg}/reasoning@2", ["noid"]),  # no id of its own: its position among the kept parts
        (msg, ["ans"]),  # the text once, not "ans" twice
    ]
    assert conversion.accounting.duplicates == 2
    assert not [f for f in validate_records(found) if f.is_error]


def test_reasoning_records_keep_their_ids_as_the_store_grows_and_usage_lands_once(tmp_path: Path) -> None:
    path = database(TURN, tmp_path / "opencode.db")
    session = "ses_37a2f5fbfffeXrF10qk5Zvbw4K"
    message = "msg_c85d0a0f0000Ab3Xk9Qm2Lp7Zr"  # a new assistant message, still being generated
    connection = sqlite3.connect(path)
    connection.execute(
        "INSERT INTO message VALUES (?, ?, 1784000009000, 1784000009000, ?)",
        (
            message,
            session,
            json.dumps(
                {"role": "assistant", "time": {"created": 1784000009000}, "parentID": "msg_c85d0a061000Ab3Xk9Qm2Lp7Zr"}
            ),
        ),
    )

    def append(part_id: str, at: int, data: dict[str, Any]) -> list[dict[str, Any]]:
        connection.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (part_id, message, session, at, at, json.dumps(data))
        )
        connection.commit()
        return [r for r in streams(path)[0][f"opencode:{session}"] if r.get("turnId") and r["seq"] > 10]

    append("prt_c85d0a0f1000Ab3Xk9Qm2Lp7Zr", 1784000009000, {"type": "step-start"})
    one = append("prt_c85d0a0f2000Ab3Xk9Qm2Lp7Zr", 1784000009100, {"type": "reasoning", "text": "First thought."})
    two = append("prt_c85d0a0f3000Ab3Xk9Qm2Lp7Zr", 1784000009200, {"type": "text", "text": "Answer begins."})
    three = append("prt_c85d0a0f4000Ab3Xk9Qm2Lp7Zr", 1784000009300, {"type": "reasoning", "text": "Second thought."})
    four = append("prt_c85d0a0f5000Ab3Xk9Qm2Lp7Zr", 1784000009400, {"type": "text", "text": "Answer ends."})
    tokens = {"input": 90, "output": 9, "reasoning": 4, "cache": {"read": 0, "write": 0}}
    done = append("prt_c85d0a0f6000Ab3Xk9Qm2Lp7Zr", 1784000009500, {"type": "step-finish", "tokens": tokens, "cost": 0})
    connection.close()
    ids = [[(r["id"], r["messageId"]) for r in stage] for stage in (one, two, three, four, done)]
    for earlier, later in itertools.pairwise(ids):
        assert later[: len(earlier)] == earlier  # appended parts never renumber or rename earlier records
    assert [m for _, m in ids[-1]] == [
        "prt_c85d0a0f2000Ab3Xk9Qm2Lp7Zr",
        message,  # the first text run keeps the message's id
        "prt_c85d0a0f4000Ab3Xk9Qm2Lp7Zr",
        f"{message}/prt_c85d0a0f5000Ab3Xk9Qm2Lp7Zr",
    ]
    assert [len(r["content"]) for r in done] == [1, 1, 1, 1]
    assert [r.get("usage", {}).get("inputTokens") for r in done] == [None, 90, None, None]  # once, on the text run
    assert not [f for f in validate_records(streams(path)[0][f"opencode:{session}"]) if f.is_error]


def test_no_record_names_the_user_message_as_its_parent(tmp_path: Path) -> None:
    found = records(database(SUBAGENT, tmp_path / "opencode.db")) + records(database(ABORT, tmp_path / "a.db"))
    assert [r for r in found if r["type"] != "session" and "parent" in r] == []
    assert all("turnId" in r for r in found if r.get("role") == "assistant")


def test_old_messages_without_step_parts_take_usage_from_the_message() -> None:
    found = records(PROJECT_TREE / "input.json")
    assert [r["usage"]["inputTokens"] for r in found if "usage" in r] == [1200]


# -- who said what -------------------------------------------------------------------------


def test_synthetic_text_is_the_harness_and_ignored_text_is_display_only() -> None:
    user = next(r for r in records(GLOBAL_TREE / "input.json") if r.get("role") == "user")
    authors = [(p["type"], p.get("author"), p.get("origin")) for p in user["content"]]
    assert authors == [("text", "human", "prompt"), ("text", "harness", "injected")]  # the text/plain file: shown only
    assert "shown only in the TUI" not in json.dumps(user["content"])
    ignored = user["displayContent"][-1]
    assert ignored["text"].startswith("(shown only in the TUI") and "author" not in ignored


def test_a_child_sessions_prompt_comes_from_the_parent_session(tmp_path: Path) -> None:
    by_key, _ = streams(database(SUBAGENT, tmp_path / "opencode.db"))
    parent_key, child_key = "opencode:ses_37a2f0000ffeParentSess0001", "opencode:ses_37a2effffffeChildSessio0002"
    child = by_key[child_key]
    assert child[0]["parent"] == parent_key
    prompt = child[1]
    assert prompt["from"] == {"session": parent_key} and prompt["content"][0]["author"] == "agent"
    link = next(r for r in by_key[parent_key] if r["type"] == "subagent")
    assert link["session"] == child_key and link["callId"] == "toolu_04Task" and link["agentType"] == "explore"
    keys = {s.key: s.parent_key for s in Conversion(tmp_path / "opencode.db", "opencode", as_dicts=True).streams()}
    assert keys == {parent_key: None, child_key: parent_key}


def test_subagent_and_plan_records_are_in_their_tool_calls_turn(tmp_path: Path) -> None:
    found = records(database(SUBAGENT, tmp_path / "opencode.db"))
    calls = {r["callId"]: r for r in found if r["type"] == "tool_call"}
    derived = [r for r in found if r["type"] in ("subagent", "plan") and "callId" in r]
    assert {r["type"] for r in derived} == {"subagent", "plan"}
    for record in derived:
        assert record["turnId"] == calls[record["callId"]]["turnId"]


# -- tools, plans, compaction ----------------------------------------------------------------


def test_unfinished_calls_are_interrupted_and_failed_calls_are_errors(tmp_path: Path) -> None:
    found = records(database(SUBAGENT, tmp_path / "opencode.db")) + records(GLOBAL_TREE / "input.json")
    results = {r["callId"]: r for r in found if r["type"] == "tool_result"}
    assert results["toolu_06Write"]["status"] == "interrupted" and results["toolu_06Write"]["content"] == []
    assert results["call_08Grep"]["capture"]["content"]["state"] == "absent"
    failed = records(database(TURN, tmp_path / "turn.db"))
    error = next(r for r in failed if r["type"] == "tool_result" and r["callId"] == "toolu_02Read")
    assert error["isError"] is True and error["status"] == "error"
    aborted = next(r for r in found if r["type"] == "tool_call" and r["callId"] == "toolu_06Write")
    assert aborted["error"]["name"] == "MessageAbortedError"  # a tool-only message's facts ride on its call


def test_opencodes_own_abort_cleanup_is_an_interruption_not_a_failure(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    result = next(r for r in found if r["type"] == "tool_result" and r["callId"] == "toolu_11Bash")
    assert result["status"] == "interrupted" and "isError" not in result
    assert result["content"] == [{"type": "text", "text": "> acme@1.0.0 test\n> vitest\n"}]  # what the model got
    text = next(r for r in found if r.get("content") == [{"type": "text", "text": "Running the tests first."}])
    assert text["status"] == "interrupted"


def test_a_call_of_a_message_still_being_generated_has_no_outcome(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    live = next(r for r in found if r["type"] == "tool_result" and r["callId"] == "toolu_13Bash")
    assert "status" not in live and live["capture"]["content"]["state"] == "absent"


def test_zero_placeholder_tokens_give_no_usage(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    turns = {"msg_c85d0b001000Ab3Xk9Qm2Lp7Zr", "msg_c85d0b019000Ab3Xk9Qm2Lp7Zr"}  # aborted, and still running
    assert [r for r in found if r.get("turnId") in turns and "usage" in r] == []


def test_todowrite_calls_are_plan_revisions_and_the_stored_list_is_a_duplicate_or_its_own_plan(
    tmp_path: Path,
) -> None:
    _, conversion = streams(database(SUBAGENT, tmp_path / "opencode.db"))
    plans = [r for r in records(tmp_path / "opencode.db") if r["type"] == "plan"]
    assert [p.get("supersedes") for p in plans] == [None, plans[0]["id"]]
    assert conversion.accounting.duplicates == 1  # the todo table's list = the last call's
    stored = [r for r in records(GLOBAL_TREE / "input.json") if r["type"] == "plan"]
    assert len(stored) == 1 and "callId" not in stored[0]


def test_the_stored_todo_list_is_placed_by_its_time_and_records_stay_put_as_the_store_grows(tmp_path: Path) -> None:
    path = database(SUBAGENT, tmp_path / "opencode.db")
    parent = "ses_37a2f0000ffeParentSess0001"
    connection = sqlite3.connect(path)
    connection.execute("UPDATE session SET revert = NULL")
    connection.execute("UPDATE todo SET status = 'completed' WHERE position = 1")  # differs from every call
    connection.commit()
    before = streams(path)[0][f"opencode:{parent}"]
    stored = next(r for r in before if r["type"] == "plan" and "callId" not in r)
    following = before[before.index(stored) + 1]
    assert stored["ts"] == "2026-07-14T03:35:11.140Z" and following["content"][0]["schema"] == "ai.opencode/compaction"
    connection.execute(
        "INSERT INTO message VALUES ('msg_c85d0aff0000Ab3Xk9Qm2Lp7Zr', ?, 1784000200000, 1784000200000, ?)",
        (parent, json.dumps({"role": "user", "time": {"created": 1784000200000}})),
    )
    connection.execute(
        "INSERT INTO part VALUES ('prt_c85d0aff1000Ab3Xk9Qm2Lp7Zr', 'msg_c85d0aff0000Ab3Xk9Qm2Lp7Zr', ?, "
        "1784000200000, 1784000200000, ?)",
        (parent, json.dumps({"type": "text", "text": "One more thing."})),
    )
    connection.commit()
    connection.close()
    after = streams(path)[0][f"opencode:{parent}"]
    assert after[: len(before)] == before and len(after) == len(before) + 1


def test_compaction_marker_and_summary(tmp_path: Path) -> None:
    found = records(database(SUBAGENT, tmp_path / "opencode.db"))
    marker = next(r for r in found if r["type"] == "message" and r["content"] and r["content"][0]["type"] == "data")
    assert marker["content"][0]["schema"] == "ai.opencode/compaction" and marker["content"][0]["author"] == "harness"
    summary = next(r for r in found if r.get("summaryOf") == "compaction")
    assert summary["turnId"] == marker["messageId"] and "parent" not in summary


def test_the_persons_compact_is_a_human_command(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    marker = next(r for r in found if r.get("content") and r["content"][0].get("schema") == "ai.opencode/compaction")
    assert (marker["content"][0]["author"], marker["content"][0]["origin"]) == ("human", "command")


def test_synthetic_assistant_text_and_compaction_parts_are_the_harness() -> None:
    synthetic = content_part({"type": "text", "text": "<reminder>", "synthetic": True})
    assert (synthetic["author"], synthetic["origin"]) == ("harness", "injected")
    assert content_part({"type": "compaction", "auto": True})["author"] == "harness"
    assert "author" not in content_part({"type": "text", "text": "answer"})


def test_a_failed_todowrite_sets_no_plan(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    assert any(r["type"] == "tool_call" and r["name"] == "todowrite" for r in found)
    assert [r for r in found if r["type"] == "plan"] == []


def test_files_read_as_text_and_agent_mentions_are_display_only(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    prompt = found[1]
    assert [p["type"] for p in prompt["content"]] == ["text"] * 5  # the person's words and OpenCode's synthetic text
    shown = [(p["type"], p.get("mimeType") or p.get("schema")) for p in prompt["displayContent"][1:]]
    assert shown == [
        ("resource_link", "text/plain"),
        ("resource_link", "application/x-directory"),
        ("data", "ai.opencode/agent"),
    ]


def test_a_message_of_an_unknown_role_is_only_a_vendor_record(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][ABORT_KEY]
    assert found[-1]["schema"] == "ai.opencode/message/system" and found[-1]["ts"] == "2026-07-14T03:50:22.000Z"
    assert not any(r.get("messageId") == found[-1]["data"]["id"] for r in found)


def test_part_rows_give_vendor_records_their_time(tmp_path: Path) -> None:
    patch = next(r for r in records(database(TURN, tmp_path / "opencode.db")) if r.get("schema") == "ai.opencode/patch")
    assert patch["ts"] == "2026-07-14T03:33:23.000Z"  # the row's time_created: the part has no time of its own


def test_zeroed_session_totals_are_left_out(tmp_path: Path) -> None:
    by_key, _ = streams(database(ABORT, tmp_path / "opencode.db"))
    assert "totals" not in by_key[ABORT_KEY][0]["opencode"]
    turn = records(database(TURN, tmp_path / "turn.db"))[0]
    assert turn["opencode"]["totals"]["cost"] > 0


def test_a_pending_undo_names_the_records_it_hides(tmp_path: Path) -> None:
    by_key, _ = streams(database(SUBAGENT, tmp_path / "opencode.db"))
    parent = by_key["opencode:ses_37a2f0000ffeParentSess0001"]
    undo = next(r for r in parent if r.get("schema") == "ai.opencode/revert")
    by_id = {r["id"]: r for r in parent[: parent.index(undo)]}
    hidden = [by_id[i] for i in undo["reverted"]]
    assert hidden[0]["content"][0]["text"] == "Go ahead and move it."  # the reverted prompt and all after it
    assert [r["type"] for r in hidden] == ["message", "tool_call", "tool_result"]


def test_a_part_level_undo_hides_that_parts_message_whole_as_cleanup_does(tmp_path: Path) -> None:
    found = streams(database(ABORT, tmp_path / "opencode.db"))[0][UNDO_KEY]
    undo = found[-1]
    assert undo["data"]["partID"] == "prt_c85d0b024000Ab3Xk9Qm2Lp7Zr"
    hidden = [r for r in found if r["id"] in undo["reverted"]]
    assert hidden[0]["content"] == [{"type": "text", "text": "Renaming it."}]  # before the part: deleted too
    assert [r["type"] for r in hidden] == ["message", "tool_call", "tool_result", "message"]


def test_unknown_parts_are_vendor_and_unreadable_files_are_counted() -> None:
    found = records(GLOBAL_TREE / "input.json")
    assert any(r["type"] == "vendor" and r["schema"] == "ai.opencode/x-future-part" for r in found)
    _, conversion = streams(PROJECT_TREE / "input.json")
    assert conversion.accounting.unreadable == 1 and conversion.accounting.balanced()
    assert any("not JSON" in d.reason for d in conversion.accounting.diagnostics)


def test_a_part_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(GLOBAL_TREE, case, ignore=shutil.ignore_patterns("expected*"))
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "text", "text": "TOP-SECRET"}')
    folder = next((case / "storage" / "part").iterdir())
    (folder / "prt_zzzzzzzzzzzzzzzzzzzzzzzzzz.json").symlink_to(secret)
    found = records(case / "input.json")
    assert "TOP-SECRET" not in json.dumps(found)


# -- discovery -----------------------------------------------------------------------------


def test_default_homes_follow_xdg_data_home_and_opencode_db(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert discover.default_homes({"HOME": str(home)}) == [home / ".local" / "share" / "opencode"]
    assert discover.default_homes({"HOME": str(home), "USERPROFILE": "x", "XDG_DATA_HOME": str(tmp_path / "x")}) == [
        tmp_path / "x" / "opencode"
    ]
    other = tmp_path / "dbs" / "opencode-dev.db"
    homes = discover.default_homes({"HOME": str(home), "OPENCODE_DB": str(other)})
    assert homes == [home / ".local" / "share" / "opencode", other.parent]


def plant_data_dir(data: Path) -> None:
    """A data folder with all three stores: the database holds ses_A; the global tree ses_A and
    ses_B; the per-project tree ses_B and ses_C."""
    data.mkdir(parents=True)
    connection = sqlite3.connect(data / "opencode.db")
    connection.executescript((GOLDEN / "opencode" / "schema.sql").read_text())
    connection.execute("INSERT INTO project VALUES ('p', '/w', 'git', NULL, 1, 1, NULL, '[]', NULL)")
    connection.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES ('ses_A', 'p', 's', '/w', 'A', '1.2.6', 1784000000000, 1784000000000)"
    )
    connection.commit()
    connection.close()
    info = {"title": "t", "version": "1.1.0", "directory": "/w", "time": {"created": 1784000000000}}
    for session in ("ses_A", "ses_B"):
        path = data / "storage" / "session" / "p" / f"{session}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"id": session, **info}, indent=2))
    for session in ("ses_B", "ses_C"):
        path = data / "project" / "w" / "storage" / "session" / "info" / f"{session}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"id": session, **info}, indent=2))


def test_each_session_is_converted_once_from_the_newest_store(tmp_path: Path) -> None:
    data = tmp_path / "xdg" / "opencode"
    plant_data_dir(data)
    g1, g0 = data / "storage" / "session" / "p", data / "project" / "w" / "storage" / "session" / "info"
    assert discover.is_session_file(data / "opencode.db")
    assert not discover.is_session_file(g1 / "ses_A.json")  # in the database
    assert discover.is_session_file(g1 / "ses_B.json")
    assert not discover.is_session_file(g0 / "ses_B.json")  # in the global tree
    assert discover.is_session_file(g0 / "ses_C.json")
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    found = sorted((d.session_id, Path(d.path).name) for d in batch_discover(env=env, agents=["opencode"]))
    assert found == [("ses_A", "opencode.db"), ("ses_B", "ses_B.json"), ("ses_C", "ses_C.json")]


def test_a_database_named_by_opencode_db_elsewhere_wins_over_the_json_trees(tmp_path: Path) -> None:
    data = tmp_path / "xdg" / "opencode"
    plant_data_dir(data)
    elsewhere = tmp_path / "elsewhere" / "opencode.db"
    elsewhere.parent.mkdir()
    (data / "opencode.db").rename(elsewhere)  # ses_A now only in a database outside the data folder
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg"), "OPENCODE_DB": str(elsewhere)}
    found = sorted((d.session_id, Path(d.path).name) for d in batch_discover(env=env, agents=["opencode"]))
    assert found == [("ses_A", "opencode.db"), ("ses_B", "ses_B.json"), ("ses_C", "ses_C.json")]


def test_companions_are_the_sessions_files_and_the_database_beside_them(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    plant_data_dir(data)
    wal = data / "opencode.db-wal"
    wal.write_bytes(b"")
    assert discover.companion_files(data / "opencode.db") == [wal]
    message = data / "storage" / "message" / "ses_B" / "msg_1.json"
    part = data / "storage" / "part" / "msg_1" / "prt_1.json"
    for path in (message, part):
        path.parent.mkdir(parents=True)
        path.write_text("{}")
    files = discover.companion_files(data / "storage" / "session" / "p" / "ses_B.json")
    assert files == [message, part, data / "opencode.db"]


def test_asr_agents_lists_opencode() -> None:
    result = CliRunner().invoke(main, ["agents"])
    assert result.exit_code == 0 and any(
        line.split()[:2] == ["opencode", "ai.opencode"] for line in result.output.splitlines()
    ), result.output


# -- viewer and exporters --------------------------------------------------------------------

STREAMS = sorted((GOLDEN / "opencode").glob("*/expected*.asr.jsonl"))


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("command", [["show"], ["export", "--to", "atif"], ["export", "--to", "otel"]])
def test_viewer_and_exporters_read_every_opencode_stream(stream: Path, command: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [*command, str(stream), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


# -- shared samples --------------------------------------------------------------------------

SAMPLES = shared_samples("opencode")


@pytest.mark.skipif(not SAMPLES, reason="no real OpenCode store in ../shared/samples/opencode (see its SOURCES.md)")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_shared_sample_converts_validates_and_balances(path: Path) -> None:
    by_key, conversion = streams(path)
    assert conversion.accounting.balanced()
    for found in by_key.values():
        assert not [f for f in validate_records(found) if f.is_error]


# -- the second review: where a message's facts and outcome go --------------------------------

_SES = "ses_T0000000000000000000000001"


def _review_db(target: Path, error: dict[str, Any] | None, parts: list[tuple[str, dict[str, Any]]]) -> Path:
    """A session with one prompt and one assistant message ``msg_t2`` of ``parts`` (the
    reviewer's build2.py / build3.py shapes)."""
    connection = sqlite3.connect(target)
    connection.executescript((GOLDEN / "opencode" / "schema.sql").read_text())
    connection.execute(
        "INSERT INTO project VALUES (?,?,?,?,?,?,?,?,?)", ("p", "/w", "git", None, 1, 1, None, "[]", None)
    )
    connection.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (_SES, "p", "s", "/w", "t", "1.2.10", 1784000000000, 1784000000001),
    )
    info: dict[str, Any] = {
        "role": "assistant",
        "parentID": "msg_t1",
        "modelID": "m",
        "time": {"created": 1784000002000, "completed": 1784000009000},
    }
    if error is not None:
        info["error"] = error
    for mid, data, at in (("msg_t1", {"role": "user", "time": {"created": 1784000001000}}, 1784000001000),):
        connection.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, _SES, at, at, json.dumps(data)))
    connection.execute(
        "INSERT INTO part VALUES (?,?,?,?,?,?)",
        ("prt_t1a", "msg_t1", _SES, 1784000001000, 1784000001000, json.dumps({"type": "text", "text": "go"})),
    )
    connection.execute(
        "INSERT INTO message VALUES (?,?,?,?,?)", ("msg_t2", _SES, 1784000002000, 1784000002000, json.dumps(info))
    )
    for n, (part_id, data) in enumerate(parts):
        at = 1784000002000 + n * 100
        connection.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (part_id, "msg_t2", _SES, at, at, json.dumps(data)))
    connection.commit()
    connection.close()
    return target


_TOKENS = {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}
_STEP_ONE = [
    ("prt_t2a", {"type": "step-start"}),
    ("prt_t2b", {"type": "reasoning", "text": "plan", "time": {"start": 1784000002100, "end": 1784000002200}}),
    ("prt_t2c", {"type": "text", "text": "Listing files.", "time": {"start": 1784000002300, "end": 1784000002400}}),
    (
        "prt_t2d",
        {
            "type": "tool",
            "callID": "c1",
            "tool": "ls",
            "state": {"status": "completed", "input": {}, "output": "a b", "time": {"start": 1784000002500, "end": 1}},
        },
    ),
    ("prt_t2e", {"type": "step-finish", "reason": "tool-calls", "cost": 0.1, "tokens": _TOKENS}),
    ("prt_t2f", {"type": "step-start"}),
]


def _assistant(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds = ("message", "tool_call", "tool_result")
    return [r for r in found if r.get("turnId") == "msg_t1" and r["type"] in kinds and r.get("role") != "user"]


def test_a_summary_message_starting_with_reasoning_has_its_facts_on_the_record_with_its_native_id(
    tmp_path: Path,
) -> None:
    parts = [*_STEP_ONE[:3], ("prt_t2e", _STEP_ONE[4][1])]
    path = _review_db(tmp_path / "opencode.db", None, parts)
    connection = sqlite3.connect(path)
    row = connection.execute("SELECT data FROM message WHERE id = 'msg_t2'").fetchone()
    connection.execute(
        "UPDATE message SET data = ? WHERE id = 'msg_t2'",
        (json.dumps({**json.loads(row[0]), "summary": True, "finish": "stop"}),),
    )
    connection.commit()
    connection.close()
    reasoning, text = (r for r in _assistant(records(path)) if r["type"] == "message")
    assert reasoning["messageId"] == "prt_t2b" and "summaryOf" not in reasoning and "info" not in reasoning["opencode"]
    assert text["messageId"] == "msg_t2" and text["summaryOf"] == "compaction" and "info" in text["opencode"]


def test_an_abort_in_the_second_step_leaves_the_first_steps_records_complete(tmp_path: Path) -> None:
    aborted = {
        "type": "tool",
        "callID": "c2",
        "tool": "bash",
        "state": {
            "status": "error",
            "input": {"command": "sleep 9"},
            "error": "Tool execution aborted",
            "metadata": {"interrupted": True},
            "time": {"start": 1784000003100, "end": 1784000009000},
        },
    }
    error = {"name": "MessageAbortedError", "data": {"message": "Aborted"}}
    found = _assistant(records(_review_db(tmp_path / "opencode.db", error, [*_STEP_ONE, ("prt_t2g", aborted)])))
    messages = [r for r in found if r["type"] == "message"]
    assert [(r["messageId"], r["status"], "error" in r) for r in messages] == [
        ("prt_t2b", "complete", False),
        ("msg_t2", "complete", False),  # its step finished: the abort came later
    ]
    last_call = [r for r in found if r["type"] == "tool_call"][-1]
    assert last_call["callId"] == "c2" and "error" not in last_call
    assert [r["status"] for r in found if r["type"] == "tool_result"] == ["complete", "interrupted"]
    # the step that was aborted wrote no message record: the error stays in the message's facts
    assert messages[1]["opencode"]["info"]["error"] == error


def test_an_error_in_a_step_that_wrote_nothing_is_kept_in_the_messages_facts(tmp_path: Path) -> None:
    error = {"name": "APIError", "data": {"message": "rate limited", "isRetryable": False}}
    every = records(_review_db(tmp_path / "opencode.db", error, _STEP_ONE))
    found = _assistant(every)
    assert [(r["type"], r.get("status"), "error" in r) for r in found] == [
        ("message", "complete", False),
        ("message", "complete", False),
        ("tool_call", None, False),
        ("tool_result", "complete", False),
    ]
    assert found[1]["opencode"]["info"]["error"] == error
    assert not [f for f in validate_records(every) if f.is_error]


def test_the_unfinished_steps_runs_carry_the_messages_outcome(tmp_path: Path) -> None:
    error = {"name": "APIError", "data": {"message": "rate limited"}}
    later = ("prt_t2g", {"type": "text", "text": "Now", "time": {"start": 1784000003100}})
    found = _assistant(records(_review_db(tmp_path / "opencode.db", error, [*_STEP_ONE, later])))
    messages = [r for r in found if r["type"] == "message"]
    assert [(r["status"], r.get("error")) for r in messages] == [
        ("complete", None),
        ("complete", None),
        ("error", error),  # the run of the step that failed
    ]
    assert "error" not in messages[1]["opencode"]["info"]  # it is on a record: not kept twice


def test_output_holds_the_reasoning_only_where_the_stored_total_says_so() -> None:
    """Issue 26: OpenCode prices ``reasoning`` beside ``output``; a build whose ``total`` is
    the input side + output shows that its ``output`` already counted the reasoning."""
    from asr_adapters.adapters.opencode.parts import normalized_usage

    apart = {"total": 130, "input": 60, "output": 40, "reasoning": 30, "cache": {"read": 0, "write": 0}}
    inside = {"total": 100, "input": 60, "output": 40, "reasoning": 30, "cache": {"read": 0, "write": 0}}
    assert normalized_usage(apart)["outputTokens"] == 70  # type: ignore[index]
    assert normalized_usage(inside)["outputTokens"] == 40  # type: ignore[index]
    assert normalized_usage(inside)["reasoningTokens"] == 30  # type: ignore[index]


# -- issue 27 item 29: a store the real binary wrote ---------------------------------------------

RECORDED = GOLDEN / "opencode" / "sqlite-recorded-1.18.33"


def test_a_store_written_by_opencode_1_18_33_keeps_what_it_recorded(tmp_path: Path) -> None:
    """The real binary's rows (its own DDL, a scripted local model): every record validates,
    every usage follows the one definition from the step's own numbers, no record has a zero
    or copied time, and the subagent's prompt is the parent's."""
    out, conversion = streams(database(RECORDED, tmp_path / "opencode.db"))
    parent, child = out["opencode:ses_dcb8302f7ffe7FMFiL262QVVLi"], out["opencode:ses_dcb82b75effeByC83j7AWNjr55"]
    for stream in (parent, child):
        assert not validate_records(stream)
        assert all(not r.get("ts", "2").startswith("1970") for r in stream)
    assert parent[0]["agent"] == {"name": "opencode", "version": "1.18.33"}
    first = next(r for r in parent if "usage" in r)
    native = first["nativeUsage"]["tokens"]
    assert first["usage"]["inputTokens"] == native["input"] + native["cache"]["read"] + native["cache"]["write"]
    assert first["usage"]["outputTokens"] == native["output"] + native["reasoning"]
    reasoning = next(r for r in parent if r.get("content") and r["content"][0]["type"] == "reasoning")
    assert reasoning["messageId"].startswith("prt_") and reasoning["inferenceId"].startswith("msg_")
    failed = next(r for r in parent if r["type"] == "tool_result" and r["name"] == "read")
    assert failed["status"] == "error" and failed["isError"] is True
    assert next(r for r in parent if r["type"] == "plan")["callId"] == "call_b_todo"
    link = next(r for r in parent if r["type"] == "subagent")
    assert link["session"] == "opencode:ses_dcb82b75effeByC83j7AWNjr55" and child[0]["parent"] == parent[0]["session"]
    prompt = next(r for r in child if r.get("role") == "user")
    assert prompt["from"] == {"session": parent[0]["session"]} and prompt["content"][0]["author"] == "agent"
    assert conversion.accounting.unreadable == 0


def test_an_image_opencode_attaches_as_synthetic_is_the_harnesss(tmp_path: Path) -> None:
    """ASR-203 on the recorded store: the image part after OpenCode's synthetic Read texts is
    marked `synthetic`, so it is author harness like them; the typed words stay the person's."""
    case = GOLDEN / "opencode" / "sqlite-recorded-attachment-compaction"
    stream = streams(database(case, tmp_path / "opencode.db"))[0]["opencode:ses_dcb53dd5bffebbb6IHfW0xbRtV"]
    prompt = next(r for r in stream if r.get("role") == "user")
    authors = [(p["type"], p["author"], p["origin"]) for p in prompt["content"]]
    assert authors == [
        ("text", "harness", "injected"),
        ("text", "harness", "injected"),
        ("image", "harness", "injected"),
        ("text", "human", "prompt"),
    ]
    summary = next(r for r in stream if r.get("summaryOf") == "compaction")
    assert summary["usage"]["outputTokens"] == 25 and summary["compaction"]["through"].startswith("r")
    assert not validate_records(stream)


# -- the third review: a failed compaction, a user message's summary --------------------------


def _insert(path: Path, rows: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> None:
    connection = sqlite3.connect(path)
    for n, (mid, data, parts) in enumerate(rows):
        at = 1784000010000 + n * 1000
        data = {"time": {"created": at, "completed": at + 500}, **data}
        connection.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, _SES, at, at, json.dumps(data)))
        for k, part in enumerate(parts):
            connection.execute(
                "INSERT INTO part VALUES (?,?,?,?,?,?)", (f"prt_{mid}_{k}", mid, _SES, at, at, json.dumps(part))
            )
    connection.commit()
    connection.close()


def test_a_failed_compaction_is_no_summary_and_the_next_summary_replaces_the_history_before_it(
    tmp_path: Path,
) -> None:
    """OpenCode's filterCompacted counts a summary only with ``finish`` and no ``error`` (the
    recorded store's msg_2347f9ad8…: "Tool call not allowed while generating summary"): the
    failed attempt is no compaction summary (its ``summary: true`` stays in opencode.info), so
    the later real summary's history starts at the stream's start, not at the failed attempt."""
    path = _review_db(tmp_path / "opencode.db", None, [("prt_t2a", {"type": "text", "text": "Done."})])
    failed = {"name": "UnknownError", "data": {"message": "Tool call not allowed while generating summary: bash"}}
    assistant = {"role": "assistant", "modelID": "m", "mode": "compaction"}
    _insert(
        path,
        [
            ("msg_t3", {"role": "user"}, [{"type": "compaction", "auto": False}]),
            (
                "msg_t4",
                {**assistant, "parentID": "msg_t3", "summary": True, "error": failed},
                [{"type": "text", "text": "Sum"}],
            ),
            ("msg_t5", {"role": "user"}, [{"type": "compaction", "auto": False}]),
            (
                "msg_t6",
                {**assistant, "parentID": "msg_t5", "summary": True, "finish": "stop"},
                [{"type": "text", "text": "S"}],
            ),
        ],
    )
    (stream,) = streams(path)[0].values()
    summaries = [r for r in stream if r.get("summaryOf") == "compaction"]
    assert [r["messageId"] for r in summaries] == ["msg_t6"]
    attempt = next(r for r in stream if r.get("messageId") == "msg_t4")
    assert (
        attempt["status"] == "error" and attempt["opencode"]["info"]["summary"] is True and "compaction" not in attempt
    )
    request = next(r for r in stream if r.get("messageId") == "msg_t5")
    through = summaries[0]["compaction"]["through"]
    assert through == f"r{request['seq'] - 1}" and through == f"r{attempt['seq']}"
    assert not [f for f in validate_records(stream) if f.is_error]


def test_a_summary_still_streaming_is_no_compaction_summary(tmp_path: Path) -> None:
    """No ``finish`` yet: filterCompacted does not count it, so neither does the adapter."""
    path = _review_db(tmp_path / "opencode.db", None, [("prt_t2a", {"type": "text", "text": "Done."})])
    assistant = {"role": "assistant", "modelID": "m", "parentID": "msg_t3", "summary": True, "time": {"created": 1}}
    _insert(
        path,
        [
            ("msg_t3", {"role": "user"}, [{"type": "compaction", "auto": True}]),
            ("msg_t4", assistant, [{"type": "text", "text": "Sum"}]),
        ],
    )
    attempt = next(r for r in records(path) if r.get("messageId") == "msg_t4")
    assert "summaryOf" not in attempt and attempt["opencode"]["info"]["summary"] is True


def test_a_user_messages_summary_stays_in_opencode_info(tmp_path: Path) -> None:
    """A user message's ``summary`` ({diffs, title, body}) moves nowhere: it stays in opencode.info."""
    path = _review_db(tmp_path / "opencode.db", None, [("prt_t2a", {"type": "text", "text": "Done."})])
    summary = {"title": "List files", "body": "Listed.", "diffs": [{"file": "a", "additions": 1, "deletions": 0}]}
    _insert(path, [("msg_t3", {"role": "user", "summary": summary}, [{"type": "text", "text": "more"}])])
    prompt = next(r for r in records(path) if r.get("messageId") == "msg_t3")
    assert prompt["opencode"]["info"]["summary"] == summary
