"""Where Codex keeps rollouts. Used by batch conversion only, never by parsing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``$CODEX_HOME/sessions`` and ``archived_sessions`` (``CODEX_HOME`` defaults to ``~/.codex``)."""
    base = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else Path(env.get("HOME", "~")) / ".codex"
    return [base / "sessions", base / "archived_sessions"]


def is_session_file(path: Path) -> bool:
    """Any ``.jsonl``, ``.json`` or ``.jsonl.zst`` file the content sniff gave to Codex is a
    rollout, whatever its name (exports and copies are renamed). A compressed twin of a plain
    rollout is skipped, as Codex itself prefers the plain file."""
    name = path.name
    if name.endswith(".jsonl.zst"):
        return not path.with_name(name[: -len(".zst")]).exists()
    return name.endswith((".jsonl", ".json"))
