"""Copilot CLI: the rules an independent review found broken, each on a small built file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from asr_adapters import validate_records
from asr_adapters.convert import Conversion

SESSION = "11111111-2222-4333-8444-555555555555"
START = {
    "type": "session.start",
    "data": {"sessionId": SESSION, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.55-1"},
}


def write(tmp_path: Path, events: list[dict[str, Any]], name: str = "input.jsonl") -> Path:
    """The events as a file, each with an id, a timestamp a second apart and the chain."""
    lines, previous = [], None
    for number, event in enumerate([START, *events], 1):
        event = {"id": f"e{number}", "timestamp": f"2026-05-26T16:00:{number:02d}.000Z", "parentId": previous, **event}
        previous = event["id"]
        lines.append(orjson.dumps(event))
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def convert(path: Path) -> dict[str, list[dict[str, Any]]]:
    conversion = Conversion(path, "copilot-cli", as_dicts=True)
    streams = {stream.key: list(stream.records) for stream in conversion.streams()}
    assert conversion.accounting.balanced()
    return streams


def main(streams: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return next(iter(streams.values()))


def user(content: str, transformed: str | None = None, **data: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"content": content, **data}
    if transformed is not None:
        body["transformedContent"] = transformed
    return {"type": "user.message", "data": body}


def reply(message_id: str, text: str = "", requests: list[Any] | None = None, **data: Any) -> dict[str, Any]:
    body = {"messageId": message_id, "content": text, "toolRequests": requests or [], "requestId": f"req-{message_id}"}
    return {"type": "assistant.message", "data": {**body, **data}}


def call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"toolCallId": call_id, "name": tool, "arguments": arguments, "type": "function"}


def result(call_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "tool.execution_complete",
        "data": {"toolCallId": call_id, "success": True, "result": {"content": text, **extra}},
    }


# -- 1: the typed text is found only where the CLI's block structure puts it -----------------


def test_a_short_prompt_inside_the_datetime_is_not_split_there(tmp_path: Path) -> None:
    stamp = "<current_datetime>2026-05-26T16:00:07.000+00:00</current_datetime>\n\n"
    reminder = "\n\n<system_reminder>\n<todo_status>none</todo_status>\n</system_reminder>"
    records = main(convert(write(tmp_path, [user("1", stamp + "1" + reminder), user("time", stamp + "time")])))
    one, time = [r for r in records if r.get("role") == "user"]
    assert [(p["text"], p["author"]) for p in one["content"]] == [
        (stamp, "harness"),
        ("1", "human"),
        (reminder, "harness"),
    ]
    assert [(p["text"], p["author"]) for p in time["content"]] == [(stamp, "harness"), ("time", "human")]


def test_a_typed_text_the_structure_does_not_place_stays_whole_with_no_author(tmp_path: Path) -> None:
    # typed text that occurs twice after the prefix: where it is cannot be told
    transformed = "<current_datetime>x</current_datetime>\n\nok\n\n<reminder>ok</reminder>\nok"
    records = main(convert(write(tmp_path, [user("ok", transformed)])))
    prompt = next(r for r in records if r.get("role") == "user")
    assert prompt["content"] == [{"type": "text", "text": transformed}]


# -- 2: a background task's result is the harness's notice, not the subagent's report --------


def test_a_background_task_result_is_not_a_subagent_report(tmp_path: Path) -> None:
    started = {"type": "subagent.started", "agentId": "tb", "data": {"toolCallId": "tb", "agentName": "code-review"}}
    events = [
        reply("m1", requests=[call("tb", "task", description="Review", prompt="Review diff", mode="background")]),
        started,
        result("tb", "Agent started in background with agent_id: agent-0."),
        reply("m2", requests=[call("ts", "task", description="Look", prompt="Look", mode="sync")]),
        {**started, "agentId": "ts", "data": {"toolCallId": "ts", "agentName": "explore"}},
        result("ts", "Found 3 files."),
    ]
    results = {r["callId"]: r for r in main(convert(write(tmp_path, events))) if r["type"] == "tool_result"}
    assert "author" not in results["tb"]["content"][0] and "origin" not in results["tb"]["content"][0]
    assert results["ts"]["content"][0]["origin"] == "subagent_report"


# -- 3 / 10: delivery and the parent's prompt to a subagent ----------------------------------


def test_steering_and_queued_prompts_keep_their_delivery_as_origin(tmp_path: Path) -> None:
    stamp = "<current_datetime>x</current_datetime>\n\n"
    events = [
        user("also check README", stamp + "also check README", delivery="steering"),
        user("then lint", stamp + "then lint", delivery="queued"),
    ]
    steer, queued = [r for r in main(convert(write(tmp_path, events))) if r.get("role") == "user"]
    assert steer["content"][1]["origin"] == "steer" and queued["content"][1]["origin"] == "queued"
    assert steer["content"][1]["author"] == queued["content"][1]["author"] == "human"


# -- 4: reasoning events keep their ids, and growing the file changes no record --------------


def test_a_reasoning_event_is_a_record_of_its_own_and_stable_as_the_file_grows(tmp_path: Path) -> None:
    reasoning = {"type": "assistant.reasoning", "data": {"reasoningId": "rs-2", "content": "Check the cache."}}
    message = reply("m-2", "Cold cache.", reasoningText="Check the cache.", reasoningOpaque="BLOB")
    cut = main(convert(write(tmp_path, [user("why"), reasoning], "cut.jsonl")))
    grown = main(convert(write(tmp_path, [user("why"), reasoning, message], "grown.jsonl")))
    assert grown[: len(cut)] == [r if r["type"] != "session" else grown[0] for r in cut]
    thought, answer = grown[len(cut) - 1], grown[len(cut)]
    assert thought["messageId"] == "rs-2" and thought["content"] == [{"type": "reasoning", "text": "Check the cache."}]
    assert answer["messageId"] == "m-2" and answer["native"]["reasoningTextIn"] == "messageId=rs-2"
    assert answer["content"][0] == {
        "type": "reasoning",
        "opaque": {"format": "github.copilot.reasoning_opaque", "data": "BLOB"},
    }


# -- 5: the native ids of a tools-only response ride on its calls ------------------------------


def test_a_tools_only_response_keeps_its_native_ids_on_its_calls(tmp_path: Path) -> None:
    ids = {"turnId": "0", "interactionId": "i-1", "serviceRequestId": "s-1"}
    events = [reply("m1", requests=[call("c1", "view", path="a"), call("c2", "view", path="b")], model="o", **ids)]
    first, second = [r for r in main(convert(write(tmp_path, events))) if r["type"] == "tool_call"]
    assert first["native"]["messageId"] == second["native"]["messageId"] == "m1"
    assert {k: first["native"][k] for k in ids} == ids and first["inferenceId"] == "req-m1"
    assert first["model"] == second["model"] == "o"


# -- 6 / 9 / 11: subagent links ---------------------------------------------------------------


def test_a_subagent_link_takes_its_facts_from_the_task_call_and_pairs_by_the_started_line(tmp_path: Path) -> None:
    events = [
        reply(
            "m1",
            requests=[call("tc1", "task", name="inspector", agent_type="explore", description="Inspect", prompt="p")],
        ),
        {
            "type": "subagent.started",
            "agentId": "agent-0",
            "data": {"toolCallId": "tc1", "agentName": "explore", "agentDescription": "Uses {{grepToolName}}."},
        },
        {**reply("k1", "done"), "agentId": "agent-0"},
        result("tc1", "done"),
    ]
    streams = convert(write(tmp_path, events))
    assert list(streams)[1] == f"copilot-cli:{SESSION}/agent-agent-0"
    link = next(r for r in main(streams) if r["type"] == "subagent")
    assert link["session"] == list(streams)[1]
    assert (link["address"], link["agentType"], link["description"]) == ("inspector", "explore", "Inspect")
    assert link["native"]["agentDescription"] == "Uses {{grepToolName}}." and "parent" not in link
    assert streams[list(streams)[1]][0]["ts"] == "2026-05-26T16:00:03.000Z"  # the subagent.started's time


def test_a_subagent_without_started_is_linked_at_its_first_event_and_stays_put(tmp_path: Path) -> None:
    task = reply("m1", requests=[call("task1", "task", agent_type="explore", description="Look", prompt="Look")])
    child = [{**user("Look"), "agentId": "task1"}, {**reply("s1", "Found 3."), "agentId": "task1"}]
    cut = main(convert(write(tmp_path, [task, *child], "cut.jsonl")))
    grown = main(convert(write(tmp_path, [task, *child, result("task1", "Found 3."), reply("m2", "It found 3.")])))
    link = next(r for r in cut if r["type"] == "subagent")
    assert link == next(r for r in grown if r["type"] == "subagent") and link["seq"] == 3
    assert "ts" not in link and (link["agentType"], link["description"]) == ("explore", "Look")  # no time of its own
    report = next(r for r in grown if r["type"] == "tool_result")
    assert report["content"][0]["origin"] == "subagent_report"


# -- 7: equal reasoning text is not a re-sent block --------------------------------------------


def test_equal_reasoning_text_in_two_responses_is_kept_in_both(tmp_path: Path) -> None:
    events = [
        reply("m1", "A.", reasoningText="Let me think."),
        user("b"),
        reply("m2", "B.", reasoningText="Let me think."),
        reply("m3", "C.", reasoningText="x", reasoningOpaque="SAME", interactionId="i"),
        reply("m4", "D.", reasoningText="x", reasoningOpaque="SAME", interactionId="i"),
    ]
    messages = {r["messageId"]: r for r in main(convert(write(tmp_path, events))) if r.get("role") == "assistant"}
    assert messages["m2"]["content"][0] == {"type": "reasoning", "text": "Let me think."}
    assert messages["m4"]["native"]["reasoningRepeatsMessage"] == "messageId=m3"  # the same blob again: once


# -- 8: a message written again keeps its native count, usage counted once ----------------------


def test_a_rewritten_message_keeps_native_usage_and_usage_is_summed_once(tmp_path: Path) -> None:
    events = [reply("m2", "Done.", outputTokens=7), reply("m2", "Done.", outputTokens=7)]
    first, again = [r for r in main(convert(write(tmp_path, events))) if r.get("role") == "assistant"]
    assert again["supersedes"] == first["id"] and again["nativeUsage"] == {"outputTokens": 7}
    assert first["usage"] == {"outputTokens": 7} and "usage" not in again


# -- 12: binaries the model got are content parts ----------------------------------------------


def test_binary_results_for_the_model_are_parts(tmp_path: Path) -> None:
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    omitted = {"type": "image", "mimeType": "image/jpeg", "byteLength": 9, "omittedReason": "size_limit"}
    events = [
        reply("m1", requests=[call("c1", "view", path="x.png"), call("c2", "view", path="y.jpg")]),
        result("c1", "Viewed image x.png", binaryResultsForLlm=[image]),
        result("c2", "Viewed image y.jpg", binaryResultsForLlm=[omitted]),
    ]
    whole, cut = [r for r in main(convert(write(tmp_path, events))) if r["type"] == "tool_result"]
    assert whole["content"][1] == {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    assert "capture" not in whole
    assert cut["content"][1] == {"type": "image", "mimeType": "image/jpeg"}
    assert cut["capture"]["content"]["state"] == "truncated" and "size_limit" in cut["capture"]["content"]["reason"]


# -- 13: interrupted calls and cancelled subagents ---------------------------------------------


def test_calls_stopped_by_abort_or_shutdown_are_interrupted(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("c1", "bash", command="pytest"), call("c2", "bash", command="make")]),
        {"type": "abort", "data": {"reason": "user_initiated"}},
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "c1", "success": False, "error": {"message": "cancelled"}},
        },
        {"type": "session.shutdown", "data": {"shutdownType": "error"}},
    ]
    records = main(convert(write(tmp_path, events)))
    stopped = next(r for r in records if r["type"] == "tool_result")
    # stopped, not failed: no isError on an interrupted result (docs/semantics.md, Tool outcome)
    assert stopped["status"] == "interrupted" and "isError" not in stopped
    calls = [r for r in records if r["type"] == "tool_call" and r["callId"] == "c2"]
    assert [c.get("status") for c in calls] == [None, "interrupted"] and calls[1]["supersedes"] == calls[0]["id"]


def test_a_cancelled_subagent_is_written_again_as_interrupted(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("t1", "task", description="Look", prompt="p")]),
        {"type": "subagent.started", "agentId": "t1", "data": {"toolCallId": "t1", "agentName": "explore"}},
        {
            "type": "subagent.completed",
            "agentId": "t1",
            "data": {"toolCallId": "t1", "agentName": "explore", "cancelled": True},
        },
    ]
    links = [r for r in main(convert(write(tmp_path, events))) if r["type"] == "subagent"]
    assert [r.get("status") for r in links] == [None, "interrupted"] and links[1]["supersedes"] == links[0]["id"]
    assert links[1]["description"] == "Look"


# -- 14 / 15 / 16: what the source holds, said as it is ----------------------------------------


def test_an_empty_response_is_empty_text_not_absent_content(tmp_path: Path) -> None:
    record = next(r for r in main(convert(write(tmp_path, [reply("m1", "")]))) if r.get("role") == "assistant")
    assert record["content"] == [{"type": "text", "text": ""}] and "capture" not in record


def test_a_prompt_with_only_its_display_text_is_display_content(tmp_path: Path) -> None:
    records = main(convert(write(tmp_path, [user("run tests")])))
    prompt = next(r for r in records if r.get("role") == "user")
    assert prompt["content"] == [] and prompt["capture"]["content"]["state"] == "absent"
    assert prompt["displayContent"] == [{"type": "text", "text": "run tests", "author": "human", "origin": "prompt"}]
    assert not [f for f in validate_records(records) if f.severity == "error"]


def test_a_started_line_naming_the_calling_agent_pairs_by_its_call(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("A", "task", description="outer", prompt="do")]),
        {"type": "subagent.started", "agentId": "A", "data": {"toolCallId": "A", "agentName": "general-purpose"}},
        {**reply("a1", requests=[call("B", "task", description="inner", prompt="look")]), "agentId": "A"},
        # the inner start written under the calling agent's id, not the child's
        {"type": "subagent.started", "agentId": "A", "data": {"toolCallId": "B", "agentName": "explore"}},
        {**reply("b1", "inner done", parentToolCallId="B"), "agentId": "B"},
    ]
    streams = convert(write(tmp_path, events))
    outer, inner = f"copilot-cli:{SESSION}/agent-A", f"copilot-cli:{SESSION}/agent-B"
    assert list(streams) == [f"copilot-cli:{SESSION}", outer, inner]
    assert streams[outer][0]["parent"] == f"copilot-cli:{SESSION}" and streams[inner][0]["parent"] == outer
    assert [r["session"] for r in streams[outer] if r["type"] == "subagent"] == [inner]
