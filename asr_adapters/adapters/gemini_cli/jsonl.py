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
(see ``Mapper`` for when that holds). Memory: per message id its fingerprint and place in the
history, per place its message id, and the written identities (see ``identities``), all in
``SpillMap``s, so bounded rather than growing with the file; never the messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...core.adapter import Context, Emitter, Stream
from ...core.errors import InputError
from ...core.items import names
from ...core.source import Source
from ...core.spill import SpillMap
from . import discover
from .copies import align_from_end, copy_key, is_harness_turn, starts_burst
from .identities import native_digest
from .mapping import Mapper
from .placeholders import fold, is_placeholder, repeats

#: positions in a ``Replay.known`` entry (after the fingerprint and the place)
KEY, ROOT, BECAME = 2, 3, 4
_NOTHING: tuple[Any, ...] = (None, None, None, None, ())

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


#: Members a line is dispatched on by name (``core.items``): an array or object there is one
#: unreadable line.
DISPATCH = names("type", "id")


def convert_jsonl(adapter: GeminiCliAdapter, source: Source, context: Context) -> Iterator[Stream]:
    from .adapter import session_header

    lines = context.parsed_lines(DISPATCH)
    first = next(lines, None)
    if first is None:
        raise InputError(source.display, "no readable line: not a Gemini CLI session")
    meta = first[1] if is_header(first[1]) else {}
    record, session_id, subagent = session_header(meta, source, "jsonl", discover.stem(source.name))
    yield Stream(record["session"], _records(adapter, context, lines, first, record, session_id, subagent))


