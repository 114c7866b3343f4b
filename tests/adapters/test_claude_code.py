"""The Claude Code adapter: one test per mapping rule, plus every shared sample."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.claude_code import discover
from asr_adapters.adapters.claude_code.builder import Builder
from asr_adapters.adapters.claude_code.info import StreamInfo
from asr_adapters.adapters.claude_code.parts import split_text
from asr_adapters.adapters.claude_code.plans import TaskList
from asr_adapters.convert import Conversion
from asr_adapters.core.accounting import Accounting
from asr_adapters.core.source import Source

SID = "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"
_n = 0


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def line(kind: str, n: int, parent: int | None = None, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": _uuid(parent) if parent else None,
        "isSidechain": False,
        "cwd": "/home/dev/app",
        "sessionId": SID,
        "version": "2.1.38",
        "type": kind,
        "uuid": _uuid(n),
        "timestamp": f"2026-03-02T10:00:{n % 60:02d}.000Z",
    }
    record.update(fields)
    return record


def user(n: int, content: Any, parent: int | None = None, **fields: Any) -> dict[str, Any]:
    return line("user", n, parent, message={"role": "user", "content": content}, **fields)


def asst(n: int, mid: str, block: dict[str, Any], parent: int | None = None, **message: Any) -> dict[str, Any]:
    body = {"id": mid, "role": "assistant", "model": "claude-opus-4-6", "content": [block], "stop_reason": None}
    body.update(message)
    return line("assistant", n, parent, message=body, requestId=f"req_{mid}")


def result(n: int, call: str, content: Any, parent: int | None = None, **block: Any) -> dict[str, Any]:
    return user(n, [{"type": "tool_result", "tool_use_id": call, "content": content, **block}], parent)


def jsonl(*lines: Any) -> bytes:
    return b"".join((x if isinstance(x, bytes) else orjson.dumps(x)) + b"\n" for x in lines)


def convert(
    data: bytes | Path, warnings: frozenset[str] | set[str] = frozenset()
) -> tuple[dict[str, list[dict[str, Any]]], Accounting]:
    """Every stream of ``data``; together they have no error finding and exactly the warnings
    (messages) named in ``warnings``: by default none."""
    conversion = Conversion(
        data if isinstance(data, Path) else Source(data, name=f"{SID}.jsonl"), "claude-code", as_dicts=True
    )
    streams = {stream.key: list(stream.records) for stream in conversion.streams()}
    findings = [f for records in streams.values() for f in validate_records(records)]
    assert not [f for f in findings if f.is_error], [f.describe() for f in findings]
    assert {f.message for f in findings} == warnings, [f.describe() for f in findings]
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    return streams, conversion.accounting


def main(data: bytes | Path, warnings: frozenset[str] | set[str] = frozenset()) -> list[dict[str, Any]]:
    """The main stream, which has no error finding and only the warnings named."""
    streams, _ = convert(data, warnings)
    return streams[f"claude-code:{SID}"]


def no_call(call_id: str) -> set[str]:
    """The warning for a tool_result whose call the fragment does not hold."""
    return {f"tool_result callId {call_id!r} names no tool_call of this stream"}


def of(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


# -- assistant folding and tools ----------------------------------------------------------


def test_lines_of_one_response_fold_into_one_message_with_its_calls() -> None:
    records = main(
        jsonl(
            user(1, "fix it"),
            asst(
                2,
                "msg_A",
                {"type": "thinking", "thinking": "look first", "signature": "SIG"},
                1,
                usage={"output_tokens": 3},
            ),
            asst(3, "msg_A", {"type": "text", "text": "Reading."}, 2, usage={"output_tokens": 3}),
            asst(
                4,
                "msg_A",
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"f": 1}},
                3,
                stop_reason="tool_use",
                usage={"output_tokens": 40},
            ),
            result(5, "toolu_1", "ok", 4, is_error=False),
        )
    )
    (message,) = [m for m in of(records, "message") if m["role"] == "assistant"]
    assert message["messageId"] == "msg_A"
    assert message["inferenceId"] == "req_msg_A"
    assert message["assembly"] == {"mode": "folded", "sourceIds": [_uuid(2), _uuid(3)]}
    assert [p["type"] for p in message["content"]] == ["reasoning", "text"]
    assert message["usage"] == {"outputTokens": 40} and message["nativeUsage"] == {"output_tokens": 40}
    assert message["stopReason"] == "tool_use"
    (call,) = of(records, "tool_call")
    assert call["callId"] == "toolu_1" and call["messageId"] == "msg_A" and call["parent"] == message["id"]
    (res,) = of(records, "tool_result")
    assert res["parent"] == call["id"] and res["isError"] is False


def test_tool_only_response_is_no_message_and_its_call_keeps_usage() -> None:
    records = main(
        jsonl(
            user(1, "go"),
            asst(
                2, "msg_B", {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}, 1, usage={"output_tokens": 9}
            ),
        )
    )
    assert [m["role"] for m in of(records, "message")] == ["user"]
    (call,) = of(records, "tool_call")
    assert call["inferenceId"] == "req_msg_B" and "messageId" not in call
    # no line of the response has a stop reason: 9 is a running count, said so (issue 26)
    assert call["usage"] == {"outputTokens": 9, "partial": True}


@pytest.mark.parametrize(("extra", "expected"), [({"is_error": True}, True), ({"is_error": None}, None), ({}, None)])
def test_is_error_only_when_stated(extra: dict[str, Any], expected: bool | None) -> None:
    records = main(
        jsonl(result(1, "t1", [{"type": "text", "text": "x"}, {"type": "tool_reference", "tool_name": "X"}], **extra)),
        no_call("t1"),
    )
    (res,) = of(records, "tool_result")
    assert res.get("isError") == expected
    assert res["content"][1] == {
        "type": "data",
        "data": {"type": "tool_reference", "tool_name": "X"},
        "schema": "com.anthropic.claude-code/block/tool_reference",
    }


def test_thinking_visibility_and_signatures() -> None:
    records = main(
        jsonl(
            asst(1, "m1", {"type": "thinking", "thinking": "full text", "signature": "S1"}),
            asst(2, "m2", {"type": "thinking", "thinking": "", "signature": "S2"}),
            asst(3, "m3", {"type": "redacted_thinking", "data": "OPAQUE"}),
        )
    )
    parts = [m["content"][0] for m in of(records, "message")]
    # no visibility: Claude 4 models return summarized thinking, 3.7 the full text, and the
    # transcript does not say which (ASR-214 forbids calling a summary full)
    assert parts[0] == {"type": "reasoning", "text": "full text", "signature": "S1"}
    assert parts[1] == {"type": "reasoning", "visibility": "omitted", "signature": "S2"}
    assert parts[2] == {
        "type": "reasoning",
        "visibility": "redacted",
        "opaque": {"format": "anthropic.redacted_thinking", "data": "OPAQUE"},
    }


def test_synthetic_error_line_is_harness_with_status_error() -> None:
    obj = asst(1, "x", {"type": "text", "text": "API Error: 529"}, model="<synthetic>")
    obj.update(isApiErrorMessage=True, error="overloaded")
    (message,) = of(main(jsonl(obj)), "message")
    assert message["author"] == "harness" and message["status"] == "error" and message["error"] == "overloaded"


# -- who wrote what -------------------------------------------------------------------------


def test_split_keeps_every_character() -> None:
    text = "<ide_opened_file>opened a.rs</ide_opened_file>why?\n<system-reminder>\nchanged\n</system-reminder>\n"
    pieces = split_text(text, ("human", "prompt"))
    assert "".join(p for p, _ in pieces) == text
    assert [w for _, w in pieces] == [("harness", "injected"), ("human", "prompt"), ("harness", "injected")]


def test_user_line_mixing_tags_gets_part_level_authors() -> None:
    (message,) = of(
        main(
            jsonl(
                user(
                    1,
                    [{"type": "text", "text": "<ide_selection>x</ide_selection>"}, {"type": "text", "text": "explain"}],
                )
            )
        ),
        "message",
    )
    assert "author" not in message
    assert [(p["author"], p["origin"]) for p in message["content"]] == [("harness", "injected"), ("human", "prompt")]


@pytest.mark.parametrize(
    ("content", "meta", "who"),
    [
        ("<local-command-stdout>done</local-command-stdout>", False, ("harness", "command")),
        (
            "Caveat: The messages below were generated by the user while running local commands. DO NOT.",
            True,
            ("harness", "injected"),
        ),
        ("[Request interrupted by user for tool use]", False, ("harness", "injected")),
        (
            "<task-notification><status>completed</status></task-notification>\nRead the output file.",
            False,
            ("harness", "injected"),
        ),
        ("This session is being continued from a previous conversation.", False, ("harness", "injected")),
        ("plain words", False, ("human", "prompt")),
    ],
)
def test_user_line_writers(content: str, meta: bool, who: tuple[str, str]) -> None:
    fields = {"isMeta": True} if meta else {}
    if content.startswith("This session"):
        fields["isCompactSummary"] = True
    (message,) = of(main(jsonl(user(1, content, **fields))), "message")
    assert (message["author"], message["origin"]) == who
    assert message["content"][0]["text"] == content


def test_attachments_are_data_parts_and_hooks_author_hook() -> None:
    records = main(
        jsonl(
            line("attachment", 1, attachment={"type": "hook_success", "stdout": "ok"}),
            line("attachment", 2, 1, attachment={"type": "todo_reminder", "content": []}),
        )
    )
    hook, reminder = of(records, "message")
    assert (
        hook["author"] == "hook" and hook["content"][0]["schema"] == "com.anthropic.claude-code/attachment/hook_success"
    )
    assert reminder["author"] == "harness" and reminder["capture"] == {"role": {"state": "absent"}}


def test_old_hook_system_line_is_hook_output_for_the_user() -> None:
    (message,) = of(
        main(jsonl(line("system", 1, content="PostToolUse:Edit [fmt] failed with status code 1: x", toolUseID="t"))),
        "message",
    )
    assert message["author"] == "hook" and message["audience"] == "user" and "origin" not in message


# -- queued input ---------------------------------------------------------------------------


def queue_op(op: str, content: str | None = None) -> dict[str, Any]:
    obj = {"type": "queue-operation", "operation": op, "timestamp": "2026-03-02T10:00:30.000Z", "sessionId": SID}
    if content is not None:
        obj["content"] = content
    return obj


def queue_at(op: str, n: int, content: Any = None) -> dict[str, Any]:
    obj = queue_op(op, content)
    obj["timestamp"] = f"2026-03-02T10:00:{n % 60:02d}.500Z"
    return obj


def busy_turn(*rest: Any) -> bytes:
    """A prompt whose response called a tool; ``rest`` is written while the tool runs."""
    call = {"type": "tool_use", "id": "toolu_q", "name": "Bash", "input": {}}
    return jsonl(user(1, "run it"), asst(2, "msg_Q", call, 1, stop_reason="tool_use"), *rest)


def test_queue_enqueue_dequeue_user_line_is_one_queued_message_when_the_agent_was_busy() -> None:
    streams, acc = convert(
        busy_turn(
            queue_at("enqueue", 3, "also lint"),
            result(4, "toolu_q", "ok", 2),
            asst(5, "msg_R", {"type": "text", "text": "Done."}, 4, stop_reason="end_turn"),
            queue_at("dequeue", 6),
            user(7, "also lint", 5),
        )
    )
    message = of(streams[f"claude-code:{SID}"], "message")[-1]
    assert (message["author"], message["origin"]) == ("human", "queued")
    assert message["assembly"] == {"mode": "folded", "sourceIds": [f"{SID}:L3", f"{SID}:L6", _uuid(7)]}
    assert acc.folded == 2


def test_ide_enqueue_and_immediate_dequeue_while_idle_is_a_prompt() -> None:
    """The VS Code extension sends every prompt through the queue; idle, it is a prompt."""
    records = main(
        jsonl(
            queue_at("enqueue", 1, "first"),
            queue_at("dequeue", 1),
            user(2, "first"),
            asst(3, "msg_I", {"type": "text", "text": "Hi."}, 2, stop_reason="end_turn"),
            queue_at("enqueue", 4, "second"),
            queue_at("dequeue", 4),
            user(5, "second", 3),
        )
    )
    prompts = [m for m in of(records, "message") if m["role"] == "user"]
    assert [(m["author"], m["origin"]) for m in prompts] == [("human", "prompt")] * 2


def test_enqueue_then_remove_mid_turn_is_a_steering_message_the_model_received() -> None:
    """Claude Code logs ``remove`` for input the running turn drained into the model request."""
    streams, acc = convert(
        busy_turn(
            queue_at("enqueue", 3, "/mcp"),
            queue_at("remove", 4),
            result(5, "toolu_q", "ok", 2),
            asst(6, "msg_S", {"type": "text", "text": "Checking MCP."}, 5),
        )
    )
    records = streams[f"claude-code:{SID}"]
    steer = next(m for m in of(records, "message") if m["messageId"] == f"{SID}:enqueue-L3")
    assert (steer["author"], steer["origin"]) == ("human", "steer") and "status" not in steer
    assert steer["ts"] == "2026-03-02T10:00:04.500Z" and steer["content"] == [{"type": "text", "text": "/mcp"}]
    assert steer["assembly"]["sourceIds"] == [f"{SID}:L3", f"{SID}:L4"] and steer["idSource"] == "derived"
    answer = of(records, "message")[-1]
    assert answer["messageId"] == "msg_S" and steer["seq"] < answer["seq"]  # delivered before the answer
    assert not of(records, "vendor") and acc.folded == 1


def test_queue_pairs_by_content_a_delivered_task_notification_is_not_removed_again() -> None:
    note = "<task-notification><status>completed</status></task-notification>"
    records = main(
        busy_turn(
            queue_at("enqueue", 3, note),
            user(4, note, 2),
            queue_at("enqueue", 5, "and the docs"),
            queue_at("remove", 6),
            result(7, "toolu_q", "ok", 2),
            asst(8, "msg_T", {"type": "text", "text": "On it."}, 7),
        )
    )
    messages = of(records, "message")
    delivered = next(m for m in messages if m["messageId"] == _uuid(4))
    assert delivered["author"] == "harness" and delivered["assembly"]["sourceIds"] == [f"{SID}:L3", _uuid(4)]
    steer = next(m for m in messages if m.get("origin") == "steer")
    assert steer["content"] == [{"type": "text", "text": "and the docs"}]


def test_queue_records_stay_near_their_lines_and_orphans_are_not_held_to_the_end() -> None:
    records = main(
        busy_turn(
            queue_at("enqueue", 3, "lost on Esc"),
            result(4, "toolu_q", "ok", 2),
            asst(5, "msg_U", {"type": "text", "text": "Done."}, 4, stop_reason="end_turn"),
            user(6, "new prompt", 5),
            asst(7, "msg_V", {"type": "text", "text": "Sure."}, 6, stop_reason="end_turn"),
        )
    )
    kinds = [(r["type"], r.get("messageId") or r.get("data", {}).get("content")) for r in records[1:]]
    # the cleared input is written where the person typed past it, not after the last line
    assert kinds.index(("vendor", "lost on Esc")) == kinds.index(("message", _uuid(6))) - 1
    assert [r["seq"] for r in records] == sorted(r["seq"] for r in records)


def test_queued_command_attachment_delivers_a_removed_item_as_steering() -> None:
    streams, acc = convert(
        busy_turn(
            queue_at("enqueue", 3, "and commit"),
            queue_at("remove", 4),
            line("attachment", 5, 2, attachment={"type": "queued_command", "prompt": "and commit"}),
        )
    )
    message = of(streams[f"claude-code:{SID}"], "message")[-1]
    assert message["origin"] == "steer" and message["content"] == [{"type": "text", "text": "and commit"}]
    assert message["assembly"]["sourceIds"] == [f"{SID}:L3", f"{SID}:L4", _uuid(5)]
    assert acc.folded == 2


# -- plans ----------------------------------------------------------------------------------


def todo(n: int, call: str, todos: list[dict[str, Any]], error: bool = False) -> list[dict[str, Any]]:
    return [
        asst(n, f"m{n}", {"type": "tool_use", "id": call, "name": "TodoWrite", "input": {"todos": todos}}),
        result(n + 1, call, "ok", n, is_error=error),
    ]


def test_todowrite_revisions_supersede_and_rejections_do_not() -> None:
    items = [{"content": "a", "status": "pending", "activeForm": "doing a"}]
    records = main(
        jsonl(
            *todo(1, "t1", items),
            *todo(3, "t2", [dict(items[0], status="completed")]),
            *todo(5, "t3", [dict(items[0], status="pending")], error=True),
        )
    )
    first, second = of(records, "plan")
    assert first["planId"] == second["planId"] == f"todos:{SID}" and first["idSource"] == "derived"
    assert second["supersedes"] == first["id"] and second["callId"] == "t2"
    assert second["entries"] == [{"content": "a", "status": "completed", "activeForm": "doing a"}]


def test_task_tools_give_entry_ids_owners_and_blockers() -> None:
    def call(n: int, name: str, args: dict[str, Any], text: str, tur: Any) -> list[dict[str, Any]]:
        res = result(n + 1, f"c{n}", text, n)
        res["toolUseResult"] = tur
        return [asst(n, f"m{n}", {"type": "tool_use", "id": f"c{n}", "name": name, "input": args}), res]

    records = main(
        jsonl(
            *call(1, "TaskCreate", {"subject": "Fix"}, "Task #1 created successfully: Fix", {"task": {"id": "1"}}),
            *call(3, "TaskCreate", {"subject": "Check"}, "Task #2 created successfully: Check", {"task": {"id": "2"}}),
            *call(
                5,
                "TaskUpdate",
                {"taskId": "2", "owner": "explorer", "addBlockedBy": ["1"]},
                "Updated",
                {"success": True},
            ),
        )
    )
    plan = of(records, "plan")[-1]
    assert plan["entries"] == [
        {"entryId": "1", "content": "Fix", "status": "pending"},
        {"entryId": "2", "content": "Check", "status": "pending", "owner": "explorer", "blockedBy": ["1"]},
    ]


def _task_call(n: int, name: str, args: dict[str, Any], text: str, tur: Any = None) -> list[dict[str, Any]]:
    res = result(n + 1, f"c{n}", text, n)
    if tur is not None:
        res["toolUseResult"] = tur
    return [asst(n, f"m{n}", {"type": "tool_use", "id": f"c{n}", "name": name, "input": args}), res]


def test_update_of_a_task_this_stream_only_read_takes_what_task_get_told() -> None:
    """A teammate (subagent) reads another agent's task with TaskGet, then completes it (2.1.114):
    the entry's content is the subject TaskGet gave, never an empty string."""
    got = "Task #2: Research teammates (bob)\nStatus: in_progress\nDescription: Bob writes notes.md."
    records = main(
        jsonl(
            *_task_call(1, "TaskGet", {"taskId": "2"}, got),
            *_task_call(3, "TaskUpdate", {"taskId": "2", "status": "completed"}, "Updated task #2 status"),
            *_task_call(
                5, "TaskGet", {"taskId": "7"}, "x", {"task": {"id": "7", "subject": "Merge", "status": "pending"}}
            ),
            *_task_call(7, "TaskUpdate", {"taskId": "7", "owner": "bob"}, "Updated task #7 owner"),
        )
    )
    first, second = of(records, "plan")
    assert first["entries"] == [
        {
            "entryId": "2",
            "content": "Research teammates (bob)",
            "status": "completed",
            "description": "Bob writes notes.md.",
        }
    ]
    assert second["entries"][1] == {"entryId": "7", "content": "Merge", "status": "pending", "owner": "bob"}


