"""Where every agent keeps its sessions, honouring the relocation variables.

Each adapter answers for its own agent (``Adapter.default_homes(env)`` in its
``discover.py``). When an adapter answers nothing (not written yet, or an older one), the
fallbacks below, taken from the research notes, are used instead and marked as such.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import registry


@dataclass(frozen=True)
class Home:
    """A folder where ``agent`` keeps sessions; ``fallback`` when our default, not the adapter's."""

    agent: str
    path: Path
    fallback: bool = False

    @property
    def exists(self) -> bool:
        return self.path.is_dir()


def user_home(env: Mapping[str, str]) -> Path:
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else Path.home()


def _dir(env: Mapping[str, str], variable: str, default: str) -> Path:
    value = env.get(variable, "").strip()
    return Path(value).expanduser() if value else user_home(env) / default


def _codex(env: Mapping[str, str]) -> list[Path]:
    home = _dir(env, "CODEX_HOME", ".codex")
    return [home / "sessions", home / "archived_sessions"]


def _claude_code(env: Mapping[str, str]) -> list[Path]:
    return [_dir(env, "CLAUDE_CONFIG_DIR", ".claude") / "projects"]


def _openclaw(env: Mapping[str, str]) -> list[Path]:
    states = [_dir(env, "OPENCLAW_STATE_DIR", ".openclaw")]
    states += [user_home(env) / name for name in (".clawdbot", ".moltbot", ".clawdis")]
    return [state / sub for state in states for sub in ("agents", "sessions")]


def _gemini_cli(env: Mapping[str, str]) -> list[Path]:
    base = env.get("GEMINI_CLI_HOME", "").strip()
    root = Path(base).expanduser() if base else user_home(env)
    return [root / ".gemini" / "tmp"]


def _t3code(env: Mapping[str, str]) -> list[Path]:
    home = _dir(env, "T3CODE_HOME", ".t3")
    homes = [home / "userdata", home / "dev"]
    state = env.get("T3CODE_STATE_DIR", "").strip()
    if state:
        homes.insert(0, Path(state).expanduser())
    return homes


FALLBACK_HOMES: dict[str, Callable[[Mapping[str, str]], list[Path]]] = {
    "codex": _codex,
    "claude-code": _claude_code,
    "openclaw": _openclaw,
    "gemini-cli": _gemini_cli,
    "t3code": _t3code,
}


def agent_homes(env: Mapping[str, str] | None = None, agents: list[str] | None = None) -> list[Home]:
    """Every agent's session folders (existing or not), the adapter's answer first."""
    env = os.environ if env is None else env
    homes: list[Home] = []
    seen: set[Path] = set()
    for adapter in registry.all_adapters():
        if agents and adapter.name not in agents:
            continue
        paths = [Path(p) for p in adapter.default_homes(env)]
        fallback = False
        if not paths and adapter.name in FALLBACK_HOMES:
            paths = FALLBACK_HOMES[adapter.name](env)
            fallback = True
        for path in paths:
            key = Path(os.path.abspath(path))
            if key in seen:
                continue
            seen.add(key)
            homes.append(Home(adapter.name, key, fallback))
    return homes
