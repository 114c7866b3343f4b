"""Claude Code fidelity, independent review of the shared samples: parallel tool results on
the rebuilt path, recap authorship, the compaction summary's final ".", seq in file order for
a dequeue, a subagent's own final usage."""

from __future__ import annotations

import json
from typing import Any

import pytest
from golden_support import shared_samples

from asr_adapters import validate_records
from asr_adapters.adapters.claude_code.parts import COMPACT_PREAMBLE
from asr_adapters.convert import Conversion

from .test_claude_code import SID, asst, jsonl, line, main, queue_at, result, user
from .test_claude_code_fidelity import active_path

SAMPLES = {path.name: path for path in shared_samples("claude-code")}
TEAM = "cc-2.1.114-agent-team-taskcreate-attachments-redacted-thinking.jsonl"


def sample(name: str) -> Any:
    """The shared sample ``name``, or a skip saying it is absent."""
    if name not in SAMPLES:
        pytest.skip(f"../shared/samples/claude-code/{name} is absent")
    return SAMPLES[name]


def sample_streams(name: str) -> dict[str, list[dict[str, Any]]]:
    """Every stream of the shared sample ``name``, converted with its subagent files."""
    conversion = Conversion(sample(name), "claude-code", as_dicts=True)
    streams = {stream.key: list(stream.records) for stream in conversion.streams()}
    findings = [f for records in streams.values() for f in validate_records(records)]
    assert not [f for f in findings if f.is_error], [f.describe() for f in findings]
    return streams


def main_of(streams: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return next(records for key, records in streams.items() if "/" not in key)


def _call(n: int) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"echo {n}"}}


def test_parallel_results_and_calls_stay_on_the_rebuilt_path() -> None:
    """Three parallel calls of one response, each result under its own tool_use line (Claude
    Code's shape), the next response continuing from the first call's result: following
    ``parent`` from the end keeps all three calls and results, as Claude Code's loader does."""
    records = main(
        jsonl(
            user(1, "run three"),
            asst(2, "msg_A", _call(1), parent=1),
            asst(3, "msg_A", _call(2), parent=2),
            asst(4, "msg_A", _call(3), parent=3),
            result(5, "toolu_3", "3", parent=4),
            result(6, "toolu_2", "2", parent=3),
            result(7, "toolu_1", "1", parent=2),
            asst(8, "msg_B", {"type": "text", "text": "done"}, parent=7, stop_reason="end_turn"),
        )
    )
    path = active_path(records)
    kinds = [(r["type"], r.get("callId")) for r in path if r["type"] in ("tool_call", "tool_result")]
    assert kinds == [
        ("tool_call", "toolu_1"),
        ("tool_call", "toolu_2"),
        ("tool_call", "toolu_3"),
        ("tool_result", "toolu_3"),
        ("tool_result", "toolu_2"),
        ("tool_result", "toolu_1"),
    ]
    results = {r["callId"]: r for r in records if r["type"] == "tool_result"}
    assert "native" not in results["toolu_3"]  # its parent is its native parent's record
    assert results["toolu_2"]["native"]["parentUuid"] == "00000000-0000-4000-8000-000000000003"
    assert results["toolu_1"]["native"]["parentUuid"] == "00000000-0000-4000-8000-000000000002"


def test_a_result_of_an_earlier_response_is_not_chained() -> None:
    """Results of a response's calls written between its lines (streaming tool execution)
    keep their native parent: only results with no assistant line between them are chained."""
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_A", _call(1), parent=1),
            result(3, "toolu_1", "1", parent=2),
            asst(4, "msg_A", _call(2), parent=3),
            result(5, "toolu_2", "2", parent=4),
            asst(6, "msg_B", {"type": "text", "text": "ok"}, parent=5, stop_reason="end_turn"),
        )
    )
    assert all("native" not in r for r in records if r["type"] == "tool_result")
    assert len([r for r in active_path(records) if r["type"] in ("tool_call", "tool_result")]) == 4


def test_agent_team_sample_keeps_every_result_and_subagent_on_the_path() -> None:
    """cc-2.1.114: three teammates spawned in parallel; before, 6 results and 4 of 6 subagent
    records fell off the path rebuilt from the last record."""
    records = main_of(sample_streams(TEAM))
    on = {r["id"] for r in active_path(records)}
    off = [r["id"] for r in records if r["type"] in ("tool_call", "tool_result", "subagent") and r["id"] not in on]
    assert off == []