def test_update_of_a_task_whose_subject_the_stream_never_saw_writes_no_plan() -> None:
    records = main(
        jsonl(*_task_call(1, "TaskUpdate", {"taskId": "4", "status": "completed"}, "Updated task #4 status"))
    )
    assert of(records, "plan") == [] and len(of(records, "tool_result")) == 1


def test_exit_plan_mode_without_plan_file_never_fails() -> None:
    res = result(2, "p1", "approved", 1)
    res["toolUseResult"] = {"plan": None, "filePath": "/nowhere/.claude/plans/lost-slug.md"}
    (plan,) = of(
        main(jsonl(asst(1, "m", {"type": "tool_use", "id": "p1", "name": "ExitPlanMode", "input": {}}), res)), "plan"
    )
    assert plan["planId"] == "lost-slug" and plan["planType"] == "document"
    assert plan["source"] == {"root": None, "path": "/nowhere/.claude/plans/lost-slug.md"}
    assert plan["capture"]["content"]["state"] == "absent"


# -- subagents, tree, accounting ------------------------------------------------------------


def write(path: Path, *lines: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(*lines))
    return path


def test_subagent_folder_stream_and_standalone_conversion(tmp_path: Path) -> None:
    spawn = asst(
        2,
        "m",
        {
            "type": "tool_use",
            "id": "toolu_s",
            "name": "Task",
            "input": {"prompt": "look", "description": "Look", "subagent_type": "Explore"},
        },
        1,
    )
    res = result(3, "toolu_s", [{"type": "text", "text": "found"}, {"type": "text", "text": "agentId: abc123"}], 2)
    session = write(tmp_path / f"{SID}.jsonl", user(1, "delegate"), spawn, res)
    child_line = user(10, "look", agentId="abc123", isSidechain=True)
    copied = dict(user(1, "delegate"), agentId="abc123", isSidechain=True)
    child = write(tmp_path / SID / "subagents" / "agent-abc123.jsonl", child_line, copied)
    streams, acc = convert(session)
    key = f"claude-code:{SID}/agent-abc123"
    assert list(streams) == [f"claude-code:{SID}", key]
    (sub,) = of(streams[f"claude-code:{SID}"], "subagent")
    assert sub["session"] == key and sub["callId"] == "toolu_s" and sub["agentType"] == "Explore"
    header, prompt, copy = streams[key]
    assert header["parent"] == f"claude-code:{SID}"
    assert (prompt["author"], prompt["origin"], prompt["from"]) == (
        "agent",
        "inter_session",
        {"session": f"claude-code:{SID}"},
    )
    assert copy["copiedFrom"] == f"claude-code:{SID}#messageId={_uuid(1)}"
    assert acc.native_items == 5
    assert discover.is_session_file(child) is False and discover.is_session_file(session) is True
    alone, _ = convert(child)
    assert list(alone) == [key] and alone[key][2]["copiedFrom"].startswith(f"claude-code:{SID}#")


