"""Codex: records in file order around mirror events no item takes, one record per unsaved
reasoning item, web-search call ids from their ``web_search_end`` event, and the summary of a
remote compaction."""

from __future__ import annotations

import orjson
import pytest

import asr_adapters
from asr_adapters.adapters.codex import state
from asr_adapters.core.source import Source


def convert(data: bytes) -> tuple[list[dict], asr_adapters.Conversion]:
    conversion = asr_adapters.convert(Source(data, name="rollout.jsonl"), "codex", as_dicts=True)
    return list(conversion), conversion


def lines(*objects: dict) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objects)


def item(payload: dict, ts: str = "2025-09-25T01:55:54.000Z") -> dict:
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def event(payload: dict, ts: str = "2025-09-25T01:55:54.000Z") -> dict:
    return {"timestamp": ts, "type": "event_msg", "payload": payload}


META_040 = {
    "timestamp": "2025-09-25T01:22:20.000Z",
    "type": "session_meta",
    "payload": {"id": "01997e76-0000-7592-9cac-000000000040", "timestamp": "2025-09-25T01:22:20.000Z"},
}
CONTEXT = {"timestamp": "2025-09-25T01:48:46.564Z", "type": "turn_context", "payload": {"model": "gpt-5-codex"}}


def at(ms: int) -> str:
    return f"2025-09-25T01:55:54.{ms:03d}Z"


def reasoning_event(text: str, ms: int) -> dict:
    return event({"type": "agent_reasoning", "text": text}, ts=at(ms))


def aborted_then_prompt(ms: int) -> list[dict]:
    """0.40: ``turn_aborted`` (no turn id), then the next prompt and its event."""
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "try again"}]}
    return [
        event({"type": "turn_aborted", "reason": "interrupted"}, ts=at(ms)),
        item(prompt, ts=at(ms + 1)),
        event({"type": "user_message", "message": "try again"}, ts=at(ms + 2)),
    ]


def summary(record: dict) -> list[str]:
    return record["content"][0]["summary"]


def test_unpaired_event_is_written_before_the_abort_that_followed_it() -> None:
    records, conversion = convert(
        lines(META_040, CONTEXT, reasoning_event("**Running tests**", 95), *aborted_then_prompt(126))
    )
    kinds = [r.get("messageId") or r.get("schema") for r in records[1:]]
    assert kinds == [
        "com.openai.codex/turn_context",
        "agent_reasoning@L3",
        "com.openai.codex/event_msg/turn_aborted",
        "message@L5",
    ]
    assert records[2]["status"] == "interrupted"
    stamps = [r["ts"] for r in records[1:]]
    assert stamps == sorted(stamps)
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert conversion.accounting.balanced()


