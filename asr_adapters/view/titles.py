"""What an untitled session is called, and a slash command as the person typed it (issue 31
item 8): read from the records' text only, never from an agent's native format."""

from __future__ import annotations

import re
from typing import Any

from .ansi import strip


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


def typed_text(parts: list[Any], message: dict[str, Any]) -> str:
    """The text a person typed into a message: its parts by author human, else (a chat whose
    source names the sender but not their kind, ASR-202) its prompt parts of unknown author."""
    texts = [p for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    human = "".join(p["text"] for p in texts if effective(p, message, "author") == "human")
    if human.strip():
        return human
    return "".join(
        p["text"]
        for p in texts
        if effective(p, message, "author") is None and effective(p, message, "origin") in ("prompt", "queued", "steer")
    )


def title_text(text: str, limit: int = 100) -> str:
    """What a session with no title is called: the first line a person typed, its command
    markup read as the command, escape sequences and runs of blanks left out."""
    command = command_text([{"type": "text", "text": text, "origin": "command"}], {})
    if command:
        return command[:limit]
    for line in strip(text).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
