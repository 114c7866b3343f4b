"""Where OpenHands keeps conversations, and which file is a conversation's entry. Never used
while parsing (docs/agents/openhands.md, "Where").

A conversation is a folder of one JSON file per event, in one of two unrelated generations:

- V1 (``openhands-sdk``, the V1 CLI, the agent server): ``<hex id>/base_state.json`` and
  ``<hex id>/events/event-<index, 5+ digits>-<event uuid>.json``; the CLI's root is
  ``$OPENHANDS_PERSISTENCE_DIR`` (default ``~/.openhands``) with conversations in
  ``$OPENHANDS_CONVERSATIONS_DIR`` (default ``<root>/conversations``); the agent server's is
  ``$OH_CONVERSATIONS_PATH``.
- V0 (``openhands-ai`` 0.x: the GUI, the old CLI, headless runs): ``sessions/<sid>/`` or
  ``users/<user>/conversations/<sid>/`` under ``$FILE_STORE_PATH`` (default ``~/.openhands``;
  older installs ``~/.openhands/file_store``, found inside it, and ``/tmp/openhands_file_store``,
  not searched), with
  ``metadata.json`` and ``events/<n>.json``.

The entry is ``base_state.json`` (V1) or ``metadata.json`` (V0) when the folder has one, else
the events folder's first event; every other event file is a companion of the entry.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

V1_STATE = "base_state.json"
V0_METADATA = "metadata.json"
EVENTS = "events"
#: ``event-<index>-<event id>.json`` (``persistence_const.py`` ``EVENT_NAME_RE``: 5+ digits)
V1_EVENT = re.compile(r"event-(?P<index>\d{5,})-(?P<id>[^/\\]+)\.json\Z")
#: ``<id>.json`` (V0 ``locations.get_conversation_event_file``)
V0_EVENT = re.compile(r"(?P<index>\d+)\.json\Z")
SUBAGENTS = "subagents"

PERSISTENCE_VARIABLE = "OPENHANDS_PERSISTENCE_DIR"
CONVERSATIONS_VARIABLE = "OPENHANDS_CONVERSATIONS_DIR"
AGENT_SERVER_VARIABLE = "OH_CONVERSATIONS_PATH"
V0_STORE_VARIABLE = "FILE_STORE_PATH"


def _home(env: Mapping[str, str]) -> str | None:
    return env.get("HOME") or env.get("USERPROFILE") or None


def _expand(value: str, home: str | None) -> Path:
    if home and (value == "~" or value.startswith(("~/", "~\\"))):
        return Path(home) / value[2:]
    return Path(value).expanduser()


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """The V1 CLI's conversations folder and the V0 file store (both ``~/.openhands`` unless
    moved), the agent server's conversations folder and the older V0 stores."""
    home = _home(env)
    homes: list[Path] = []
    root = env.get(PERSISTENCE_VARIABLE)
    base = _expand(root, home) if root else (Path(home) / ".openhands" if home else None)
    conversations = env.get(CONVERSATIONS_VARIABLE)
    if conversations:
        homes.append(_expand(conversations, home))
    if base is not None:
        homes.append(base)
    server = env.get(AGENT_SERVER_VARIABLE)
    if server:
        homes.append(_expand(server, home))
    store = env.get(V0_STORE_VARIABLE)
    if store:
        homes.append(_expand(store, home))
    elif home:  # V0's store; its 2025-01 to 2025-06 default /tmp/openhands_file_store is not
        # searched (a folder any user can write): name it to ``asr batch`` or in FILE_STORE_PATH
        homes.append(Path(home) / ".openhands")
    unique: list[Path] = []
    for path in homes:
        if path not in unique and not any(path.is_relative_to(u) for u in unique):
            unique.append(path)
    return unique


def event_files(folder: Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    """``(index, path)`` of the event files in ``folder``, by integer index (``10.json``
    after ``9.json``); other names are not events."""
    found: list[tuple[int, Path]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        match = pattern.match(entry.name)
        if match:
            found.append((int(match.group("index")), Path(entry.path)))
    found.sort(key=lambda pair: (pair[0], pair[1].name))
    return found


def conversation_of(path: Path) -> tuple[str, Path] | None:
    """``(generation, conversation folder)`` for an entry or event path, from names (and, for
    a file under another name beside an ``events`` folder, the names of the files in it)."""
    name = path.name
    if name == V1_STATE:
        return "v1", path.parent
    if name == V0_METADATA:
        return "v0", path.parent
    if path.parent.name == EVENTS:
        if V1_EVENT.match(name):
            return "v1", path.parent.parent
        if V0_EVENT.match(name):
            return "v0", path.parent.parent
    events = path.parent / EVENTS
    if events.is_dir():  # a state or metadata file under another name (an export, a copy)
        if event_files(events, V1_EVENT):
            return "v1", path.parent
        if event_files(events, V0_EVENT):
            return "v0", path.parent
    return None


def is_session_file(path: Path) -> bool:
    """The conversation's entry: ``base_state.json`` / ``metadata.json`` beside an ``events``
    folder, else the lowest-numbered event file of a folder that has neither."""
    found = conversation_of(path)
    if found is None:
        return False
    generation, folder = found
    if path.parent == folder:  # the state or metadata file
        return path.name in (V1_STATE, V0_METADATA) and (folder / EVENTS).is_dir()
    if (folder / (V1_STATE if generation == "v1" else V0_METADATA)).is_file():
        return False
    events = event_files(path.parent, V1_EVENT if generation == "v1" else V0_EVENT)
    return bool(events) and events[0][1].name == path.name


def companion_files(path: Path) -> list[Path]:
    """Every other file the conversion reads: the state or metadata file and each event
    file (a new event is a changed conversation)."""
    found = conversation_of(path)
    if found is None:
        return []
    generation, folder = found
    files: list[Path] = []
    state = folder / (V1_STATE if generation == "v1" else V0_METADATA)
    if state != path and state.is_file():
        files.append(state)
    pattern = V1_EVENT if generation == "v1" else V0_EVENT
    files.extend(p for _, p in event_files(folder / EVENTS, pattern) if p != path)
    return files
