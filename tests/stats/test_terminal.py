"""On a terminal (a real pseudo-terminal here), a long run shows a progress bar on stderr; with
--json, or when stderr is not a terminal, it never does."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from stats.homes import codex_rollout, home_env
from stats.test_report import T0


def _home(tmp_path: Path) -> dict[str, str]:
    env = home_env(tmp_path)
    for number in range(60):  # more than the 50 inputs a bar waits for
        session = f"019e5000-0000-7000-8000-{number:012x}"
        codex_rollout(Path(env["CODEX_HOME"]), session, [{"at": T0, "input": 100, "output": 1}])
    return env


def _on_a_terminal(env: dict[str, str], *args: str) -> str:
    if not hasattr(os, "openpty"):
        pytest.skip("no pseudo-terminals on this platform")
    leader, follower = os.openpty()
    command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", "stats", "--jobs", "1", *args]
    child = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env={**os.environ, **env})
    os.close(follower)
    output = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    child.wait(timeout=120)
    os.close(leader)
    assert child.returncode == 0, output.decode(errors="replace")
    return output.decode(errors="replace")


def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    env = _home(tmp_path)
    shown = _on_a_terminal(env, "--no-cache")
    assert "reading sessions" in shown and "Total" in shown
    assert "reading sessions" not in _on_a_terminal(env, "--json", "--no-cache")
    piped = CliRunner(env=env).invoke(main, ["stats", "--no-cache"])
    assert piped.exit_code == 0 and "reading sessions" not in piped.stderr
