"""Active time is the union of activity intervals (docs/stats.md, "Active time"): a session's
subagents working while their parent does add nothing on top of it, in session rows, time rows,
billing windows and the total; sessions running at the same time count their overlap once."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from golden_support import SHARED_SAMPLES

from asr_adapters.stats import report
from asr_adapters.stats.activity import clip, covered, intervals_of, union
from stats.streams import Stream, usage


def at(clock: str, day: str = "2026-01-05") -> float:
    return datetime.fromisoformat(f"{day}T{clock}Z").timestamp()


def iso(clock: str, day: str = "2026-01-05") -> str:
    return f"{day}T{clock}Z"


def test_intervals_union_and_clip() -> None:
    assert intervals_of([at("10:00:00"), at("10:01:00"), at("11:00:00")], 600) == [
        (at("10:00:00"), at("10:11:00")),  # 60 s, then a gap of 59 min counting 10 min
        (at("11:00:00"), at("11:00:00")),  # the last record alone: no time, but in range
    ]
    assert union([(0, 10), (5, 20), (30, 40), (20, 25)]) == [(0, 25), (30, 40)]
    assert covered([(0, 10), (5, 20), (0, 20)]) == 20
    assert clip([(0, 10), (10, 10), (20, 30)], 5, 25) == [(5, 10), (10, 10), (20, 25)]
    assert clip([(0, 5), (5, 5)], 5, None) == [(5, 5)]  # what ended at the bound is not in range


def _family(folder: Path) -> None:
    """A parent and a subagent it names, both active from 10:01:30 to 10:04:00 (the parent
    from 10:00 to 10:05, the subagent until 10:08), and a separate session at the same time."""
    parent = Stream("claude-code:mom", "claude-code", ts=iso("10:00:00"), cwd="/work/app")
    parent.prompt(iso("10:00:00"), "go")
    parent.reply(iso("10:01:00"), "claude-sonnet-4-5", usage(1_000, 10))
    parent.add("subagent", iso("10:01:00"), callId="t1", session="claude-code:mom/agent-1")
    parent.reply(iso("10:05:00"), "claude-sonnet-4-5", usage(1_000, 10))
    parent.write(folder / "mom.asr.jsonl")
    child = Stream("claude-code:mom/agent-1", "claude-code", ts=iso("10:01:30"), parent="claude-code:mom")
    child.reply(iso("10:03:00"), "claude-haiku-4-5", usage(500, 5))
    child.reply(iso("10:04:00"), "claude-haiku-4-5", usage(500, 5))
    child.reply(iso("10:08:00"), "claude-haiku-4-5", usage(500, 5))
    child.write(folder / "kid.asr.jsonl")
    other = Stream("codex:other", "codex", ts=iso("10:02:00"), cwd="/work/web")
    other.prompt(iso("10:02:00"), "elsewhere")
    other.reply(iso("10:12:00"), "gpt-5", usage(100, 1))  # 10 min, 6 of them while mom ran
    other.write(folder / "other.asr.jsonl")


def test_a_subagent_working_beside_its_parent_counts_once(tmp_path: Path) -> None:
    _family(tmp_path)
    sessions = {row.key: row for row in report([tmp_path], by="session", timezone="UTC").rows}
    assert set(sessions) == {"claude-code:mom", "codex:other"}
    mom = sessions["claude-code:mom"]
    assert mom.subagents == {"claude-code:mom/agent-1"}
    assert mom.active_seconds == 8 * 60  # 10:00 to 10:08; the parts summed were 5 + 6.5 min
    assert sessions["codex:other"].active_seconds == 10 * 60
    whole = report([tmp_path], by="day", timezone="UTC")
    (day,) = whole.rows
    assert day.active_seconds == whole.total.active_seconds == 12 * 60  # 10:00 to 10:12, once
    agents = {row.key: row.active_seconds for row in report([tmp_path], by="agent").rows}
    assert agents == {"claude-code": 8 * 60, "codex": 10 * 60}
    (window_cc, window_codex) = sorted(report([tmp_path], by="block", now=at("23:00:00")).rows, key=lambda r: r.key)
    assert (window_cc.active_seconds, window_codex.active_seconds) == (8 * 60, 10 * 60)
    since = report([tmp_path], by="session", since=at("10:04:00"), timezone="UTC")
    assert {row.key: row.active_seconds for row in since.rows} == {"claude-code:mom": 4 * 60, "codex:other": 8 * 60}


def test_active_time_across_midnight_is_cut_at_the_day(tmp_path: Path) -> None:
    late = Stream("codex:late", "codex", ts=iso("23:55:00"))
    late.prompt(iso("23:55:00"), "go")
    late.reply(iso("00:03:00", "2026-01-06"), "gpt-5", usage(100, 1))
    late.write(tmp_path / "late.asr.jsonl")
    days = {row.key: row.active_seconds for row in report([tmp_path], by="day", timezone="UTC").rows}
    assert days == {"2026-01-05": 5 * 60, "2026-01-06": 3 * 60}


def test_the_claude_code_agent_team_sample_counts_its_overlap_once(tmp_path: Path) -> None:
    """The shared 2.1.114 agent-team session: six subagents, three of them working at once.
    Summed per stream its streams were active 5,833 s; their union is 3,172 s."""
    sample = SHARED_SAMPLES / "claude-code" / "cc-2.1.114-agent-team-taskcreate-attachments-redacted-thinking.jsonl"
    if not sample.is_file():
        pytest.skip(f"no shared sample {sample} (set ASR_SAMPLES)")
    result = report([sample], by="session", timezone="UTC", price=False)
    (row,) = result.rows
    assert row.key == "claude-code:ef958aa1-0e93-49f0-bb71-150f63befcd1" and len(row.subagents) == 6
    assert row.active_seconds == pytest.approx(3171.772, abs=0.01)
    by_day = report([sample], by="day", timezone="UTC", price=False)
    assert sum(r.active_seconds or 0 for r in by_day.rows) == pytest.approx(3171.772, abs=0.01)
    by_block = report([sample], by="block", timezone="UTC", price=False, now=0)
    assert sum(r.active_seconds or 0 for r in by_block.rows) == pytest.approx(3171.772, abs=0.01)