def test_project_root_agent_file_belongs_to_its_session_only_when_present(tmp_path: Path) -> None:
    agent = write(
        tmp_path / "agent-1234abcd.jsonl", user(1, "Warmup", sessionId=SID, agentId="1234abcd", isSidechain=True)
    )
    assert discover.is_session_file(agent) is True
    write(tmp_path / f"{SID}.jsonl", user(2, "hi"))
    assert discover.is_session_file(agent) is False


def test_inline_sidechain_from_a_pipe() -> None:
    data = jsonl(
        user(1, "delegate"),
        asst(2, "m", {"type": "tool_use", "id": "toolu_t", "name": "Task", "input": {"prompt": "side"}}, 1),
        user(3, "side", isSidechain=True),
        dict(asst(4, "m2", {"type": "text", "text": "done"}, 3), isSidechain=True),
        result(5, "toolu_t", "done", 2),
    )
    conversion = Conversion(Source(io.BufferedReader(io.BytesIO(data))), "claude-code", as_dicts=True)  # type: ignore[arg-type]
    streams = {s.key: list(s.records) for s in conversion.streams()}
    side = f"claude-code:{SID}/sidechain-{_uuid(3)}"
    assert of(streams[f"claude-code:{SID}"], "subagent")[0]["session"] == side
    assert [r["type"] for r in streams[side]] == ["session", "message", "message"]
    assert conversion.accounting.balanced() and conversion.accounting.native_items == 5