class Replay:
    """The replayed history (message ids in Gemini's order) and the lines that change it.

    The history is a run of places ``first`` .. ``end - 1``: ``order`` names the message at
    each place, ``known`` gives each message id seen its place (None, or a place before
    ``first``: it left the history). A rewind cuts the run's tail, a history reset starts a
    new run after it; both name what left, in order, so nothing has to be kept beyond the
    ids themselves, and both maps spill to disk when they grow.
    """

    def __init__(self, mapper: Mapper) -> None:
        self.mapper = mapper
        #: message id -> (a hash of its last native version and the mapper's epoch, or None:
        #: never skipped; its place in the history; its copy key; the message it copies or
        #: None; the seqs of the records it stands for), so an unchanged message is not
        #: mapped again, copies are told (``copies``) and removals name records. One map, so
        #: that per-id state stays one bounded dict.
        self.known = SpillMap()
        self.order = SpillMap()
        self.first = 0
        self.end = 0
        #: in a run of re-recorded history: the place of the next message it copies, and
        #: where the history ended when the run began
        self.run: int | None = None
        self.run_end = 0
        #: a reply's empty versions not yet written (``placeholders``): (native message, its
        #: line's digest), all of one message id; how many lines ended folded or vendor
        self.held: list[tuple[dict[str, Any], int | None]] = []
        self.folded = 0
        self.flushed_vendor = 0
        self.flushed_duplicates = 0
        #: whether the line just read was held (its outcome comes later), and how many of the
        #: records it returned are held versions written first (their outcomes counted apart)
        self.holding = False
        self.prefix = 0

    def line(self, number: int, value: Any, raw: bytes = b"") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self.holding = False
        self.prefix = 0
        if type(value) is dict and isinstance(value.get("id"), str) and not isinstance(value.get("$rewindTo"), str):
            where = "" if value["id"] else f"line{number}"
            native = hash(raw) if raw else None
            copied = self._burst(value)
            held = self.held
            if held and held[0][0]["id"] != value["id"]:
                self.flush(out)
            if copied is None and is_placeholder(value) and value["id"] not in self.known:
                held.append((value, native))
                self.holding = True
                return out
            if held and not all(repeats(h, value) for h, _ in held):
                self.flush(out)
            records = self.message(value, where, native=native, copied=copied)
            if held:
                fold(records, value["id"])
                self.folded += len(held)
                held.clear()
            out.extend(records)
            return out
        if not (type(value) is dict and isinstance(value.get("$set"), dict) and "messages" not in value["$set"]):
            self.run = None  # a metadata line (lastUpdated after each message) does not end a run
            self.flush(out)  # a rewind, reset or other line: a held reply is written first
        if type(value) is not dict:
            self.mapper.put_vendor("line", value, out)
        elif isinstance(value.get("$rewindTo"), str):
            self.rewind(value, out)
        elif isinstance(value.get("$set"), dict):
            self.set(number, value, out)
        elif is_header(value):
            self.mapper.put_vendor("metadata", value, out)
            self.initial(number, value, out)
        else:
            self.mapper.put_vendor("line", value, out)
        return out

    def flush(self, out: list[dict[str, Any]]) -> None:
        """Write the held empty versions of a reply as they would have been written."""
        for msg, native in self.held:
            records = self.message(msg, "", native=native)
            if records:
                self.flushed_vendor += 1
            else:
                self.flushed_duplicates += 1
            out.extend(records)
        self.held.clear()
        self.prefix = len(out)

    def _burst(self, msg: dict[str, Any]) -> str | None:
        """The message a new-id line copies when it continues (or opens) a run of history
        recorded again (``setHistory``: the environment turn first, then the rest in order)."""
        message_id = msg["id"]
        if not message_id or message_id in self.known:
            self.run = None
            return None
        place = self.run
        if place is None:
            if not starts_burst(msg):
                return None
            place, self.run_end = self.first, self.end
        order, known = self.order, self.known
        entry = original = None
        while place < self.run_end:  # the next message of the history that has a copy key
            original = order.get(place)
            entry = None if original is None else known.get(original)
            if entry is not None and entry[KEY] is not None:
                break
            place += 1
        if entry is None or original is None or entry[KEY] is None or entry[KEY] != copy_key(msg):
            self.run = None
            return None
        self.run = place + 1
        return str(entry[ROOT] or original)

    def message(
        self,
        msg: dict[str, Any],
        position: str,
        removed: bool | None = None,
        native: int | None = None,
        copied: str | None = None,
    ) -> list[dict[str, Any]]:
        """``native``: a digest of the message as written (its line's bytes, or one dump);
        ``copied``: the id of the message it copies (see ``copies``)."""
        message_id = msg["id"]
        known = self.known
        entry = known.get(message_id)
        previous = place = None
        if entry is not None:
            previous, place = entry[0], entry[1]
            if place is not None and place < self.first:
                place = None  # it left the history at a reset
        if removed is None:
            removed = entry is not None and place is None
        if place is None:  # new to the history: it goes to the end
            place = self.end
            self.order[place] = message_id
            self.end = place + 1
        mapper = self.mapper
        if copied is None and message_id:  # a copy stays one when it is written again
            copied = None if entry is None else entry[ROOT]
        unchanged = previous is not None and native is not None and previous == hash((native, mapper.epoch))
        if unchanged and message_id and not removed:
            if entry[1] != place:
                known[message_id] = (previous, place, *entry[KEY:])
            return []  # as mapped last time, and nothing it reads changed: all repeats
        # a message that comes back after a rewind or reset is written again, even if unchanged
        out = mapper.message(msg, position, force=removed, copied_from=copied)
        stable = native is not None and bool(message_id) and not mapper.volatile
        fingerprint = hash((native, mapper.epoch)) if stable else None
        key = copy_key(msg) if message_id else None
        known[message_id] = (fingerprint, place, key, copied, tuple(mapper.touched))
        return out

    def _reverted(self, removed: list[str], standing: set[int] | None = None) -> list[str]:
        """The ids of the records that the messages which left the history stand for, in
        history order, less those the history still stands for (a message that repeated an
        earlier record, such as a function-response turn, stands for nothing of its own)."""
        known = self.known
        seqs: list[int] = []
        for message_id in removed:
            seqs.extend(known.get(message_id, _NOTHING)[BECAME])
        return [f"r{seq}" for seq in dict.fromkeys(seqs) if not standing or seq not in standing]

    def _place(self, message_id: str) -> int | None:
        """The message's place in the history, or None when it is not in it."""
        entry = self.known.get(message_id)
        place = None if entry is None else entry[1]
        return None if place is None or place < self.first else place

    def rewind(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        place = self._place(value["$rewindTo"])
        cut = self.first if place is None else place
        known, order = self.known, self.order
        removed = []
        for at in range(cut, self.end):
            message_id = order.pop(at)
            removed.append(message_id)
            entry = known[message_id]
            known[message_id] = (entry[0], None, *entry[KEY:])
        self.end = cut
        self.mapper.put_vendor("rewind", value, out, reverted=self._reverted(removed))

    def set(self, number: int, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        summary = value["$set"].get("summary")
        # a later title: the header is already written, so this record revises it (latest wins)
        title = {"title": summary} if isinstance(summary, str) else {}
        messages = value["$set"].get("messages")
        if not isinstance(messages, list):
            self.mapper.put_vendor("set", value, out, **title)
            return
        entries = [m for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)]
        kept = {m["id"] for m in entries}
        known = self.known
        # entries never seen before: compression's copies of the latest turns have new ids
        fresh = [
            (index, None if is_harness_turn(m) else copy_key(m))
            for index, m in enumerate(entries)
            if m["id"] and m["id"] not in known
        ]
        replaced: list[tuple[str, int | None, str | None]] = []
        order = self.order
        removed = []
        stayed = set()  # ids of the replaced history that the new one keeps
        for at in range(self.first, self.end):
            message_id = order.pop(at)
            if message_id in kept:
                stayed.add(message_id)
            else:
                removed.append(message_id)
            if fresh:
                entry = known.get(message_id, _NOTHING)
                replaced.append((message_id, entry[KEY], entry[ROOT]))
        copies = align_from_end(replaced, fresh) if fresh else {}
        self.first = self.end  # a new, empty history
        for index, msg in enumerate(entries):
            message_id = msg["id"]
            back = message_id not in stayed and message_id in known  # seen, but not in the replaced history
            native = None if back else native_digest(msg)
            where = "" if message_id else f"line{number}.messages[{index}]"
            out.extend(self.message(msg, where, removed=back, native=native, copied=copies.get(index)))
        # after the new history, so that what it still stands for (a call a copy holds) stays
        standing = {seq for m in entries for seq in known.get(m["id"], _NOTHING)[BECAME]}
        self.mapper.put_vendor("set", value, out, **title, reverted=self._reverted(removed, standing))

    def initial(self, number: int, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """A header that carries a whole legacy record on one line: its messages, in order."""
        messages = value.get("messages")
        for index, msg in enumerate(messages if isinstance(messages, list) else ()):
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                where = "" if msg["id"] else f"line{number}.messages[{index}]"
                out.extend(self.message(msg, where, native=native_digest(msg)))


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
    mapper = Mapper(emit, adapter.registry_name, session_id, subagent)
    replay = Replay(mapper)
    if first is not None and is_header(first[1]):
        out: list[dict[str, Any]] = []  # the header line is the session record (its members under meta)
        replay.initial(first[0], first[1], out)
        accounting.records += 1  # the header line became the session record
        yield from out
    elif first is not None:
        out = replay.line(*first)  # no header line: the session id comes from the file name
        if not replay.holding:  # a held line's outcome is counted when it is folded or written
            outcome(accounting, out)
        yield from out
    line = replay.line
    for number, value, raw in lines:
        out = line(number, value, raw)
        own = out[replay.prefix :] if replay.prefix else out  # without held versions written first
        if not own:
            if not replay.holding:
                accounting.duplicates += 1  # ``outcome``, inlined: this loop runs once per line
            yield from out
            continue
        for record in own:
            if record["type"] != "vendor":
                accounting.records += 1
                break
        else:
            accounting.vendor += 1
        yield from out
    out = []
    replay.flush(out)  # an aborted reply's empty versions, at the end of the file
    yield from out
    # the held lines' outcomes: folded into a later version's record, or written as vendor
    accounting.folded += replay.folded
    accounting.vendor += replay.flushed_vendor
    accounting.duplicates += replay.flushed_duplicates
