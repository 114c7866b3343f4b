"""A slash command as the person typed it, read from the records' text (the command markup a
harness writes around it): shared by the viewer's titles and ``asr stats``' session titles,
so it lives with stream reading, not in the viewer."""

from __future__ import annotations

import re
from typing import Any


def effective(part: dict[str, Any], message: dict[str, Any], key: str) -> str | None:
    """A part's own value, else the message's (ASR-224); ``None`` means unknown."""
    value = part.get(key)
    if isinstance(value, str):
        return value
    value = message.get(key)
    return value if isinstance(value, str) else None


_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def command_text(parts: Any, message: dict[str, Any]) -> str | None:
    """The slash command a person typed, as they typed it (``/compact keep the tests``), when the
    message's command parts (origin ``command``) hold it in the command markup a harness writes
    around it (``<command-name>``, ``<command-args>``); None for any other message."""
    if not isinstance(parts, list):
        return None
    name = args = None
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("text"), str):
            continue
        if effective(part, message, "origin") != "command":
            continue
        found = _COMMAND_NAME.search(part["text"])
        name = name or (found.group(1).strip() if found else None)
        found = _COMMAND_ARGS.search(part["text"])
        args = args or (found.group(1).strip() if found else None)
    if not name:
        return None
    return f"{name} {args}" if args else name