def test_tree_links_duplicates_and_unreadable_lines() -> None:
    streams, acc = convert(
        jsonl(user(1, "a"), user(2, "b", 1), user(3, "c", 1), user(1, "a"), user(4, "d", 99), b"{bad")
    )
    records = streams[f"claude-code:{SID}"]
    messages = of(records, "message")
    assert [m.get("parent") for m in messages] == [None, "r2", "r2", None]
    assert acc.duplicates == 1 and acc.unreadable == 1 and acc.native_items == 6


def test_fold_holds_one_open_message() -> None:
    builder = Builder(StreamInfo(SID, SID), Accounting())
    builder.header()
    assert builder.feed(1, asst(1, "m1", {"type": "text", "text": "a"})) == []
    emitted = builder.feed(2, asst(2, "m2", {"type": "text", "text": "b"}, 1))
    assert [r["messageId"] for r in emitted] == ["m1"] and builder.fold is not None
    assert builder.fold.message_id == "m2"


def test_detect() -> None:
    adapter = registry.get("claude-code")
    assert adapter.detect(Source(jsonl(user(1, "hi")))) >= 90
    assert adapter.detect(Source(b'{"timestamp":"x","type":"session_meta","payload":{}}\n')) == 0


# -- the shared samples -----------------------------------------------------------------------

SAMPLES = shared_samples("claude-code")


def _native_count(path: Path) -> int:
    def lines(p: Path) -> int:
        return sum(1 for raw in p.read_bytes().split(b"\n") if raw.strip())

    total = lines(path)
    if path.name.startswith("agent-") or "NOT-A-SESSION" in path.name:
        return total
    session = discover.head_facts(path).get("sessionId") or path.stem
    for child in discover.children(path, session):
        total += lines(child.path)
    return total


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/claude-code is absent")
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name[:48] for p in SAMPLES])
def test_shared_sample_converts_validates_and_balances(sample: Path) -> None:
    conversion = Conversion(sample, "claude-code", as_dicts=True)
    for stream in conversion.streams():
        records = list(stream.records)
        findings = validate_records(records)
        assert not findings, "\n".join(f.describe() for f in findings)
    accounting = conversion.accounting
    assert accounting.balanced(), accounting.as_dict()
    assert accounting.native_items == _native_count(sample)


def test_persisted_output_preview_is_a_truncated_capture() -> None:
    text = "<persisted-output>\nOutput too large (52KB). Full output saved to: /tmp/t/p.txt\n</persisted-output>"
    (res,) = of(main(jsonl(result(1, "toolu_p", text)), no_call("toolu_p")), "tool_result")
    assert res["capture"]["content"]["state"] == "truncated"
    assert res["content"] == [{"type": "text", "text": text}]


def test_malformed_lines_are_kept_not_fatal() -> None:
    streams, acc = convert(
        jsonl(
            {"type": "user", "message": "not a dict"},
            {"type": "assistant", "uuid": _uuid(2), "message": {"id": ["x"], "content": {"odd": 1}, "stop_reason": []}},
            {"type": "system", "subtype": ["x"], "uuid": _uuid(3)},
            {"type": "attachment", "uuid": _uuid(4), "attachment": None},
            {"type": "queue-operation", "operation": "remove"},
            ["not", "an", "object"],
            user(5, [], origin={"kind": {"nested": True}}),
        )
    )
    assert acc.native_items == 7 and acc.unreadable == 0
    messages = of(streams[f"claude-code:{SID}"], "message")
    assert messages[0]["messageId"] == f"{SID}:L1" and messages[0]["idSource"] == "derived"


def test_catalog_of_rare_line_shapes_converts() -> None:
    catalog = [p for p in (SAMPLES[0].parent.glob("catalog-NOT-A-SESSION*.jsonl") if SAMPLES else [])]
    if not catalog:
        pytest.skip("../shared/samples/claude-code is absent")
    # a catalog of fragments: two results whose calls are not in it (no tool_use_id: derived ids)
    streams, acc = convert(catalog[0], no_call("u2:result-0") | no_call("u2b:result-0"))
    assert acc.native_items == _native_count(catalog[0]) and streams


