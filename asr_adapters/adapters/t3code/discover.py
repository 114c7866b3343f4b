"""Where T3 Code keeps its database (used by batch discovery, never by parsing)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``$T3CODE_STATE_DIR`` (older builds), else ``$T3CODE_HOME`` or ``~/.t3``: its
    ``userdata`` folder and the dev builds' ``dev`` folder."""
    homes: list[Path] = []
    state_dir = env.get("T3CODE_STATE_DIR")
    if state_dir:
        homes.append(Path(state_dir).expanduser())
    base = env.get("T3CODE_HOME")
    root = Path(base).expanduser() if base else Path(env.get("HOME", "~")).expanduser() / ".t3"
    homes += [root / "userdata", root / "dev"]
    return homes


def is_session_file(path: Path) -> bool:
    """Only the database itself; its ``-wal``/``-shm`` files are read through it."""
    return path.name == "state.sqlite"


def companion_files(path: Path) -> list[Path]:
    """The write-ahead log (committed rows live there until T3 Code checkpoints it, so a change
    to it is a change to the database) and the files of the ``attachments`` folder beside it
    (their size and hash go into the image parts)."""
    wal = path.with_name(path.name + "-wal")
    files = [wal] if wal.exists() else []
    attachments = path.parent / "attachments"
    if attachments.is_dir():
        files += sorted(p for p in attachments.iterdir() if not p.name.startswith("."))
    return files
