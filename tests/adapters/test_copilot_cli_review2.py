"""Copilot CLI: the rules a second independent review found broken, each on a small built file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asr_adapters import validate_records
from asr_adapters.convert import Conversion

from .test_copilot_cli_review import SESSION, call, convert, main, reply, result, user, write


def _usage_sum(records: list[dict[str, Any]]) -> int:
    return sum(r.get("usage", {}).get("outputTokens", 0) for r in records)


# -- 1: a revision never carries usage, however far from the first -----------------------------


def test_a_message_rewritten_without_a_request_id_counts_its_usage_once(tmp_path: Path) -> None:
    first = {"type": "assistant.message", "data": {"messageId": "m1", "content": "hi", "outputTokens": 10}}
    events = [first, {"type": "session.info", "data": {"message": "x"}}, first]
    records = main(convert(write(tmp_path, events)))
    one, again = [r for r in records if r.get("role") == "assistant"]
    assert again["supersedes"] == one["id"] and "usage" not in again and again["nativeUsage"] == {"outputTokens": 10}
    assert _usage_sum(records) == 10


def test_a_message_rewritten_a_hundred_responses_later_counts_its_usage_once(tmp_path: Path) -> None:
    events = [reply("m0", "hello", outputTokens=100)]
    events += [reply(f"m{n}", "x", outputTokens=1) for n in range(1, 101)]
    events.append(reply("m0", "hello", outputTokens=100))
    records = main(convert(write(tmp_path, events)))
    assert _usage_sum(records) == 200
    last = [r for r in records if r.get("messageId") == "m0"][-1]
    assert "supersedes" in last and "usage" not in last


def test_a_later_chunk_keeps_its_count_as_native_usage(tmp_path: Path) -> None:
    events = [
        reply("m1", "a", outputTokens=33, apiCallId="api-1", chunkIndex=0),
        reply("m1b", "b", outputTokens=33, apiCallId="api-1", chunkIndex=1),
    ]
    one, two = [r for r in main(convert(write(tmp_path, events))) if r.get("role") == "assistant"]
    assert one["usage"] == {"outputTokens": 33} and "usage" not in two
    assert two["nativeUsage"] == {"outputTokens": 33}


# -- 2: a tool start is compared by value -------------------------------------------------------


def _start(call_id: str, tool: str, **data: Any) -> dict[str, Any]:
    return {"type": "tool.execution_start", "data": {"toolCallId": call_id, "toolName": tool, **data}}


def test_a_start_that_differs_from_its_request_revises_the_call(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="ls")], model="gpt", outputTokens=3),
        _start("c1", "powershell", arguments={"command": "rm -rf /"}, model="other"),
        result("c1", "ok"),
    ]
    records = main(convert(write(tmp_path, events)))
    first, revised = [r for r in records if r["type"] == "tool_call"]
    assert revised["supersedes"] == first["id"] and revised["name"] == "powershell"
    assert revised["input"] == {"command": "rm -rf /"} and revised["model"] == "other"
    assert revised["inferenceId"] == first["inferenceId"] and revised["native"]["messageId"] == "m1"
    assert "usage" not in revised and revised["nativeUsage"] == {"outputTokens": 3}


def test_a_start_that_only_repeats_its_request_is_a_duplicate(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="ls")], model="gpt"),
        _start("c1", "bash", arguments={"command": "ls"}, model="gpt"),
    ]
    path = write(tmp_path, events)
    records = main(convert(path))
    assert [r["type"] for r in records if r["type"] in ("tool_call", "vendor")] == ["tool_call"]


def test_a_start_after_its_result_does_not_reopen_the_call(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="ls")]),
        result("c1", "ok"),
        _start("c1", "bash", arguments={"command": "ls"}),
        {"type": "session.shutdown", "data": {"shutdownType": "routine"}},
    ]
    records = main(convert(write(tmp_path, events)))
    calls = [r for r in records if r["type"] == "tool_call"]
    assert len(calls) == 1 and "status" not in calls[0]


# -- 3 / 8: a link never names a call that is not there, and has no borrowed time ---------------


def test_an_early_link_without_its_call_is_superseded_by_the_started_line(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("tc1", "task", agent_type="explore", description="d", prompt="p")]),
        {**reply("k1", "child"), "agentId": "agent-0"},
        {"type": "subagent.started", "agentId": "agent-0", "data": {"toolCallId": "tc1", "agentName": "explore"}},
    ]
    records = main(convert(write(tmp_path, events)))
    early, started = [r for r in records if r["type"] == "subagent"]
    assert "callId" not in early and "ts" not in early
    assert early["session"] == started["session"] == f"copilot-cli:{SESSION}/agent-agent-0"
    assert started["callId"] == "tc1" and started["supersedes"] == early["id"]
    assert not [f for f in validate_records(records) if f.severity in ("error", "warning")]


def test_a_link_made_at_the_childs_first_event_has_no_time_of_its_own(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("t1", "task", description="d", prompt="p")]),
        {**reply("k1", "child", parentToolCallId="t1"), "agentId": "t1"},
    ]
    link = next(r for r in main(convert(write(tmp_path, events))) if r["type"] == "subagent")
    assert link["callId"] == "t1" and "ts" not in link


# -- 4 / 5: author only from what the CLI records ------------------------------------------------


def test_a_source_naming_a_hook_is_not_claimed_as_a_hook(tmp_path: Path) -> None:
    records = main(convert(write(tmp_path, [user("set up webhooks", "set up webhooks", source="skill-webhooks")])))
    prompt = next(r for r in records if r.get("role") == "user")
    assert prompt["content"][0]["author"] == "harness" and prompt["content"][0]["origin"] == "injected"


def test_a_prompt_in_a_subagent_stream_without_source_has_no_author_or_sender(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("t1", "task", description="d", prompt="p")]),
        {"type": "subagent.started", "agentId": "t1", "data": {"toolCallId": "t1", "agentName": "explore"}},
        {**user("look at x", "look at x"), "agentId": "t1"},
        {**user("from a", "from a", source="agent-zz"), "agentId": "t1"},
    ]
    child = convert(write(tmp_path, events))[f"copilot-cli:{SESSION}/agent-t1"]
    bare, sent = [r for r in child if r.get("role") == "user"]
    assert "from" not in bare and "author" not in bare["content"][0] and "origin" not in bare["content"][0]
    assert sent["content"][0]["author"] == "agent" and "from" not in sent


# -- 6: attachments whose bytes went to the model natively ---------------------------------------


def test_attachments_sent_natively_are_parts_or_a_stated_gap(tmp_path: Path) -> None:
    blob = {"type": "blob", "mimeType": "image/png", "data": "iVBORw0KGgo=", "displayName": "x.png"}
    asset = {"type": "file", "path": "/w/y.png", "displayName": "y", "mimeType": "image/png", "assetId": "sha256:ab"}
    tagged = {"type": "file", "path": "/w/z.py", "displayName": "z.py", "taggedFilesEntry": "* /w/z.py (3 lines)"}
    prompt_text = "look\n\n<tagged_files>\n* /w/z.py (3 lines)\n</tagged_files>"
    events = [user("look", prompt_text, attachments=[blob, asset, tagged])]
    prompt = next(r for r in main(convert(write(tmp_path, events))) if r.get("role") == "user")
    assert prompt["content"][-2] == {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    assert prompt["content"][-1] == {"type": "image", "mimeType": "image/png"}
    capture = prompt["capture"]["content"]
    assert capture["state"] == "truncated" and "sha256:ab" in capture["reason"]
    assert prompt["native"]["attachments"] == [blob, asset, tagged]


# -- 7: an exact repeat is a duplicate wherever it is -------------------------------------------


def test_a_line_repeated_further_on_is_a_duplicate_and_a_changed_result_revises(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="ls"), call("c2", "bash", command="pwd")]),
        result("c1", "a b"),
        {"type": "session.info", "data": {"message": "x"}},
        result("c2", "/w"),
        result("c2", "/w2"),
    ]
    path = write(tmp_path, events)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:4], lines[2], *lines[4:], lines[2]]))  # the c1 result twice more, apart
    conversion = Conversion(path, "copilot-cli", as_dicts=True)
    records = list(next(iter(conversion.streams())).records)
    results = [r for r in records if r["type"] == "tool_result"]
    assert [r["callId"] for r in results] == ["c1", "c2", "c2"]
    assert results[2]["supersedes"] == results[1]["id"] and "supersedes" not in results[0]
    assert conversion.accounting.duplicates == 2 and conversion.accounting.balanced()


# -- nits: the shutdown's revision keeps its native count ---------------------------------------


def test_a_call_written_again_at_shutdown_keeps_its_native_count_but_not_usage(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="sleep 9")], outputTokens=5),
        {"type": "session.shutdown", "data": {"shutdownType": "routine"}},
    ]
    records = main(convert(write(tmp_path, events)))
    first, closed = [r for r in records if r["type"] == "tool_call"]
    assert first["usage"] == {"outputTokens": 5} and closed["status"] == "interrupted"
    assert "usage" not in closed and closed["nativeUsage"] == {"outputTokens": 5}


def test_a_start_long_after_its_request_is_still_compared_by_value(tmp_path: Path) -> None:
    events = [reply(f"m{n}", requests=[call(f"c{n}", "bash", command=f"echo {n}")]) for n in range(700)]
    events += [_start("c0", "bash", arguments={"command": "echo 0"}), result("c0", "0"), _start("c1", "sh")]
    records = main(convert(write(tmp_path, events)))
    revised = [r for r in records if r["type"] == "tool_call" and r["callId"] in ("c0", "c1")]
    assert [(r["callId"], r["name"], r["input"]) for r in revised] == [
        ("c0", "bash", {"command": "echo 0"}),
        ("c1", "bash", {"command": "echo 1"}),
        ("c1", "sh", {"command": "echo 1"}),
    ]


def test_a_request_written_after_its_result_is_not_left_open(tmp_path: Path) -> None:
    events = [
        result("c2", "B"),
        reply("m2", requests=[call("c2", "view", path="b")]),
        {"type": "session.shutdown", "data": {"shutdownType": "routine"}},
    ]
    calls = [r for r in main(convert(write(tmp_path, events))) if r["type"] == "tool_call"]
    assert len(calls) == 1 and "status" not in calls[0]