def test_queued_command_before_its_remove_and_pop_all() -> None:
    streams, acc = convert(
        jsonl(
            queue_op("enqueue", "steer left"),
            line("attachment", 1, attachment={"type": "queued_command", "prompt": "steer left"}),
            queue_op("remove", "steer left"),
            queue_op("enqueue", "a"),
            queue_op("enqueue", "b"),
            queue_op("popAll"),
            user(2, "typed again", 1),
        )
    )
    records = streams[f"claude-code:{SID}"]
    statuses = [(m["content"][0]["text"], m.get("status")) for m in of(records, "message")]
    assert statuses == [("steer left", None), ("a", "withdrawn"), ("b", "withdrawn"), ("typed again", None)]
    assert acc.folded == 3 and acc.records == 4 and acc.vendor == 0


def test_nested_agent_is_linked_by_its_parent_agent_only(tmp_path: Path) -> None:
    session = write(tmp_path / f"{SID}.jsonl", user(1, "go"))
    folder = tmp_path / SID / "subagents"
    write(folder / "agent-aaa.jsonl", user(2, "child", agentId="aaa", isSidechain=True))
    write(folder / "agent-bbb.jsonl", user(3, "grandchild", agentId="bbb", isSidechain=True))
    (folder / "agent-bbb.meta.json").write_text('{"agentType":"Explore","parentAgentId":"aaa"}')
    streams, acc = convert(session)
    assert [s["session"] for s in of(streams[f"claude-code:{SID}"], "subagent")] == [f"claude-code:{SID}/agent-aaa"]
    header = streams[f"claude-code:{SID}/agent-bbb"][0]
    assert header["parent"] == f"claude-code:{SID}/agent-aaa"
    assert header["native"] == {"meta": {"agentType": "Explore", "parentAgentId": "aaa"}}
    assert acc.native_items == 3


def test_ask_user_question_becomes_input_requests() -> None:
    questions = [
        {"question": "Which?", "header": "H", "options": [{"label": "a"}, {"label": "b"}], "multiSelect": False}
    ]
    res = result(2, "toolu_q", 'User has answered your questions: "Which?"="b".', 1)
    res["toolUseResult"] = {"questions": questions, "answers": {"Which?": "b"}}
    records = main(
        jsonl(
            asst(
                1,
                "m",
                {"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion", "input": {"questions": questions}},
            ),
            res,
        )
    )
    (request,) = of(records, "input_request")
    assert request["requestId"] == "toolu_q/0" and request["idSource"] == "derived" and request["callId"] == "toolu_q"
    assert request["content"] == [{"type": "text", "text": "Which?"}]
    assert request["options"] == [{"label": "a"}, {"label": "b"}]
    assert request["answer"] == [{"type": "text", "text": "b", "author": "human"}]


def test_title_lines_stay_vendor_records_so_the_header_never_changes() -> None:
    names = [{"type": "agent-name", "agentName": "scout", "sessionId": SID}, user(1, "hi")]
    titled = [*names, {"type": "ai-title", "aiTitle": "AI"}, {"type": "custom-title", "customTitle": "Mine"}]
    short, grown = main(jsonl(*names)), main(jsonl(*titled))
    assert "title" not in grown[0] and grown[0] == short[0]  # appended lines leave the header as it was
    assert [r["schema"] for r in grown if r["type"] == "vendor"][-2:] == [
        "com.anthropic.claude-code/ai-title",
        "com.anthropic.claude-code/custom-title",
    ]


def test_companion_files_are_the_subagent_transcripts_and_sidecars(tmp_path: Path) -> None:
    """Batch conversion re-converts a session when one of its subagent files changes."""
    from asr_adapters import registry

    session = tmp_path / f"{SID}.jsonl"
    session.write_bytes(jsonl(user(1, "hi")))
    folder = tmp_path / SID / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a1.jsonl").write_bytes(b"{}\n")
    (folder / "agent-a1.meta.json").write_bytes(b'{"agentType": "Explore"}')
    files = registry.get("claude-code").companion_files(session)
    assert files == [folder / "agent-a1.jsonl", folder / "agent-a1.meta.json"]


def test_task_list_entries_cache_matches_a_rebuild() -> None:
    """Entries are kept between snapshots and rebuilt only for what changed; after every
    change they equal a list built from scratch (blockedBy names only listed tasks)."""
    tasks = TaskList()

    def check() -> list[dict[str, Any]]:
        fresh = TaskList()
        fresh.tasks = tasks.tasks
        entries = tasks.entries()
        assert entries == fresh.entries()
        return entries

    tasks.create({"subject": "a"}, {"task": {"id": "1"}}, "")
    tasks.create({"subject": "b"}, None, "Task #2 created")
    check()
    tasks.update({"taskId": "2", "addBlockedBy": ["1", "3"], "status": "in_progress"})
    assert check()[1]["blockedBy"] == ["1"]  # task 3 is not listed yet
    tasks.update({"taskId": 3, "subject": "c", "addBlocks": ["1"]})
    entries = check()
    assert entries[1]["blockedBy"] == ["1", "3"]
    assert entries[0]["blockedBy"] == ["3"]
    tasks.create({"subject": "e"}, {"task": {"id": "5"}}, "")  # names no blockedBy: entries kept
    assert tasks.entries()[0] is entries[0]
    tasks.update({"taskId": "3", "status": "deleted"})
    entries = check()
    assert entries[1]["blockedBy"] == ["1"] and "blockedBy" not in entries[0]
    tasks.replace([{"id": "1", "status": "completed"}, {"id": "2", "blockedBy": ["1"]}])
    assert check()[0]["status"] == "completed"
    tasks.create({"subject": "d", "activeForm": "doing d"}, {"task": {"id": "4"}}, "")
    assert check()[2] == {"entryId": "4", "content": "d", "status": "pending", "activeForm": "doing d"}


def test_envelope_members_kept_where_they_change_for_lines_of_one_shape() -> None:
    """``native`` keeps a tracked envelope member (gitBranch, cwd…) on the first record and
    where it changes, and a line's own members always, whatever the line's shape was before."""
    records = main(
        jsonl(
            user(1, "a", gitBranch="main", isMeta=False),
            user(2, "b", 1, gitBranch="main", isMeta=False),
            user(3, "c", 2, gitBranch="dev", isMeta=False),
            user(4, "d", 3, cwd="/elsewhere", gitBranch="dev", isMeta=False),
        )
    )
    natives = [r.get("native") for r in of(records, "message")]
    assert natives == [
        {"gitBranch": "main", "isMeta": False},
        {"isMeta": False},
        {"gitBranch": "dev", "isMeta": False},
        {"cwd": "/elsewhere", "isMeta": False},
    ]


# -- issue 15: one response, failed spawns, command and hook text, usage ----------------------


