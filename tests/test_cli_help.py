"""Help, exit statuses, agent names, `asr agents --json`, `asr discover` with nothing to list."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters import registry
from asr_adapters.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_bare_asr_prints_help_on_stdout_and_exits_0() -> None:
    code, out, err = run()
    assert (code, err) == (0, "")
    assert out.startswith("Usage:") and "convert" in out and "validate" in out


@pytest.mark.parametrize("command", ["convert", "validate", "batch", "discover", "agents", "schema"])
def test_every_command_lists_its_exit_status(command: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0 and "Exit status" in out and "2" in out.split("Exit status", 1)[1]


def test_convert_help_lists_agents_codes_and_stdin() -> None:
    out = " ".join(run("convert", "--help")[1].split())
    for name in registry.names():
        assert name in out
    for code in ("0 ", "1 ", "2 ", "3 ", "130 ", "141 "):
        assert code in out
    assert "PATH - reads stdin" in out


def test_agents_json() -> None:
    code, out, _ = run("agents", "--json")
    rows = [orjson.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["name"] for r in rows] == registry.names()
    assert all(r["registryName"] and "description" in r for r in rows)


def test_discover_says_when_it_finds_nothing(tmp_path: Path) -> None:
    code, out, err = run("discover", str(tmp_path))
    assert (code, out) == (0, "") and f"no sessions found under {tmp_path}" in err
    code, _, err = run("discover", "--agent", "nope", str(tmp_path))
    assert code == 2 and "'nope' is not one of" in err


def test_readme_documents_completion_and_exit_statuses() -> None:
    assert "_ASR_COMPLETE=bash_source asr" in README and "_ASR_COMPLETE=zsh_source asr" in README
    assert "141" in README and "Exit status" in README
