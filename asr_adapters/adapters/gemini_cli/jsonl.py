"""The JSONL era (v0.39+): replay the event log line by line, in file order.

Line kinds, classified in the order Gemini CLI's own reader uses: ``{"$rewindTo": id}``
(drop that message and everything after it; an unknown id drops everything), a message
(a string ``id``: new, or a replacement of the earlier message with that id, which keeps
its place), ``{"$set": {...}}`` (metadata; ``$set.messages`` replaces the whole history),
and the header (``sessionId`` + ``projectHash``).

Nothing is re-ordered or dropped: a replaced message gets a revision (``supersedes``), a
rewind or history reset is a ``vendor`` record naming the messages that left the replayed
history, and those messages' records keep their place. A message exactly as when it was
last mapped (its line's bytes, or one dump of a ``$set.messages`` entry) is not mapped again
(see ``Mapper`` for when that holds). Memory: the replayed history's message ids, one int per
message id and per written identity, never the messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...core.adapter import Context, Emitter, Stream
from ...core.errors import InputError
from ...core.source import Source
from . import discover
from .mapping import Mapper, native_digest

if TYPE_CHECKING:
    from .adapter import GeminiCliAdapter


def is_header(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
        and not isinstance(value.get("$rewindTo"), str)
        and not isinstance(value.get("id"), str)
        and not isinstance(value.get("$set"), dict)
    )


def convert_jsonl(adapter: GeminiCliAdapter, source: Source, context: Context) -> Iterator[Stream]:
    from .adapter import session_header

    lines = context.parsed_lines()
    first = next(lines, None)
    if first is None:
        raise InputError(source.display, "no readable line: not a Gemini CLI session")
    meta = first[1] if is_header(first[1]) else {}
    record, session_id, subagent = session_header(meta, source, "jsonl", discover.stem(source.name))
    yield Stream(record["session"], _records(adapter, context, lines, first, record, session_id, subagent))


class Replay:
    """The replayed history (message ids in Gemini's order) and the lines that change it."""

    def __init__(self, adapter: GeminiCliAdapter, mapper: Mapper) -> None:
        self.adapter = adapter
        self.mapper = mapper
        self.history: dict[str, None] = {}
        #: every message id seen -> a hash of its last native version and the mapper's epoch
        #: (None: never skipped), so an unchanged message is not mapped again
        self.known: dict[str, int | None] = {}

    def line(self, number: int, value: Any, raw: bytes = b"") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not isinstance(value, dict):
            self.mapper.put_vendor("line", value, out)
        elif isinstance(value.get("$rewindTo"), str):
            self.rewind(value, out)
        elif isinstance(value.get("id"), str):
            out = self.message(value, f"line{number}", native=hash(raw) if raw else None)
        elif isinstance(value.get("$set"), dict):
            self.set(number, value, out)
        elif is_header(value):
            self.mapper.put_vendor("metadata", value, out)
            self.initial(number, value, out)
        else:
            self.mapper.put_vendor("line", value, out)
        return out

    def message(
        self, msg: dict[str, Any], position: str, removed: bool | None = None, native: int | None = None
    ) -> list[dict[str, Any]]:
        """``native``: a digest of the message as written (its line's bytes, or one dump)."""
        message_id = msg["id"]
        known = self.known
        if removed is None:
            removed = message_id in known and message_id not in self.history
        self.history[message_id] = None
        mapper = self.mapper
        if native is not None and message_id and not removed and known.get(message_id) == hash((native, mapper.epoch)):
            return []  # as mapped last time, and nothing it reads changed: all repeats
        # a message that comes back after a rewind or reset is written again, even if unchanged
        out = mapper.message(msg, position, force=removed)
        stable = native is not None and bool(message_id) and not mapper.volatile
        known[message_id] = hash((native, mapper.epoch)) if stable else None
        return out

    def rewind(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        target = value["$rewindTo"]
        ids = list(self.history)
        index = ids.index(target) if target in self.history else 0
        removed = ids[index:]
        for message_id in removed:
            del self.history[message_id]
        self.mapper.put_vendor("rewind", value, out, removedMessageIds=removed)

    def set(self, number: int, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        messages = value["$set"].get("messages")
        if not isinstance(messages, list):
            self.mapper.put_vendor("set", value, out)
            return
        entries = [m for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)]
        kept = {m["id"] for m in entries}
        removed = [i for i in self.history if i not in kept]
        self.mapper.put_vendor("set", value, out, removedMessageIds=removed)
        before = self.history
        self.history = {}
        for index, msg in enumerate(entries):
            back = msg["id"] in self.known and msg["id"] not in before
            native = None if back else native_digest(msg)
            out.extend(self.message(msg, f"line{number}.messages[{index}]", removed=back, native=native))

    def initial(self, number: int, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """A header that carries a whole legacy record on one line: its messages, in order."""
        messages = value.get("messages")
        for index, msg in enumerate(messages if isinstance(messages, list) else ()):
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                out.extend(self.message(msg, f"line{number}.messages[{index}]", native=native_digest(msg)))


def _records(
    adapter: GeminiCliAdapter,
    context: Context,
    lines: Iterator[tuple[int, Any, bytes]],
    first: tuple[int, Any, bytes] | None,
    head: dict[str, Any],
    session_id: str,
    subagent: bool,
) -> Iterator[dict[str, Any]]:
    from .adapter import outcome

    accounting = context.accounting
    emit = Emitter(accounting)
    yield emit(head)
    mapper = Mapper(emit, adapter.vendor, session_id, subagent)
    replay = Replay(adapter, mapper)
    if first is not None and is_header(first[1]):
        out: list[dict[str, Any]] = []  # the header line is the session record (its members under meta)
        replay.initial(first[0], first[1], out)
        accounting.records += 1  # the header line became the session record
        yield from out
    elif first is not None:
        out = replay.line(*first)  # no header line: the session id comes from the file name
        outcome(accounting, out)
        yield from out
    for number, value, raw in lines:
        out = replay.line(number, value, raw)
        outcome(accounting, out)
        yield from out
