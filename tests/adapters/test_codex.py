"""Codex adapter: the mapping rules one by one, every shared sample, and bounded memory."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import orjson
import pytest
from golden_support import GOLDEN, shared_samples

import asr_adapters
from asr_adapters import registry
from asr_adapters.adapters.codex.fragments import classify, is_media_label, split_ide_request
from asr_adapters.adapters.codex.matching import MirrorMatcher
from asr_adapters.core import digests, spill
from asr_adapters.core.sanitized import MARKER
from asr_adapters.core.source import Source

SAMPLES = shared_samples("codex")
CASES = GOLDEN / "codex"


def convert(data: bytes | Path, name: str = "rollout.jsonl") -> tuple[list[dict], asr_adapters.Conversion]:
    source = Source(data, name=name) if isinstance(data, bytes) else Source(data)
    conversion = asr_adapters.convert(source, "codex", as_dicts=True)
    return list(conversion), conversion


def lines(*objects: dict) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objects)


META = {
    "timestamp": "2026-05-11T08:27:17.490Z",
    "type": "session_meta",
    "payload": {
        "id": "019e0000-0000-7000-8000-000000000001",
        "timestamp": "2026-05-11T08:27:17.000Z",
        "cli_version": "0.125.0",
        "cwd": "/w",
    },
}


def item(payload: dict, ts: str = "2026-05-11T08:27:18.000Z") -> dict:
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def event(payload: dict, ts: str = "2026-05-11T08:27:18.001Z") -> dict:
    return {"timestamp": ts, "type": "event_msg", "payload": payload}


# -- who wrote what ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "author", "origin"),
    [
        ("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>", "harness", "injected"),
        ("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>", "harness", "injected"),
        ("<user_instructions>\n\nbe brief\n\n</user_instructions>", "harness", "injected"),
        ("<turn_aborted>\nThe user interrupted.\n</turn_aborted>", "harness", "injected"),
        ('<hook_prompt hook_run_id="h1">lint first</hook_prompt>', "hook", "injected"),
        ("<external_lint_report>ok</external_lint_report>", "hook", "injected"),
        ("<subagent_notification>\n{}\n</subagent_notification>", "harness", "subagent_report"),
        ("<user_shell_command>\n<command>\nls\n</command>\n</user_shell_command>", "harness", "command"),
        ("Another language model started to solve this problem and produced a summary", "harness", "injected"),
    ],
)
def test_fragment_markers(text: str, author: str, origin: str) -> None:
    fragment = classify(text)
    assert fragment is not None and (fragment.author, fragment.origin) == (author, origin)


@pytest.mark.parametrize("text", ["Fix the parser.", "<b>bold</b> please", "# Title\nbody", ""])
def test_plain_text_is_not_a_fragment(text: str) -> None:
    assert classify(text) is None


def test_media_labels() -> None:
    assert is_media_label("<image name=[Image #1]>") and is_media_label("</image>") and is_media_label("<image>")
    assert not is_media_label("<imagine this>x")


def test_ide_split_keeps_every_character() -> None:
    text = "# Context from my IDE setup:\n\n## Active file: a.rs\n\n## My request for Codex:\nfix it\r\n"
    head, tail = split_ide_request(text) or ("", "")
    assert head + tail == text
    assert tail == "fix it\r\n" and head.endswith("## My request for Codex:\n")
    assert split_ide_request("## My request for Codex:\nno prefix") is None
    assert split_ide_request("# Context from my IDE setup:\n\n## My request for Codex:\n") is None


def test_user_item_split_into_parts_with_own_authors() -> None:
    data = lines(
        META,
        item(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "<environment_context>\n</environment_context>"},
                    {"type": "input_text", "text": "Fix it."},
                ],
            }
        ),
        event({"type": "user_message", "message": "Fix it."}),
    )
    records, _ = convert(data)
    message = records[1]
    assert "author" not in message
    assert [(p["author"], p["origin"]) for p in message["content"]] == [("harness", "injected"), ("human", "prompt")]


def test_unpaired_unmarked_user_text_has_no_author() -> None:
    data = lines(META, item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}))
    records, _ = convert(data)
    assert "author" not in records[1] and "author" not in records[1]["content"][0]


def test_developer_is_harness_and_assistant_keeps_phase() -> None:
    data = lines(
        META,
        item({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]}),
        item(
            {
                "type": "message",
                "role": "assistant",
                "phase": "commentary",
                "content": [{"type": "output_text", "text": "working"}],
            }
        ),
        item(
            {
                "type": "message",
                "role": "assistant",
                "phase": "partial_answer",
                "content": [{"type": "output_text", "text": "so far"}],
            }
        ),
    )
    records, _ = convert(data)
    assert (records[1]["role"], records[1]["author"], records[1]["origin"]) == ("developer", "harness", "injected")
    assert records[2]["phase"] == "commentary" and records[2]["author"] == "model"
    assert records[3]["phase"] == "com.openai.codex/partial_answer"


# -- reasoning -----------------------------------------------------------------------------


def test_summary_never_lands_in_text() -> None:
    data = lines(
        META,
        item(
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "S"}],
                "encrypted_content": "gAAA",
            }
        ),
    )
    records, _ = convert(data)
    part = records[1]["content"][0]
    assert records[1]["messageId"] == "rs_1" and "idSource" not in records[1]
    assert part == {
        "type": "reasoning",
        "visibility": "summary",
        "summary": ["S"],
        "opaque": {"format": "openai.encrypted_content", "data": "gAAA"},
    }


# -- mirrors -------------------------------------------------------------------------------


def test_matcher_pairs_by_text_then_order() -> None:
    matcher = MirrorMatcher()
    assert matcher.event("a", "ev-a") is False
    assert matcher.event("b", "ev-b") is False
    assert matcher.item(["b"]) == 1
    assert [e for _, e in matcher.pending] == ["ev-a"]
    assert matcher.item(["sanitised a"]) == 1  # order fallback
    assert matcher.item(["c"]) == 0
    assert matcher.event("c", "ev-c") is True  # the item came first
    assert matcher.close() == []


def test_event_mirrors_are_duplicates_not_records() -> None:
    data = lines(
        META,
        event({"type": "agent_message", "message": "Done.", "phase": "final_answer"}),
        item(
            {
                "type": "message",
                "role": "assistant",
                "phase": "final_answer",
                "content": [{"type": "output_text", "text": "Done."}],
            }
        ),
    )
    records, conversion = convert(data)
    assert [r["type"] for r in records] == ["session", "message"]
    assert conversion.accounting.duplicates == 1 and conversion.accounting.balanced()


def test_event_without_item_becomes_a_message() -> None:
    data = lines(META, event({"type": "agent_message", "message": "Only here.", "phase": "final_answer"}))
    records, conversion = convert(data)
    assert records[1]["messageId"] == "agent_message@L2" and records[1]["idSource"] == "derived"
    assert records[1]["content"] == [{"type": "text", "text": "Only here."}]
    assert conversion.accounting.records == 2


# -- tools, plans --------------------------------------------------------------------------


def test_outputs_pair_by_call_id_not_adjacency() -> None:
    data = lines(
        META,
        item({"type": "function_call", "name": "a", "arguments": "{}", "call_id": "c1"}),
        item({"type": "function_call", "name": "b", "arguments": "not json", "call_id": "c2"}),
        item({"type": "function_call_output", "call_id": "c2", "output": "B"}),
        item({"type": "function_call_output", "call_id": "c1", "output": "A"}),
    )
    records, _ = convert(data)
    calls = {r["callId"]: r for r in records if r["type"] == "tool_call"}
    results = {r["callId"]: r for r in records if r["type"] == "tool_result"}
    assert calls["c1"]["input"] == {} and calls["c2"]["arguments"] == "not json"
    assert results["c1"]["content"][0]["text"] == "A" and results["c2"]["content"][0]["text"] == "B"


def test_update_plan_revisions_supersede() -> None:
    def plan(status: str, n: int) -> dict:
        args = orjson.dumps({"plan": [{"step": "s", "status": status}]}).decode()
        return item({"type": "function_call", "name": "update_plan", "arguments": args, "call_id": f"p{n}"})

    records, _ = convert(lines(META, plan("pending", 1), plan("in_progress", 2), plan("done", 3)))
    plans = [r for r in records if r["type"] == "plan"]
    assert [p.get("supersedes") for p in plans] == [None, plans[0]["id"], plans[1]["id"]]
    assert len({p["planId"] for p in plans}) == 1
    assert plans[2]["entries"][0]["status"] == "com.openai.codex/done"


@pytest.mark.parametrize(
    ("arguments", "state"),
    [
        ("[REDACTED_ARGUMENTS len=584 sha=2ea6cb32]", "redacted"),
        ('{"plan":[{"step":"cut o', "absent"),
        ('{"explanation":"no steps"}', "absent"),
        ('"just a string"', "absent"),
    ],
)
def test_an_update_plan_whose_arguments_give_no_steps_is_still_a_plan(arguments: str, state: str) -> None:
    """Issue 27.10: a plan index finds every update_plan call; capture says why it is empty."""
    call = item({"type": "function_call", "name": "update_plan", "arguments": arguments, "call_id": "p1"})
    records, _ = convert(lines(META, call))
    (plan,) = (r for r in records if r["type"] == "plan")
    assert plan["callId"] == "p1" and plan["planType"] == "items" and plan["entries"] == []
    assert plan["capture"]["entries"]["state"] == state and plan["capture"]["entries"]["reason"]
    assert not asr_adapters.validate_records(records)


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/codex is absent (a user's clone has no shared/)")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_update_plan_call_of_a_sample_is_a_plan(path: Path) -> None:
    calls = []
    for line in path.read_bytes().splitlines():
        payload = orjson.loads(line).get("payload")
        if isinstance(payload, dict) and payload.get("type") == "function_call" and payload["name"] == "update_plan":
            calls.append(payload["call_id"])
    records, _ = convert(path)
    plans = [r["callId"] for r in records if r["type"] == "plan" and r["planId"].startswith("update_plan:")]
    assert plans == calls, (len(plans), len(calls))


# -- issue 14: subagent links, copies, turns, encrypted arguments ---------------------------

CHILD = "019e0000-0000-7000-8000-0000000000c1"
PARENT = "019e0000-0000-7000-8000-0000000000a0"


def spawn_v2(call_id: str, cipher: str = "Q0lQSA==") -> dict:
    args = orjson.dumps({"task_name": "worker", "message": cipher}).decode()
    return item(
        {
            "type": "function_call",
            "name": "spawn_agent",
            "namespace": "collaboration",
            "arguments": args,
            "encrypted_function_args": ["message"],
            "call_id": call_id,
        }
    )


def spawn_output(call_id: str) -> dict:
    output = orjson.dumps({"task_name": "/root/worker", "nickname": "Ada"}).decode()
    return item({"type": "function_call_output", "call_id": call_id, "output": output})


@pytest.mark.parametrize(
    "activity",
    [
        {
            "type": "sub_agent_activity",
            "event_id": "s1",
            "agent_thread_id": CHILD,
            "agent_path": "/root/w",
            "kind": "started",
        },
        {
            "type": "item_completed",
            "item": {
                "type": "SubAgentActivity",
                "id": "s1",
                "kind": "started",
                "agent_thread_id": CHILD,
                "agent_path": "/root/w",
            },
        },
        {"type": "collab_agent_spawn_end", "call_id": "s1", "new_thread_id": CHILD},
        {
            "type": "item_completed",
            "item": {"type": "CollabAgentToolCall", "id": "s1", "tool": "spawn_agent", "receiver_thread_ids": [CHILD]},
        },
    ],
    ids=["event", "paginated-item", "spawn-end", "collab-item"],
)
@pytest.mark.parametrize("event_first", [True, False], ids=["before-output", "after-output"])
def test_mav2_spawn_gets_child_session_from_the_activity(activity: dict, event_first: bool) -> None:
    middle = [event(activity), spawn_output("s1")] if event_first else [spawn_output("s1"), event(activity)]
    records, conversion = convert(lines(META, spawn_v2("s1"), *middle))
    subagents = [r for r in records if r["type"] == "subagent"]
    assert len(subagents) == 1 and subagents[0]["session"] == f"codex:{CHILD}"
    assert conversion.accounting.balanced()


def test_mav2_spawn_without_activity_waits_only_until_the_turn_ends() -> None:
    data = lines(
        META,
        spawn_v2("s1"),
        spawn_output("s1"),
        event({"type": "task_complete", "turn_id": "t1"}),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "later"}]}),
    )
    records, _ = convert(data)
    kinds = [(r["type"], r.get("schema", "")) for r in records]
    at = kinds.index(("subagent", ""))
    assert kinds[at + 1] == ("vendor", "com.openai.codex/event_msg/task_complete")
    assert "session" not in records[at] and records[at]["address"] == "/root/worker"


def test_encrypted_arguments_never_read_as_text() -> None:
    records, _ = convert(lines(META, spawn_v2("s1", cipher="U0VDUkVU"), spawn_output("s1")))
    call = next(r for r in records if r["type"] == "tool_call")
    assert call["input"]["message"] == {
        "type": "opaque",
        "format": "openai.encrypted_function_args",
        "data": "U0VDUkVU",
    }
    assert call["opaqueInput"] == ["message"] and call["input"]["task_name"] == "worker"
    subagent = next(r for r in records if r["type"] == "subagent")
    assert "description" not in subagent
    plain = item(
        {
            "type": "function_call",
            "name": "f",
            "arguments": '{"message":"hi"}',
            "encrypted_function_args": [],
            "call_id": "c",
        }
    )
    records, _ = convert(lines(META, plain))
    assert records[1]["input"] == {"message": "hi"} and "opaqueInput" not in records[1]


def _fork_meta(thread: str, parent: str | None, subagent: bool = False) -> dict:
    payload: dict = {"id": thread, "timestamp": "2026-05-11T08:00:00.000Z", "cli_version": "0.150.0", "cwd": "/w"}
    if parent:
        payload["forked_from_id"] = parent
    if subagent:
        payload["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}
    return {"timestamp": "2026-05-11T08:27:17.490Z", "type": "session_meta", "payload": payload}


def test_copied_events_are_duplicates_and_the_copied_prompt_stays_human() -> None:
    data = lines(
        _fork_meta(CHILD, PARENT, subagent=True),
        _fork_meta(PARENT, None),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it."}]}),
        event({"type": "user_message", "message": "Fix it."}),
        event({"type": "agent_reasoning", "text": "thinking"}),
        event({"type": "agent_message", "message": "working", "phase": "commentary"}),
        event({"type": "item_completed", "item": {"type": "AgentMessage", "content": [{"type": "Text", "text": "w"}]}}),
        event({"type": "thread_settings_applied"}),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Now the CLI."}]}),
        event({"type": "user_message", "message": "Now the CLI."}),
    )
    records, conversion = convert(data)
    messages = [r for r in records if r["type"] == "message"]
    assert [(m["author"], m["origin"], "copiedFrom" in m) for m in messages] == [
        ("human", "prompt", True),
        ("agent", "inter_session", False),
    ]
    # the copied meta, the three copied mirror events, and each prompt's user_message mirror
    assert conversion.accounting.duplicates == 6 and conversion.accounting.balanced()
    assert conversion.accounting.record_types["message"] == 2


def test_a_fork_of_a_fork_stays_copied_until_its_own_settings_line() -> None:
    grand = "019e0000-0000-7000-8000-0000000000f0"
    data = lines(
        _fork_meta(CHILD, PARENT),
        _fork_meta(PARENT, grand),
        _fork_meta(grand, None),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "grand"}]}),
        event({"type": "thread_settings_applied"}),  # the parent's own fork boundary, copied
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "parent"}]}),
        event({"type": "thread_settings_applied"}),  # the child's
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "child"}]}),
    )
    records, _ = convert(data)
    texts = {r["content"][0]["text"]: r.get("copiedFrom", "") for r in records if r["type"] == "message"}
    assert texts["grand"].startswith(f"codex:{PARENT}#") and texts["parent"].startswith(f"codex:{PARENT}#")
    assert texts["child"] == ""


def test_subagent_settings_before_its_first_turn_carry_no_parent_turn() -> None:
    """Issue 27.9: a copy that ends inside the parent's open turn leaves that turn behind."""
    child = {**META["payload"], "id": "019e0000-0000-7000-8000-0000000000c1", "thread_source": "subagent"}
    parent = {**META["payload"], "id": PARENT}
    data = lines(
        {**META, "payload": child},
        {**META, "payload": parent},
        {"timestamp": META["timestamp"], "type": "turn_context", "payload": {"turn_id": "t1", "model": "m-parent"}},
        event({"type": "task_started", "turn_id": "t1"}),
        event({"type": "thread_settings_applied"}),
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "own"}]}),
    )
    records, _ = convert(data)
    settings = next(r for r in records if r.get("schema", "").endswith("/thread_settings_applied"))
    assert "turnId" not in settings and "copiedFrom" not in settings
    own = records[-1]
    assert "turnId" not in own and "model" not in own and "copiedFrom" not in own


