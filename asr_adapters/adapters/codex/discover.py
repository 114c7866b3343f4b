"""Where Codex keeps rollouts. Used by batch conversion only, never by parsing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``$CODEX_HOME/sessions`` and ``archived_sessions`` (``CODEX_HOME`` defaults to ``~/.codex``)."""
    base = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else Path(env.get("HOME", "~")) / ".codex"
    return [base / "sessions", base / "archived_sessions"]


def is_session_file(path: Path) -> bool:
    """Rollouts are ``rollout-*.jsonl`` (``.jsonl.zst`` since 2026-06, ``.json`` for the TS
    CLI). A compressed twin is skipped where the plain file exists, as Codex itself does."""
    name = path.name
    if not name.startswith("rollout-"):
        return False
    if name.endswith(".jsonl.zst"):
        return not path.with_name(name[: -len(".zst")]).exists()
    return name.endswith((".jsonl", ".json"))
