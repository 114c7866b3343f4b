"""What an untitled session is called, and a slash command as the person typed it (issue 31
item 8): read from the records' text only, never from an agent's native format."""

from __future__ import annotations

from typing import Any

from ..stream.commands import command_text, effective
from .ansi import strip

__all__ = ["command_text", "effective", "title_text", "typed_text"]


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
