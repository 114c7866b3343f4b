"""The sessions table's token and cost totals are the stats summary's (docs/index.md, Token and
cost totals): the index and ``asr stats`` give one answer for a session."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from asr_adapters.stats import session_summary

COLUMNS = "path, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,"
COLUMNS += " total_tokens, cost_usd, unpriced_responses"


def _check(index: Path, archive: Path) -> int:
    priced = 0
    with sqlite3.connect(index) as conn:
        rows = conn.execute(f"SELECT {COLUMNS} FROM sessions WHERE error IS NULL").fetchall()
    assert rows
    for path, inp, out, cache_r, cache_w, reasoning, total, cost, unpriced in rows:
        totals = session_summary(archive / path).totals
        tokens = totals.tokens
        assert (inp, out, cache_r, cache_w, reasoning) == (
            tokens.input,
            tokens.output,
            tokens.cache_read,
            tokens.cache_write,
            tokens.reasoning,
        ), path
        assert total == inp + out and unpriced == totals.unpriced, path
        if totals.priced_by_agent + totals.priced_by_us:
            assert cost is not None and math.isclose(cost, totals.cost, rel_tol=1e-9), path
            priced += cost > 0
        elif tokens:
            assert cost is None, f"{path}: nothing was priced, so the cost is unknown, not 0"
    return priced


def test_golden_sessions_carry_the_stats_totals(golden_index: Path, golden_archive: Path) -> None:
    assert _check(golden_index, golden_archive) > 0, "some golden session has a priced response"


def test_shared_sample_sessions_carry_the_stats_totals(samples_index: Path, samples_archive: Path) -> None:
    priced = _check(samples_index, samples_archive)
    if not priced:
        pytest.fail("no shared sample was priced: the price data did not load")
