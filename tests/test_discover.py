"""Discovery: every agent's home with its relocation variables, and ``discover()``."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from test_batch import build_sqlite, full_streams, register_toy, toy_file

from asr_adapters import registry
from asr_adapters.batch import agent_homes, discover
from asr_adapters.batch.homes import FALLBACK_HOMES
from asr_adapters.cli import main

AGENTS = ("codex", "claude-code", "openclaw", "gemini-cli", "t3code")
#: agents whose adapter names its own homes (no fallback in batch.homes)
OWN_HOMES = ("pi", "qwen-code", "droid")


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def relocated_env(tmp_path: Path) -> dict[str, str]:
    places = tmp_path / "elsewhere"
    return {
        "HOME": str(tmp_path / "home"),
        "CODEX_HOME": str(places / "codex"),
        "CLAUDE_CONFIG_DIR": str(places / "claude"),
        "OPENCLAW_STATE_DIR": str(places / "openclaw"),
        "GEMINI_CLI_HOME": str(places / "gemini"),
        "T3CODE_HOME": str(places / "t3"),
        "COPILOT_HOME": str(places / "copilot"),
        "PI_CODING_AGENT_DIR": str(places / "pi"),
        "QWEN_HOME": str(places / "qwen"),
        "FACTORY_HOME_OVERRIDE": str(places / "factory"),
    }


def _under(path: Path, folder: str) -> bool:
    return Path(folder) == path or Path(folder) in path.parents


#: the variable of ``relocated_env`` that each agent's homes must follow
RELOCATION_VARIABLES = {
    "codex": "CODEX_HOME",
    "claude-code": "CLAUDE_CONFIG_DIR",
    "openclaw": "OPENCLAW_STATE_DIR",
    "gemini-cli": "GEMINI_CLI_HOME",
    "t3code": "T3CODE_HOME",
    "pi": "PI_CODING_AGENT_DIR",
    "qwen-code": "QWEN_HOME",
    "droid": "FACTORY_HOME_OVERRIDE",
}


@pytest.mark.parametrize("agent", AGENTS + OWN_HOMES)
def test_homes_honour_relocation_variables(agent: str, tmp_path: Path) -> None:
    if agent not in registry.names():
        pytest.skip(f"no {agent} adapter registered yet")
    env = relocated_env(tmp_path)
    homes = [h.path for h in agent_homes(env, [agent])]
    variable = RELOCATION_VARIABLES[agent]
    assert any(_under(home, env[variable]) for home in homes), homes
    default = {"codex": ".codex", "claude-code": ".claude", "gemini-cli": ".gemini", "t3code": ".t3"}.get(agent)
    if default:
        assert not any(_under(home, str(Path(env["HOME"]) / default)) for home in homes), homes
    if agent == "openclaw":  # the older names are still looked at
        for legacy in (".clawdbot", ".moltbot", ".clawdis"):
            assert any(_under(home, str(Path(env["HOME"]) / legacy)) for home in homes), (legacy, homes)


def test_homes_default_under_home_without_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    for home in agent_homes(env):
        assert _under(home.path, env["HOME"]), home


@pytest.mark.parametrize("agent", AGENTS)
def test_fallback_homes_honour_relocation_variables(agent: str, tmp_path: Path) -> None:
    env = relocated_env(tmp_path)
    assert any(_under(p, env[RELOCATION_VARIABLES[agent]]) for p in FALLBACK_HOMES[agent](env))


def test_fallback_used_and_marked_when_an_adapter_names_no_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "codex" not in registry.names():
        pytest.skip("no codex adapter registered yet")
    adapter = registry.get("codex")
    monkeypatch.setattr(type(adapter), "default_homes", lambda self, env: [])
    env = relocated_env(tmp_path)
    homes = agent_homes(env, ["codex"])
    assert homes and all(h.fallback for h in homes)
    assert Path(env["CODEX_HOME"]) / "sessions" in [h.path for h in homes]


def toy_home(root: Path) -> Path:
    sessions = root / "sessions"
    toy_file(sessions / "p" / "one.jsonl", "one", {"say": "a"}, {"child": "kid", "says": ["x"]})
    toy_file(sessions / "p" / "two.jsonl", "two", {"say": "b"}, parent="one")
    toy_file(sessions / "p" / "one.sidecar.jsonl", "one", {"say": "not its own session"})
    (sessions / "p" / "notes.md").write_text("# not a session\n")
    return sessions


def test_discover_lists_sessions_without_converting(toy: None, tmp_path: Path) -> None:
    sessions = toy_home(tmp_path / "toyhome")
    env = {"HOME": str(tmp_path / "home"), "TOY_HOME": str(tmp_path / "toyhome")}
    found = list(discover(env=env, agents=["toy"]))
    assert [(d.agent, d.session_id, d.parent, d.path.name) for d in found] == [
        ("toy", "one", None, "one.jsonl"),
        ("toy", "two", "one", "two.jsonl"),
    ]
    one = found[0]
    stat = os.stat(sessions / "p" / "one.jsonl")
    assert one.size == stat.st_size and one.mtime == stat.st_mtime_ns / 1e9 and one.error is None
    assert one.path == sessions / "p" / "one.jsonl"
    # every stream, subagents included, when asked
    streams = [(d.session_id, d.parent) for d in discover(sessions, streams=True)]
    assert streams == [("one", None), ("kid", "one"), ("two", "one")]
    assert orjson.loads(orjson.dumps(one.as_dict()))["session_id"] == "one"


def test_discover_reports_an_unreadable_session(toy: None, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"toy-ish": 1}\n')
    bad.write_bytes(b'{"toy": "x"}\n')
    found = list(discover([bad]))
    assert found[0].session_id == "x"
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b'{"toy"\n')
    assert [d.error is not None for d in discover([broken])] == [True]


def test_discover_and_batch_commands_on_a_relocated_home(toy: None, tmp_path: Path) -> None:
    toy_home(tmp_path / "toyhome")
    env = {"HOME": str(tmp_path / "home"), "TOY_HOME": str(tmp_path / "toyhome")}
    for variable in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "OPENCLAW_STATE_DIR", "GEMINI_CLI_HOME", "T3CODE_HOME"):
        env[variable] = str(tmp_path / "nothing" / variable)
    runner = CliRunner(env=env)
    listed = runner.invoke(main, ["discover", "--json", "--agent", "toy"])
    assert listed.exit_code == 0, listed.output
    rows = [orjson.loads(line) for line in listed.stdout.splitlines()]
    assert [r["session_id"] for r in rows] == ["one", "two"]
    homes = runner.invoke(main, ["discover", "--homes", "--json"])
    assert {"agent": "toy", "path": str(tmp_path / "toyhome" / "sessions"), "exists": True, "fallback": False} in [
        orjson.loads(line) for line in homes.stdout.splitlines()
    ]
    out = tmp_path / "archive"
    converted = runner.invoke(main, ["batch", "--discover", "-o", str(out), "--json", "-q", "-j", "1"])
    assert converted.exit_code == 0, converted.output
    summary = orjson.loads(converted.stdout)
    assert summary["converted"] == 2 and summary["agents"]["toy"]["streams"] == 3
    source = tmp_path / "toyhome" / "sessions" / "p" / "one.jsonl"
    assert (out / "toy" / "one.asr.jsonl").read_bytes() == full_streams(source)["toy:one"]
    assert (out / "toy" / "one" / "kid.asr.jsonl").is_file()
    assert (out / "toy" / "one" / "two.asr.jsonl").is_file()  # a fork sits beside its parent


# -- the real adapters in relocated homes --------------------------------------------------


def _first_case(agent: str, suffix: str) -> Path | None:
    from golden_support import golden_cases

    for case in golden_cases(agent):
        if case.input.name == f"input{suffix}" and case.expected_files():
            return case.input
    return None


def plant_real_homes(env: dict[str, str]) -> dict[str, Path]:
    """One golden input per agent, put where that agent keeps sessions (relocated)."""
    planted: dict[str, Path] = {}
    layouts = {
        "codex": (".jsonl", Path(env["CODEX_HOME"]) / "sessions/2026/03/02/rollout-2026-03-02T10-00-00-demo.jsonl"),
        "claude-code": (".jsonl", Path(env["CLAUDE_CONFIG_DIR"]) / "projects/-home-dev-app/demo-session.jsonl"),
        "openclaw": (".jsonl", Path(env["OPENCLAW_STATE_DIR"]) / "agents/main/sessions/demo-session.jsonl"),
        "gemini-cli": (
            ".jsonl",
            Path(env["GEMINI_CLI_HOME"]) / ".gemini/tmp/app/chats/session-2026-03-02T10-00-demo1234.jsonl",
        ),
        "t3code": (".sql", Path(env["T3CODE_HOME"]) / "userdata/state.sqlite"),
        "copilot-cli": (".jsonl", Path(env["COPILOT_HOME"]) / "session-state/demo-session/events.jsonl"),
        "pi": (
            ".jsonl",
            Path(env["PI_CODING_AGENT_DIR"]) / "sessions/--work-demo--/2026-06-01T10-00-00-000Z_demo.jsonl",
        ),
        "qwen-code": (
            ".jsonl",
            Path(env["QWEN_HOME"]) / "projects/-work-demo/chats/3f1c2a4e-0000-4000-8000-0000000000d3.jsonl",
        ),
        "droid": (
            ".jsonl",
            Path(env["FACTORY_HOME_OVERRIDE"])
            / ".factory/sessions/-work-demo/5b1f0c2e-0000-4000-8000-0000000000d3.jsonl",
        ),
    }
    for agent, (suffix, target) in layouts.items():
        if agent not in registry.names():
            continue
        source = _first_case(agent, suffix)
        if source is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".sql":
            build_sqlite(source, target)
        else:
            target.write_bytes(source.read_bytes())
        planted[agent] = target
    golden = ROOT / "golden"
    if "openhands" in registry.names():  # a V1 conversation folder: base_state.json and events/
        conversation = Path(env["HOME"]) / ".openhands/conversations/7c1e00000000400080000000000000d3"
        shutil.copytree(golden / "openhands/v1-tools-condensation-usage/events", conversation / "events")
        shutil.copy(golden / "openhands/v1-tools-condensation-usage/input.json", conversation / "base_state.json")
        planted["openhands"] = conversation / "base_state.json"
    if "cursor" in registry.names():  # the editor's global state database (Linux app data)
        database = Path(env["HOME"]) / ".config/Cursor/User/globalStorage/state.vscdb"
        database.parent.mkdir(parents=True)
        build_sqlite(golden / "cursor/global-2025-bubbles-tools/input.sql", database)
        planted["cursor"] = database
    return planted


def test_real_adapters_discovered_in_relocated_homes(tmp_path: Path) -> None:
    env = relocated_env(tmp_path)
    planted = plant_real_homes(env)
    if not planted:
        pytest.skip("no adapter with golden cases yet")
    new_agents = {"pi", "qwen-code", "droid", "openhands", "cursor"} & set(registry.names())
    assert new_agents <= set(planted), sorted(new_agents - set(planted))
    found = {d.agent: d for d in discover(env=env)}
    for agent, path in planted.items():
        assert agent in found, f"{agent}: {path} not discovered; found {sorted(found)}"
        assert found[agent].path == path and found[agent].session_id, found[agent]
    result = CliRunner(env=env).invoke(main, ["batch", "--discover", "-o", str(tmp_path / "out"), "--json", "-q"])
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert summary["converted"] == len(planted) and set(summary["agents"]) == set(planted)


# -- docs/library.md -----------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
DOC_BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "library.md").read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("number", range(len(DOC_BLOCKS)))
def test_library_doc_examples_run(
    number: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block = DOC_BLOCKS[number]
    for needed in re.findall(r'"(golden/[^"]+)"', block):
        if not (ROOT / needed).exists():
            pytest.skip(f"{needed} is not there yet")
    monkeypatch.chdir(ROOT)
    exec(compile(block, f"docs/library.md block {number + 1}", "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out.strip()


def _t3_database(tmp_path: Path) -> tuple[Path, list[Path]]:
    from golden_support import golden_cases

    cases = [c for c in golden_cases("t3code") if len(c.expected_files()) > 1 and c.input.suffix == ".sql"]
    if not cases or "t3code" not in registry.names():
        pytest.skip("no T3 Code database with several threads among the golden cases")
    database = tmp_path / "state.sqlite"
    build_sqlite(cases[0].input, database)
    return database, sorted(cases[0].expected_files())


def _header(expected: Path) -> dict[str, object]:
    header = orjson.loads(expected.read_bytes().splitlines()[0])
    assert header["type"] == "session"
    return header


def test_discover_lists_a_database_once_with_its_session_count(tmp_path: Path) -> None:
    """Issue 32 item 6: a store of many threads is one row (its count, first start, path);
    ``streams=True`` lists each thread with its own id, start and title."""
    database, expected = _t3_database(tmp_path)
    headers = [_header(e) for e in expected]
    found = list(discover([database]))
    assert len(found) == 1, found
    store = found[0]
    assert store.sessions == len(expected) and store.path == database and store.error is None
    assert store.started == min(str(h["ts"]) for h in headers)
    threads = list(discover([database], streams=True))
    assert sorted((d.session_id, d.started, d.title) for d in threads) == sorted(
        (str(h["session"]).split(":", 1)[1], h["ts"], h.get("title")) for h in headers
    )
    assert all(d.sessions == 1 for d in threads)


def test_discover_shows_start_time_and_first_prompt(tmp_path: Path) -> None:
    """A session with no title of its own is named by the first words the person typed."""
    source = ROOT / "golden" / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
    if "codex" not in registry.names() or not source.is_file():
        pytest.skip("no codex golden case 07")
    [found] = discover([source])
    assert found.started == "2026-06-05T04:58:20.593Z"
    assert found.title == "List the crates."
    assert found.sessions == 1
    row = found.as_dict()
    assert row["started"] == found.started and row["title"] == found.title and row["sessions"] == 1


def test_discover_command_prints_start_title_and_one_row_per_store(tmp_path: Path) -> None:
    database, expected = _t3_database(tmp_path)
    codex = ROOT / "golden" / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
    (tmp_path / "rollout.jsonl").write_bytes(codex.read_bytes())
    result = CliRunner().invoke(main, ["discover", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2, lines
    by_agent = {line.split()[0]: line for line in lines}
    assert f"{len(expected)} sessions" in by_agent["t3code"] and str(database) in by_agent["t3code"]
    assert "2026-06-05T04:58:20" in by_agent["codex"] and "List the crates." in by_agent["codex"]
    threads = CliRunner().invoke(main, ["discover", "--streams", str(database)])
    titles = [str(_header(e).get("title")) for e in expected]
    assert len(threads.stdout.splitlines()) == len(expected)
    assert all(title in threads.stdout for title in titles)
