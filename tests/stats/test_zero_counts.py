"""One rule for responses whose counts are zero or missing, for every agent (docs/stats.md,
"Responses and tokens"): usage recorded as zeros is a response with zero tokens; a model
response recorded with no usage the adapter could take is a response with unknown usage,
counted apart (``responsesWithoutUsage``), never as zero tokens or $0."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_support import GOLDEN, SHARED_SAMPLES

import asr_adapters
from asr_adapters.stats import report, session_summary
from stats.streams import Stream, usage

ZEROS = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"total": 0}}


def test_zero_usage_is_a_response_with_zero_tokens() -> None:
    stream = Stream("qwen-code:z", "qwen-code")
    stream.reply("2026-01-05T10:00:00Z", "qwen3-coder-plus", usage(0, 0))
    (response,) = session_summary(stream.records).responses
    assert response.has_usage and not response.tokens and response.cost == 0.0


@pytest.mark.parametrize("agent", ["openclaw", "pi", "gemini-cli", "copilot-cli"])
def test_a_model_reply_without_a_usable_count_is_a_response_of_unknown_usage(agent: str) -> None:
    stream = Stream(f"{agent}:u", agent)
    stream.reply("2026-01-05T10:00:00Z", "deepseek-chat", usage(1_000, 10))
    stream.reply("2026-01-05T10:00:05Z", "deepseek-chat", None, nativeUsage=ZEROS)  # the adapter took no count
    stream.add("message", "2026-01-05T10:00:06Z", messageId="h", role="assistant", author="harness",
               origin="injected", content=[], model="delivery-mirror", nativeUsage=ZEROS)  # fmt: skip
    summary = session_summary(stream.records)
    totals = summary.totals
    assert totals.responses == 2 and totals.without_usage == 1  # the harness's synthetic reply is none
    unknown = summary.responses[1]
    assert not unknown.has_usage and unknown.cost is None and not unknown.unpriced
    assert totals.tokens.total == 1_010 and totals.unpriced == 0


def test_a_response_with_unknown_usage_counts_once_by_its_id() -> None:
    stream = Stream("copilot-cli:i", "copilot-cli")
    stream.call("2026-01-05T10:00:00Z", "c1", inferenceId="api-1", nativeUsage={"model": "x"})  # no count here
    stream.reply("2026-01-05T10:00:01Z", "gpt-5", usage(0, 40), inferenceId="api-1")  # the count, later
    stream.call("2026-01-05T10:00:02Z", "c2", inferenceId="api-2", nativeUsage={"model": "x"})  # never counted
    summary = session_summary(stream.records)
    assert [(r.has_usage, r.tokens.output) for r in summary.responses] == [(True, 40), (False, 0)]


def test_the_golden_zero_replies_are_counted() -> None:
    """OpenClaw's all-zero deepseek reply (pi's object when the provider reported nothing) and
    Gemini CLI's reply with output and zero tokens: each a response of unknown usage."""
    for case, expected in (("openclaw/usage-normalized", 1), ("gemini-cli/json-messages", 1)):
        (path,) = (GOLDEN / case).glob("expected*.asr.jsonl")
        summary = session_summary(list(asr_adapters.read_records(path)), price=False)
        assert summary.totals.without_usage == expected, case


def test_the_gemini_sample_zero_token_reply_is_a_response(tmp_path: Path) -> None:
    sample = SHARED_SAMPLES / "gemini-cli" / "yoavf-ai-sessions_gemini-cli-pomodoro-timer.json"
    if not sample.is_file():
        pytest.skip(f"no shared sample {sample} (set ASR_SAMPLES)")
    result = report([sample], by="session", price=False)
    assert result.total.totals.responses == 14 and result.total.totals.without_usage == 1
    from asr_adapters.stats.render import notes

    assert any("Recorded without usage: 1 response" in line for line in notes(result))