def test_ide_prefix_split_on_an_event_only_prompt() -> None:
    text = "# Files mentioned by the user:\n\n## a.md: /w/a.md\n\n## My request for Codex:\nSummarize a.md."
    records, _ = convert(lines(META, event({"type": "user_message", "message": text})))
    parts = records[1]["displayContent"]
    assert [(p["author"], p["origin"]) for p in parts] == [("harness", "injected"), ("human", "prompt")]
    assert parts[1]["text"] == "Summarize a.md." and "".join(p["text"] for p in parts) == text


def test_a_prompt_known_only_from_its_ui_event_is_display_content() -> None:
    """ASR-207 (issue 27.8): the event is what the user saw, never copied into ``content``."""
    image = "data:image/png;base64,iVBORw0KGgo="
    turn_item = {"type": "UserMessage", "id": "item_1", "content": [{"type": "text", "text": "Run it."}]}
    records, conversion = convert(
        lines(
            META,
            event({"type": "user_message", "message": "Why?", "images": [image]}),
            event({"type": "item_completed", "turn_id": "t1", "item": turn_item}),
        )
    )
    event_only, turn_item_only = (r for r in records if r["type"] == "message")
    for record in (event_only, turn_item_only):
        assert record["content"] == [] and record["capture"]["content"]["state"] == "absent"
        assert (record["author"], record["origin"]) == ("human", "prompt")
    assert [p["type"] for p in event_only["displayContent"]] == ["text", "image"]
    assert event_only["messageId"] == "user_message@L2" and event_only["idSource"] == "derived"
    assert turn_item_only["displayContent"][0]["text"] == "Run it." and turn_item_only["messageId"] == "item_1"
    assert "idSource" not in turn_item_only
    assert not asr_adapters.validate_records(records) and conversion.accounting.balanced()


