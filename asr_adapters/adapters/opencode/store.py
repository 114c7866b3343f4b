"""One OpenCode session as the mapper reads it, whichever store it comes from.

Every store gives the same three things: the session's info (``Session.Info``), its messages
in native order, each with its parts (``MessageV2.Info`` and ``MessageV2.Part``, ids put back
from file names or columns), and the stored todo list. A message's parts are held only while
that message is mapped, so memory is bounded by the largest message, not the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from ...core import items
from ...core.adapter import Context
from ...core.items import misplaced, names
from ...core.lenient import REPLACED


@dataclass
class NativeMessage:
    """A message with its id put back, and its parts (each with its id and messageID)."""

    info: dict[str, Any]
    parts: list[dict[str, Any]] = field(default_factory=list)
    #: False when the message's own item was unreadable (already counted): only its parts are mapped.
    outcome_due: bool = True
    #: part id -> the store's own time for the part (the database's ``time_created``)
    part_times: dict[str, int] = field(default_factory=dict)


class SessionStore(Protocol):
    """What a store gives the mapper for one session."""

    format: str
    variant: str
    file: str
    info: dict[str, Any]

    def messages(self) -> Iterator[NativeMessage]: ...

    def todos(self) -> tuple[list[Any] | None, int | None]:
        """The stored todo list (None when there is none) and when it was last written."""
        ...


#: Members a message or a part is dispatched on by name (``core.items``): an array or object
#: there makes it one unreadable item.
MESSAGE_NAMES = names("role", "id")
PART_NAMES = names("type", "id", "tool", "callID")


def readable(native: NativeMessage, where: str, context: Context) -> NativeMessage:
    """``native`` without the parts whose names are arrays or objects (each one unreadable item,
    reported); a message whose own names are is unreadable too, its parts still mapped."""
    parts = []
    for part in native.parts:
        problem = misplaced(part, PART_NAMES)
        if problem is None:
            parts.append(part)
        else:
            context.unreadable(None, f"{where}: a part unreadable: {problem}; skipped")
    info = native.info
    if native.outcome_due and (problem := misplaced(info, MESSAGE_NAMES)) is not None:
        context.unreadable(None, f"{where}: message unreadable: {problem}; only its parts converted")
        ids = {k: info[k] for k in ("id", "sessionID") if isinstance(info.get(k), str)}
        return NativeMessage(ids, parts, outcome_due=False, part_times=native.part_times)
    if len(parts) == len(native.parts):
        return native
    return NativeMessage(info, parts, native.outcome_due, native.part_times)


def parse_object(data: bytes | str, what: str, context: Context) -> dict[str, Any] | None:
    """A stored JSON object, or None (counted unreadable, with a warning naming ``what``)."""
    value = parse_stored(data, what, context, dict)
    return value if isinstance(value, dict) else None


def parse_stored(data: bytes | str, what: str, context: Context, kind: type) -> Any:
    """A stored JSON value of type ``kind`` (object or array), or None (counted unreadable,
    with a warning naming ``what``)."""
    repaired = False
    try:
        value, repaired = items.loads(data)
    except orjson.JSONDecodeError as exc:
        value = exc
    if isinstance(value, kind):
        if repaired:
            context.warn(None, f"{what}: {REPLACED}")
        return value
    shape = "a JSON object" if kind is dict else "a JSON array"
    reason = f"not JSON ({value})" if isinstance(value, Exception) else f"not {shape}"
    context.accounting.unreadable += 1
    context.warn(None, f"{what}: {reason}; skipped")
    return None


def with_ids(data: dict[str, Any], **ids: str) -> dict[str, Any]:
    """``data`` with OpenCode's id members first, taken from the store's names (a file's name
    or a row's columns), which win over any copy inside the body (OpenCode's own rule: earlier
    migrations moved files without updating their bodies)."""
    rebuilt: dict[str, Any] = dict(ids)
    for key, value in data.items():
        if key not in ids:
            rebuilt[key] = value
    return rebuilt
