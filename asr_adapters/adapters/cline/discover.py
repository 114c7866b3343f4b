"""Where Cline, Roo Code and Kilo Code keep task folders, and which file is a task's entry.

Used by batch conversion and for companions, never for the mapping itself. All three are
VS Code extensions that keep tasks under the editor's global storage:
``<user data>/User/globalStorage/<extension id>/tasks/<taskId>/``, where ``<user data>`` is
``~/Library/Application Support/<editor>`` (macOS), ``$XDG_CONFIG_HOME`` or ``~/.config``
``/<editor>`` (Linux) and ``%APPDATA%\\<editor>`` (Windows), for VS Code and its forks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from ...core.companion import read_head

#: extension id -> product name
EXTENSIONS = {
    "saoudrizwan.claude-dev": "Cline",
    "rooveterinaryinc.roo-cline": "Roo Code",
    "kilocode.kilo-code": "Kilo Code",
}
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
UI_FILE = "ui_messages.json"
OLD_UI_FILE = "claude_messages.json"  # 2024 builds, migrated on first read
API_FILE = "api_conversation_history.json"
METADATA_FILE = "task_metadata.json"


def user_data_dirs(env: Mapping[str, str]) -> list[Path]:
    """The folders VS Code-like editors keep ``User/`` in, for every OS layout that
    ``env`` allows (a home folder, ``XDG_CONFIG_HOME``, ``APPDATA``)."""
    folders: list[Path] = []
    appdata = env.get("APPDATA", "").strip()
    if appdata:
        folders.append(Path(appdata))
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    if xdg:
        folders.append(Path(xdg).expanduser())
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        folders += [Path(home) / ".config", Path(home) / "Library" / "Application Support"]
        if not appdata:
            folders.append(Path(home) / "AppData" / "Roaming")
    return folders


def cli_sessions_dir(env: Mapping[str, str]) -> Path | None:
    """Where Cline CLI 3.x keeps ``<sessionId>/<sessionId>.messages.json``, resolved as
    ``@cline/shared`` ``storage/paths.ts`` does: ``$CLINE_SESSION_DATA_DIR``, else
    ``$CLINE_DATA_DIR/sessions``, else ``$CLINE_DIR/data/sessions``, else ``~/.cline/data/sessions``."""
    explicit = env.get("CLINE_SESSION_DATA_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data = env.get("CLINE_DATA_DIR", "").strip()
    if data:
        return Path(data).expanduser() / "sessions"
    base = env.get("CLINE_DIR", "").strip()
    if base:
        return Path(base).expanduser() / "data" / "sessions"
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) / ".cline" / "data" / "sessions" if home else None


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``<user data>/<editor>/User/globalStorage/<extension id>/tasks`` for every editor,
    extension and OS layout, and Cline CLI 3.x's sessions folder; the caller keeps the ones
    that exist."""
    sessions = cli_sessions_dir(env)
    homes: list[Path] = [sessions] if sessions is not None else []
    for base in user_data_dirs(env):
        for editor in EDITORS:
            for extension in EXTENSIONS:
                path = base / editor / "User" / "globalStorage" / extension / "tasks"
                if path not in homes:
                    homes.append(path)
    return homes


def host(path: Path | None) -> tuple[str, str] | None:
    """(extension id, product) of the global-storage folder a task file sits in, if any."""
    if path is None:
        return None
    for part in reversed(path.parts):
        product = EXTENSIONS.get(part.lower())
        if product is not None:
            return part, product
    return None


def task_id(path: Path | None) -> str | None:
    """The task id: the folder name of ``tasks/<taskId>/<file>``."""
    if path is None or path.parent.parent.name != "tasks" or not path.parent.name:
        return None
    return path.parent.name


def is_session_file(path: Path) -> bool:
    """``ui_messages.json`` is a task's entry; ``claude_messages.json`` when there is no
    ``ui_messages.json``; ``api_conversation_history.json`` when neither timeline exists.
    Other files of a task folder (metadata, settings, context history) are read with it or
    not at all. A file under any other name is a task's entry only when the content sniff
    gave it to this adapter (a copied timeline)."""
    name = path.name
    if name == UI_FILE:
        return True
    if name == OLD_UI_FILE:
        return not path.with_name(UI_FILE).exists()
    if name == API_FILE:
        return not (path.with_name(UI_FILE).exists() or path.with_name(OLD_UI_FILE).exists())
    if name in (METADATA_FILE, "context_history.json", "settings.json", "taskHistory.json"):
        return False
    if name.endswith(".compaction.json") or path.with_name(name.removesuffix(".json") + ".messages.json").exists():
        return False  # a Cline CLI 3.x session's compaction state or manifest: its messages.json is the entry
    if name.endswith(".json") and _is_cli_side_file(path):
        return False  # the same, under another name (a copied session): its transcript is the entry
    return name.endswith(".json") and "tasks" not in path.parts[-3:-1]


_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([A-Za-z0-9_.-]{1,200})"')


def _cli_session_id(path: Path) -> str | None:
    """The ``sessionId`` a Cline CLI 3.x messages file names in its head, else None."""
    from .sniff import sdk_detect

    head = read_head(path, 4096)
    if head is None or sdk_detect(head) != 90:
        return None
    match = _SESSION_ID.search(head)
    return match.group(1).decode() if match else None


def _is_cli_side_file(path: Path) -> bool:
    """Whether the file's head is a Cline CLI 3.x manifest or compaction state (``sniff``: what
    ``asr convert`` refuses with a pointer to the transcript; batch leaves it unclaimed)."""
    from .sniff import SIDE_FILE_SCORE, sdk_detect

    head = read_head(path, 4096)
    return head is not None and sdk_detect(head) == SIDE_FILE_SCORE


def companion_files(path: Path) -> list[Path]:
    """The other files of the task folder that a conversion reads."""
    if path.name.endswith(".messages.json"):  # a Cline CLI 3.x session: its manifest
        manifest = path.with_name(path.name.removesuffix(".messages.json") + ".json")
        return [manifest] if os.path.isfile(manifest) else []
    names = (UI_FILE, OLD_UI_FILE, API_FILE, METADATA_FILE)
    if path.name not in names:  # a CLI 3.x transcript under another name: the manifest its id names
        named = _cli_session_id(path)
        if named is not None:
            manifest = path.with_name(f"{named}.json")
            return [manifest] if manifest != path and os.path.isfile(manifest) else []
    return [path.with_name(n) for n in names if n != path.name and os.path.isfile(path.with_name(n))]