def test_a_prompt_whose_item_the_rollout_holds_keeps_it_as_content() -> None:
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Why?"}]}
    records, conversion = convert(lines(META, item(user), event({"type": "user_message", "message": "Why?"})))
    message = records[1]
    assert message["content"] == [{"type": "text", "text": "Why?"}] and "displayContent" not in message
    assert "capture" not in message and conversion.accounting.duplicates == 1


def _token_count(total: int, last: int, used: float = 1.0) -> dict:
    def usage(n: int) -> dict:
        return {
            "input_tokens": n,
            "cached_input_tokens": 0,
            "output_tokens": 1,
            "reasoning_output_tokens": 0,
            "total_tokens": n + 1,
        }

    info = {"total_token_usage": usage(total), "last_token_usage": usage(last), "model_context_window": 1000}
    return event({"type": "token_count", "info": info, "rate_limits": {"primary": {"used_percent": used}}})


def test_token_count_is_a_duplicate_only_when_it_repeats_in_full() -> None:
    records, conversion = convert(
        lines(META, _token_count(10, 10), _token_count(10, 10), _token_count(10, 10, used=2.0))
    )
    assert [r["data"]["payload"]["rate_limits"]["primary"]["used_percent"] for r in records[1:]] == [1.0, 2.0]
    assert conversion.accounting.duplicates == 1