def test_a_row_whose_every_response_has_unknown_usage_has_an_unknown_cost(tmp_path: Path) -> None:
    """Cursor keeps only ``tokenCount`` (``nativeUsage``), OpenHands V1 without
    ``base_state.json`` usage none: such a row's cost is unknown (``pricedBy: unknown``, `?` in
    the table), not "nothing to price" (`-`), which a row of zero-token responses is."""
    import io

    from asr_adapters.stats.render import table

    unknown = Stream("cursor:u", "cursor", ts="2025-05-22T07:46:40Z")
    unknown.prompt("2025-05-22T07:46:41Z", "go")
    unknown.reply("2025-05-22T07:46:50Z", None, None, nativeUsage={"inputTokens": 14033, "outputTokens": 61})
    zeros = Stream("qwen-code:z", "qwen-code", ts="2025-05-22T07:46:40Z")
    zeros.reply("2025-05-22T07:46:50Z", "qwen3-coder-plus", usage(0, 0))
    paths = [unknown.write(tmp_path / "u.asr.jsonl"), zeros.write(tmp_path / "z.asr.jsonl")]
    result = report(paths, by="session", timezone="UTC", cache=False, price=False)
    by_key = {row.key: row for row in result.rows}
    assert by_key["cursor:u"].priced_by == "unknown" and by_key["qwen-code:z"].priced_by == "-"
    unknown_row, zero_row = (by_key[key].as_dict(result.tz) for key in ("cursor:u", "qwen-code:z"))
    assert unknown_row["cost"] is None and unknown_row["agentCost"] is None, "an unknown cost is null, never 0"
    assert zero_row["cost"] == 0.0, "nothing to price costs $0"
    out = io.StringIO()
    table(result, out, color=False, width=200)
    line = next(text for text in out.getvalue().splitlines() if text.startswith("cursor:u"))
    assert " ? " in line and " - " not in line


def test_block_rows_say_what_falls_in_no_window(tmp_path: Path) -> None:
    """A billing window opens on a timed response; an untimed session (OpenHands' zoneless
    events) falls in none, so the notes say what the Total holds beyond the rows (review finding 6)."""
    from asr_adapters.stats.render import notes

    timed = Stream("codex:t", "codex", ts="2026-05-22T07:46:40Z")
    timed.prompt("2026-05-22T07:46:41Z", "go")
    timed.reply("2026-05-22T07:46:50Z", "gpt-5", usage(100, 10))
    untimed = Stream("openhands:u", "openhands")
    untimed.prompt(None, "hi")
    untimed.reply(None, "gpt-5", usage(50, 5))
    untimed.call(None, "c1")
    paths = [timed.write(tmp_path / "t.asr.jsonl"), untimed.write(tmp_path / "u.asr.jsonl")]
    result = report(paths, by="block", timezone="UTC", cache=False, price=False)
    assert sum(row.totals.responses for row in result.rows) == 1 and result.total.totals.responses == 2
    said = [line for line in notes(result) if line.startswith("Not in any window")]
    assert said == [
        "Not in any window: 1 response, 1 tool call, 1 prompt (no time recorded, or a session with no response"
        " to open a window), so the rows add up to less than the Total."
    ]
    by_day = report(paths, by="day", timezone="UTC", cache=False, price=False)
    assert not [line for line in notes(by_day) if line.startswith("Not in any window")]


def test_a_session_with_no_time_has_an_unknown_active_time(tmp_path: Path) -> None:
    """OpenHands events carry zoneless local times, so no record has a ``ts``: the session's
    active time is unknown (null, ``?``), not 0 (review finding 8)."""
    import io

    from asr_adapters.stats.render import table

    untimed = Stream("openhands:u", "openhands")
    untimed.prompt(None, "hi")
    untimed.reply(None, "gpt-5", usage(50, 5))
    timed = Stream("codex:t", "codex", ts="2026-05-22T07:46:40Z")
    timed.prompt("2026-05-22T07:46:41Z", "go")
    paths = [untimed.write(tmp_path / "u.asr.jsonl"), timed.write(tmp_path / "t.asr.jsonl")]
    result = report(paths, by="session", timezone="UTC", cache=False, price=False)
    rows = {row.key: row.as_dict(result.tz) for row in result.rows}
    assert rows["openhands:u"]["activeSeconds"] is None and rows["openhands:u"]["firstActivity"] is None
    assert rows["codex:t"]["activeSeconds"] is not None
    out = io.StringIO()
    table(result, out, color=False, width=200)
    line = next(text for text in out.getvalue().splitlines() if text.startswith("openhands:u"))
    assert line.rstrip().endswith("?") and "0m" not in line


