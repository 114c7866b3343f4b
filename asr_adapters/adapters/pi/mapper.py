"""One pi session entry at a time, into ASR records: what pi's own messages become.

The entry tree, summaries, custom messages and the assistant and tool-result records are
pi's format, shared with OpenClaw (``tree``, ``blocks``); this module adds what only pi's own
sessions hold: user prompts as the person typed them (or as a ``/skill:`` expanded them), the
``!command`` shell runs (``bashExecution``), and the session name (``session_info``).
"""

from __future__ import annotations

from typing import Any

from ...core.outcome import not_a_failure
from ...core.refs import schema_name
from .blocks import SKIPPED
from .tree import HARNESS, NO_CONTENT, EntryTree, media_part

REGISTRY = "dev.pi"
#: pi's bash tool is its one shell tool (``tools/bash.ts``)
SHELL_TOOLS = frozenset({"bash"})
#: the bash tool's last line when the person's Esc killed the command
ABORTED = "Command aborted"
#: ``/skill:<name>`` is stored expanded: the skill file in this element, then the arguments
SKILL_OPEN = '<skill name="'
SKILL_CLOSE = "</skill>"
_BASH_KNOWN = ("role", "timestamp")


class PiMapper(EntryTree):
    """The entries of one pi session, in file order (every branch of the tree)."""

    def _other_role(
        self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]
    ) -> list[dict[str, Any]]:
        if message.get("role") == "bashExecution":
            return [self._bash(eid, derived, base, message)]
        return []  # system messages (0.86+), roles of later versions: vendor records

    def _other(self, eid: str, base: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
        """``session_info`` names the session (``/name``): a vendor record carrying ``title``
        (docs/format.md, Titles); every other entry type is a plain vendor record."""
        if item["type"] != "session_info":
            return []
        record = {"type": "vendor", **base, "schema": schema_name(REGISTRY, "session_info"), "data": item}
        self._tail(record)
        name = item.get("name")
        if isinstance(name, str):
            record["title"] = name
        return [record]

    def _user(self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        """A prompt: what the person typed, except a ``/skill:`` expansion's skill element,
        which pi wrote around the person's arguments (ASR-203)."""
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["role"] = "user"
        record["author"] = "human"
        record["origin"] = "prompt"
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        parts: list[dict[str, Any]] = []
        for index, block in enumerate(blocks):
            text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
            if index == 0 and isinstance(text, str) and text.startswith(SKILL_OPEN) and SKILL_CLOSE in text:
                end = text.index(SKILL_CLOSE) + len(SKILL_CLOSE)
                parts.append({"type": "text", "text": text[:end], "author": HARNESS[0], "origin": HARNESS[1]})
                if text[end:]:
                    parts.append({"type": "text", "text": text[end:]})
                record["origin"] = "command"
                continue
            parts.append(media_part(block, (None, None), REGISTRY))
        record["content"] = parts
        if not parts:
            record["capture"] = {"content": dict(NO_CONTENT)}
        self._tail(record)
        for key, value in message.items():
            if key not in ("role", "content"):
                record[key] = value
        return record

    def _tool_result(self, base: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
        record = self._result_record(base, message, (SKIPPED,), SHELL_TOOLS)
        if record.get("name") in SHELL_TOOLS and record.get("isError") is True and "exitCode" not in record:
            text = "".join(p["text"] for p in record["content"] if isinstance(p.get("text"), str))
            if text.endswith(ABORTED):  # the person's interrupt killed the command
                record["status"] = "interrupted"
                not_a_failure(record)
        return [record]

    def _bash(self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        """A ``!command`` the person ran in the editor: pi keeps the command and its output
        as data and renders them into a user-role text only when it builds a request
        (``bashExecutionToText``), so the record holds the data (ASR-230, ASR-238).
        ``excludeFromContext`` (``!!``) keeps it from the model: audience user."""
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["role"] = "user"
        record["origin"] = "command"
        if message.get("excludeFromContext") is True:
            record["audience"] = "user"
        data = {k: v for k, v in message.items() if k not in _BASH_KNOWN}
        record["content"] = [{"type": "data", "data": data, "schema": schema_name(REGISTRY, "bashExecution")}]
        self._tail(record)
        if "timestamp" in message:
            record["timestamp"] = message["timestamp"]
        return record
