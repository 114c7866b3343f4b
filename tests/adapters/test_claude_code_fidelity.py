"""Claude Code fidelity round 3 (issue 27 items 1-7): the tree a consumer rebuilds, the
records derived from lines, the queue window, compaction authorship, leftover members."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import shared_samples

from asr_adapters.adapters.claude_code.parts import COMPACT_PREAMBLE
from asr_adapters.convert import Conversion

from .test_claude_code import SID, asst, convert, jsonl, main, result, user

SAMPLES = shared_samples("claude-code")
GOLDEN = Path(__file__).resolve().parent.parent.parent / "golden" / "claude-code"
DERIVED = ("plan", "subagent", "input_request")


def active_path(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records met following ``parent`` from the last record that has one (the way a
    consumer rebuilds the conversation that led to the end of the stream)."""
    by_id = {r["id"]: r for r in records}
    tip = next((r for r in reversed(records) if "parent" in r), None)
    path: list[dict[str, Any]] = []
    while tip is not None:
        path.append(tip)
        tip = by_id.get(tip.get("parent", ""))
    return path[::-1]


def side_branches(records: list[dict[str, Any]], kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """Records of ``kinds`` that have a parent and no child although a later record names
    their parent: each would look like a rewind and drop out of the rebuilt path."""
    children: dict[str, list[str]] = {}
    for record in records:
        if "parent" in record:
            children.setdefault(record["parent"], []).append(record["id"])
    return [
        r
        for r in records
        if r["type"] in kinds and "parent" in r and r["id"] not in children and len(children[r["parent"]]) > 1
    ]


# -- item 1 and 7: derived records on the path, with their line's time -----------------


def test_plan_and_subagent_records_are_on_the_rebuilt_path_with_their_result_lines_time() -> None:
    records = main(GOLDEN.joinpath("derived-on-path", "input.jsonl").read_bytes())
    path = {r["id"] for r in active_path(records)}
    derived = [r for r in records if r["type"] in DERIVED]
    assert [r["type"] for r in derived] == ["plan", "subagent"]
    assert all(r["id"] in path for r in derived)
    results = {r["callId"]: r for r in records if r["type"] == "tool_result"}
    for record in derived:  # the time of the result line it was derived from, never its call's
        assert record["ts"] == results[record["callId"]]["ts"]
        assert record["parent"] == results[record["callId"]]["id"]


def test_questions_of_one_call_are_a_chain_not_siblings() -> None:
    ask = {"type": "tool_use", "id": "toolu_Q", "name": "AskUserQuestion"}
    ask["input"] = {"questions": [{"question": "A?", "options": []}, {"question": "B?", "options": []}]}
    records = main(
        jsonl(user(1, "ask me"), asst(2, "m1", ask, 1), result(3, "toolu_Q", "answered", 2), user(4, "ok", 3))
    )
    assert not side_branches(records, DERIVED)
    assert {r["id"] for r in records if r["type"] == "input_request"} <= {r["id"] for r in active_path(records)}


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/claude-code is absent")
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name[:48] for p in SAMPLES])
def test_no_derived_record_is_a_side_branch_in_a_shared_sample(sample: Path) -> None:
    for stream in Conversion(sample, "claude-code", as_dicts=True).streams():
        records = list(stream.records)
        branches = side_branches(records, DERIVED) + [
            r
            for r in side_branches(records, ("message",))
            if r.get("origin") == "steer" or r.get("status") == "withdrawn"
        ]
        assert not branches, [(r["id"], r["type"], r.get("callId")) for r in branches]


def test_helpers_see_a_fork() -> None:
    records = [
        {"type": "message", "id": "r2"},
        {"type": "plan", "id": "r3", "parent": "r2"},
        {"type": "message", "id": "r4", "parent": "r2"},
    ]
    assert [r["id"] for r in side_branches(records, DERIVED)] == ["r3"]
    assert [r["id"] for r in active_path(records)] == ["r2", "r4"]
    assert SID


# -- item 2: steering (and withdrawn) messages on the path ---------------------------------


def test_steering_messages_are_on_the_path_of_the_response_that_acted_on_them() -> None:
    records = main(GOLDEN.joinpath("steer-on-path", "input.jsonl").read_bytes())
    path = active_path(records)
    steer = [r for r in records if r.get("origin") == "steer"]
    assert [r["content"][0]["text"] for r in steer] == ["only the empty-input tests", "and skip the slow ones"]
    assert [r["id"] for r in path[-3:]] == [steer[0]["id"], steer[1]["id"], records[-1]["id"]]


def test_a_withdrawn_input_stays_on_the_active_path() -> None:
    """ASR-225: a withdrawn message stays on the active path (not in the context view)."""
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "m1", {"type": "tool_use", "id": "toolu_w", "name": "Bash", "input": {}}, 1),
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": "2026-03-02T10:00:02.500Z",
                "sessionId": SID,
                "content": "never mind",
            },
            {
                "type": "queue-operation",
                "operation": "popAll",
                "timestamp": "2026-03-02T10:00:02.600Z",
                "sessionId": SID,
                "content": "never mind",
            },
            result(3, "toolu_w", "ok", 2),
            asst(4, "m2", {"type": "text", "text": "done"}, 3, stop_reason="end_turn"),
        )
    )
    (withdrawn,) = [r for r in records if r.get("status") == "withdrawn"]
    assert withdrawn["ts"] == "2026-03-02T10:00:02.600Z"
    assert withdrawn["id"] in {r["id"] for r in active_path(records)}