def test_no_turn_id_between_task_complete_and_the_next_task_started() -> None:
    developer = item({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "x"}]})
    data = lines(
        META,
        event({"type": "task_started", "turn_id": "t1"}),
        developer,
        event({"type": "task_complete", "turn_id": "t1"}),
        developer,
        event({"type": "task_started", "turn_id": "t2"}),
        developer,
    )
    records, _ = convert(data)
    assert [r.get("turnId") for r in records if r["type"] == "message"] == ["t1", None, "t2"]
    assert records[3]["turnId"] == "t1"  # the task_complete line itself names its turn


# -- issue 14.13: usage ------------------------------------------------------------------------


def _assistant(text: str) -> dict:
    return item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})


def test_usage_attaches_once_to_the_response_it_follows() -> None:
    call = item({"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c1"})
    data = lines(
        META,
        item({"type": "reasoning", "summary": []}),
        call,
        _token_count(10, 10),
        item({"type": "function_call_output", "call_id": "c1", "output": "ok"}),
        _token_count(10, 10, used=5.0),  # the rate-limit refresh before the next request
        _assistant("done"),
        _token_count(30, 20),
    )
    records, _ = convert(data)
    carriers = [r for r in records if "nativeUsage" in r]
    assert [(r["type"], r["nativeUsage"]["input_tokens"]) for r in carriers] == [("message", 10), ("message", 20)]
    assert carriers[0]["content"][0]["type"] == "reasoning" and carriers[1]["content"][0]["text"] == "done"
    assert carriers[1]["usage"] == {
        "inputTokens": 20,
        "outputTokens": 1,
        "cacheReadTokens": 0,
        "reasoningTokens": 0,
        "totalTokens": 21,
    }
    assert [r["type"] for r in records].index("tool_result") > records.index(carriers[0])  # file order kept


