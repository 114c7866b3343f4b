"""``asr stats --json`` and ``--csv`` carry every figure the table and the notes under it show:
OpenClaw's prompts of unknown author (``unattributedPrompts``), a row's first and last
activity, a billing window's state, in every row and in the total."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import orjson
from click.testing import CliRunner

from asr_adapters.cli import main
from stats.homes import home_env, plant_every_agent

#: JSON row members that are not one CSV column: the per-model lines (CSV lines of their own)
#: and the window object (its members flattened into columns).
_NOT_COLUMNS = {"breakdown", "window"}


def _run(env: dict[str, str], *args: str) -> str:
    result = CliRunner(env=env).invoke(main, ["stats", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_unattributed_prompts_in_json_csv_and_the_notes(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    plant_every_agent(env, ["openclaw", "codex"])
    data = orjson.loads(_run(env, "--by", "agent", "--json"))
    rows = {row["key"]: row for row in data["rows"]}
    assert rows["openclaw"]["unattributedPrompts"] == 2 and rows["openclaw"]["prompts"] == 0
    assert rows["codex"]["unattributedPrompts"] == 0
    assert data["totals"]["unattributedPrompts"] == 2
    lines = list(csv.DictReader(io.StringIO(_run(env, "--by", "agent", "--csv"))))
    assert {line["key"]: line["unattributedPrompts"] for line in lines} == {"openclaw": "2", "codex": "0", "total": "2"}
    assert "2 prompts by a chat participant of unknown kind" in _run(env, "--by", "agent")
    by_model = orjson.loads(_run(env, "--by", "model", "--json"))
    assert all(row["unattributedPrompts"] is None for row in by_model["rows"])  # no one model's


def test_every_json_member_is_a_csv_column(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    plant_every_agent(env, ["openclaw", "codex", "claude-code"])
    for by in ("session", "day", "block"):
        data = orjson.loads(_run(env, "--by", by, "--json"))
        table = list(csv.DictReader(io.StringIO(_run(env, "--by", by, "--csv"))))
        columns = set(table[0])
        for row in [*data["rows"], data["totals"]]:
            assert set(row) - _NOT_COLUMNS <= columns, (by, set(row) - _NOT_COLUMNS - columns)
        for json_row, csv_row in zip(data["rows"], table, strict=False):
            assert csv_row["firstActivity"] == json_row["firstActivity"]
            assert csv_row["unattributedPrompts"] == str(json_row["unattributedPrompts"])
            if by == "block":
                assert csv_row["windowLive"] == str(json_row["window"]["live"])
