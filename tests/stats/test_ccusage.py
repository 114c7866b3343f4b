"""``asr stats --by session --json`` next to ``npx ccusage@18 session --json --offline`` on the
shared Claude Code samples laid out as a Claude home (scripts/compare_ccusage.py): the same
input (all of it), cache-read and cache-creation totals, output at least ccusage's, and the
same price for the same tokens. Skips, saying why, without npx or the samples."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from golden_support import SHARED_SAMPLES

from asr_adapters.stats.prices import Prices, Tokens

#: the tests here compare the shared Claude Code samples: marked ``samples`` by tests/conftest.py
SAMPLES_MODULE = True

ROOT = Path(__file__).resolve().parents[2]


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("compare_ccusage", ROOT / "scripts" / "compare_ccusage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare_ccusage"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compared() -> dict[str, Any]:
    samples = SHARED_SAMPLES / "claude-code"
    if not samples.is_dir():
        pytest.skip(f"no shared Claude Code samples at {samples} (set ASR_SAMPLES)")
    if shutil.which("npx") is None:
        pytest.skip("npx is not installed: ccusage cannot run")
    script = _script()
    try:
        return script.compare(samples)
    except script.Missing as exc:
        pytest.skip(str(exc))


def test_token_totals_agree_with_ccusage(compared: dict[str, Any]) -> None:
    total = compared["total"]
    ours, theirs = total["ours"], total["ccusage"]
    assert ours["cacheRead"] == theirs["cacheRead"]
    assert ours["cacheWrite"] == theirs["cacheWrite"]
    assert ours["output"] >= theirs["output"]  # ccusage takes a streamed response's first count
    if ours["input"] < ours["cacheRead"] + ours["cacheWrite"]:
        pytest.skip(
            "the Claude Code adapter's inputTokens does not include the cache yet (the one usage"
            " definition of issue 26 is not on this branch): input cannot be compared"
        )
    assert ours["input"] == total["ccusageAllInput"]
    assert compared["verdict"] == []


def test_every_sample_is_in_both(compared: dict[str, Any]) -> None:
    for sample in compared["samples"]:
        assert sample["ours"]["cacheRead"] == sample["ccusage"]["cacheRead"], sample["name"]
        assert sample["ours"]["cacheWrite"] == sample["ccusage"]["cacheWrite"], sample["name"]


def test_the_same_tokens_get_ccusages_price() -> None:
    """The issue's figure: ccusage prices the Haiku 4.5 session at $0.03324225; genai-prices gives
    the same for the same tokens (ccusage's own counts: uncached input 132, cache read 223,265,
    cache creation 8,467, output 40)."""
    tokens = Tokens(132 + 223_265 + 8_467, 223_265, 8_467, 40)
    price = Prices().price("claude-haiku-4-5-20251001", tokens, datetime(2026, 1, 2, 19, 20, tzinfo=UTC).timestamp())
    assert price is not None and price.usd == pytest.approx(0.03324225, abs=1e-12)


def test_ccusage_reports_that_sessions_price(compared: dict[str, Any]) -> None:
    sample = next(s for s in compared["samples"] if s["name"].startswith("cc-2.0.76-thinking"))
    assert sample["ccusage"]["cost"] == pytest.approx(0.03324225, abs=1e-9)
