"""``asr stats`` / ``asr_adapters.stats`` over small homes built here, priced with genai-prices'
real data: every agent, priced and unpriced models, costs the agents recorded, a session across
midnight and across ``--since``, an empty home, broken files, archives, windows, filters."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from genai_prices import Usage, calc_price

import asr_adapters
from asr_adapters.cli import main
from asr_adapters.stats import report
from asr_adapters.stats.recorded import recorded_cost
from stats.homes import EVERY_AGENT, codex_rollout, home_env, plant_every_agent

MEMBERS = ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens", "reasoningTokens")
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


def gpt5(input_tokens: int, cached: int, output: int, at: datetime, model: str = "gpt-5") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        usage = Usage(input_tokens=input_tokens, cache_read_tokens=cached, output_tokens=output)
        return float(calc_price(usage, model, genai_request_timestamp=at).total_price)


def usage_sums(path: Path) -> dict[str, int]:
    """The normalized usage of every stream a native input converts to, summed (copies left out)."""
    sums = dict.fromkeys(MEMBERS, 0)
    for stream in asr_adapters.Conversion(path, as_dicts=True).streams():
        for record in stream.records:
            usage = record.get("usage")
            if isinstance(usage, dict) and "copiedFrom" not in record:
                for member in MEMBERS:
                    value = usage.get(member)
                    sums[member] += value if isinstance(value, int) else 0
    return sums


def stats_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    result = CliRunner(env=env).invoke(main, ["stats", *args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def row_tokens(row: dict[str, Any]) -> dict[str, int]:
    """A row's token members, an unknown one (null) as the 0 that summing what was recorded gives."""
    return {member: row[member] or 0 for member in MEMBERS}


def recorded_members(path: Path) -> set[str]:
    """The usage members any record of an input's streams holds (``totalTokens`` with ``inputTokens``)."""
    seen: set[str] = set()
    for stream in asr_adapters.Conversion(path, as_dicts=True).streams():
        for record in stream.records:
            usage = record.get("usage")
            if isinstance(usage, dict):
                seen.update(member for member in MEMBERS if isinstance(usage.get(member), int))
    return seen | ({"totalTokens"} if "inputTokens" in seen else set())


