"""Discovery helper: is a session file the newest copy of its session in its folder?

Reads only the first and last bytes of the few files that share a name suffix.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.companion import CompanionSkipped, open_companion
from ...core.items import first_value

_PEEK = 65536
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]+)"')
_KIND = re.compile(rb'"kind"\s*:\s*"([^"\\]+)"')
_UPDATED = re.compile(rb'"lastUpdated"\s*:\s*"([^"\\]+)"')
_REPLY = re.compile(rb'"type"\s*:\s*"gemini"')


def _peek(path: Path) -> tuple[bytes, bytes]:
    try:
        handle = open_companion(path, None, None)  # a FIFO or device found by the glob is not read
    except CompanionSkipped as exc:
        raise OSError(exc.reason) from exc
    if handle is None:
        raise FileNotFoundError(path)
    with handle:
        head = handle.read(_PEEK)
        size = handle.seek(0, 2)
        if size <= _PEEK:
            return head, head
        handle.seek(max(0, size - _PEEK))
        return head, handle.read()


def facts(path: Path) -> tuple[str | None, str | None, str, bool]:
    """(sessionId, kind, lastUpdated, holds a model reply) as the file's first and last bytes state them.

    JSONL: the header line, and the last ``lastUpdated`` (from ``$set`` lines). Legacy JSON:
    ``sessionId`` and ``lastUpdated`` lead the document, ``kind`` follows ``messages``.
    """
    try:
        head, tail = _peek(path)
    except OSError:
        return None, None, "", False
    replied = bool(_REPLY.search(head) or _REPLY.search(tail))
    if path.suffix == ".jsonl":
        first = first_value(head)
        if not isinstance(first, dict) or not isinstance(first.get("sessionId"), str):
            return None, None, "", replied
        updates = _UPDATED.findall(tail)
        updated = updates[-1].decode() if updates else str(first.get("lastUpdated", ""))
        kind = first.get("kind") if isinstance(first.get("kind"), str) else None
        return first["sessionId"], kind, updated, replied
    session = _SESSION_ID.search(head)
    first_update = _UPDATED.search(head)
    kinds = _KIND.findall(tail)
    return (
        session.group(1).decode() if session else None,
        kinds[-1].decode() if kinds else None,
        first_update.group(1).decode() if first_update else "",
        replied,
    )


def newest_of_session(path: Path) -> bool:
    """False when another file in the folder holds a newer copy of the same main session.

    A copy holding a model reply beats one without: ``--resume`` can leave a fresh file
    with only the header and the environment turn, which must not hide the conversation.
    """
    stem = path.name.rsplit(".", 1)[0]
    suffix = stem[-8:]
    session, kind, updated, replied = facts(path)
    if session is None or kind == "subagent":
        return True
    mine = (replied, updated, path.suffix == ".jsonl", path.name)
    for other in path.parent.glob(f"session-*{suffix}.json*"):
        if other == path or not other.name.endswith((".json", ".jsonl")):
            continue
        if other.name.endswith(".json") and other.with_name(other.name + "l").exists():
            continue
        other_session, other_kind, other_updated, other_replied = facts(other)
        if other_session != session or other_kind == "subagent":
            continue
        if (other_replied, other_updated, other.suffix == ".jsonl", other.name) > mine:
            return False
    return True
