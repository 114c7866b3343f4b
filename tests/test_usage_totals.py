"""Usage totals of the shared samples against the definition and the sources' own sums (issue 26).

The comparisons live in scripts/usage_vs_ccusage.py and scripts/usage_totals.py (run them for
the numbers); these tests run the same code and skip, saying why, where the samples or npx
(ccusage runs from the npm registry) are absent.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from golden_support import ROOT, SHARED_SAMPLES

#: every test here reads the shared samples: marked ``samples`` by tests/conftest.py
SAMPLES_MODULE = True


def _script(name: str) -> ModuleType:
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


totals = _script("usage_totals")
versus = _script("usage_vs_ccusage")
CLAUDE_SAMPLES = SHARED_SAMPLES / "claude-code"


@functools.cache
def _checked() -> list[dict[str, Any]]:
    sessions: list[dict[str, Any]] = totals.check(SHARED_SAMPLES)["sessions"]
    return sessions


def _rows(agent: str) -> list[dict[str, Any]]:
    if not SHARED_SAMPLES.is_dir():
        pytest.skip(f"{SHARED_SAMPLES} is absent (a user's clone has no shared/)")
    rows = [row for row in _checked() if row["agent"] == agent]
    if not rows:
        pytest.skip(f"{SHARED_SAMPLES / agent} holds no session sample")
    return rows


@pytest.mark.parametrize("agent", totals.AGENTS)
def test_every_sample_sums_to_usage_that_keeps_the_definition(agent: str) -> None:
    """Summed per session: inputTokens >= cacheReadTokens + cacheWriteTokens, reasoning within
    output, total = input + output; for Codex also equal to the rollout's last total."""
    rows = _rows(agent)
    assert [row for row in rows if row["problems"]] == []
    for row in rows:
        if "inputTokens" in row:
            assert row["inputTokens"] >= row.get("cacheReadTokens", 0) + row.get("cacheWriteTokens", 0)


def test_codex_sums_equal_the_rollouts_last_total_token_usage() -> None:
    rows = [row for row in _rows("codex") if "codex total_token_usage" in row]
    assert rows, "no Codex sample records a total_token_usage"
    for row in rows:
        want = row["codex total_token_usage"]
        assert {key: row.get(key, 0) for key in want} == want


def test_atif_prompt_tokens_of_claude_code_samples_are_harbors() -> None:
    """Harbor's Claude Code converter (harbor 0.25.0, ClaudeCode._build_metrics): per response,
    prompt_tokens = input_tokens + cache_read_input_tokens + cache_creation_input_tokens."""
    rows = [row for row in _rows("claude-code") if "ATIF prompt_tokens" in row]
    assert rows
    for row in rows:
        assert row["ATIF prompt_tokens"] == row["Harbor prompt_tokens"] > 0


def test_claude_code_usage_matches_ccusage() -> None:
    """Input (with the cache) equal to ccusage's input + cache-read + cache-creation; output at
    least ccusage's, every difference a response whose first line held a running count."""
    if not CLAUDE_SAMPLES.is_dir():
        pytest.skip(f"{CLAUDE_SAMPLES} is absent (a user's clone has no shared/)")
    if shutil.which("npx") is None:
        pytest.skip("npx is not on PATH: ccusage runs from the npm registry")
    try:
        result = versus.compare(CLAUDE_SAMPLES)
    except versus.Unavailable as exc:
        pytest.skip(f"ccusage cannot run here: {exc}")
    bad = [(row["session"], row["problems"]) for row in result["sessions"] if not row["ok"]]
    assert bad == []
    assert result["totals"]["inputTokens"] == result["totals"]["ccusage input+cacheRead+cacheCreation"]
    assert result["totals"]["outputTokens"] >= result["totals"]["ccusage outputTokens"]


def test_the_ccusage_home_lays_out_sessions_and_subagents_as_claude_code_does(tmp_path: Path) -> None:
    if not CLAUDE_SAMPLES.is_dir():
        pytest.skip(f"{CLAUDE_SAMPLES} is absent (a user's clone has no shared/)")
    versus.lay_out_home(CLAUDE_SAMPLES, tmp_path)
    for path in versus.session_files(CLAUDE_SAMPLES):
        assert (tmp_path / "projects" / path.stem / path.name).is_file()
        if (CLAUDE_SAMPLES / path.stem / "subagents").is_dir():
            assert list((tmp_path / "projects" / path.stem / path.stem / "subagents").glob("*.jsonl"))