def test_records_behind_a_waiting_event_keep_file_order_when_its_item_comes() -> None:
    # 0.40, lines 166-172: the response completed (token_count) before the abort, and its
    # items are written after it: the reasoning item still takes its event.
    usage = {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}
    records, conversion = convert(
        lines(
            META_040,
            reasoning_event("**Adding a hook**", 1),
            event({"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}, ts=at(2)),
            event({"type": "turn_aborted", "reason": "interrupted"}, ts=at(3)),
            item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Adding a hook**"}]}, ts=at(4)),
        )
    )
    kinds = [r.get("messageId") or r.get("schema") for r in records[1:]]
    assert kinds == [
        "com.openai.codex/event_msg/token_count",
        "com.openai.codex/event_msg/turn_aborted",
        "reasoning@L5",
    ]
    assert conversion.accounting.duplicates == 1
    assert conversion.accounting.balanced()


def test_an_event_only_answer_comes_before_the_token_count_after_it() -> None:
    records, _ = convert(
        lines(
            META_040,
            event({"type": "agent_message", "message": "A parser error."}, ts=at(4)),
            event({"type": "token_count", "info": None}, ts=at(5)),
            event({"type": "task_complete", "last_agent_message": "A parser error."}, ts=at(6)),
        )
    )
    assert [r["type"] for r in records[1:]] == ["message", "vendor", "vendor"]
    assert [r["ts"] for r in records] == sorted(r["ts"] for r in records)


def test_one_unsaved_reasoning_item_is_one_message_with_its_segments() -> None:
    # 0.40, lines 612-615: three summary segments of one item (Codex writes one event per
    # segment, on consecutive lines), then the abort; no item was saved.
    texts = ["**Analyzing**\n\nfirst", "**Investigating**\n\nsecond", "**Diagnosing**\n\nthird"]
    run = [reasoning_event(t, 317 + min(i, 1)) for i, t in enumerate(texts)]
    records, conversion = convert(lines(META_040, CONTEXT, *run, *aborted_then_prompt(400)))
    messages = [r for r in records if r["type"] == "message" and r["role"] == "assistant"]
    assert len(messages) == 1
    message = messages[0]
    assert message["messageId"] == "agent_reasoning@L3"
    assert message["content"] == [{"type": "reasoning", "visibility": "summary", "summary": texts}]
    assert message["assembly"] == {
        "mode": "folded",
        "sourceIds": ["agent_reasoning@L3", "agent_reasoning@L4", "agent_reasoning@L5"],
    }
    assert message["status"] == "interrupted" and message["ts"] == "2025-09-25T01:55:54.317Z"
    assert conversion.accounting.folded == 2
    assert conversion.accounting.balanced()


def test_reasoning_events_apart_are_separate_items() -> None:
    # Another line between two runs (or raw content followed by a new summary) starts a new item.
    raw = event({"type": "agent_reasoning_raw_content", "text": "raw thoughts"}, ts=at(2))
    records, conversion = convert(
        lines(
            META_040,
            reasoning_event("**One**", 1),
            raw,
            reasoning_event("**Two**", 3),
            CONTEXT,
            reasoning_event("**Three**", 4),
            *aborted_then_prompt(10),
        )
    )
    messages = [r for r in records if r["type"] == "message" and r["role"] == "assistant"]
    assert [m["messageId"] for m in messages] == ["agent_reasoning@L2", "agent_reasoning@L4", "agent_reasoning@L6"]
    assert messages[0]["content"] == [
        {"type": "reasoning", "visibility": "full", "text": "raw thoughts", "summary": ["**One**"]}
    ]
    assert messages[0]["assembly"]["sourceIds"] == ["agent_reasoning@L2", "agent_reasoning_raw_content@L3"]
    assert "assembly" not in messages[1] and summary(messages[2]) == ["**Three**"]
    assert conversion.accounting.balanced()


def test_an_item_taking_part_of_a_run_leaves_the_rest_as_one_message() -> None:
    records, conversion = convert(
        lines(
            META_040,
            reasoning_event("**A**", 1),
            reasoning_event("**B**", 2),
            item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**A**"}]}, ts=at(3)),
            *aborted_then_prompt(10),
        )
    )
    unpaired = [r for r in records if r.get("messageId", "").startswith("agent_reasoning@")]
    assert len(unpaired) == 1 and summary(unpaired[0]) == ["**B**"] and "assembly" not in unpaired[0]
    assert [r.get("messageId") for r in records[1:3]] == ["agent_reasoning@L3", "reasoning@L4"]
    assert conversion.accounting.balanced()


def test_the_wait_behind_an_unpaired_event_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "BACKLOG_LIMIT", 4)
    outputs = [
        item({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}, ts=at(10 + i)) for i in range(8)
    ]
    converted, conversion = convert(lines(META_040, reasoning_event("**Waiting**", 1), *outputs))
    # everything is written, each record once; past the bound the stream moved on and the
    # unpaired event was written when its turn ended (the end of the file)
    assert [r.get("callId") for r in converted if r["type"] == "tool_result"] == [f"c{i}" for i in range(8)]
    assert converted[-1]["messageId"] == "agent_reasoning@L2"
    assert conversion.accounting.balanced()


def test_the_backlog_never_holds_more_than_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "BACKLOG_LIMIT", 4)
    seen: list[int] = []
    drain = state.ConverterState.drain

    def watched(self: state.ConverterState) -> list[dict]:
        out = drain(self)
        seen.append(len(self.ready))
        return out

    monkeypatch.setattr(state.ConverterState, "drain", watched)
    outputs = [item({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}) for i in range(20)]
    convert(lines(META_040, reasoning_event("**Waiting**", 1), *outputs))
    assert seen and max(seen) <= 4


# -- web search call ids -----------------------------------------------------------------

