"""``asr stats`` over a home holding every agent's shared samples (the golden input for an agent
the samples have no session of): one table of all eight agents, each agent's token totals the
sums of normalized usage in the streams ``asr batch`` converts that home to. Skips, saying why,
without the samples."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from golden_support import SHARED_SAMPLES

import asr_adapters
from asr_adapters.cli import main
from stats.homes import home_env, plant_shared_samples
from stats.test_report import MEMBERS, row_tokens

#: every test here reads the shared samples: marked ``samples`` by tests/conftest.py
SAMPLES_MODULE = True


def test_one_table_of_every_agent_with_the_streams_usage_sums(tmp_path: Path) -> None:
    if not SHARED_SAMPLES.is_dir():
        pytest.skip(f"no shared samples at {SHARED_SAMPLES} (set ASR_SAMPLES)")
    env = home_env(tmp_path / "machine")
    planted = plant_shared_samples(env, SHARED_SAMPLES)
    result = CliRunner(env=env).invoke(main, ["stats", "--by", "agent", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in orjson.loads(result.stdout)["rows"]}
    assert set(rows) == set(asr_adapters.registry.names()) == set(planted)

    archive = tmp_path / "archive"
    batch = CliRunner(env=env).invoke(main, ["batch", "--discover", "-o", str(archive), "-q"])
    assert batch.exit_code in (0, 1), batch.output  # 1: a sample that is not a session is listed as failed
    expected: dict[str, dict[str, int]] = {}
    for stream in sorted(archive.rglob("*.asr.jsonl")):
        records = list(asr_adapters.read_records(stream))
        sums = expected.setdefault(records[0]["agent"]["name"], dict.fromkeys(MEMBERS, 0))
        for record in records:
            usage = record.get("usage")
            if isinstance(usage, dict) and "copiedFrom" not in record:
                for member in MEMBERS:
                    sums[member] += usage.get(member, 0)
    for agent, row in rows.items():
        assert row_tokens(row) == expected.get(agent, dict.fromkeys(MEMBERS, 0)), agent
    from_archive = CliRunner(env=env).invoke(main, ["stats", str(archive), "--by", "agent", "--json"])
    assert [row_tokens(r) for r in orjson.loads(from_archive.stdout)["rows"]] == [row_tokens(r) for r in rows.values()]
    table = CliRunner(env=env).invoke(main, ["stats", "--by", "agent"])
    assert table.exit_code == 0 and all(agent in table.stdout for agent in planted)