def test_an_orphan_usage_does_not_shift_later_responses() -> None:
    def response(n: int) -> list[dict]:
        call = item({"type": "function_call", "name": "f", "arguments": "{}", "call_id": f"c{n}"})
        return [
            call,
            _token_count(n * 100, n),
            item({"type": "function_call_output", "call_id": f"c{n}", "output": ""}),
        ]

    # a new total with no response open (its items missing), then responses in current order
    records, _ = convert(lines(META, _token_count(50, 50), *response(1), *response(2)))
    assert [(r["callId"], r["nativeUsage"]["input_tokens"]) for r in records if "nativeUsage" in r] == [
        ("c1", 1),
        ("c2", 2),
    ]


def test_usage_keys_only_where_codex_records_the_number() -> None:
    last = {"input_tokens": 5, "cache_write_input_tokens": 2, "output_tokens": 1}
    tc = event({"type": "token_count", "info": {"total_token_usage": last, "last_token_usage": last}})
    records, _ = convert(lines(META, _assistant("hi"), tc))
    # Codex's input_tokens already holds the cache counts (OpenAI's convention); the total is
    # input + output by the one definition (issue 26), stated or not
    assert records[1]["usage"] == {"inputTokens": 5, "outputTokens": 1, "cacheWriteTokens": 2, "totalTokens": 6}
    assert records[1]["nativeUsage"] == last


