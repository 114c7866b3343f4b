"""Routing facts about one session from OpenClaw's index (``sessions.json``) or its SQLite rows.

The index maps each session key to its current ``SessionEntry``; an archived generation
(``.reset.`` files) is found through ``usageFamilySessionIds``. The index is optional: a
transcript converts the same without it, only with fewer header facts. ``sessions.json`` can
be megabytes; it is read once per input, never per line.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.companion import CompanionSkipped, open_companion, read_companion
from ...core.source import MAX_DOCUMENT_BYTES
from ...core.valueclass import field, valueclass

#: The first line of a trajectory sidecar (its header) is read only up to this size.
MAX_TRAJECTORY_HEADER = 1 << 20


@valueclass
class SessionInfo:
    """What the index says about a session: its key, agent, channel and peer."""

    key: str | None = None
    agent_id: str | None = None
    channel: str | None = None
    chat_type: str | None = None
    label: str | None = None
    to: str | None = None
    peer: str | None = None
    peer_label: str | None = None
    account_id: str | None = None
    thread_id: str | None = None
    spawned_by: str | None = None
    parent_session_id: str | None = None
    title: str | None = None
    current: bool = False
    pending_delivery: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def conversation_key(self) -> str | None:
        """The key under which the session's own conversation is registered."""
        if self.to:
            return self.to
        if self.channel:
            return f"{self.channel}:session:{self.key or ''}"
        return None


def agent_from_key(key: str | None) -> str | None:
    if key and key.startswith("agent:"):
        parts = key.split(":")
        if len(parts) > 2:
            return parts[1]
    return None


def from_entry(key: str | None, entry: dict[str, Any]) -> SessionInfo:
    """A ``SessionInfo`` from one ``SessionEntry`` (file era) or ``session_nodes.entry_json`` row."""
    origin = obj(entry.get("origin"))
    context = obj(entry.get("deliveryContext"))
    info = SessionInfo(key=key, agent_id=agent_from_key(key))
    info.channel = _str(context.get("channel")) or _str(entry.get("channel")) or _str(origin.get("provider"))
    info.chat_type = _str(entry.get("chatType")) or _str(origin.get("chatType"))
    info.label = _str(entry.get("subject")) or _str(entry.get("displayName")) or _str(entry.get("groupChannel"))
    info.to = (
        _str(context.get("to")) or _str(entry.get("lastTo")) or _str(origin.get("to")) or _str(entry.get("groupId"))
    )
    info.account_id = _str(context.get("accountId")) or _str(origin.get("accountId"))
    info.thread_id = _str(context.get("threadId")) or _str(origin.get("threadId"))
    info.spawned_by = _str(entry.get("spawnedBy")) or _str(entry.get("parentSessionKey"))
    info.title = _str(entry.get("label"))
    info.pending_delivery = {k: v for k, v in entry.items() if k.startswith("pendingFinalDelivery")}
    if info.chat_type == "direct":
        info.peer = _str(origin.get("from"))
        info.peer_label = _str(origin.get("label"))
    return info


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (native fields are untrusted)."""
    return value if isinstance(value, dict) else {}


def arr(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def load_index(
    path: Path | None,
    on_skip: Callable[[CompanionSkipped], None] | None = None,
    on_repaired: Callable[[Path], None] | None = None,
) -> dict[str, Any]:
    """The parsed ``sessions.json`` beside a transcript, or ``{}`` when absent or unreadable.

    Batch conversion reads many transcripts of one folder; the index (often megabytes) is
    parsed once per version of the file (path, size, mtime), not once per transcript. Only a
    regular file inside the transcript's folder is read (core.companion); a FIFO, device or
    link out of the folder is passed to ``on_skip``; an index whose lone surrogate escapes were
    repaired (``core.items``) to ``on_repaired``.
    """
    if path is None:
        return {}
    index = path.parent / "sessions.json"
    try:
        stat = index.stat()
        data, repaired = _parsed_index(str(index), str(path.parent), stat.st_size, stat.st_mtime_ns)
    except CompanionSkipped as exc:
        if on_skip is not None:
            on_skip(exc)
        return {}
    except OSError:
        return {}
    if repaired and on_repaired is not None:
        on_repaired(index)
    return data


@lru_cache(maxsize=2)
def _parsed_index(path: str, root: str, size: int, mtime_ns: int) -> tuple[dict[str, Any], bool]:
    try:
        raw = read_companion(Path(path), [Path(root)], MAX_DOCUMENT_BYTES)
        data, repaired = items.loads(raw) if raw is not None else (None, False)
    except (OSError, orjson.JSONDecodeError):
        return {}, False
    return (data, repaired) if isinstance(data, dict) else ({}, False)


def lookup(index: dict[str, Any], session_id: str) -> SessionInfo | None:
    """The index row of ``session_id``: the current one first, then an earlier generation."""
    family: tuple[str, dict[str, Any]] | None = None
    for key, entry in index.items():
        if not isinstance(entry, dict):
            continue
        if entry.get("sessionId") == session_id:
            info = _resolved(index, key, entry)
            info.current = True
            return info
        ids = entry.get("usageFamilySessionIds")
        if family is None and isinstance(ids, list) and session_id in ids:
            family = (key, entry)
    if family is not None:
        return _resolved(index, *family)
    return None


def _resolved(index: dict[str, Any], key: str, entry: dict[str, Any]) -> SessionInfo:
    info = from_entry(key, entry)
    if info.spawned_by:
        parent = index.get(info.spawned_by)
        if isinstance(parent, dict) and isinstance(parent.get("sessionId"), str):
            info.parent_session_id = parent["sessionId"]
    return info


_CHAT_TYPES = frozenset({"direct", "group", "channel", "room"})


def from_key(key: str) -> SessionInfo:
    """What a session key itself says: ``agent:<agentId>:<channel>:<chatType>:<peerId>[:…]``.

    Used when no index row names the session (a trajectory sidecar still records its key).
    """
    info = SessionInfo(key=key, agent_id=agent_from_key(key))
    parts = key.split(":")
    if len(parts) >= 5 and parts[0] == "agent" and parts[3] in _CHAT_TYPES:
        info.channel = parts[2]
        info.chat_type = parts[3]
        info.to = f"{parts[2]}:{parts[4]}"
        if parts[3] == "direct":
            info.peer = info.to
    return info


def trajectory_key(path: Path | None, session_id: str) -> str | None:
    """The session key the run-trace sidecar ``<sessionId>.trajectory.jsonl`` records (first line)."""
    if path is None:
        return None
    sidecar = path.parent / f"{session_id}.trajectory.jsonl"  # the id is content: kept inside the folder
    try:
        handle = open_companion(sidecar, [path.parent], None)
        if handle is None:
            return None
        with handle:
            first = orjson.loads(handle.readline(MAX_TRAJECTORY_HEADER))
    except (OSError, orjson.JSONDecodeError, CompanionSkipped):
        return None
    key = first.get("sessionKey") if isinstance(first, dict) else None
    return key if isinstance(key, str) and key and first.get("sessionId") == session_id else None
