"""Context the main model saw that only a compaction agent's transcript records.

Claude Code's compaction agent (``subagents/agent-acompact-<hex>.jsonl``) starts with the
``isMeta`` lines of hook context injected into the main conversation (``<system-reminder>
PostToolUse:Edit hook additional context…``) whose ``parentUuid`` names a line of the main
file, which has no such lines (research note §7, sample 2.1.39). The main model received
them, so the main stream writes them too, on its path after the line they hang from; the
compaction agent's stream then marks its own records of them ``copiedFrom`` the main ones.
Only the leading lines of such a file are read, at most ``LIMIT``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ...core.companion import CompanionSkipped, open_companion

#: Leading lines of one compaction agent's file read at most.
LIMIT = 16
_LINE_BYTES = 1 << 20


def compaction_agent(agent_id: str) -> bool:
    return agent_id.startswith("acompact")


def hanging_lines(path: Path) -> list[dict[str, Any]]:
    """The leading ``isMeta`` user lines of a compaction agent's file whose ``parentUuid`` is
    not a line of the file itself (it names a line of the main session), or is the previous
    such line: they end at the first other line."""
    found: list[dict[str, Any]] = []
    try:
        handle = open_companion(path, None, None)
        if handle is None:
            return found
        with handle:
            for raw in handle:
                if len(found) >= LIMIT or len(raw) > _LINE_BYTES:
                    break
                if not raw.strip():
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    break
                if not _hangs(obj):
                    break
                found.append(obj)
    except (OSError, CompanionSkipped):
        return []
    return found


def agent_request(path: Path) -> dict[str, Any] | None:
    """The compaction agent's own request: the last user line of its file that is not a tool
    result (the history it replays comes first, its request and answer last). Its
    ``parentUuid`` is the main leaf the compaction continued from. Reads the file once,
    keeping one line."""
    request: dict[str, Any] | None = None
    try:
        handle = open_companion(path, None, None)
        if handle is None:
            return None
        with handle:
            for raw in handle:
                if b'"type":"user"' not in raw or b'"tool_result"' in raw or len(raw) > _LINE_BYTES:
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and obj.get("type") == "user" and isinstance(obj.get("parentUuid"), str):
                    request = obj
    except (OSError, CompanionSkipped):
        return None
    return request


def _hangs(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("type") != "user" or obj.get("isMeta") is not True:
        return False
    # its parent is a line of the main file or the previous such line (``own``): both strings
    return isinstance(obj.get("uuid"), str) and isinstance(obj.get("parentUuid"), str)
