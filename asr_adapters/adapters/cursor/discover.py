"""Where Cursor keeps its databases (used by batch discovery, never by parsing).

Cursor is a VS Code fork and keeps VS Code's user-data layout under the folder ``Cursor``:
``<app data>/Cursor/User/globalStorage/state.vscdb`` (the 2025+ conversations) and
``<app data>/Cursor/User/workspaceStorage/<hash>/state.vscdb`` (per workspace). ``<app data>``
is Electron's: ``%APPDATA%`` on Windows, ``~/Library/Application Support`` on macOS,
``$XDG_CONFIG_HOME`` else ``~/.config`` on Linux (the same folders Cline's discovery lists for
VS Code and its forks, imported from there).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..cline.discover import user_data_dirs

DB_NAME = "state.vscdb"


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``Cursor/User/globalStorage`` and ``Cursor/User/workspaceStorage`` under each app-data folder."""
    homes: list[Path] = []
    for base in user_data_dirs(env):
        user = base / "Cursor" / "User"
        for folder in (user / "globalStorage", user / "workspaceStorage"):
            if folder not in homes:
                homes.append(folder)
    return homes


def is_session_file(path: Path) -> bool:
    """Only the database itself (not ``state.vscdb.backup``, nor its ``-wal``/``-shm``)."""
    return path.name == DB_NAME


def companion_files(path: Path) -> list[Path]:
    """The write-ahead log (committed rows live there until the editor checkpoints it) and, for
    a workspace database, the ``workspace.json`` beside it (the headers' ``cwd``)."""
    files = [path.with_name(path.name + "-wal")]
    if path.parent.parent.name == "workspaceStorage":
        files.append(path.parent / "workspace.json")
    return [f for f in files if f.exists()]