def test_tool_calls_with_no_response_recorded_have_an_unknown_cost(tmp_path: Path) -> None:
    """T3 Code and Factory Droid record the model's tool calls but no response usage: the row's
    cost is unknown (null, ``?``), not "nothing to price" ($0), which a row with neither is
    (review finding 8)."""
    worked = Stream("droid:w", "droid", ts="2026-05-22T07:46:40Z")
    worked.prompt("2026-05-22T07:46:41Z", "go")
    worked.call("2026-05-22T07:46:45Z", "c1")
    idle = Stream("droid:i", "droid", ts="2026-05-22T07:46:40Z")
    idle.prompt("2026-05-22T07:46:41Z", "hello?")
    paths = [worked.write(tmp_path / "w.asr.jsonl"), idle.write(tmp_path / "i.asr.jsonl")]
    result = report(paths, by="session", timezone="UTC", cache=False, price=False)
    rows = {row.key: row.as_dict(result.tz) for row in result.rows}
    assert rows["droid:w"]["cost"] is None and rows["droid:w"]["pricedBy"] == "unknown"
    assert rows["droid:i"]["cost"] == 0.0 and rows["droid:i"]["pricedBy"] == "-"
    priced = Stream("codex:p", "codex", ts="2026-05-22T07:46:40Z")
    priced.reply("2026-05-22T07:46:50Z", "gpt-5", usage(100, 10))
    paths.append(priced.write(tmp_path / "p.asr.jsonl"))
    result = report(paths, by="agent", timezone="UTC", cache=False, price=True, breakdown=True)
    by_agent = {row.key: row.as_dict(result.tz) for row in result.rows}
    (line,) = by_agent["droid"]["breakdown"]
    assert line["cost"] is None and line["pricedBy"] == "unknown", "a model line says what its row says"
    total = result.total.as_dict(result.tz)
    assert total["cost"] == by_agent["codex"]["cost"] > 0 and total["costLowerBound"] is True
    assert by_agent["codex"]["costLowerBound"] is False
    from asr_adapters.stats.render import notes

    assert any(text.startswith("Tool calls but no response recorded: 1 session") for text in notes(result))


def test_a_slash_command_title_reads_as_the_person_typed_it(tmp_path: Path) -> None:
    """Claude Code wraps a typed slash command in ``<command-name>``/``<command-args>`` markup;
    the session's title is the command as typed (review finding 9), any other prompt unchanged."""
    command = Stream("claude-code:c", "claude-code", ts="2026-05-22T07:46:40Z")
    command.prompt(
        "2026-05-22T07:46:41Z",
        "<command-name>/handgemacht:create-beads</command-name>\n<command-args>websearch first</command-args>",
    )
    plain = Stream("claude-code:p", "claude-code", ts="2026-05-22T07:46:40Z")
    plain.prompt("2026-05-22T07:46:41Z", "fix the tests\nthen push")
    paths = [command.write(tmp_path / "c.asr.jsonl"), plain.write(tmp_path / "p.asr.jsonl")]
    result = report(paths, by="session", timezone="UTC", cache=False, price=False)
    titles = {row.key: row.title for row in result.rows}
    assert titles == {
        "claude-code:c": "/handgemacht:create-beads websearch first",
        "claude-code:p": "fix the tests\nthen push",
    }