def test_every_agents_home_in_one_report(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    planted = plant_every_agent(env)
    assert len(planted) == len(asr_adapters.registry.names()) == len(EVERY_AGENT)
    data = stats_json(env, "--by", "agent")
    rows = {row["key"]: row for row in data["rows"]}
    assert set(rows) == set(planted)
    for agent, path in planted.items():
        assert row_tokens(rows[agent]) == usage_sums(path), agent
        unknown = {member for member in MEMBERS if rows[agent][member] is None}
        assert not unknown & recorded_members(path), (agent, unknown)  # null only where nothing recorded it
    assert data["totals"]["sessions"] == sum(row["sessions"] for row in rows.values())
    assert data["skipped"] == [] and data["priceData"].startswith("genai-prices")
    table = CliRunner(env=env).invoke(main, ["stats", "--by", "agent"])
    assert table.exit_code == 0 and all(agent in table.stdout for agent in planted)


def test_priced_and_unpriced_models(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex = Path(env["CODEX_HOME"])
    codex_rollout(
        codex, "019e2000-0000-7000-8000-000000000001", [{"at": T0, "input": 40_000, "cached": 30_000, "output": 900}]
    )
    codex_rollout(
        codex,
        "019e2000-0000-7000-8000-000000000002",
        [{"at": T0 + timedelta(hours=1), "input": 5_000, "output": 100, "model": "acme-internal-7"}],
    )
    data = stats_json(env, "--by", "model")
    rows = {row["key"]: row for row in data["rows"]}
    assert rows["gpt-5"]["cost"] == pytest.approx(gpt5(40_000, 30_000, 900, T0 + timedelta(seconds=5)), rel=1e-9)
    assert rows["gpt-5"]["pricedBy"] == "genai-prices"
    unpriced = rows["acme-internal-7"]
    assert unpriced["cost"] is None and unpriced["ourCost"] is None, "an unknown cost is null, never $0"
    assert unpriced["pricedBy"] == "unpriced" and unpriced["unpricedTokens"] == 5_100
    assert data["unpricedModels"] == {"acme-internal-7": 5_100}
    assert data["totals"]["cost"] == rows["gpt-5"]["cost"]  # never $0 added for the unknown model
    table = CliRunner(env=env).invoke(main, ["stats", "--by", "model"]).stdout
    assert "unpriced" in table and "acme-internal-7 (5.1k)" in table and "*" in table


def test_costs_the_agents_recorded_are_used_and_said_to_be_theirs(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    planted = plant_every_agent(env, ["openclaw", "cline"])
    codex_rollout(
        Path(env["CODEX_HOME"]), "019e2000-0000-7000-8000-00000000000e", [{"at": T0, "input": 900, "output": 9}]
    )
    data = stats_json(env, "--by", "agent")
    rows = {row["key"]: row for row in data["rows"]}
    for agent in ("openclaw", "cline"):
        recorded = 0.0
        for stream in asr_adapters.Conversion(planted[agent], as_dicts=True).streams():
            for record in stream.records:
                cost = recorded_cost(agent, record.get("nativeUsage"))
                recorded += cost if cost and cost > 0 else 0
        assert recorded > 0
        assert rows[agent]["agentCost"] == pytest.approx(recorded) and rows[agent]["pricedByAgent"] > 0
        assert "agent" in rows[agent]["pricedBy"]
    assert rows["codex"]["pricedBy"] == "genai-prices" and rows["codex"]["agentCost"] == 0
    table = CliRunner(env=env).invoke(main, ["stats", "--by", "agent"]).stdout
    assert "as the agents recorded it" in table and "priced with genai-prices" in table


def test_a_session_across_midnight_adds_to_both_days(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    late = datetime(2026, 1, 5, 23, 50, tzinfo=UTC)
    codex_rollout(
        Path(env["CODEX_HOME"]),
        "019e2000-0000-7000-8000-000000000003",
        [
            {"at": late, "input": 1_000, "output": 10, "exit": 0},
            {"at": late + timedelta(minutes=20), "input": 2_000, "output": 20},
        ],
    )
    data = stats_json(env, "--timezone", "UTC")
    days = {row["key"]: row for row in data["rows"]}
    assert set(days) == {"2026-01-05", "2026-01-06"}
    assert days["2026-01-05"]["inputTokens"] == 1_000 and days["2026-01-06"]["inputTokens"] == 2_000
    assert days["2026-01-05"]["sessions"] == days["2026-01-06"]["sessions"] == data["totals"]["sessions"] == 1
    assert days["2026-01-05"]["prompts"] == days["2026-01-06"]["prompts"] == 1
    assert days["2026-01-05"]["toolCalls"] == 1 and days["2026-01-06"]["toolCalls"] == 0
    assert days["2026-01-05"]["start"] == "2026-01-05T00:00:00+00:00"
    tokyo = stats_json(env, "--timezone", "Asia/Tokyo")  # 08:50 and 09:10 on the 6th there
    assert [row["key"] for row in tokyo["rows"]] == ["2026-01-06"] and tokyo["rows"][0]["inputTokens"] == 3_000
    assert tokyo["totals"]["cost"] == pytest.approx(data["totals"]["cost"])


def test_since_and_until_keep_what_happened_in_range(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex_rollout(
        Path(env["CODEX_HOME"]),
        "019e2000-0000-7000-8000-000000000004",
        [
            {"at": T0, "input": 1_000, "output": 10},
            {"at": T0 + timedelta(days=1), "input": 2_000, "output": 20},
            {"at": T0 + timedelta(days=2), "input": 4_000, "output": 40},
        ],
    )
    since = stats_json(env, "--by", "session", "--since", "2026-01-06T00:00:00+00:00")
    assert since["totals"]["inputTokens"] == 6_000 and since["totals"]["prompts"] == 2
    assert since["rows"][0]["firstActivity"].startswith("2026-01-06")
    until = stats_json(env, "--by", "session", "--until", "2026-01-06", "--timezone", "UTC")  # through the 6th
    assert until["totals"]["inputTokens"] == 3_000
    both = stats_json(env, "--since", "2026-01-06", "--until", "2026-01-06", "--timezone", "UTC")
    assert [row["key"] for row in both["rows"]] == ["2026-01-06"] and both["totals"]["inputTokens"] == 2_000
    none = stats_json(env, "--since", "2027-01-01")
    assert none["rows"] == [] and none["totals"]["sessions"] == 0


def test_relative_since_counts_from_now(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    now = datetime.now(UTC)
    codex_rollout(
        Path(env["CODEX_HOME"]),
        "019e2000-0000-7000-8000-000000000005",
        [
            {"at": now - timedelta(days=10), "input": 1_000, "output": 10},
            {"at": now - timedelta(hours=2), "input": 2_000, "output": 20},
        ],
    )
    assert stats_json(env, "--since", "7d")["totals"]["inputTokens"] == 2_000
    assert stats_json(env, "--since", "12h")["totals"]["inputTokens"] == 2_000
    assert stats_json(env, "--since", "30d")["totals"]["inputTokens"] == 3_000
    bad = CliRunner(env=env).invoke(main, ["stats", "--since", "last tuesday"])
    assert bad.exit_code == 2 and "cannot read 'last tuesday'" in bad.stderr


def test_an_empty_home(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    Path(env["CODEX_HOME"], "sessions").mkdir(parents=True)
    data = stats_json(env)
    assert data["rows"] == [] and data["inputs"] == 0 and data["totals"]["sessions"] == 0
    table = CliRunner(env=env).invoke(main, ["stats"])
    assert table.exit_code == 0 and "No sessions found" in table.stdout
    csv = CliRunner(env=env).invoke(main, ["stats", "--csv"]).stdout.splitlines()
    assert csv[0].startswith("by,key,model") and csv[1].startswith("total,total")


def test_a_broken_file_is_reported_and_skipped(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex = Path(env["CODEX_HOME"])
    good = codex_rollout(codex, "019e2000-0000-7000-8000-000000000006", [{"at": T0, "input": 1_000, "output": 10}])
    broken = good.with_name("rollout-2026-01-05T11-00-00-019e2000-0000-7000-8000-000000000007.jsonl")
    broken.write_bytes(
        b'{"timestamp":"2026-01-05T11:00:00Z","type":"session_meta","payload":{"id":"x"}}\n\x00\xff garbage\n'
    )
    torn = good.with_name("rollout-2026-01-05T12-00-00-019e2000-0000-7000-8000-000000000008.jsonl")
    text = good.read_bytes().replace(b"000000000006", b"000000000008")
    torn.write_bytes(text + b'{"timestamp": "2026-01-05T12:00:09Z", "type": "event_msg", "pay')  # cut off mid-line
    result = CliRunner(env=env).invoke(main, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["totals"]["inputTokens"] >= 2_000 and data["inputs"] == 3
    assert "asr: warning:" in result.stderr and torn.name in result.stderr
    reported = data["skipped"] + [data["warnings"]]
    assert reported  # said, never silently dropped
    asr_archive = tmp_path / "stream.asr.jsonl"
    lines = list(asr_adapters.convert(good, as_dicts=True))
    asr_archive.write_bytes(
        b"".join(orjson.dumps(r) + b"\n" for r in lines[:3])
        + b"{not json\n"
        + b"".join(orjson.dumps(r) + b"\n" for r in lines[3:])
    )
    stream = CliRunner().invoke(main, ["stats", str(asr_archive), "--json"])
    assert stream.exit_code == 0 and orjson.loads(stream.stdout)["totals"]["inputTokens"] == 1_000
    assert f"{asr_archive.name}:4: skipped, not JSON" in stream.stderr
    not_a_session = tmp_path / "notes.txt"
    not_a_session.write_text("hello\n")
    named = CliRunner().invoke(main, ["stats", str(not_a_session), str(asr_archive), "--json"])
    assert named.exit_code == 0 and "notes.txt: not a session log" in named.stderr


def test_an_archive_is_read_without_converting_again(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    planted = plant_every_agent(env)
    native = stats_json(env, "--by", "agent")
    archive = tmp_path / "archive"
    batch = CliRunner(env=env).invoke(main, ["batch", "--discover", "-o", str(archive), "-q"])
    assert batch.exit_code == 0, batch.output
    for path in planted.values():  # the archive alone must do: nothing native is left to convert
        path.unlink()
    from_archive = stats_json(env, str(archive), "--by", "agent")
    assert [row_tokens(r) for r in from_archive["rows"]] == [row_tokens(r) for r in native["rows"]]
    assert from_archive["totals"]["cost"] == pytest.approx(native["totals"]["cost"])
    assert from_archive["totals"]["sessions"] == native["totals"]["sessions"]
    assert from_archive["totals"]["toolCalls"] == native["totals"]["toolCalls"]


def test_a_subagent_counts_in_the_session_that_started_it(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    plant_every_agent(env, ["claude-code"])
    rows = stats_json(env, "--by", "session")["rows"]
    assert len(rows) == 1 and rows[0]["sessions"] == 1 and rows[0]["subagents"] == 1
    assert rows[0]["key"] == "claude-code:5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"


def test_billing_windows_and_the_live_ones_burn_rate(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex = Path(env["CODEX_HOME"])
    codex_rollout(
        codex,
        "019e2000-0000-7000-8000-000000000009",
        [
            {"at": T0 + timedelta(minutes=20), "input": 1_000, "output": 10},  # window 10:00-15:00
            {"at": T0 + timedelta(hours=4, minutes=50), "input": 2_000, "output": 20},  # still in it
            {"at": T0 + timedelta(hours=5, minutes=10), "input": 4_000, "output": 40},
        ],  # 15:00: the next
    )
    now = (T0 + timedelta(hours=6)).timestamp()
    result = report(env=env, by="block", timezone="UTC", now=now)
    assert [row.key for row in result.rows] == ["codex 2026-01-05 10:00", "codex 2026-01-05 15:00"]
    first, second = result.rows
    assert first.totals.tokens.input == 3_000 and second.totals.tokens.input == 4_000
    assert first.window == {"live": False, "burnRate": None, "projected": None}
    assert second.window is not None and second.window["live"] and second.window["burnRate"] is None  # one response
    codex_rollout(
        codex,
        "019e2000-0000-7000-8000-00000000000a",
        [{"at": T0 + timedelta(hours=5, minutes=40), "input": 8_000, "output": 80}],
    )
    result = report(env=env, by="block", timezone="UTC", now=now)
    live = result.rows[-1]
    assert live.sessions == {"codex:019e2000-0000-7000-8000-000000000009", "codex:019e2000-0000-7000-8000-00000000000a"}
    rate = live.window["burnRate"]  # type: ignore[index]
    assert rate["tokensPerMinute"] == pytest.approx((4_040 + 8_080) / 30)
    assert live.window["projected"]["remainingMinutes"] == 240  # type: ignore[index]
    assert report(env=env, by="block", timezone="UTC", now=now + 10 * 3600).rows[-1].window["live"] is False  # type: ignore[index]


def test_filters_and_breakdown(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex = Path(env["CODEX_HOME"])
    codex_rollout(
        codex, "019e2000-0000-7000-8000-00000000000b", [{"at": T0, "input": 1_000, "output": 10}], cwd="/work/api"
    )
    codex_rollout(
        codex,
        "019e2000-0000-7000-8000-00000000000c",
        [
            {"at": T0, "input": 2_000, "output": 20, "exit": 2},
            {"at": T0 + timedelta(minutes=5), "input": 3_000, "output": 30, "model": "o3"},
        ],
        cwd="/work/web",
    )
    plant_every_agent(env, ["gemini-cli"])
    assert stats_json(env, "--project", "web")["totals"]["inputTokens"] == 5_000
    assert stats_json(env, "--project", "/work/*")["totals"]["inputTokens"] == 6_000
    assert stats_json(env, "--agent", "codex", "--model", "o3")["totals"]["inputTokens"] == 3_000
    gemini = stats_json(env, "--agent", "gemini-cli")
    assert gemini["totals"]["agents"] == ["gemini-cli"]
    data = stats_json(env, "--agent", "codex", "--by", "project", "--breakdown")
    web = next(row for row in data["rows"] if row["key"] == "/work/web")
    assert [(part["model"], part["inputTokens"]) for part in sorted(web["breakdown"], key=lambda p: p["model"])] == [
        ("gpt-5", 2_000),
        ("o3", 3_000),
    ]
    csv = CliRunner(env=env).invoke(main, ["stats", "--agent", "codex", "--by", "project", "--breakdown", "--csv"])
    lines = csv.stdout.splitlines()
    assert any(line.startswith("project,/work/web,o3,") for line in lines)
    both = CliRunner(env=env).invoke(main, ["stats", "--json", "--csv"])
    assert both.exit_code == 2


def test_the_library_returns_rows_as_dataclasses_or_dicts(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    codex_rollout(
        Path(env["CODEX_HOME"]), "019e2000-0000-7000-8000-00000000000d", [{"at": T0, "input": 1_000, "output": 10}]
    )
    rows = asr_adapters.stats(env=env, by="month", timezone="UTC")
    assert [row.key for row in rows] == ["2026-01"] and rows[0].totals.tokens.input == 1_000  # type: ignore[union-attr]
    dicts = asr_adapters.stats(env=env, by="month", timezone="UTC", as_dicts=True)
    assert dicts[0]["key"] == "2026-01" and dicts[0]["inputTokens"] == 1_000  # type: ignore[index]
    weeks = asr_adapters.stats(env=env, by="week", timezone="UTC", as_dicts=True)
    assert weeks[0]["key"] == "2026-W02" and weeks[0]["start"] == "2026-01-05T00:00:00+00:00"  # type: ignore[index]
    with pytest.raises(ValueError, match="cannot group by"):
        asr_adapters.stats(env=env, by="year")


def test_a_session_read_twice_counts_once(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    rollout = codex_rollout(
        Path(env["CODEX_HOME"]), "019e2000-0000-7000-8000-00000000000f", [{"at": T0, "input": 1_000, "output": 10}]
    )
    archive = tmp_path / "archive"
    assert CliRunner(env=env).invoke(main, ["batch", "--discover", "-o", str(archive), "-q"]).exit_code == 0
    result = CliRunner(env=env).invoke(main, ["stats", str(rollout), str(archive), "--json"])
    assert result.exit_code == 0
    data = orjson.loads(result.stdout)
    assert data["totals"]["inputTokens"] == 1_000 and data["sessionStreams"] == 1
    assert "was already counted from" in result.stderr and rollout.name in result.stderr


def test_a_named_folder_of_only_subagent_transcripts_says_why_nothing_was_read(tmp_path: Path) -> None:
    """A Claude Code session's own folder (``<id>/subagents/agent-*.jsonl``) holds no session of
    its own: the report is empty, and says so with the reason instead of nothing (review finding 5)."""
    from golden_support import GOLDEN

    folder = tmp_path / "project" / "0e26ec2f-0000-4000-8000-000000000001" / "subagents"
    folder.mkdir(parents=True)
    source = next(p for p in sorted((GOLDEN / "claude-code").glob("*/input.jsonl")))
    (folder / "agent-a1b2c3d.jsonl").write_bytes(source.read_bytes())
    result = report([folder.parent], by="session", timezone="UTC", cache=False, price=False)
    assert result.rows == [] and result.inputs == 0
    assert any("no session read" in w and "parent session" in w for w in result.warnings), result.warnings
    empty = tmp_path / "empty"
    empty.mkdir()
    quiet = report([empty], by="session", timezone="UTC", cache=False, price=False)
    assert not quiet.warnings and quiet.total.active_seconds == 0
