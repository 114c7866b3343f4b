"""Reading one conversation folder: its state or metadata file and its event files, one at a
time, in index order (the integer in the name, never the string: ``10.json`` after ``9.json``).

Every event file is a companion of the entry and is opened through ``core.companion`` (a
regular file inside the conversation folder by real path, capped). A file that cannot be read
or parsed costs that one event (counted unreadable, reported with its name); a gap in the
indexes is reported (the SDK's own reader stops there, we read on: nothing on disk is dropped).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ...core.accounting import Accounting, Diagnostic
from ...core.companion import CompanionSkipped, read_companion
from ...core.items import loads
from ...core.nesting import MAX_NATIVE_NESTING, deeper_than, too_deep_reason
from ...core.valueclass import valueclass
from . import discover


@dataclass  # one an event file: a dataclass is made faster than a valueclass
class Event:
    """One event file: its index, file name and parsed JSON object."""

    index: int
    name: str
    data: dict[str, Any]


@valueclass(frozen=True)
class Conversation:
    """Where a conversation's files are."""

    generation: str  # "v1" or "v0"
    folder: Path
    entry: Path

    @property
    def events_folder(self) -> Path:
        return self.folder / discover.EVENTS

    @property
    def state_file(self) -> Path:
        return self.folder / (discover.V1_STATE if self.generation == "v1" else discover.V0_METADATA)

    def files(self) -> list[tuple[int, Path]]:
        pattern = discover.V1_EVENT if self.generation == "v1" else discover.V0_EVENT
        return discover.event_files(self.events_folder, pattern)


def read_json(path: Path, roots: list[Path], accounting: Accounting, what: str) -> Any:
    """A companion's parsed JSON, or None with a diagnostic naming the file and the reason."""
    try:
        data = read_companion(path, roots)
    except CompanionSkipped as exc:
        accounting.diagnostics.append(Diagnostic(str(path), None, f"{what} skipped: {exc.reason}"))
        return None
    except OSError as exc:
        accounting.diagnostics.append(Diagnostic(str(path), None, f"{what} unreadable: {exc}"))
        return None
    if data is None:
        return None
    try:
        value, _repaired = loads(data)
    except orjson.JSONDecodeError as exc:
        accounting.diagnostics.append(Diagnostic(str(path), None, f"{what} unreadable: {str(exc)[:160]}"))
        return None
    if deeper_than(data, value, MAX_NATIVE_NESTING):
        accounting.diagnostics.append(
            Diagnostic(str(path), None, f"{what} unreadable: {too_deep_reason(MAX_NATIVE_NESTING)}")
        )
        return None
    return value


def events(conversation: Conversation, accounting: Accounting, entry: Any = None) -> Iterator[Event]:
    """The conversation's events in index order; ``entry`` is the entry's parsed JSON when the
    entry is itself an event file (already read through the source)."""
    roots = [conversation.folder]
    expected = 0
    seen: set[int] = set()
    for index, path in conversation.files():
        accounting.native_items += 1
        if index in seen:  # two files, one index: the SDK keeps the last os.listdir gives; we keep the first by name
            accounting.duplicates += 1
            accounting.diagnostics.append(
                Diagnostic(str(path), None, f"a second event file with index {index}: skipped")
            )
            continue
        seen.add(index)
        if index != expected:
            accounting.diagnostics.append(
                Diagnostic(str(path), None, f"event index gap: {expected} to {index - 1} missing (read on)")
            )
        expected = index + 1
        value = (
            entry if entry is not None and path == conversation.entry else read_json(path, roots, accounting, "event")
        )
        if not isinstance(value, dict):
            accounting.unreadable += 1
            if value is not None:
                accounting.diagnostics.append(Diagnostic(str(path), None, "event file is not a JSON object"))
            continue
        yield Event(index, path.name, value)
