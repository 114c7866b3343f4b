"""A response whose usage records no input count (Copilot CLI keeps only each response's
output on disk) has unknown input, not 0, and a cost of its output alone is a lower bound,
never presented as the full cost (review finding 2)."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
from click.testing import CliRunner
from golden_support import ROOT

from asr_adapters.cli import main
from asr_adapters.stats import report, session_summary
from asr_adapters.stats.render import table
from stats.streams import Stream

GOLDEN = ROOT / "golden" / "copilot-cli" / "subagent-agentid-reasoning-hooks" / "input.jsonl"


def test_output_only_usage_is_a_lower_bound() -> None:
    stream = Stream("copilot-cli:s1", "copilot-cli", ts="2026-05-26T16:14:00Z")
    stream.prompt("2026-05-26T16:14:01Z", "go")
    stream.reply("2026-05-26T16:14:05Z", "claude-sonnet-4.5", {"outputTokens": 200})
    stream.reply("2026-05-26T16:14:09Z", "claude-sonnet-4.5", {"inputTokens": 0, "outputTokens": 0})  # zeros: a count
    summary = session_summary(stream.records)
    first, second = summary.responses
    assert (first.input_known, first.lower_bound) == (False, True)
    assert first.cost is not None and first.cost > 0  # the output's price, ...
    assert first.as_dict()["usage"]["inputTokens"] is None  # ... its input unknown, never 0
    assert (second.input_known, second.lower_bound, second.cost) == (True, False, 0.0)
    totals = summary.as_dict(details=False)
    assert (totals["responsesWithoutInput"], totals["costLowerBound"]) == (1, True)


def test_the_copilot_golden_session_cost_is_flagged_as_a_lower_bound(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["stats", str(GOLDEN), "--by", "session", "--json", "--no-cache"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    (row,) = data["rows"]
    assert row["outputTokens"] == 747  # nothing but output recorded per response:
    assert row["inputTokens"] is None, "an unknown input is null, never 0"
    assert row["totalTokens"] == 747 and row["costLowerBound"] is True  # what is known: a lower bound
    assert row["responsesWithoutInput"] == row["responses"] - row["responsesWithoutUsage"] > 0
    assert row["costLowerBound"] is True and data["totals"]["costLowerBound"] is True
    out = io.StringIO()
    table(report([GOLDEN], by="session", timezone="UTC", cache=False), out, color=False, width=200)
    text = out.getvalue()
    assert "≥$" in text and "lower bound" in text


def test_the_viewer_index_shows_the_copilot_cost_as_a_lower_bound() -> None:
    from asr_adapters.convert import Conversion
    from asr_adapters.view.site import COLUMNS, summary_cells

    parent = next(iter(Conversion(GOLDEN, None, as_dicts=True).streams()))
    cells = dict(zip([name for name, _ in COLUMNS], summary_cells(session_summary(parent.records)), strict=True))
    cost, note = cells["cost"]
    assert cost.startswith("≥$") and "lower bound" in note
    assert cells["input tokens"][0] == "?"  # input: unknown, not 0


def test_an_openhands_usage_without_its_ambiguous_input_is_a_lower_bound() -> None:
    """OpenHands leaves ``inputTokens`` out where ``prompt_tokens`` may or may not hold the
    cache writes (docs/agents/openhands.md): the cache parts count, the input is unknown."""
    case = ROOT / "golden" / "openhands" / "v1-tools-condensation-usage" / "expected.asr.jsonl"
    summary = session_summary(case)
    unknown = [r for r in summary.responses if not r.input_known]
    assert unknown and all(r.tokens.cache_read or r.tokens.cache_write for r in unknown)
    assert summary.totals.lower_bound and summary.totals.without_input == len(unknown)


def test_cache_parts_without_an_input_count_are_priced_as_a_lower_bound() -> None:
    """Cache parts recorded with no input count (OpenHands) are priced at the least input they
    imply (input = the cache parts, nothing uncached): a known model is never reported as
    having "no known price" because its input is unknown."""
    stream = Stream("openhands:s1", "openhands", ts="2026-01-20T10:00:00Z")
    stream.prompt("2026-01-20T10:00:01Z", "go")
    stream.reply(
        "2026-01-20T10:00:05Z",
        "claude-sonnet-4-5",
        {"cacheReadTokens": 1000, "cacheWriteTokens": 500, "outputTokens": 100},
    )
    summary = session_summary(stream.records)
    (response,) = summary.responses
    assert (response.input_known, response.lower_bound) == (False, True)
    assert response.cost is not None and response.cost > 0
    assert response.cost_by == "genai-prices"
    assert (summary.totals.unpriced, summary.totals.priced_by_us) == (0, 1)
    assert not summary.totals.unpriced_tokens
    assert response.as_dict()["usage"]["inputTokens"] is None  # still unknown, never the cache sum
