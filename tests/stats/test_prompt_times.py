"""A prompt is placed when the person typed it, where the records keep that time apart from
the record's ``ts`` (review finding 3): a Cline user message takes its request's time, the
person's own ui row keeps its ``ts`` under ``displayRows``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from golden_support import SHARED_SAMPLES

from asr_adapters.stats import report, session_summary
from stats.streams import Stream, usage

TYPED = datetime.fromisoformat("2026-02-08T19:02:52.307Z").timestamp()
SENT = "2026-02-08T19:03:09.904Z"  # the api request's time, 17.6 s later


def _cline_task() -> Stream:
    task = Stream("cline:1770577372307", "cline", ts=SENT, cwd="/work/app")
    task.prompt(SENT, "add a test", displayRows=[{"ts": int(TYPED * 1000), "type": "say", "say": "task"}])
    task.reply("2026-02-08T19:03:25.498Z", "claude-opus-4-6", usage(1_000, 10))
    return task


def test_a_cline_prompt_is_placed_at_the_persons_row(tmp_path: Path) -> None:
    task = _cline_task()
    assert session_summary(task.records, price=False).prompt_times == [TYPED]
    total = report([task.write(tmp_path / "task.asr.jsonl")], by="session", timezone="UTC").total
    assert total.prompts == 1
    assert total.first == TYPED  # the person was active from then: active time counts it
    assert total.active_seconds == datetime.fromisoformat("2026-02-08T19:03:25.498Z").timestamp() - TYPED


def test_other_agents_prompts_keep_their_record_time() -> None:
    task = _cline_task()
    task.records[0]["agent"] = {"name": "codex"}  # displayRows is Cline's member: no one else's
    assert session_summary(task.records, price=False).prompt_times == [datetime.fromisoformat(SENT).timestamp()]


def test_the_cline_sample_prompts_are_the_persons_row_times() -> None:
    sample = SHARED_SAMPLES / "cline" / "cline-2026-02-ui_messages-opus-4-6-reasoning-task-progress-checkpoints.json"
    if not sample.is_file():
        pytest.skip(f"no shared sample {sample} (set ASR_SAMPLES)")
    result = report([sample], by="session", timezone="UTC", price=False)
    (row,) = result.rows
    assert row.first == TYPED  # say:task at 19:02:52.307, not its request at 19:03:09.904
    from asr_adapters.convert import Conversion

    (stream,) = list(Conversion(sample, None, as_dicts=True).streams())
    summary = session_summary(stream.records, price=False)
    assert summary.prompt_times[:3] == [1770577372.307, 1770577513.78, 1770578632.893]
