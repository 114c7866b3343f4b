"""The document ``opencode export <session>`` prints: ``{"info": Session.Info, "messages":
[{"info": MessageV2.Info, "parts": [MessageV2.Part]}]}`` (packages/opencode/src/cli/cmd/export.ts),
one session with its messages and parts in OpenCode's own order. It keeps no todo list."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.adapter import Context
from .parts import obj
from .store import NativeMessage

FORMAT = "opencode-export"


def is_export(document: dict[str, Any]) -> bool:
    return isinstance(document.get("info"), dict) and isinstance(document.get("messages"), list)


class ExportSession:
    """One exported session (the document already parsed: it is one JSON value)."""

    format = FORMAT
    variant = "export"

    def __init__(self, document: dict[str, Any], file: str, context: Context) -> None:
        self.info: dict[str, Any] = document["info"]
        self.entries: list[Any] = document["messages"]
        self.file = file
        self.context = context

    def messages(self) -> Iterator[NativeMessage]:
        accounting = self.context.accounting
        seen: set[str] = set()
        #: part ids written so far: a part id is unique in OpenCode's store, so a repeat is a copy
        parts_seen: set[str] = set()
        for number, entry in enumerate(self.entries, 1):
            entry = obj(entry)
            info, parts = entry.get("info"), entry.get("parts")
            count = 1 + (len(parts) if isinstance(parts, list) else 0)
            accounting.native_items += count
            message_id = info.get("id") if isinstance(info, dict) else None
            if not isinstance(message_id, str) or not message_id:
                accounting.unreadable += count
                self.context.warn(None, f"messages[{number}]: no message info with a string id; skipped with its parts")
                continue
            if message_id in seen:  # the same message twice: the first copy was converted
                accounting.duplicates += count
                continue
            seen.add(message_id)
            assert isinstance(info, dict)
            kept: list[dict[str, Any]] = []
            for index, part in enumerate(parts if isinstance(parts, list) else []):
                part_id = part.get("id") if isinstance(part, dict) else None
                if isinstance(part_id, str) and part_id in parts_seen:  # the same part twice: the first is kept
                    accounting.duplicates += 1
                elif isinstance(part, dict):
                    if isinstance(part_id, str):
                        parts_seen.add(part_id)
                    kept.append(part)
                else:
                    accounting.unreadable += 1
                    self.context.warn(None, f"messages[{number}].parts[{index + 1}]: not a JSON object; skipped")
            yield NativeMessage(info, kept)

    def todos(self) -> tuple[list[Any] | None, int | None]:
        return None, None
