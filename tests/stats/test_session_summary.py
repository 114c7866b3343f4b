"""``session_summary``: one session's tokens, cost, tool outcomes, prompts, time and subagents,
from the record model alone, priced with genai-prices' real data (no mock)."""

from __future__ import annotations

import warnings
from datetime import datetime
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price

from asr_adapters.stats import session_summary
from stats.streams import Stream, usage


def library_price(model: str, ts: str, input_tokens: int, output: int, read: int = 0, write: int = 0) -> float:
    """What genai-prices itself says the response cost."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        amount = calc_price(
            Usage(input_tokens=input_tokens, output_tokens=output, cache_read_tokens=read, cache_write_tokens=write),
            model,
            genai_request_timestamp=datetime.fromisoformat(ts),
        ).total_price
    return float(amount)


def test_tokens_and_cost_per_response_with_the_model_and_date_it_ran() -> None:
    stream = Stream("codex:s1", cwd="/work/app", title="Fix the parser")
    stream.prompt("2026-01-05T10:00:00Z", "Fix the failing parser test.")
    stream.reply("2026-01-05T10:00:10Z", "claude-sonnet-4-5", usage(120_000, 900, read=100_000, write=15_000))
    stream.reply("2026-01-05T10:01:00Z", "gpt-5", usage(50_000, 2_000, read=40_000, reasoning=1_500))
    summary = session_summary(stream.records)

    assert summary.session == "codex:s1" and summary.agent == "codex" and summary.cwd == "/work/app"
    assert summary.title == "Fix the parser"
    tokens = summary.tokens
    assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning) == (
        170_000,
        140_000,
        15_000,
        2_900,
        1_500,
    )
    expected = library_price("claude-sonnet-4-5", "2026-01-05T10:00:10Z", 120_000, 900, 100_000, 15_000)
    expected += library_price("gpt-5", "2026-01-05T10:01:00Z", 50_000, 2_000, 40_000)
    assert summary.cost == pytest.approx(expected, rel=1e-12)
    assert all(r.cost_by == "genai-prices" for r in summary.responses)
    assert [r.priced_as for r in summary.responses] == ["anthropic/claude-sonnet-4-5", "openai/gpt-5"]
    assert set(summary.models) == {"claude-sonnet-4-5", "gpt-5"}
    assert summary.models["gpt-5"].tokens.reasoning == 1_500


def test_a_tier_crossed_is_priced_at_its_own_rate() -> None:
    """Sonnet 4.5 input over 200k tokens costs more per token: per response, not per sum."""
    stream = Stream("codex:tiers")
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(150_000, 100))
    stream.reply("2026-01-05T10:00:05Z", "claude-sonnet-4-5", usage(250_000, 100))
    summary = session_summary(stream.records)
    low = library_price("claude-sonnet-4-5", "2026-01-05T10:00:00Z", 150_000, 100)
    high = library_price("claude-sonnet-4-5", "2026-01-05T10:00:05Z", 250_000, 100)
    assert high / 250_000 > low / 150_000  # the data has a tier there
    assert [r.cost for r in summary.responses] == [pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12)]


def test_unknown_model_is_unpriced_with_its_tokens_never_zero() -> None:
    stream = Stream("codex:u")
    stream.reply("2026-01-05T10:00:00Z", "acme-private-model-9", usage(1_000, 50))
    stream.reply("2026-01-05T10:00:02Z", None, usage(10, 5))  # no model named anywhere before it
    stream.reply("2026-01-05T10:00:03Z", "gpt-5", usage(0, 0))  # nothing to price: 0, not unpriced
    summary = session_summary(stream.records)
    first, second, third = summary.responses
    assert first.cost is None and first.unpriced and first.cost_by is None
    assert second.model == "acme-private-model-9"  # the last model the stream named
    assert second.cost is None and second.unpriced
    assert third.cost == 0.0 and not third.unpriced
    totals = summary.totals
    assert totals.unpriced == 2 and totals.unpriced_tokens.total == 1_065 and totals.cost == 0.0


def test_a_model_named_with_a_provider_path_is_found_by_its_last_segments() -> None:
    stream = Stream("openclaw:p", "openclaw")
    stream.reply("2026-01-05T10:00:00Z", "madrid-spain/openrouter/deepseek/deepseek-chat", usage(1_000, 100))
    (response,) = session_summary(stream.records).responses
    assert response.cost_by == "genai-prices" and response.priced_as == "deepseek/deepseek-chat"
    assert response.cost == pytest.approx(library_price("deepseek-chat", "2026-01-05T10:00:00Z", 1_000, 100))


@pytest.mark.parametrize(
    ("agent", "native", "cost"),
    [
        ("openclaw", {"input": 3, "cost": {"input": 0.01, "output": 0.02, "total": 0.03}}, 0.03),
        ("cline", {"tokensIn": 3, "cost": 0.25}, 0.25),
        ("opencode", {"tokens": {"input": 3}, "cost": 0.5}, 0.5),
    ],
)
def test_the_cost_an_agent_recorded_is_used_and_marked(agent: str, native: dict, cost: float) -> None:
    stream = Stream(f"{agent}:n", agent)
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(3_000, 100), nativeUsage=native)
    (response,) = session_summary(stream.records).responses
    assert response.cost == cost and response.cost_by == "agent"
    totals = session_summary(stream.records).totals
    assert totals.agent_cost == cost and totals.priced_by_agent == 1 and totals.priced_by_us == 0


def test_a_recorded_zero_for_a_response_with_tokens_is_priced_by_us() -> None:
    """pi writes cost 0 when its model table has no price: that is no price, not a free call."""
    stream = Stream("openclaw:z", "openclaw")
    native = {"input": 3000, "output": 100, "cost": {"total": 0}}
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(3_000, 100), nativeUsage=native)
    (response,) = session_summary(stream.records).responses
    assert response.cost_by == "genai-prices"
    assert response.cost == pytest.approx(library_price("claude-sonnet-4-5", "2026-01-05T10:00:00Z", 3_000, 100))


def test_a_cost_field_of_an_agent_without_recorded_costs_is_ignored() -> None:
    stream = Stream("codex:c", "codex")
    stream.reply("2026-01-05T10:00:00Z", "gpt-5", usage(1_000, 10), nativeUsage={"cost": 99.0})
    (response,) = session_summary(stream.records).responses
    assert response.cost_by == "genai-prices" and response.cost != 99.0


def test_a_partial_running_count_is_counted_and_marked() -> None:
    stream = Stream("claude-code:p", "claude-code")
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(5_000, 12, partial=True))
    summary = session_summary(stream.records)
    assert summary.responses[0].partial and summary.totals.partial == 1 and summary.tokens.output == 12


def test_usage_that_breaks_the_definition_is_unpriced_not_mispriced() -> None:
    stream = Stream("claude-code:old", "claude-code")
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(3, 100, read=50_000))  # cache > input
    (response,) = session_summary(stream.records).responses
    assert response.cost is None and response.unpriced


def test_usage_on_a_tool_call_and_responses_without_usage() -> None:
    stream = Stream("claude-code:t", "claude-code")
    stream.reply("2026-01-05T10:00:00Z", "claude-haiku-4-5", usage(100, 10), inferenceId="req_1")
    stream.call("2026-01-05T10:00:01Z", "c1", inferenceId="req_2", usage=usage(200, 20))  # model from before
    stream.call("2026-01-05T10:00:02Z", "c2", inferenceId="req_2")  # the same response
    stream.reply("2026-01-05T10:00:03Z", "claude-haiku-4-5", None, inferenceId="req_3")  # aborted: no usage
    stream.reply("2026-01-05T10:00:04Z", "claude-haiku-4-5", None, inferenceId="req_3")
    summary = session_summary(stream.records)
    assert [(r.record, r.model, r.has_usage) for r in summary.responses] == [
        ("r2", "claude-haiku-4-5", True),
        ("r3", "claude-haiku-4-5", True),
        ("r5", "claude-haiku-4-5", False),
    ]
    assert summary.totals.without_usage == 1 and summary.tokens.total == 330


def test_tool_calls_joined_with_their_results() -> None:
    stream = Stream("codex:tools")
    stream.call("2026-01-05T10:00:00Z", "ok", "shell")
    stream.call("2026-01-05T10:00:01Z", "bad", "shell")
    stream.call("2026-01-05T10:00:02Z", "no", "write_file")
    stream.call("2026-01-05T10:00:03Z", "stop", "shell")
    stream.call("2026-01-05T10:00:04Z", "cut", "shell")
    stream.call("2026-01-05T10:00:05Z", "open", "shell")
    stream.result("2026-01-05T10:00:06Z", "ok", status="complete", exitCode=0)
    stream.result("2026-01-05T10:00:07Z", "bad", isError=True, status="error", exitCode=2)
    stream.result("2026-01-05T10:00:08Z", "no", status="com.openai.codex/denied")
    stream.result("2026-01-05T10:00:09Z", "stop", status="com.openai.codex/cancelled")
    stream.result("2026-01-05T10:00:10Z", "cut", status="interrupted")
    stream.result("2026-01-05T10:00:11Z", "lost", name="read_file", isError=True)  # its call is not in the stream
    summary = session_summary(stream.records)
    calls = {call.call_id: call for call in summary.tool_calls}
    assert {k: c.outcome for k, c in calls.items()} == {
        "ok": "ok",
        "bad": "failed",
        "no": "denied",
        "stop": "cancelled",
        "cut": "interrupted",
        "open": "no result",
        "lost": "failed",
    }
    assert calls["bad"].exit_code == 2 and calls["bad"].is_error and calls["ok"].exit_code == 0
    assert calls["ok"].result_ts == "2026-01-05T10:00:06Z" and calls["lost"].name == "read_file"
    assert summary.failed_tool_calls == 2  # denied and cancelled are not failures
    assert summary.outcomes()["denied"] == 1


def test_a_revised_call_is_one_call_and_its_latest_result_counts() -> None:
    stream = Stream("copilot-cli:rev", "copilot-cli")
    stream.call("2026-01-05T10:00:00Z", "c1", "bash")
    stream.call("2026-01-05T10:00:01Z", "c1", "bash", supersedes="r2", status="interrupted")
    stream.call("2026-01-05T10:00:02Z", None, "orphan", status="error")
    summary = session_summary(stream.records)
    assert [(c.call_id, c.outcome, c.ts) for c in summary.tool_calls] == [
        ("c1", "interrupted", "2026-01-05T10:00:00Z"),
        (None, "failed", "2026-01-05T10:00:02Z"),
    ]


def test_prompts_the_person_typed() -> None:
    stream = Stream("codex:prompts")
    stream.prompt("2026-01-05T10:00:00Z", "  Fix the parser.  ")
    stream.add(  # one Codex item: harness context and the person's words, part by part (ASR-224)
        "message", "2026-01-05T10:00:01Z", messageId="m", role="user",
        content=[
            {"type": "text", "text": "# AGENTS.md", "author": "harness", "origin": "injected"},
            {"type": "text", "text": "and the lexer", "author": "human", "origin": "prompt"},
            {"type": "text", "text": "too", "author": "human", "origin": "prompt"},
        ],
    )  # fmt: skip
    stream.add("message", "2026-01-05T10:00:02Z", messageId="q", role="user", author="human", origin="queued",
               content=[{"type": "text", "text": "queued"}])  # fmt: skip
    stream.add("message", "2026-01-05T10:00:03Z", messageId="s", role="user", author="human", origin="steer",
               content=[{"type": "text", "text": "steer"}])  # fmt: skip
    stream.add("message", "2026-01-05T10:00:04Z", messageId="c", role="user", author="human", origin="command",
               content=[{"type": "text", "text": "/compact"}])  # fmt: skip
    stream.add("message", "2026-01-05T10:00:05Z", messageId="h", role="user", author="harness", origin="command",
               content=[{"type": "text", "text": "/model output"}])  # fmt: skip
    stream.add("message", "2026-01-05T10:00:06Z", messageId="i", role="user", author="harness", origin="injected",
               content=[{"type": "text", "text": "<system-reminder>"}])  # fmt: skip
    stream.add(  # a Cline-style request: only what the person saw (ASR-207)
        "message", "2026-01-05T10:00:07Z", messageId="d", role="user", content=[],
        capture={"content": {"state": "absent"}},
        displayContent=[{"type": "text", "text": "display", "author": "human", "origin": "prompt"}],
    )  # fmt: skip
    stream.add("message", "2026-01-05T10:00:08Z", messageId="p", role="user", origin="prompt",
               content=[{"type": "text", "text": "from a chat participant"}])  # fmt: skip
    stream.add("message", "2026-01-05T10:00:09Z", messageId="a", role="user", author="agent",
               origin="inter_session", content=[{"type": "text", "text": "from another agent"}])  # fmt: skip
    summary = session_summary(stream.records)
    assert summary.prompts == 6  # prompt, the mixed item once, queued, steer, command, display
    assert summary.unattributed_prompts == 1  # the chat participant: author unknown
    assert summary.first_prompt == "Fix the parser."


def test_duration_and_active_time_with_idle_gaps_capped() -> None:
    stream = Stream("openclaw:t", "openclaw", ts="2026-01-05T12:00:00Z")  # a header written late
    stream.prompt("2026-01-05T10:00:00Z", "go")
    stream.reply("2026-01-05T10:02:00Z", None, None)  # 120 s
    stream.add("vendor", None, schema="x/y", data={})  # no time: no gap
    stream.prompt("2026-01-05T11:00:00Z", "again")  # 58 min later: counts as 10 min
    stream.reply("2026-01-05T11:00:30Z", None, None)  # 30 s; then the header at 12:00: 10 min more
    summary = session_summary(stream.records)
    assert summary.first_ts == "2026-01-05T10:00:00Z" and summary.last_ts == "2026-01-05T12:00:00Z"
    assert summary.duration_seconds == 7200
    assert summary.active_seconds == 120 + 600 + 30 + 600
    at = lambda clock: datetime.fromisoformat(f"2026-01-05T{clock}Z").timestamp()  # noqa: E731
    assert summary.activity == [(at("10:00:00"), at("10:12:00")), (at("11:00:00"), at("11:10:30")),
                                (at("12:00:00"), at("12:00:00"))]  # fmt: skip
    assert session_summary(stream.records, idle_seconds=60).active_seconds == 60 + 60 + 30 + 60


def test_records_without_time_take_the_nearest_earlier_one() -> None:
    stream = Stream("codex:nt")
    stream.reply(None, "gpt-5", usage(100, 10))  # before any time: the session's first
    stream.prompt("2026-01-05T10:00:00Z", "go")
    stream.reply(None, "gpt-5", usage(100, 10))
    stream.prompt("2026-01-05T10:05:00Z", "more")
    summary = session_summary(stream.records)
    first = datetime.fromisoformat("2026-01-05T10:00:00Z").timestamp()
    assert [r.time for r in summary.responses] == [first, first]
    assert [r.ts for r in summary.responses] == [None, None]


def test_subagents_and_parent() -> None:
    stream = Stream("claude-code:kid", "claude-code", parent="claude-code:mom")
    stream.add("subagent", "2026-01-05T10:00:00Z", callId="t1", session="claude-code:kid/agent-1",
               agentType="Explore", description="look around")  # fmt: skip
    stream.add("subagent", "2026-01-05T10:00:01Z", callId="t1", session="claude-code:kid/agent-1",
               agentType="Explore", description="look around again", supersedes="r2")  # fmt: skip
    summary = session_summary(stream.records)
    assert summary.parent == "claude-code:mom"
    assert [(s.session, s.agent_type, s.description) for s in summary.subagents] == [
        ("claude-code:kid/agent-1", "Explore", "look around again")
    ]


def test_a_stream_file_and_pydantic_models_give_the_same_summary(tmp_path: Path) -> None:
    import asr_adapters

    stream = Stream("codex:f")
    stream.prompt("2026-01-05T10:00:00Z", "go")
    stream.reply("2026-01-05T10:00:05Z", "gpt-5", usage(1_000, 100))
    path = stream.write(tmp_path / "s.asr.jsonl")
    from_file = session_summary(path).as_dict()
    from_models = session_summary(list(asr_adapters.read_models(path))).as_dict()
    assert from_file == from_models == session_summary(stream.records).as_dict()
    assert from_file["cost"] > 0 and from_file["prompts"] == 1 and from_file["responseList"][0]["costBy"]


def test_price_false_prices_nothing_but_keeps_recorded_costs() -> None:
    stream = Stream("cline:np", "cline")
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(1_000, 10), nativeUsage={"cost": 0.2})
    stream.reply("2026-01-05T10:00:01Z", "claude-sonnet-4-5", usage(1_000, 10))
    summary = session_summary(stream.records, price=False)
    assert [(r.cost, r.cost_by) for r in summary.responses] == [(0.2, "agent"), (None, None)]


def test_records_copied_from_another_session_count_nothing() -> None:
    stream = Stream("codex:fork", parent="codex:orig")
    copied = "codex:orig#messageId=m1"
    stream.prompt("2026-01-05T09:00:00Z", "old prompt", copiedFrom=copied)
    stream.reply("2026-01-05T09:00:05Z", "gpt-5", usage(1_000, 10), copiedFrom=copied)
    stream.call("2026-01-05T09:00:06Z", "old", copiedFrom=copied)
    stream.prompt("2026-01-05T10:00:00Z", "new prompt")
    stream.reply("2026-01-05T10:00:05Z", "gpt-5", usage(2_000, 20))
    summary = session_summary(stream.records)
    assert summary.copied_records == 3 and summary.records == 6
    assert summary.prompts == 1 and summary.tokens.input == 2_000 and summary.tool_calls == []
    assert summary.first_ts == "2026-01-05T10:00:00Z" and summary.active_seconds == 5


def test_a_prompt_whose_words_a_sanitizer_took_out_is_still_a_prompt() -> None:
    """A sanitized Codex prompt keeps author human and origin prompt with no parts (the marker
    is in its redacted capture reason): the person still typed one (the stats review counted 13
    of 38 on the sanitized v0.104 sample)."""
    from asr_adapters.stats import session_summary

    records = [
        {"type": "session", "seq": 1, "id": "r1", "session": "codex:s", "agent": {"name": "codex"}},
        {"type": "message", "seq": 2, "id": "r2", "ts": "2026-03-01T00:00:00Z", "messageId": "m1", "role": "user",
         "author": "human", "origin": "prompt", "content": [],
         "capture": {"content": {"state": "redacted", "reason": "replaced by a sanitizer before conversion: x"}}},
        {"type": "message", "seq": 3, "id": "r3", "ts": "2026-03-01T00:01:00Z", "messageId": "m2", "role": "user",
         "author": "human", "origin": "prompt", "content": [{"type": "text", "text": "hi"}]},
    ]  # fmt: skip
    assert session_summary(records).prompts == 2


def test_pi_records_its_own_cost_as_openclaw_does() -> None:
    """pi writes the cost its model table gives into ``usage.cost`` (the adapter keeps it in
    ``nativeUsage``), as OpenClaw does: that figure is the agent's."""
    stream = Stream("pi:c", "pi")
    native = {"input": 12, "output": 80, "cost": {"total": 0.004}}
    stream.reply("2026-06-01T11:00:08Z", "claude-sonnet-4-5", usage(9_512, 80, 9_000, 500), nativeUsage=native)
    (response,) = session_summary(stream.records).responses
    assert (response.cost, response.cost_by) == (0.004, "agent")