def test_recap_is_the_models_text_and_only_the_hint_the_harness_notice() -> None:
    """Claude Code writes `${recap} (disable recaps in /config)`: the recap is a model call's
    reply, the hint the harness's."""
    recap = "Building the parser; next: run the tests."
    away = {"subtype": "away_summary", "content": f"{recap} (disable recaps in /config)", "isMeta": False}
    later = {"subtype": "away_summary", "content": recap, "isMeta": False}
    records = main(jsonl(user(1, "hi"), line("system", 2, parent=1, **away), line("system", 3, parent=2, **later)))
    first, second = [r for r in records if r["type"] == "message"][1:]
    assert first["audience"] == "user" and "author" not in first
    assert first["content"] == [
        {"type": "text", "text": recap, "author": "model"},
        {"type": "text", "text": " (disable recaps in /config)", "author": "harness", "origin": "notice"},
    ]
    assert second["author"] == "model" and "origin" not in second
    assert second["content"] == [{"type": "text", "text": recap}]


@pytest.mark.parametrize(
    ("summary", "tail", "expected"),
    [
        ("Next: none..", "", ["Next: none.", "."]),  # `${summary}.`: the last "." is the harness's
        ("Done.", "\nPlease continue the conversation from where we left it off.", ["Done", ".\nPlease"]),
        ("No dot", "", ["No dot"]),
    ],
)
def test_compaction_summarys_closing_dot_is_the_harnesss(summary: str, tail: str, expected: list[str]) -> None:
    text = COMPACT_PREAMBLE + summary + tail
    records = main(jsonl(user(1, "hi"), user(2, text, 1, isCompactSummary=True)))
    (record,) = [r for r in records if r.get("summaryOf") == "compaction"]
    parts = record["content"]
    assert "".join(p["text"] for p in parts) == text
    assert parts[1] == {"type": "text", "text": expected[0], "author": "agent", "origin": "injected"}
    assert [p["author"] for p in parts] == ["harness", "agent"] + ["harness"] * (len(expected) - 1)
    if len(expected) > 1:
        assert parts[2]["text"].startswith(expected[1])


def test_newer_wording_adds_no_dot() -> None:
    """The wording that says "The summary below covers …" puts no "." after the summary."""
    text = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion.\n\nDone."
    )
    records = main(jsonl(user(1, "hi"), user(2, text, 1, isCompactSummary=True)))
    (record,) = [r for r in records if r.get("summaryOf") == "compaction"]
    assert record["content"][-1]["text"] == "\nDone."


def test_a_dequeue_with_nothing_queued_is_written_in_file_order() -> None:
    """2.1.17 print mode: the file opens with a dequeue (its enqueue was never written), then
    a SessionStart hook_progress line, then the prompt. The dequeue has nothing to take out,
    so its vendor record comes first, as its line does."""
    progress = line("progress", 2, data={"type": "hook_progress", "hookEvent": "SessionStart"})
    records = main(jsonl(queue_at("dequeue", 1), progress, user(3, "explore", parent=2)))
    kinds = [r.get("schema", r["type"]) for r in records[1:]]
    assert kinds == [
        "com.anthropic.claude-code/queue-operation",
        "com.anthropic.claude-code/progress/hook_progress",
        "message",
    ]
    assert "origin" not in records[3] or records[3]["origin"] == "prompt"


def test_a_dequeue_that_takes_a_queued_prompt_still_folds_into_its_user_line() -> None:
    records = main(
        jsonl(
            user(1, "first"),
            queue_at("enqueue", 2, "second"),
            queue_at("dequeue", 3),
            user(4, "second", parent=1),
        )
    )
    (second,) = [r for r in records if r["type"] == "message" and r["content"][0]["text"] == "second"]
    assert second["assembly"]["sourceIds"][:2] == [f"{SID}:L2", f"{SID}:L3"]  # both queue lines folded
    assert not [r for r in records if r["type"] == "vendor"]


def test_a_subagents_last_response_keeps_its_own_usage_object() -> None:
    """cc-2.1.114 agent-a36efb2a…: its file's last response counts 2 output tokens (a running
    count), the parent's Agent result records 361. ``usage`` takes the parent's count,
    ``nativeUsage`` stays the line's own object (the parent's is its ``toolUseResult``)."""
    streams = sample_streams(TEAM)
    path = SAMPLES[TEAM].with_suffix("") / "subagents" / "agent-a36efb2a1231c41e2.jsonl"
    own = json.loads(path.read_text().splitlines()[-1])["message"]["usage"]
    (child,) = [records for key, records in streams.items() if key.endswith("/agent-a36efb2a1231c41e2")]
    last = [r for r in child if "nativeUsage" in r][-1]
    assert last["nativeUsage"] == own
    assert own["output_tokens"] == 2 and last["usage"]["outputTokens"] == 361
    parent = main_of(streams)
    (spawn,) = [
        r
        for r in parent
        if r["type"] == "tool_result" and r.get("toolUseResult", {}).get("agentId") == "a36efb2a1231c41e2"
    ]
    assert spawn["toolUseResult"]["usage"]["output_tokens"] == 361  # the parent's object, kept there
