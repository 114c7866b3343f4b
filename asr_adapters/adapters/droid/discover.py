"""Where Factory Droid keeps sessions, and which files are sessions. Never used while parsing.

Droid's home is ``~/.factory``; ``FACTORY_HOME_OVERRIDE`` replaces the *home directory* it is
under (``.factory`` is appended), as Factory's SDK and entireio/cli read it. Sessions are
``sessions/<project folder>/<sessionId>.jsonl`` (legacy: ``sessions/<sessionId>.jsonl``), each
with a ``<sessionId>.settings.json`` sidecar beside it. ``DROID_SESSIONS_DIR`` (a comma-separated
list of session folders) is ccusage's variable and ``FACTORY_DIR`` (the ``.factory`` folder
itself) CodeBurn's (``src/providers/droid.ts``), not Droid's; both are honoured too, so that a
home a user already pointed one of those tools at is found here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...core.companion import read_head
from ...core.items import first_value
from .sniff import start_id

HOME_OVERRIDE_VARIABLE = "FACTORY_HOME_OVERRIDE"
SESSIONS_VARIABLE = "DROID_SESSIONS_DIR"
FACTORY_DIR_VARIABLE = "FACTORY_DIR"
SETTINGS_SUFFIX = ".settings.json"


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """``$DROID_SESSIONS_DIR`` entries, ``$FACTORY_DIR/sessions``,
    ``$FACTORY_HOME_OVERRIDE/.factory/sessions`` and ``~/.factory/sessions``."""
    homes: list[Path] = []
    for value in (env.get(SESSIONS_VARIABLE) or "").split(","):
        if value.strip():
            homes.append(Path(value.strip()).expanduser())
    factory = env.get(FACTORY_DIR_VARIABLE)
    if factory:
        homes.append(Path(factory).expanduser() / "sessions")
    override = env.get(HOME_OVERRIDE_VARIABLE)
    if override:
        homes.append(Path(override).expanduser() / ".factory" / "sessions")
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        homes.append(Path(home) / ".factory" / "sessions")
    return list(dict.fromkeys(homes))  # each once, in order


def is_session_file(path: Path) -> bool:
    """A ``.jsonl`` transcript. Under ``~/.factory`` only the ``sessions`` store holds them:
    ``projects/`` has ``droid exec --output-format stream-json`` logs, another format."""
    if not path.name.endswith(".jsonl"):
        return False  # a ``.settings.json`` sidecar is read with its transcript
    parts = path.parts[:-1]
    if ".factory" in parts:
        return "sessions" in parts[parts.index(".factory") :]
    return True


def stem(name: str) -> str:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name.split(".", 1)[0]


def settings_file(path: Path) -> Path:
    """The settings sidecar of a transcript: ``<stem>.settings.json`` beside it."""
    return path.with_name(stem(path.name) + SETTINGS_SUFFIX)


#: the head read for the session id: a Task child's ``session_start`` holds the task prompt
HEAD_BYTES = 1 << 16


def session_id(path: Path) -> str | None:
    """The ``session_start.id`` of a transcript's first line, read through ``core.companion``
    (a FIFO or device is refused, never read); None when the head holds none."""
    head = read_head(path, HEAD_BYTES)
    if head is None:
        return None
    return start_id(first_value(head)) or None


def settings_candidates(path: Path, native_id: str | None) -> list[Path]:
    """Where the sidecar of ``path`` may be: ``<stem>.settings.json`` (Droid names the
    transcript by its id), then ``<sessionId>.settings.json`` for a transcript renamed."""
    candidates = [settings_file(path)]
    if native_id and native_id != stem(path.name) and "/" not in native_id and "\\" not in native_id:
        candidates.append(path.with_name(native_id + SETTINGS_SUFFIX))
    return candidates


def companion_files(path: Path) -> list[Path]:
    """The settings sidecar, when it exists: the conversion reads it into the header."""
    candidates = [settings_file(path)]
    if not os.path.isfile(candidates[0]):
        candidates = settings_candidates(path, session_id(path))
    return [c for c in candidates if os.path.isfile(c)][:1]
