"""The row-level helpers of a Cursor database: a row's JSON, a composer's header, which bubble is
the unsent input box, a workspace folder's local path (split from ``adapter.py`` to keep it short)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from ...core import items
from ...core.adapter import Context, header
from ...core.timestamps import from_epoch_millis, stamp
from .bubbles import AGENT
from .keys import scrub_member

FORMAT = "cursor-state-vscdb"


def composer_header(
    composer_id: str, composer: dict[str, Any], file: str, variant: str, moved: tuple[str, ...]
) -> dict[str, Any]:
    record = header(AGENT, composer_id, agent_version=None, source_format=FORMAT, variant=variant, file=file)
    stamp(record, from_epoch_millis(composer.get("createdAt")))
    name = composer.get("name")
    if isinstance(name, str) and name:
        record["title"] = name
    record[AGENT] = {k: v for k, v in composer.items() if k not in moved}
    scrub_member(record, AGENT)
    return record


def is_subagent(composer: dict[str, Any]) -> bool:
    """A composer a parent agent spawned: ``subagentInfo {parentComposerId, toolCallId, …}``."""
    return isinstance(composer.get("subagentInfo"), dict)


def is_draft(bubble: Any) -> bool:
    """The chat pane's input box for the next question: the tab's last bubble when it is a user
    bubble, whatever its text (Cursor's own chat-to-composer migration, composerDataCreation.js in
    the public workbench dump depressedX/cursor-hack, moves that bubble into the new composer's
    input box; every tab of the real 2024 database ends so, empty, each its
    ``lastFocusedBubbleId``). Typed or not, never sent, so it is no message."""
    return isinstance(bubble, dict) and bubble.get("type") == "user"


def local_path(uri: Any) -> str | None:
    """The local path of a ``file://`` URI (``file:///c%3A/Users/…`` → ``c:/Users/…``); None for
    any other scheme (a remote workspace's ``vscode-remote://…`` stays in the header's data)."""
    if not isinstance(uri, str):
        return None
    parsed = urlsplit(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = unquote(parsed.path)
    if re.match(r"/[A-Za-z]:", path):
        path = path[1:]  # a Windows drive: no leading slash
    return path or None


def parse_row(value: bytes | None, what: str, context: Context, *, count: bool = True) -> Any:
    """A row's JSON value; None (counted unreadable and reported, unless ``count`` is False) when
    it is not JSON or is JSON ``null``."""
    if value is None:
        return None
    try:
        parsed = items.parse(value)
    except orjson.JSONDecodeError as exc:
        if count:
            context.unreadable(None, f"{what}: not JSON ({exc}); skipped")
        return None
    if parsed is None and count:
        context.unreadable(None, f"{what}: JSON null; skipped")
    return parsed
