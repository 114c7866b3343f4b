"""Where Qwen Code keeps chat recordings, and which files are sessions. Never used while parsing.

The global directory is ``$QWEN_HOME`` (0.2x), else ``~/.qwen``; recordings live under the
runtime base, ``$QWEN_RUNTIME_DIR`` (0.13+) or the global directory, at
``projects/<sanitized project root>/chats/<sessionId>.jsonl`` (``Storage``,
``ChatRecordingService``). Background subagents (0.15+) write
``projects/<project>/subagents/<sessionId>/agent-<agentId>.jsonl``: sessions of their own in
the same record format.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

HOME_VARIABLE = "QWEN_HOME"
RUNTIME_VARIABLE = "QWEN_RUNTIME_DIR"


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``<runtime>/projects`` for the runtime variable, ``$QWEN_HOME`` and ``~/.qwen``."""
    homes: list[Path] = []
    home = env.get("HOME") or env.get("USERPROFILE")
    for value in (env.get(RUNTIME_VARIABLE), env.get(HOME_VARIABLE)):
        if value:
            homes.append(Path(value).expanduser() / "projects")
    if home:
        homes.append(Path(home) / ".qwen" / "projects")
    return list(dict.fromkeys(homes))  # each once, in order


def is_session_file(path: Path) -> bool:
    """A ``.jsonl`` recording in a ``chats`` folder (or a subagent transcript); anywhere else
    (a loose copy given to ``asr batch``) any ``.jsonl`` the sniff gave to Qwen Code."""
    if not path.name.endswith(".jsonl"):
        return False
    parts = path.parts[:-1]
    if "projects" in parts and ".qwen" in parts:
        return path.parent.name == "chats" or "subagents" in parts
    return True


def stem(name: str) -> str:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name.split(".", 1)[0]