def test_lines_outside_the_chain_do_not_split_one_response() -> None:
    """Foreign summary, progress and snapshot lines between the streaming lines of one response."""
    streams, acc = convert(
        jsonl(
            user(1, "look"),
            asst(2, "msg_F", {"type": "thinking", "thinking": "hm", "signature": "S"}, 1, usage={"output_tokens": 2}),
            {"type": "summary", "summary": "Another session", "leafUuid": "ffffffff-0000-4000-8000-000000000000"},
            line("progress", 3, 2, data={"type": "hook_progress", "hookEvent": "PreToolUse"}),
            {"type": "file-history-snapshot", "messageId": _uuid(1), "snapshot": {}, "isSnapshotUpdate": True},
            asst(4, "msg_F", {"type": "text", "text": "Found it."}, 2, usage={"output_tokens": 7}),
            asst(5, "msg_F", {"type": "tool_use", "id": "toolu_F", "name": "Read", "input": {}}, 4),
            result(6, "toolu_F", "text", 5),
        )
    )
    records = streams[f"claude-code:{SID}"]
    (message,) = [m for m in of(records, "message") if m["messageId"] == "msg_F"]
    assert message["assembly"]["sourceIds"] == [_uuid(2), _uuid(4)]
    assert [p["type"] for p in message["content"]] == ["reasoning", "text"]
    assert sum(1 for r in records if "usage" in r) == 1 and message["usage"] == {"outputTokens": 7, "partial": True}
    kinds = [r["type"] for r in records[1:]]
    # the held lines came before line 5: their records precede the call it holds
    assert kinds == ["message", "message", "vendor", "vendor", "vendor", "tool_call", "tool_result"]
    progress = of(records, "vendor")[1]
    assert progress["parent"] == message["id"]  # its parent line was written first
    assert acc.balanced()


def test_held_lines_are_bounded_by_closing_the_response_early() -> None:
    from asr_adapters.adapters.claude_code.fold import HELD_LIMIT

    progress = [line("progress", 10 + i, 2, data={"type": "bash_progress"}) for i in range(HELD_LIMIT + 3)]
    streams, acc = convert(
        jsonl(
            user(1, "go"),
            asst(2, "msg_H", {"type": "tool_use", "id": "toolu_H", "name": "Bash", "input": {}}, 1),
            *progress,
            result(99, "toolu_H", "ok", 2),
        )
    )
    records = streams[f"claude-code:{SID}"]
    assert len(of(records, "vendor")) == HELD_LIMIT + 3 and of(records, "tool_call")[0]["seq"] == 3
    assert acc.balanced()


def test_task_call_that_failed_before_any_agent_ran_is_a_failed_result_and_no_subagent() -> None:
    error = (
        "<tool_use_error>InputValidationError: Task failed due to the following issue:\n"
        "The required parameter `prompt` is missing</tool_use_error>"
    )
    records = main(
        jsonl(
            user(1, "delegate"),
            asst(2, "msg_T", {"type": "tool_use", "id": "toolu_T", "name": "Task", "input": {"description": "x"}}, 1),
            result(3, "toolu_T", error, 2, is_error=True),
        )
    )
    (res,) = of(records, "tool_result")
    assert res["isError"] is True and res["content"] == [{"type": "text", "text": error}]
    assert not of(records, "subagent")


def test_slash_command_line_splits_harness_status_from_the_persons_command() -> None:
    text = (
        "<command-name>/review</command-name>\n  <command-message>review is running…</command-message>\n"
        "  <command-args>src/lib.rs</command-args>"
    )
    (message,) = of(main(jsonl(user(1, text))), "message")
    parts = message["content"]
    assert "".join(p["text"] for p in parts) == text
    assert [(p["author"], p["origin"]) for p in parts] == [
        ("human", "command"),
        ("harness", "command"),
        ("human", "command"),
    ]
    assert parts[1]["text"].startswith("<command-message>")


def test_hook_output_injected_into_the_context_is_the_hooks() -> None:
    hook = "<system-reminder>\nPostToolUse:Edit hook additional context: formatted by prettier\n</system-reminder>"
    reminder = "<system-reminder>\nThe todo list is empty.\n</system-reminder>"
    records = main(
        jsonl(
            user(1, hook, isMeta=True),
            user(2, "SessionStart:startup hook success: ready", 1, isMeta=True),
            user(3, "go" + hook + reminder, 2),
            asst(4, "msg_K", {"type": "tool_use", "id": "toolu_K", "name": "Edit", "input": {}}, 3),
            result(5, "toolu_K", "ok" + hook, 4),
        )
    )
    meta, success, mixed = of(records, "message")[:3]
    assert (meta["author"], meta["origin"]) == ("hook", "injected") and success["author"] == "hook"
    assert [(p["author"], p["origin"]) for p in mixed["content"]] == [
        ("human", "prompt"),
        ("hook", "injected"),
        ("harness", "injected"),
    ]
    (res,) = of(records, "tool_result")
    assert res["content"][1] == {"type": "text", "text": hook, "author": "hook", "origin": "injected"}


def test_hook_feedback_lines_and_blocked_tool_results_are_the_hooks() -> None:
    feedback = "Stop hook feedback:\n- [npm run lint]: 2 errors in src/app.ts"
    blocked = "PreToolUse:Bash hook blocking error from command: rm is not allowed here"
    records = main(
        jsonl(
            user(1, "clean up"),
            asst(2, "msg_L", {"type": "tool_use", "id": "toolu_L", "name": "Bash", "input": {}}, 1),
            result(3, "toolu_L", blocked, 2, is_error=True),
            user(4, feedback, 3),
        )
    )
    (res,) = of(records, "tool_result")
    assert res["content"] == [{"type": "text", "text": blocked, "author": "hook", "origin": "injected"}]
    message = of(records, "message")[-1]
    assert (message["author"], message["origin"]) == ("hook", "injected") and message["content"][0]["text"] == feedback


def test_usage_is_normalized_and_written_once_per_response() -> None:
    usage = {
        "input_tokens": 4,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 2000,
        "output_tokens": 50,
        "service_tier": "standard",
    }
    call_a = {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}}
    call_b = {"type": "tool_use", "id": "toolu_b", "name": "Read", "input": {}}
    records = main(
        jsonl(
            user(1, "read both"),
            asst(2, "msg_U", call_a, 1, usage=usage),
            result(3, "toolu_a", "a", 2),
            asst(4, "msg_U", call_b, 2, usage=usage),  # the same response, after a lagging result
            result(5, "toolu_b", "b", 4),
            asst(6, "msg_W", {"type": "text", "text": "Both read."}, 5, usage=usage),
            line(
                "assistant",
                7,
                6,
                isApiErrorMessage=True,
                message={"id": "msg_E", "model": "<synthetic>", "role": "assistant", "content": [], "usage": usage},
            ),
        )
    )
    with_usage = [r for r in records if "usage" in r]
    assert [r.get("callId") or r.get("messageId") for r in with_usage] == ["toolu_a", "msg_W"]
    # issue 26: Anthropic's input_tokens leaves the cache out; inputTokens is all of the input
    assert with_usage[0]["usage"] == {
        "inputTokens": 2104,
        "outputTokens": 50,
        "cacheReadTokens": 2000,
        "cacheWriteTokens": 100,
        "totalTokens": 2154,
        "partial": True,
    }
    assert with_usage[0]["nativeUsage"] == usage  # verbatim
    synthetic = of(records, "message")[-1]
    assert "usage" not in synthetic and synthetic["nativeUsage"] == usage


