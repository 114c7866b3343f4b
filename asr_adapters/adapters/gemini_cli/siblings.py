"""Discovery helper: is a session file the newest copy of its session in its folder?

Reads only the first and last bytes of the few files that share a name suffix.
"""

from __future__ import annotations

import re
from pathlib import Path

_PEEK = 65536
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]+)"')
_KIND = re.compile(rb'"kind"\s*:\s*"([^"\\]+)"')
_UPDATED = re.compile(rb'"lastUpdated"\s*:\s*"([^"\\]+)"')


def _peek(path: Path) -> tuple[bytes, bytes]:
    with open(path, "rb") as handle:
        head = handle.read(_PEEK)
        size = handle.seek(0, 2)
        if size <= _PEEK:
            return head, head
        handle.seek(max(0, size - _PEEK))
        return head, handle.read()


def facts(path: Path) -> tuple[str | None, str | None, str]:
    """(sessionId, kind, lastUpdated) as the file's first and last bytes state them."""
    try:
        head, tail = _peek(path)
    except OSError:
        return None, None, ""
    session = _SESSION_ID.search(head)
    kind = _KIND.search(head) or _KIND.search(tail)
    updates = _UPDATED.findall(tail) or _UPDATED.findall(head)
    return (
        session.group(1).decode() if session else None,
        kind.group(1).decode() if kind else None,
        updates[-1].decode() if updates else "",
    )


def newest_of_session(path: Path) -> bool:
    """False when another file in the folder holds a newer copy of the same main session."""
    stem = path.name.rsplit(".", 1)[0]
    suffix = stem[-8:]
    session, kind, updated = facts(path)
    if session is None or kind == "subagent":
        return True
    mine = (updated, path.suffix == ".jsonl", path.name)
    for other in path.parent.glob(f"session-*{suffix}.json*"):
        if other == path or not other.name.endswith((".json", ".jsonl")):
            continue
        if other.name.endswith(".json") and other.with_name(other.name + "l").exists():
            continue
        other_session, other_kind, other_updated = facts(other)
        if other_session != session or other_kind == "subagent":
            continue
        if (other_updated, other.suffix == ".jsonl", other.name) > mine:
            return False
    return True