# -- item 6: leftover message members ------------------------------------------------------


def test_leftover_message_members_of_any_line_of_a_response_are_kept_under_native() -> None:
    records = main(GOLDEN.joinpath("message-leftovers", "input.jsonl").read_bytes())
    (answer,) = [r for r in records if r.get("messageId") == "msg_l1"]
    assert answer["native"]["message"] == {
        "stop_details": {"type": "end_turn"},
        "context_management": {"applied_edits": []},
    }
    first_call = next(r for r in records if r.get("callId") == "toolu_l2" and r["type"] == "tool_call")
    edits = first_call["native"]["message"]["context_management"]["applied_edits"]
    assert edits == [{"type": "clear_tool_uses_20250919", "cleared_input_tokens": 0}]
    assert first_call["usage"]["outputTokens"] == 55  # the same later line raised its usage


# -- item 5: the compaction summary's author -----------------------------------------------


def test_compaction_summary_is_the_agents_text_in_the_harness_frame() -> None:
    data = GOLDEN.joinpath("compaction-summary-author", "input.jsonl").read_bytes()
    native = orjson.loads(data.splitlines()[-1])["message"]["content"]
    (summary,) = [r for r in main(data) if r.get("summaryOf") == "compaction"]
    parts = summary["content"]
    assert "".join(p["text"] for p in parts) == native  # every character kept, in order
    assert [p["author"] for p in parts] == ["harness", "agent", "harness"]
    assert parts[1]["text"].startswith("Summary:\n1. Primary Request")
    assert parts[2]["text"].startswith(".\n\nIf you need specific details from before compaction")


@pytest.mark.parametrize(
    ("text", "authors"),
    [
        ("Summary of prior context.", ["agent"]),  # no preamble: all the agent's
        (
            COMPACT_PREAMBLE + "S.\nPlease continue the conversation from where we left it off.",
            ["harness", "agent", "harness"],
        ),
        (COMPACT_PREAMBLE, ["harness"]),
    ],
)
def test_compaction_summary_split_points(text: str, authors: list[str]) -> None:
    line = user(2, text, 1, isCompactSummary=True)
    records = main(jsonl(user(1, "hi"), line))
    (summary,) = [r for r in records if r.get("summaryOf") == "compaction"]
    parts = summary["content"]
    assert "".join(p["text"] for p in parts) == text
    assert [p.get("author", summary.get("author")) for p in parts] == authors


# -- item 4: hook context only the compaction agent's file records -------------------------


def _compaction_hook_case(tmp_path: Path) -> tuple[dict[str, list[dict[str, Any]]], Any]:
    """The ``compaction-hook-context`` case laid out as Claude Code keeps it (the compaction
    agent's file under ``<session>/subagents/``), converted."""
    case = GOLDEN / "compaction-hook-context"
    session = tmp_path / f"{SID}.jsonl"
    session.write_bytes((case / "input.jsonl").read_bytes())
    agent = tmp_path / SID / "subagents" / "agent-acompact-7c1d2e.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_bytes((case / "input" / "subagents" / agent.name).read_bytes())
    return convert(session)


def test_hook_context_only_the_compaction_agent_recorded_is_in_the_main_stream(tmp_path: Path) -> None:
    streams, accounting = _compaction_hook_case(tmp_path)
    main_records = streams[f"claude-code:{SID}"]
    (hook,) = [r for r in main_records if r.get("author") == "hook"]
    assert hook["content"][0]["text"].startswith("<system-reminder>\nPostToolUse:Edit hook additional context")
    assert hook["id"] in {r["id"] for r in active_path(main_records)}  # the main model received it
    child = streams[f"claude-code:{SID}/agent-acompact-7c1d2e"]
    (copy,) = [r for r in child if r.get("messageId") == hook["messageId"]]
    assert copy["copiedFrom"] == f"claude-code:{SID}#messageId={hook['messageId']}"
    assert accounting.native_items == 6 + 7  # each line counted once, in its own file


# -- item 7: the compaction agent's subagent record at its place ---------------------------


def test_the_compaction_agents_subagent_record_sits_before_its_boundary_with_its_time(tmp_path: Path) -> None:
    streams, _ = _compaction_hook_case(tmp_path)
    records = streams[f"claude-code:{SID}"]
    (spawn,) = [r for r in records if r["type"] == "subagent"]
    boundary = records[records.index(spawn) + 1]
    assert boundary.get("schema") == "com.anthropic.claude-code/system/compact_boundary"
    assert spawn["ts"] == "2026-03-02T10:04:50.000Z"  # the agent's own first line
    assert "parent" not in spawn
    assert [r["seq"] for r in records] == sorted(r["seq"] for r in records)


def test_an_older_preamble_wording_is_the_harnesss_up_to_its_line_end() -> None:
    text = "This session is being continued from a previous conversation.\nSummary:\nparse() is fixed."
    records = main(jsonl(user(1, "hi"), user(2, text, 1, isCompactSummary=True)))
    (summary,) = [r for r in records if r.get("summaryOf") == "compaction"]
    assert [(p["text"], p["author"]) for p in summary["content"]] == [
        ("This session is being continued from a previous conversation.\n", "harness"),
        ("Summary:\nparse() is fixed.", "agent"),
    ]
