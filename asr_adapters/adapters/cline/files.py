"""Reading a task's files: the entry input, and its companions in the same folder.

A companion is read only when it is a regular file whose real location is inside the
entry's own folder (a symlink out of the task folder is not followed) and no larger than
the single-document limit; otherwise it is left out with a warning.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...core.adapter import Context
from ...core.source import MAX_DOCUMENT_BYTES
from .discover import API_FILE, METADATA_FILE, OLD_UI_FILE, UI_FILE

UI, API = "ui", "api"


def kind_of(document: Any) -> str | None:
    """``ui`` for a ClineMessage[] timeline, ``api`` for an Anthropic MessageParam[] list."""
    if not isinstance(document, list):
        return None
    for item in document[:20]:
        if isinstance(item, dict):
            if item.get("type") in ("say", "ask") and "ts" in item:
                return UI
            if item.get("role") in ("user", "assistant") and "content" in item:
                return API
    return None


def companion(entry: Path | None, name: str, context: Context) -> Path | None:
    """``name`` beside ``entry`` when it is safe to read, else None (with a warning when it
    exists but is refused)."""
    if entry is None or entry.name == name:
        return None
    candidate = entry.with_name(name)
    if not os.path.lexists(candidate):
        return None
    folder = os.path.realpath(entry.parent)
    real = os.path.realpath(candidate)
    if os.path.dirname(real) != folder or not os.path.isfile(real):
        context.warn(None, f"{name}: not a regular file inside the task folder; not read")
        return None
    if os.path.getsize(real) > MAX_DOCUMENT_BYTES:
        context.warn(None, f"{name}: longer than the {MAX_DOCUMENT_BYTES}-byte limit; not read")
        return None
    return Path(real)


def load(path: Path, context: Context) -> Any:
    """A companion's parsed JSON, or None (with a warning naming the file and the reason)."""
    return context.companion_json(path, MAX_DOCUMENT_BYTES)  # inside the task folder by real path


def companions(entry: Path | None, entry_kind: str, context: Context) -> tuple[Any, Any, Any]:
    """(the other timeline, its file name, task_metadata.json) for an entry of ``entry_kind``."""
    other: Any = None
    other_name: str | None = None
    names = (API_FILE,) if entry_kind == UI else (UI_FILE, OLD_UI_FILE)
    for name in names:
        path = companion(entry, name, context)
        if path is not None:
            value = load(path, context)
            expected = API if entry_kind == UI else UI
            if value is not None and kind_of(value) not in (expected, None):
                context.warn(None, f"{name}: not a Cline {expected} file; not read")
                value = None
            if value is not None:
                other, other_name = value, name
                break
    metadata: Any = None
    path = companion(entry, METADATA_FILE, context)
    if path is not None:
        metadata = load(path, context)
    return other, other_name, metadata