def test_a_remove_without_text_takes_a_queued_prompt_before_a_task_notification() -> None:
    """Upstream drains prompts (priority next) into a running turn, notifications (later) wait."""
    note = "<task-notification><status>completed</status></task-notification>"
    records = main(
        busy_turn(
            queue_at("enqueue", 3, note),
            queue_at("enqueue", 4, "skip the slow tests"),
            queue_at("remove", 5),
            result(6, "toolu_q", "ok", 2),
            asst(7, "msg_P", {"type": "text", "text": "Skipping them."}, 6, stop_reason="end_turn"),
            queue_at("dequeue", 8),
            user(9, note, 7),
        )
    )
    steer = next(m for m in of(records, "message") if m.get("origin") == "steer")
    assert steer["content"] == [{"type": "text", "text": "skip the slow tests"}]
    delivered = of(records, "message")[-1]
    assert delivered["author"] == "harness" and delivered["assembly"]["sourceIds"][0] == f"{SID}:L3"


# -- review of issue 15: parent links, own times ------------------------------------------


def test_a_call_whose_parent_is_a_hook_line_inside_its_response_links_to_it() -> None:
    """A hook_progress line between two tool_use lines of one response is the second's parent
    (cc 2.1.38): its record is written before the call, so the call names it."""
    hook = {"type": "hook_progress", "hookEvent": "PreToolUse"}
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_H", {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}, 1),
            line("progress", 3, 2, data=hook),
            asst(4, "msg_H", {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}, 3),
            result(5, "toolu_1", "a", 2),
            result(6, "toolu_2", "b", 4),
        )
    )
    first, second = of(records, "tool_call")
    (progress,) = of(records, "vendor")
    assert progress["parent"] == first["id"] and second["parent"] == progress["id"]
    assert [r["type"] for r in records[1:]] == ["message", "tool_call", "vendor", "tool_call", *["tool_result"] * 2]


def test_a_line_written_before_its_parent_waits_for_it() -> None:
    """Upstream writes an attachment before the attachment that is its parent now and then
    (cc 2.1.114): the later line's record comes first, and the earlier one names it."""
    records = main(
        jsonl(
            user(1, "go"),
            line("attachment", 3, 4, attachment={"type": "todo_reminder", "content": []}),
            line("attachment", 4, 1, attachment={"type": "date_change", "newDate": "2026-03-03"}),
            asst(5, "msg_W", {"type": "text", "text": "ok"}, 3),
        )
    )
    prompt, later, earlier, answer = of(records, "message")
    assert later["messageId"] == _uuid(4) and later["parent"] == prompt["id"]
    assert earlier["messageId"] == _uuid(3) and earlier["parent"] == later["id"]
    assert answer["parent"] == earlier["id"]


def test_a_line_whose_parent_never_comes_waits_only_a_few_lines() -> None:
    from asr_adapters.adapters.claude_code.builder import WAIT_LINES

    date = {"type": "date_change"}
    notes = [line("attachment", 10 + i, 9 + i if i else 1, attachment=date) for i in range(WAIT_LINES + 2)]
    records = main(jsonl(user(1, "go"), line("attachment", 2, 99, attachment={"type": "date_change"}), *notes))
    ids = [r["messageId"] for r in of(records, "message")]
    assert "parent" not in of(records, "message")[WAIT_LINES + 1]
    assert ids.index(_uuid(2)) == WAIT_LINES + 1  # written once it waited WAIT_LINES lines


def test_each_call_and_spawn_has_its_own_lines_time() -> None:
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_T", {"type": "text", "text": "two agents"}, 1),
            asst(3, "msg_T", {"type": "tool_use", "id": "toolu_a", "name": "Task", "input": {"prompt": "a"}}, 2),
            asst(4, "msg_T", {"type": "tool_use", "id": "toolu_b", "name": "Task", "input": {"prompt": "b"}}, 3),
            result(5, "toolu_a", "done", 3),
            result(6, "toolu_b", "done", 4),
        )
    )
    (message,) = [m for m in of(records, "message") if m["role"] == "assistant"]
    calls = of(records, "tool_call")
    spawns = of(records, "subagent")
    assert message["ts"] == line("x", 2)["timestamp"]
    assert [c["ts"] for c in calls] == [line("x", 3)["timestamp"], line("x", 4)["timestamp"]]
    # a spawn's subagent record is derived from its result line and has that line's time (issue 27.7)
    assert [s["ts"] for s in spawns] == [r["ts"] for r in of(records, "tool_result")]


def test_usage_of_a_response_split_by_a_tool_result_is_its_last_lines() -> None:
    """A tool result arriving mid-response splits its lines; the later line's count (the most
    output tokens) is the response's usage, still on its message and once."""
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_U", {"type": "text", "text": "Reading."}, 1, usage={"output_tokens": 1}),
            asst(
                3,
                "msg_U",
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}},
                2,
                usage={"output_tokens": 1},
            ),
            result(4, "toolu_1", "a", 3),
            asst(
                5,
                "msg_U",
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}},
                3,
                usage={"output_tokens": 253},
            ),
            result(6, "toolu_2", "b", 5),
        )
    )
    (message,) = [m for m in of(records, "message") if m["role"] == "assistant"]
    assert message["usage"] == {"outputTokens": 253, "partial": True}
    assert message["nativeUsage"] == {"output_tokens": 253}
    assert sum(1 for r in records if "usage" in r) == 1


def test_a_held_usage_record_waits_for_the_final_count_in_bounded_memory() -> None:
    """Issue 26: the final count of a response may come many lines after its first lines
    (parallel tool calls, a subagent's progress lines). Before, the record waited 16 lines and
    then went out with the early count; now it waits for the response's end, and the records
    behind it wait in a temporary file past HELD_IN_MEMORY, so memory stays bounded."""
    from asr_adapters.adapters.claude_code.info import HELD_IN_MEMORY

    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    later = {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}
    progress = [line("progress", 10 + i, 3, data={"type": "bash_progress"}) for i in range(3 * HELD_IN_MEMORY)]
    lines = [
        user(1, "go"),
        asst(2, "msg_U", call, 1, usage={"output_tokens": 1}),
        result(3, "toolu_1", "a", 2),
        *progress,
        asst(9999, "msg_U", later, 2, stop_reason="tool_use", usage={"output_tokens": 394}),
        result(10000, "toolu_2", "b", 9999),
    ]
    builder = Builder(StreamInfo(SID, SID), Accounting())
    records = [builder.header()]
    most_in_memory = 0
    for number, obj in enumerate(lines, 1):
        records += builder.feed(number, obj)
        most_in_memory = max(most_in_memory, len(builder.out.records))
    records += builder.finish()
    assert most_in_memory <= HELD_IN_MEMORY + 1
    first, second = of(records, "tool_call")
    assert first["usage"] == {"outputTokens": 394} and first["nativeUsage"] == {"output_tokens": 394}
    assert "usage" not in second
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))  # in order, none lost
    assert len(of(records, "vendor")) == len(progress)


def test_a_response_cut_off_by_the_end_of_the_file_says_its_count_is_running() -> None:
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_U", {"type": "text", "text": "Looking"}, 1, usage={"output_tokens": 3}),
        )
    )
    (message,) = [m for m in of(records, "message") if m["role"] == "assistant"]
    assert message["usage"] == {"outputTokens": 3, "partial": True}


