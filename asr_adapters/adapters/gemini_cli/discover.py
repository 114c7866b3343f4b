"""Where Gemini CLI keeps chat recordings, and which files are sessions of their own.

Used by batch conversion only, never by parsing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...core.refs import session_ref

# ``GEMINI_CLI_HOME`` replaces the home folder Gemini CLI puts ``.gemini/`` in
HOME_VARIABLE = "GEMINI_CLI_HOME"


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``<home>/.gemini/tmp``: one folder per project, chat files under ``chats/``."""
    home = env.get(HOME_VARIABLE) or env.get("HOME") or env.get("USERPROFILE")
    return [Path(home) / ".gemini" / "tmp"] if home else []


def stem(name: str) -> str:
    """A file name without its ``.json``/``.jsonl`` suffix (the fallback session id)."""
    for suffix in (".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def parent_from_path(path: Path | None) -> str | None:
    """A v0.37+ subagent file sits in ``chats/<parentSessionId>/``: the parent's reference."""
    if path is None or path.parent.parent.name != "chats":
        return None
    return session_ref("gemini-cli", path.parent.name)


def is_session_file(path: Path) -> bool:
    """Whether a file the sniff gave to this adapter is a session of its own.

    Batch conversion asks only about files whose content already looks like a Gemini CLI
    recording, so any name is accepted (copies, exports); left out are files under the
    CLI's ``logs/``, ``checkpoints/`` and ``tool-outputs/`` folders, and the older of two
    files of one session. Resuming a ``.json`` session makes Gemini CLI write
    ``<same name>.jsonl`` holding the whole conversation and leave the ``.json`` behind,
    so ``X.json`` beside ``X.jsonl`` is the older copy. Other ``session-*`` files of one
    main session in one folder (same 8-character name suffix, same sessionId) are
    de-duplicated as Gemini's own session list does it (``siblings.py``). Subagent files
    in ``chats/<parentSessionId>/`` are sessions of their own.
    """
    name = path.name
    if not name.endswith((".json", ".jsonl")):
        return False
    if path.parent.name in _NOT_CHATS or path.parent.parent.name in _NOT_CHATS:
        return False
    if name.endswith(".json") and path.with_name(name + "l").exists():
        return False
    if path.parent.parent.name == "chats" or not name.startswith("session-"):
        return True
    from .siblings import newest_of_session

    return newest_of_session(path)


#: Folders of a project's temp dir that hold other files than chat recordings
_NOT_CHATS = frozenset({"logs", "checkpoints", "tool-outputs"})
