"""Where GitHub Copilot CLI keeps session event logs. Used by batch conversion only.

Current CLIs keep ``$COPILOT_HOME/session-state/<sessionId>/events.jsonl`` (``COPILOT_HOME``
defaults to ``~/.copilot``, ``%USERPROFILE%\\.copilot`` on Windows); older ones wrote the same
events to a flat ``session-state/<sessionId>.jsonl``. Builds before the ``COPILOT_HOME``
change kept state under ``$XDG_STATE_HOME/.copilot`` or ``$XDG_CONFIG_HOME/.copilot`` and
migrate it on start-up; those folders are listed too so an unmigrated machine is found.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

EVENTS_FILE = "events.jsonl"
STATE_DIR = "session-state"


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``<home>/session-state`` for ``COPILOT_HOME``, ``~/.copilot`` (``HOME`` or
    ``USERPROFILE``) and the legacy XDG folders; existing or not (the caller checks)."""
    bases: list[Path] = []
    copilot_home = env.get("COPILOT_HOME", "").strip()
    if copilot_home:
        bases.append(Path(copilot_home).expanduser())
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        bases.append(Path(home) / ".copilot")
    for variable in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        value = env.get(variable, "").strip()
        if value:
            bases.append(Path(value).expanduser() / ".copilot")
    homes: list[Path] = []
    for base in bases:
        if base / STATE_DIR not in homes:
            homes.append(base / STATE_DIR)
    return homes


def is_session_file(path: Path) -> bool:
    """``<id>/events.jsonl`` and the flat ``<id>.jsonl`` are sessions; other files of a
    session folder (``workspace.yaml``, ``plan.md``, ``checkpoints/``) are not."""
    if path.name == EVENTS_FILE:
        return True
    return path.name.endswith(".jsonl") and "checkpoints" not in path.parts[-3:-1]


def session_id(path: Path | None) -> str | None:
    """The session id the layout names: the folder of ``events.jsonl``, or the stem of a
    flat ``<id>.jsonl`` under ``session-state``."""
    if path is None:
        return None
    if path.name == EVENTS_FILE and path.parent.name:
        return path.parent.name
    if path.suffix == ".jsonl" and path.parent.name == STATE_DIR:
        return path.stem
    return None
