"""The stats cache: a second run reads only what changed (an input, or a file read with it),
gives the same report, and a cache that cannot be used is said and read around."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner

from asr_adapters.cli import main
from stats.homes import codex_rollout, home_env, plant_every_agent
from stats.test_report import T0


def run(env: dict[str, str], *args: str) -> tuple[dict[str, Any], str]:
    result = CliRunner(env=env).invoke(main, ["stats", "--json", *args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout), result.stderr


def without_cache_count(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "fromCache"}


def test_a_second_run_reads_only_what_changed(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    planted = plant_every_agent(env)
    codex = Path(env["CODEX_HOME"])
    turns = [{"at": T0, "input": 1_000, "output": 10}]
    growing = codex_rollout(codex, "019e4000-0000-7000-8000-000000000001", turns)
    first, _ = run(env, "--by", "session")
    assert first["fromCache"] == 0 and Path(env["XDG_CACHE_HOME"], "asr-adapters", "stats.sqlite").is_file()
    second, _ = run(env, "--by", "session")
    assert second["fromCache"] == first["inputs"] == len(planted) + 1
    assert without_cache_count(second) == without_cache_count(first)

    turns.append({"at": T0 + timedelta(minutes=5), "input": 2_000, "output": 20})
    codex_rollout(codex, "019e4000-0000-7000-8000-000000000001", turns)  # the session grew
    subagent = next(planted["claude-code"].with_suffix("").rglob("agent-*.jsonl"))
    subagent.write_bytes(subagent.read_bytes() + b"\n")  # a file read with its session changed
    third, _ = run(env, "--by", "session")
    assert third["fromCache"] == first["inputs"] - 2
    assert third["totals"]["inputTokens"] == first["totals"]["inputTokens"] + 2_000
    fresh, _ = run(env, "--by", "session", "--no-cache")
    assert fresh["fromCache"] == 0 and without_cache_count(fresh) == without_cache_count(third)
    assert growing.exists()


def test_settings_that_change_the_numbers_read_again(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex_rollout(
        Path(env["CODEX_HOME"]), "019e4000-0000-7000-8000-000000000002", [{"at": T0, "input": 1_000, "output": 10}]
    )
    run(env)
    assert run(env, "--idle", "1m")[0]["fromCache"] == 0
    assert run(env, "--no-cost")[0]["fromCache"] == 0
    assert run(env, "--by", "model", "--since", "2026-01-01")[0]["fromCache"] == 1  # filters work on summaries


def test_a_broken_cache_is_said_and_read_around(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex_rollout(
        Path(env["CODEX_HOME"]), "019e4000-0000-7000-8000-000000000003", [{"at": T0, "input": 1_000, "output": 10}]
    )
    cache = Path(env["XDG_CACHE_HOME"], "asr-adapters", "stats.sqlite")
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"not a database at all" * 100)
    data, stderr = run(env)
    assert data["totals"]["inputTokens"] == 1_000 and data["fromCache"] == 0
    assert "the stats cache is not used" in stderr


def test_what_a_file_is_is_remembered_but_whether_it_is_a_session_is_asked_again(tmp_path: Path) -> None:
    """The content sniff is cached by size and mtime; the claiming agent's "is this a session of
    its own" is asked every run, as it depends on the files beside it (a Cline api history is the
    task's entry only while no timeline sits beside it)."""
    import shutil

    from golden_support import GOLDEN

    env = home_env(tmp_path)
    task = Path(env["XDG_CONFIG_HOME"]) / "Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1760000000001"
    task.mkdir(parents=True)
    case = GOLDEN / "cline" / "native-tools-task-folder"
    shutil.copy(case / "api_conversation_history.json", task / "api_conversation_history.json")
    alone, _ = run(env)
    assert alone["inputs"] == 1 and alone["fromCache"] == 0
    shutil.copy(case / "input.json", task / "ui_messages.json")  # the timeline appears beside it
    both, _ = run(env)
    assert both["inputs"] == 1 and both["fromCache"] == 0  # the timeline is the entry now, read fresh
    fresh, _ = run(env, "--no-cache")
    assert without_cache_count(fresh) == without_cache_count(both)


def test_a_cache_name_taken_by_a_link_or_a_fifo_is_not_opened(tmp_path: Path) -> None:
    """SQLite would write through a link (or block on a FIFO): the run goes on without the cache,
    says so, and leaves what the name points to alone."""
    env = home_env(tmp_path)
    codex_rollout(
        Path(env["CODEX_HOME"]), "019e4000-0000-7000-8000-000000000003", [{"at": T0, "input": 1_000, "output": 10}]
    )
    folder = Path(env["XDG_CACHE_HOME"], "asr-adapters")
    folder.mkdir(parents=True)
    precious = tmp_path / "precious"
    precious.write_bytes(b"precious")
    (folder / "stats.sqlite").symlink_to(precious)
    data, err = run(env)
    assert data["totals"]["inputTokens"] == 1_000 and "stats cache is not used" in err
    assert precious.read_bytes() == b"precious" and (folder / "stats.sqlite").is_symlink()
    (folder / "stats.sqlite").unlink()
    os.mkfifo(folder / "stats.sqlite")
    data, err = run(env)
    assert data["totals"]["inputTokens"] == 1_000 and "stats cache is not used" in err