ACTION = {"type": "search", "query": "opencode compaction", "queries": ["opencode compaction"]}


def web_search_end(call_id: str, action: dict) -> dict:
    return event({"type": "web_search_end", "call_id": call_id, "query": action["query"], "action": action})


def web_search_call(action: dict) -> dict:
    return item({"type": "web_search_call", "status": "completed", "action": action})


def calls(records: list[dict]) -> list[dict]:
    return [r for r in records if r["type"] == "tool_call"]


def test_web_search_call_takes_the_native_id_of_its_end_event() -> None:
    # 0.125, lines 196-197: the event names the call (the item's own id is not saved).
    records, conversion = convert(lines(META_040, web_search_end("ws_1", ACTION), web_search_call(ACTION)))
    (call,) = calls(records)
    assert call["callId"] == "ws_1" and "idSource" not in call
    assert call["name"] == "web_search" and call["input"] == ACTION
    assert conversion.accounting.balanced()


def test_web_search_ids_pair_by_action_not_by_order() -> None:
    other = {"type": "search", "query": "something else"}
    records, _ = convert(
        lines(
            META_040,
            web_search_end("ws_a", ACTION),
            web_search_end("ws_b", other),
            web_search_call(other),
            web_search_call(ACTION),
            web_search_call(ACTION),  # no event left for it: derived
        )
    )
    ids = [(c["callId"], c.get("idSource")) for c in calls(records)]
    assert ids == [("ws_b", None), ("ws_a", None), ("web_search_call@L6", "derived")]


def test_web_search_without_an_end_event_keeps_a_derived_id() -> None:
    records, _ = convert(lines(META_040, web_search_call(ACTION)))
    (call,) = calls(records)
    assert call["callId"] == "web_search_call@L2" and call["idSource"] == "derived"


def test_an_end_event_of_an_earlier_turn_is_not_taken() -> None:
    records, _ = convert(
        lines(
            META_040,
            web_search_end("ws_old", ACTION),
            event({"type": "task_complete"}),
            web_search_call(ACTION),
        )
    )
    (call,) = calls(records)
    assert call["idSource"] == "derived"


def test_an_event_only_prompt_ends_the_step_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Event-only rollouts (items filtered out): the next prompt's event is where the
    # previous step's unpaired events are due, so they wait no longer than that.
    monkeypatch.setattr(state, "BACKLOG_LIMIT", 2)
    outputs = [item({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}, ts=at(5)) for i in range(4)]
    records, _ = convert(
        lines(
            META_040,
            event({"type": "user_message", "message": "first"}, ts=at(1)),
            reasoning_event("**Thinking**", 2),
            event({"type": "user_message", "message": "second"}, ts=at(3)),
            *outputs,
        )
    )
    assert [r.get("messageId") or r.get("callId") for r in records[1:]] == [
        "user_message@L2",
        "agent_reasoning@L3",
        "user_message@L4",
        "c0",
        "c1",
        "c2",
        "c3",
    ]


# -- remote compaction -----------------------------------------------------------------------


def compacted(message: str, history: list[dict]) -> dict:
    return {
        "timestamp": at(20),
        "type": "compacted",
        "payload": {"message": message, "replacement_history": history},
    }


PROMPT = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}


def test_remote_compaction_prefers_the_trailing_encrypted_item_to_the_message() -> None:
    # 0.104 sample line 1788: ``message`` is a sanitizer's marker for "" and the history
    # ends in the compaction item holding the summary.
    history = [PROMPT, {"type": "compaction", "encrypted_content": "Z0FBQQ=="}]
    records, conversion = convert(lines(META_040, compacted("[REDACTED_MESSAGE len=0 sha=e3b0c442]", history)))
    summary_record, kept = records[1], records[2]
    assert summary_record["content"] == [{"type": "opaque", "format": "openai.encrypted_content", "data": "Z0FBQQ=="}]
    assert kept["type"] == "vendor" and kept["data"]["payload"]["message"].startswith("[REDACTED_MESSAGE")
    assert conversion.accounting.balanced()


def test_local_compaction_keeps_its_summary_text() -> None:
    records, _ = convert(lines(META_040, compacted("The summary.", [PROMPT])))
    assert records[1]["content"] == [{"type": "text", "text": "The summary."}]