def test_usage_of_a_tool_only_response_is_on_its_first_call() -> None:
    calls = [item({"type": "function_call", "name": "f", "arguments": "{}", "call_id": f"c{n}"}) for n in (1, 2)]
    records, _ = convert(lines(META, *calls, _token_count(10, 10)))
    assert [r["callId"] for r in records if "usage" in r] == ["c1"]


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/codex is absent (a user's clone has no shared/)")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_response_usage_in_a_sample_is_written_once(path: Path) -> None:
    records, _ = convert(path)
    expected, total = [], None
    for line in path.read_bytes().splitlines():
        payload = orjson.loads(line).get("payload")
        info = payload.get("info") if isinstance(payload, dict) and payload.get("type") == "token_count" else None
        if isinstance(info, dict) and info.get("total_token_usage") not in (None, total):
            total = info["total_token_usage"]
            expected.append(info["last_token_usage"])
    assert expected and [r["nativeUsage"] for r in records if "nativeUsage" in r] == expected


# -- containers ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["07-assistant-phase-and-mirrors", "17-bare-g1", "18-json-g0", "20-zstd-compressed"])
def test_detected_as_codex(case: str) -> None:
    path = next((CASES / case).glob("input.*"))
    assert registry.detect(Source(path)).name == "codex"


def test_zstd_equals_plain() -> None:
    plain, _ = convert(CASES / "07-assistant-phase-and-mirrors" / "input.jsonl")
    packed, _ = convert(CASES / "20-zstd-compressed" / "input.jsonl.zst")
    strip = [{k: v for k, v in r.items() if k != "source"} for r in plain]
    assert strip == [{k: v for k, v in r.items() if k != "source"} for r in packed]


def test_bytes_file_object_and_path_agree() -> None:
    path = CASES / "10-tool-calls-every-kind" / "input.jsonl"
    by_path, _ = convert(path)
    by_bytes, _ = convert(path.read_bytes(), name="input.jsonl")
    conversion = asr_adapters.convert(io.BytesIO(path.read_bytes()), as_dicts=True)
    assert by_path == by_bytes
    assert [r for r in conversion][1:] == by_path[1:]


def test_corrupt_lines_reported_with_numbers() -> None:
    _, conversion = convert(CASES / "21-torn-and-corrupt-lines" / "input.jsonl")
    assert [d.line for d in conversion.accounting.diagnostics] == [3, 5]
    assert conversion.accounting.unreadable == 2 and conversion.accounting.balanced()


# -- shared samples ------------------------------------------------------------------------


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/codex is absent (a user's clone has no shared/)")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_converts_validates_and_accounts(path: Path) -> None:
    records, conversion = convert(path)
    findings = asr_adapters.validate_records(records)
    assert not findings, [f.describe() for f in findings[:5]]
    native = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert conversion.accounting.native_items == native
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    assert conversion.accounting.unreadable == 0 and not conversion.accounting.diagnostics
    # Nothing lost: every text of every message item appears unchanged in the output
    # (a text split at a marked boundary is the concatenation of its parts, ASR-203).
    # A text that is only a sanitizer's marker is no content: its message says so in a redacted
    # capture state that keeps the marker (core/sanitized.py).
    written = set()
    for record in records:
        if record["type"] == "message":
            texts = [p["text"] for p in record["content"] if p["type"] == "text"]
            written.update(texts)
            written.add("".join(texts))
            for state in (record.get("capture") or {}).values():
                if state.get("state") == "redacted":
                    written.update(MARKER.findall(state.get("reason", "")))
    for line in path.read_bytes().splitlines():
        value = orjson.loads(line)
        payload = value.get("payload") if isinstance(value, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "message":
            for part in payload.get("content") or ():
                text = part.get("text")
                if not isinstance(text, str) or not text or MARKER.fullmatch(text.strip()):
                    continue  # a sanitizer's marker is nobody's words: taken out (capture redacted)
                assert text in written or any(text in w for w in written)


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/codex is absent (a user's clone has no shared/)")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_a_sample_prompt_is_content_only_where_its_item_is_kept(path: Path) -> None:
    """Issue 27.8 over real rollouts: a user message has ``content`` exactly when the rollout
    holds its user item; a prompt known only from its event is display-only (ASR-207)."""
    items = 0
    item_texts: set[str] = set()
    for line in path.read_bytes().splitlines():
        payload = orjson.loads(line).get("payload")
        if isinstance(payload, dict) and payload.get("type") == "message" and payload.get("role") == "user":
            items += 1
            item_texts.update(p["text"] for p in payload["content"] if isinstance(p.get("text"), str))
    records, _ = convert(path)
    users = [r for r in records if r["type"] == "message" and r.get("role") == "user" and "summaryOf" not in r]
    display_only = [r for r in users if "displayContent" in r]
    for record in display_only:
        assert record["content"] == [] and record["capture"]["content"]["state"] == "absent"
        shown = "".join(p.get("text", "") for p in record["displayContent"])
        assert shown not in item_texts  # an event whose item the rollout holds pairs it instead
    assert len(users) - len(display_only) == items


# -- memory --------------------------------------------------------------------------------


def _synthetic_rollout(turns: int) -> bytes:
    out = [orjson.dumps(META)]
    for n in range(turns):
        text = f"turn {n}: " + "x" * 2000
        user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        out.append(orjson.dumps(item(user)))
        out.append(orjson.dumps(event({"type": "user_message", "message": text})))
        out.append(orjson.dumps(event({"type": "agent_reasoning", "text": "thinking"})))
        out.append(orjson.dumps(item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]})))
        out.append(orjson.dumps(item({"type": "function_call", "name": "x", "arguments": "{}", "call_id": f"c{n}"})))
        out.append(orjson.dumps(item({"type": "function_call_output", "call_id": f"c{n}", "output": "y" * 4000})))
    return b"\n".join(out) + b"\n"


def _peak(tmp_path: Path, turns: int) -> int:
    path = tmp_path / f"rollout-{turns}.jsonl"
    path.write_bytes(_synthetic_rollout(turns))
    tracemalloc.start()
    count = sum(1 for _ in asr_adapters.convert(path, "codex", as_dicts=True))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count > turns
    return peak


def test_memory_does_not_grow_with_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # per-id state (item digests, record ids by native id) lives in core.digests maps: with a
    # low limit both sizes move to disk, so what stays in memory is bounded, not the file
    monkeypatch.setattr(spill, "DEFAULT_LIMIT", 100)
    monkeypatch.setattr(digests, "DEFAULT_LIMIT", 100)
    small = _peak(tmp_path, 300)
    large = _peak(tmp_path, 2400)  # 8x the lines
    assert large < small * 1.5 + 256 * 1024, (small, large)


# -- native items repeated (resumes, partial re-appends) -------------------------------------


def _turn_lines() -> list[dict]:
    """One prompt, its reasoning, an answer, a call and its output, with native ids."""
    return [
        item({"type": "message", "id": "msg_u", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        event({"type": "user_message", "message": "go"}),
        event({"type": "agent_reasoning", "text": "plan"}),
        item({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "plan"}]}),
        item({"type": "function_call", "name": "x", "arguments": "{}", "call_id": "call_C"}),
        item({"type": "function_call_output", "call_id": "call_C", "output": "y"}),
        event({"type": "agent_message", "message": "done"}),
        item({"type": "message", "id": "msg_a", "role": "assistant", "content": [_output("done")]}),
    ]


def _output(text: str) -> dict:
    return {"type": "output_text", "text": text}


def test_a_block_of_lines_appended_again_is_counted_duplicate_not_written_twice() -> None:
    turn = _turn_lines()
    once, first = convert(lines(META, *turn))
    twice, conversion = convert(lines(META, *turn, *turn))
    assert twice == once  # nothing new: every line of the second copy (items and mirrors) is a duplicate
    assert conversion.accounting.duplicates == first.accounting.duplicates + len(turn)
    assert conversion.accounting.balanced() and not asr_adapters.validate_records(twice)


def test_one_repeated_line_is_a_duplicate_wherever_it_lands() -> None:
    turn = _turn_lines()
    for index in (0, 3, 4, 5, 7):
        records, conversion = convert(lines(META, *turn, turn[index]))
        assert [f.describe() for f in asr_adapters.validate_records(records)] == []
        assert len([r for r in records if r["type"] in ("message", "tool_call", "tool_result")]) == 5
        assert conversion.accounting.balanced()


def test_a_changed_repeat_of_a_native_id_is_a_revision_of_the_earlier_record() -> None:
    call = {"type": "function_call", "name": "x", "arguments": '{"a": 1}', "call_id": "call_C"}
    answer = {"type": "message", "id": "msg_a", "role": "assistant", "content": [_output("v1")]}
    changed = {**answer, "content": [_output("v2")]}
    records, conversion = convert(
        lines(META, item(call), item(answer), item({**call, "arguments": '{"a": 2}'}), item(changed), item(changed))
    )
    calls = [r for r in records if r["type"] == "tool_call"]
    messages = [r for r in records if r["type"] == "message"]
    assert [c["input"] for c in calls] == [{"a": 1}, {"a": 2}] and calls[1]["supersedes"] == calls[0]["id"]
    assert [m["content"][0]["text"] for m in messages] == ["v1", "v2"]
    assert messages[1]["supersedes"] == messages[0]["id"]
    assert "supersedes" not in calls[0] and "supersedes" not in messages[0]
    assert conversion.accounting.duplicates == 1 and conversion.accounting.balanced()
    assert not asr_adapters.validate_records(records)


def test_a_repeated_item_takes_only_an_event_of_its_own_text() -> None:
    answer = item({"type": "message", "id": "msg_a", "role": "assistant", "content": [_output("done")]})
    lone = event({"type": "agent_message", "message": "a notice no item holds"})
    mirror = event({"type": "agent_message", "message": "done"})
    records, conversion = convert(lines(META, mirror, answer, answer, lone))
    texts = [r["content"][0]["text"] for r in records if r["type"] == "message"]
    assert texts == ["done", "a notice no item holds"]  # the repeat's echo did not swallow it
    assert conversion.accounting.duplicates == 2 and conversion.accounting.balanced()  # the mirror, the repeat
    matcher = MirrorMatcher()
    assert matcher.repeat(["x"]) == 0 and matcher.event("y", {}) is False and matcher.event("x", {}) is True


def test_the_stream_is_keyed_by_the_session_reference() -> None:
    """issue 26: Codex keyed its stream by the file name (``codex:input.jsonl``) where every
    other adapter uses the session reference; ``--stats``, ``--thread`` and batch naming read it."""
    from asr_adapters.convert import Conversion

    path = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
    streams = list(Conversion(path, "codex", as_dicts=True).streams())
    assert [s.key for s in streams] == ["codex:019e9625-802f-7e91-840a-000000000007"]
    first = next(iter(streams[0].records))
    assert first["session"] == streams[0].key


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ("failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 2, "
         "stdout: , stderr: bash: -c: line 0: syntax error", 2),  # the shape of the shared v0.40 sample
        ("failed in sandbox LinuxSeccomp with execution error: timeout", None),
    ],
)  # fmt: skip
def test_a_command_the_sandbox_stopped_is_a_failure(output: str, code: int | None) -> None:
    """codex-rs reports a command its sandbox stopped as "failed in sandbox …": a failure, with
    the exit code it names (the stats review counted 8 failures where the v0.40 sample has 10)."""
    from asr_adapters.adapters.codex.tools import output_outcome

    record: dict[str, object] = {"type": "tool_result", "callId": "c"}
    output_outcome(record, output)
    assert record["isError"] is True and record.get("exitCode") == code
