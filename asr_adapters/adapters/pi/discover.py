"""Where pi keeps sessions, and which files there are sessions. Never used while parsing.

The agent directory is ``$PI_CODING_AGENT_DIR`` (a leading ``~`` expanded), else
``~/.pi/agent`` (``config.ts`` ``getAgentDir``); sessions are in ``<agentDir>/sessions/``,
one folder per working directory named ``--<cwd with / \\ : as ->--``, each file
``<ISO time with : and . as ->_<sessionId>.jsonl``. The session folder alone can be moved:
``$PI_CODING_AGENT_SESSION_DIR`` (0.71+) or the ``sessionDir`` setting of
``<agentDir>/settings.json`` (0.63+), and there the files lie flat, with no per-cwd folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import orjson

from ...core.companion import CompanionSkipped, read_companion

AGENT_DIR_VARIABLE = "PI_CODING_AGENT_DIR"
SESSION_DIR_VARIABLE = "PI_CODING_AGENT_SESSION_DIR"
#: ``<ISO timestamp, ':' and '.' as '-'>_<session id>.jsonl`` (``SessionManager.newSession``)
FILE_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d+)?Z_(?P<id>[^/\\]+)\.jsonl\Z")


def _expand(value: str, home: str | None) -> Path:
    if home and (value == "~" or value.startswith(("~/", "~\\"))):
        return Path(home) / value[2:]
    return Path(value).expanduser()


def agent_dir(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME") or env.get("USERPROFILE")
    value = env.get(AGENT_DIR_VARIABLE)
    if value:
        return _expand(value, home)
    return Path(home) / ".pi" / "agent" if home else None


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``<agentDir>/sessions``, and a relocated session folder (the variable, else the
    ``sessionDir`` of the global ``settings.json``) when one is set."""
    homes: list[Path] = []
    home = env.get("HOME") or env.get("USERPROFILE")
    moved = env.get(SESSION_DIR_VARIABLE)
    if moved:
        homes.append(_expand(moved, home))
    base = agent_dir(env)
    if base is not None:
        setting = _session_dir_setting(base / "settings.json")
        if setting is not None and not moved:
            homes.append(_expand(setting, home))
        homes.append(base / "sessions")
    return list(dict.fromkeys(homes))  # each once, in order


def _session_dir_setting(path: Path) -> str | None:
    """The ``sessionDir`` of pi's settings file, read through ``core.companion`` (a regular file
    of bounded size; a FIFO or a huge file is skipped, as a broken one is)."""
    try:
        data = read_companion(path, None)
        settings = orjson.loads(data) if data is not None else None
    except (OSError, CompanionSkipped, orjson.JSONDecodeError):
        return None
    value = settings.get("sessionDir") if isinstance(settings, dict) else None
    return value if isinstance(value, str) and value else None


def is_session_file(path: Path) -> bool:
    """A ``.jsonl`` file: pi writes nothing else into its session folders (``/export`` to
    ``.jsonl`` writes the same format, so a loose export is a session too)."""
    return path.name.endswith(".jsonl")


def is_pi_path(path: Path | None, name: str) -> bool:
    """Whether the file's name or folder is pi's own: the ``<time>_<id>.jsonl`` name, or a
    ``--<cwd>--`` folder of pi's session directory."""
    if FILE_NAME.match(name):
        return True
    if path is None:
        return False
    folder = path.parent.name
    return len(folder) >= 4 and folder.startswith("--") and folder.endswith("--")
