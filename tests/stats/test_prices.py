"""``Prices`` gives what genai-prices' own ``calc_price`` gives, on its real bundled data: every
kind of price table (flat, tiered by input size, changed on a date, off-peak by time of day)."""

from __future__ import annotations

import random
import warnings
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from genai_prices import Usage, calc_price
from genai_prices import data_snapshot as snapshots
from genai_prices.types import StartDateConstraint, TieredPrices, TimeOfDateConstraint

from asr_adapters.stats.prices import Prices, Tokens


def reference(model: str, tokens: Tokens, when: datetime) -> Decimal:
    usage = Usage(
        input_tokens=tokens.input,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=tokens.cache_write,
        output_tokens=tokens.output,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calc_price(usage, model, genai_request_timestamp=when).total_price


def _kinds() -> dict[str, list[str]]:
    """Models of the bundled data by the kind of price table they have."""
    kinds: dict[str, list[str]] = {"tiered": [], "dated": [], "off-peak": []}
    for provider in snapshots.get_snapshot().providers:
        for model in provider.models:
            tables = [c.prices for c in model.prices] if isinstance(model.prices, list) else [model.prices]
            if any(isinstance(v, TieredPrices) for table in tables for v in vars(table).values()):
                kinds["tiered"].append(model.id)
            if isinstance(model.prices, list):
                constraints = [c.constraint for c in model.prices]
                if any(isinstance(c, StartDateConstraint) for c in constraints):
                    kinds["dated"].append(model.id)
                if any(isinstance(c, TimeOfDateConstraint) for c in constraints):
                    kinds["off-peak"].append(model.id)
    return kinds


def test_the_data_has_every_kind_of_table() -> None:
    kinds = _kinds()
    assert "claude-sonnet-4-5" in kinds["tiered"]
    assert "claude-opus-4-6" in kinds["dated"]
    assert "deepseek-chat" in kinds["off-peak"]


MODELS = [
    "claude-sonnet-4-5",  # tiered over 200k input tokens
    "claude-opus-4-6",  # tiered, and changed on a date
    "claude-haiku-4-5-20251001",
    "gemini-2.5-pro",  # tiered
    "gpt-5",
    "gpt-4o",
    "o3",
    "deepseek-chat",  # off-peak prices by time of day
    "glm-5",
]


@pytest.mark.parametrize("model", MODELS)
def test_prices_equal_calc_price(model: str) -> None:
    prices = Prices()
    rnd = random.Random(model)
    for _ in range(120):
        inp = rnd.choice(
            [rnd.randint(0, 2_000), rnd.randint(0, 400_000), rnd.choice([128_000, 128_001, 200_000, 200_001])]
        )
        read = rnd.randint(0, inp)
        write = rnd.randint(0, inp - read)
        output = rnd.randint(0, 40_000)
        tokens = Tokens(inp, read, write, output, rnd.randint(0, output))
        when = datetime(
            rnd.choice([2025, 2026]),
            rnd.randint(1, 12),
            rnd.randint(1, 28),
            rnd.randint(0, 23),
            rnd.randint(0, 59),
            tzinfo=UTC,
        )
        got = prices.price(model, tokens, when.timestamp())
        assert got is not None
        expected = reference(model, tokens, when)
        assert abs(Decimal(got.usd) - expected) <= Decimal("1e-12") * max(Decimal(1), expected), (tokens, when)


def test_the_date_and_the_time_of_day_decide_the_table() -> None:
    prices = Prices()
    tokens = Tokens(100_000, 50_000, 0, 5_000)
    before, after = datetime(2026, 3, 12, 12, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC)
    old = prices.price("claude-opus-4-6", tokens, before.timestamp())
    new = prices.price("claude-opus-4-6", tokens, after.timestamp())
    assert old is not None and new is not None
    assert old.usd == pytest.approx(float(reference("claude-opus-4-6", tokens, before)), rel=1e-12)
    assert new.usd == pytest.approx(float(reference("claude-opus-4-6", tokens, after)), rel=1e-12)
    day = [
        prices.price("deepseek-chat", tokens, datetime(2026, 1, 5, hour, 30, tzinfo=UTC).timestamp())
        for hour in range(24)
    ]
    assert len({p.usd for p in day if p is not None}) == 2  # peak and off-peak
    for hour, price in enumerate(day):
        moment = datetime(2026, 1, 5, hour, 30, tzinfo=UTC)
        assert price is not None
        assert price.usd == pytest.approx(float(reference("deepseek-chat", tokens, moment)), rel=1e-12)


def test_unknown_models_and_broken_counts_have_no_price() -> None:
    prices = Prices()
    assert prices.price("acme-private-model-9", Tokens(10, 0, 0, 1), None) is None
    assert prices.price("<synthetic>", Tokens(10, 0, 0, 1), None) is None
    assert prices.price("gpt-5", Tokens(10, 20, 0, 1), None) is None  # cache read above input
    assert prices.price("gpt-5", Tokens(10, 0, 0, 1, reasoning=5), None) is None  # reasoning above output
    assert "genai-prices" in prices.data_version and "bundled" in prices.data_version


def test_an_updated_snapshot_replaces_every_cached_answer() -> None:
    """``genai_prices.UpdatePrices`` installs a new snapshot: prices follow it at once."""
    prices = Prices()
    tokens = Tokens(1_000_000, 0, 0, 0)
    when = datetime(2026, 1, 5, tzinfo=UTC).timestamp()
    before = prices.price("gpt-5", tokens, when)
    bundled = snapshots.get_snapshot()
    cheaper = snapshots.DataSnapshot(
        providers=[p for p in bundled.providers if p.id != "openai"], from_auto_update=True
    )
    snapshots.set_custom_snapshot(cheaper)
    try:
        after = prices.price("gpt-5", tokens, when)
        assert "updated" in prices.data_version
    finally:
        snapshots.set_custom_snapshot(None)
    assert before is not None and before.provider == "openai"
    assert after is None or after.provider != "openai"
    again = prices.price("gpt-5", tokens, when)
    assert again is not None and again.usd == before.usd


def test_one_hour_cache_writes_are_priced_at_their_own_rate() -> None:
    """Anthropic's one-hour cache writes cost more than five-minute ones (Sonnet 4: $6 against
    $3.75 a million); Claude Code records the split in ``cache_creation`` (the stats review found
    every 1h write priced at the 5-minute rate, 9% under on the shared samples)."""
    from asr_adapters.stats import session_summary

    when = datetime(2026, 3, 1, tzinfo=UTC)
    usage = Usage(input_tokens=1_100_000, cache_write_tokens=1_000_000, cache_write_1h_tokens=600_000, output_tokens=10)
    expected = float(calc_price(usage, model_ref="claude-sonnet-4-0", genai_request_timestamp=when).total_price)
    tokens = Tokens(input=1_100_000, cache_write=1_000_000, output=10, cache_write_1h=600_000)
    price = Prices().price("claude-sonnet-4-0", tokens, when.timestamp())
    assert price is not None and price.usd == pytest.approx(expected, rel=1e-12)
    five_minutes = Prices().price("claude-sonnet-4-0", Tokens(1_100_000, 0, 1_000_000, 10), when.timestamp())
    assert five_minutes is not None and five_minutes.usd < price.usd
    split = {"ephemeral_5m_input_tokens": 400_000, "ephemeral_1h_input_tokens": 600_000}
    native = {"input_tokens": 100_000, "cache_creation_input_tokens": 1_000_000, "output_tokens": 10}
    native["cache_creation"] = split
    records = [
        {"type": "session", "seq": 1, "id": "r1", "session": "claude-code:s", "agent": {"name": "claude-code"}},
        {"type": "message", "seq": 2, "id": "r2", "ts": "2026-03-01T00:00:00Z", "messageId": "m", "role": "assistant",
         "author": "model", "model": "claude-sonnet-4-0", "content": [],
         "usage": {"inputTokens": 1_100_000, "cacheWriteTokens": 1_000_000, "outputTokens": 10,
                   "totalTokens": 1_100_010},
         "nativeUsage": native},
    ]  # fmt: skip
    assert session_summary(records).cost == pytest.approx(expected, rel=1e-12)