def test_a_final_usage_shape_is_final_without_a_stop_reason() -> None:
    """2.1.x builds write the usage they built at the end of a response (with ``iterations``)
    on its last line even when no line has a stop reason: that count is final."""
    final = {"output_tokens": 472, "iterations": [], "server_tool_use": {"web_search_requests": 0}}
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_U", {"type": "text", "text": "Plan."}, 1, usage={"output_tokens": 8}),
            asst(3, "msg_U", {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}, 2, usage=final),
            result(4, "t1", "a", 3),
        )
    )
    (message,) = [m for m in of(records, "message") if m["role"] == "assistant"]
    assert message["usage"] == {"outputTokens": 472} and message["nativeUsage"] == final


def _queue_vendor_position(records: list[dict[str, Any]]) -> int:
    (index,) = [i for i, r in enumerate(records) if r.get("schema", "").endswith("/queue-operation")]
    return index


def test_an_input_left_in_the_queue_of_an_idle_agent_is_written_within_a_few_lines() -> None:
    """An enqueue no operation resolves (cleared on cancel, a trimmed file) is not held to the
    end of the file: once the agent is idle it waits IDLE_WAIT lines at most."""
    from asr_adapters.adapters.claude_code.queue import IDLE_WAIT

    titles = [{"type": "ai-title", "sessionId": SID, "aiTitle": f"t{i}"} for i in range(IDLE_WAIT + 10)]
    records = main(
        jsonl(
            user(1, "hi"),
            asst(2, "msg_Q", {"type": "text", "text": "hello"}, 1, stop_reason="end_turn"),
            line("system", 3, 2, subtype="turn_duration", durationMs=5),
            queue_op("enqueue", "later"),
            *titles,
        )
    )
    # header, prompt, answer, turn_duration; the enqueue (line 4, the agent idle) waits through
    # line 4 + IDLE_WAIT: those titles' records come first, then its own
    assert _queue_vendor_position(records) == 4 + IDLE_WAIT < len(records) - 5


def test_an_input_queued_during_a_long_turn_is_folded_into_its_delivery_after_it() -> None:
    """Issue 27.3: a task notification enqueued while a tool runs for more than a thousand
    lines and delivered after the turn (same text) is one message, not a stray enqueue."""
    note = "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>"
    progress = [line("progress", 10 + i, 2, data={"type": "bash_progress"}) for i in range(1010)]
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_L", {"type": "tool_use", "id": "toolu_L", "name": "Bash", "input": {}}, 1),
            queue_op("enqueue", note),
            *progress,
            result(1100, "toolu_L", "ok", 2),
            asst(1101, "msg_M", {"type": "text", "text": "Done."}, 1100, stop_reason="end_turn"),
            queue_op("dequeue"),
            user(1102, note, 1101),
        )
    )
    assert not [r for r in records if r.get("schema", "").endswith("/queue-operation")]
    (delivered,) = [m for m in of(records, "message") if m["messageId"] == _uuid(1102)]
    assert delivered["assembly"]["sourceIds"] == [f"{SID}:L3", f"{SID}:L1016", _uuid(1102)]


def test_the_queue_is_bounded_by_its_contents_size() -> None:
    """What bounds the wait is memory: past PENDING_BYTES of queued content the oldest inputs
    are written as the vendor lines they are."""
    from asr_adapters.adapters.claude_code.queue import PENDING_BYTES

    big = "x" * (PENDING_BYTES // 3)
    records = main(busy_turn(*(queue_at("enqueue", 3 + i, f"{i}{big}") for i in range(4))))
    written = [r for r in records if r.get("schema", "").endswith("/queue-operation")]
    assert [r["data"]["content"][0] for r in written[:1]] == ["0"]  # the oldest, when the fourth came
    assert records.index(written[0]) < len(records) - 3


def test_hook_status_is_the_harnesss_and_hook_results_are_the_hooks() -> None:
    """1.0.x system lines: "Running <Event>…" is the harness's status; "<Event> [cmd] completed
    successfully: …" is the hook's output. /compact's output holds a PreCompact hook's result
    line (2.0.76): that line is the hook's, the rest the command's output."""
    running = "Running \x1b[1mPostToolUse:MultiEdit\x1b[22m..."
    done = "\x1b[1mPostToolUse:MultiEdit\x1b[22m [ruff format] completed successfully: 3 files left unchanged"
    hook_line = '\x1b[2mPreCompact ["$DIR"/hooks/run_hook.sh] completed successfully\x1b[22m'
    stdout = f"<local-command-stdout>\x1b[2mCompacted\x1b[22m\n{hook_line}</local-command-stdout>"
    records = main(
        jsonl(
            user(1, "go"),
            line("system", 2, 1, content=running, toolUseID="toolu_1", level="info"),
            line("system", 3, 2, content=done, toolUseID="toolu_1", level="info"),
            user(4, stdout, 3),
        )
    )
    _, status, output, compact = of(records, "message")
    assert status["author"] == "harness" and output["author"] == "hook"
    assert [(p.get("author"), p["text"]) for p in compact["content"]] == [
        ("harness", "<local-command-stdout>\x1b[2mCompacted\x1b[22m\n"),
        ("hook", hook_line),
        ("harness", "</local-command-stdout>"),
    ]


def test_a_later_part_of_a_written_response_is_a_revision_of_its_message() -> None:
    # msg_B's text arrives after its message was written (the lines were split by another
    # response and a prompt): one messageId, two records, the later a complete revision
    records = main(
        jsonl(
            user(1, "go"),
            asst(2, "msg_B", {"type": "thinking", "thinking": "hm", "signature": "S"}, 1, usage={"output_tokens": 5}),
            asst(3, "msg_C", {"type": "text", "text": "other"}, 1),
            user(4, "next", 3),
            asst(5, "msg_B", {"type": "text", "text": "answer"}, 2, usage={"output_tokens": 9}),
        )
    )
    first, second = [m for m in of(records, "message") if m.get("messageId") == "msg_B"]
    assert "supersedes" not in first and second["supersedes"] == first["id"]
    assert [p["type"] for p in second["content"]] == ["reasoning", "text"]
    assert second["content"][0] == first["content"][0] and second["content"][1]["text"] == "answer"
    assert second["assembly"] == {"mode": "folded", "sourceIds": [_uuid(2), _uuid(5)]}
    # one response, one usage: the final count, on the record that carried it first
    assert [m.get("usage") for m in (first, second)] == [{"outputTokens": 9, "partial": True}, None]


def test_a_response_line_re_appended_before_its_place_does_not_repeat_the_message_id() -> None:
    lines = [
        user(1, "go"),
        asst(2, "msg_D", {"type": "thinking", "thinking": "hm", "signature": "S"}, 1),
        asst(3, "msg_D", {"type": "text", "text": "done"}, 2, stop_reason="end_turn"),
    ]
    streams, acc = convert(jsonl(lines[1], *lines))  # the thinking line also at the very start
    messages = [m for m in of(streams[f"claude-code:{SID}"], "message") if m["messageId"] == "msg_D"]
    assert [m.get("supersedes") for m in messages] == [None, messages[0]["id"]]
    assert messages[-1]["content"] == [messages[0]["content"][0], {"type": "text", "text": "done"}]
    assert acc.duplicates == 1  # the thinking line's second copy (its uuid was seen)
