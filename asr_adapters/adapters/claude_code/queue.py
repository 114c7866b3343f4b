"""The input queue (``queue-operation`` lines): what was typed, or arrived, while Claude worked.

What each operation means comes from Claude Code's queue (``messageQueueManager``):
``enqueue`` puts an input in the queue; ``dequeue`` takes it out to run as the next turn (a
user line with its text follows); ``remove`` takes out inputs the running turn consumed:
the agent loop drains the queue between tool rounds and sends each queued prompt or task
notification to the model inside the turn (steering), then logs one ``remove`` per input;
``popAll`` pulls editable inputs back into the prompt box (Up / Esc), so they never reach the
model. Clearing the queue on cancel logs nothing.

Items are paired by content, not first-in-first-out: a dequeue pairs with the user line that
follows, matched by text; a ``remove`` names its text in newer builds. One input becomes one
record at the line that decided its fate: the user line that delivered it, a ``queued_command``
attachment, a steering message at its ``remove``, or a withdrawn message at its ``popAll``.
Held: the inputs still in the queue (a handful), the dequeue lines waiting for their user
line, and removed inputs until the next model response (a ``queued_command`` attachment of
the same input may still come and is then the record).
"""

from __future__ import annotations

from typing import Any

import orjson

from ...core.valueclass import field, valueclass
from .host import BuilderHost
from .info import opened
from .parts import move_writer, user_parts

#: The writer of input the person queued while the agent was busy, delivered as the next turn.
QUEUED = ("human", "queued")
#: The writer of input delivered into a running turn.
STEER = ("human", "steer")
#: Inputs held in the queue at most, and the bytes of their contents at most (pasted images
#: are large): past either, the oldest are written as the vendor lines they are. This, not a
#: line count, bounds the wait: an input queued during a long turn is delivered after it, however
#: many lines the turn takes (issue 27.3).
PENDING_LIMIT = 64
PENDING_BYTES = 1 << 20
#: Lines an input waits once the agent is idle (a turn that ended hands the queue out at once).
IDLE_WAIT = 16


@valueclass
class Item:
    """One enqueued input and the queue lines that moved it."""

    line: int
    enqueue: dict[str, Any]
    #: Whether the agent was busy: a turn was running at the enqueue, or ran before the dequeue.
    busy: bool
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: Prompts typed past this item that were not delivered from the queue.
    age: int = 0
    #: The first line at which the agent was idle while this item waited (None: not yet).
    #: Once idle the clock runs: an idle agent hands the queue out at once.
    idle_since: int | None = None
    #: The size of its content, for the queue's byte bound.
    size: int = 0

    @property
    def content(self) -> Any:
        return self.enqueue.get("content")

    @property
    def notification(self) -> bool:
        content = self.content
        return isinstance(content, str) and content.startswith("<task-notification>")

    def lines(self) -> list[tuple[int, dict[str, Any]]]:
        return [(self.line, self.enqueue), *self.moves]


class Queue:
    def __init__(self) -> None:
        self.pending: list[Item] = []
        #: Dequeue lines waiting for the user line that delivers what they took.
        self.dequeues: list[tuple[int, dict[str, Any]]] = []
        #: Consumed by the running turn, waiting for a ``queued_command`` of the same input.
        self.removed: list[Item] = []
        #: Contents a ``queued_command`` delivered before their ``remove`` line was written.
        self.delivered: list[Any] = []
        #: Inputs a ``popAll`` withdrew (with that line and their writer), waiting for the next
        #: conversation line so that their messages go on the path before it (ASR-225).
        self.withdrawn: list[tuple[Item, dict[str, Any], tuple[str, str]]] = []

    def enqueue(self, line: int, obj: dict[str, Any], busy: bool) -> list[Item]:
        """Queue an input; returns the oldest ones while the queue is over its limits."""
        content = obj.get("content")
        size = len(content) if isinstance(content, str) else len(orjson.dumps(content, default=str))
        pending = self.pending
        pending.append(Item(line, obj, busy, idle_since=None if busy else line, size=size))
        dropped: list[Item] = []
        while len(pending) > 1 and (len(pending) > PENDING_LIMIT or sum(i.size for i in pending) > PENDING_BYTES):
            dropped.append(pending.pop(0))
        return dropped

    def mark_busy(self) -> None:
        """The agent worked (a response, a tool result): everything queued waited for it."""
        for item in self.pending:
            item.busy = True

    def expired(self, line: int, busy: bool) -> list[Item]:
        """Inputs no queue operation or user line resolved in time (cleared on cancel, or a
        trimmed file): ``IDLE_WAIT`` lines after the agent went idle. While a turn runs an
        input waits for it to end (the queue is handed out then), bounded by the queue's
        size, not by lines."""
        kept: list[Item] = []
        dropped: list[Item] = []
        for item in self.pending:
            if not busy and item.idle_since is None:
                item.idle_since = line
            idle = item.idle_since is not None and line > item.idle_since + IDLE_WAIT
            (dropped if idle else kept).append(item)
        self.pending = kept
        return dropped

    def _find(self, content: Any) -> int | None:
        for i, item in enumerate(self.pending):
            if _same(item.content, content):
                return i
        return None

    def take_for_line(self, content: Any) -> Item | None:
        """The queued input a user line delivers: the one with its text, else (after a dequeue)
        the first queued prompt. The dequeue lines waiting go with it."""
        index = self._find(content)
        if index is None and self.dequeues:
            index = self.first()
        if index is None:
            return None
        item = self.pending.pop(index)
        if self.dequeues:
            item.moves.append(self.dequeues.pop(0))
        return item

    def remove(self, line: int, obj: dict[str, Any]) -> Item | str | None:
        """The input a ``remove`` line takes out; ``"delivered"`` when a ``queued_command``
        already delivered it."""
        content = obj.get("content")
        if content is not None:
            index = self._find(content)
            if index is None:
                if content in self.delivered:
                    self.delivered.remove(content)
                    return "delivered"
                return None
        elif self.delivered:
            self.delivered.pop(0)
            return "delivered"
        else:
            index = self.first()
        if index is None:
            return None
        item = self.pending.pop(index)
        item.moves.append((line, obj))
        return item

    def first(self) -> int | None:
        """The input the queue hands out next: prompts before task notifications (upstream's
        priorities ``next`` before ``later``), first in first out within each."""
        for i, item in enumerate(self.pending):
            if not item.notification:
                return i
        return 0 if self.pending else None

    def pop_all(self, line: int, obj: dict[str, Any]) -> list[Item]:
        """Inputs a ``popAll`` line pulls back into the prompt box: the one with its text, or
        (no text) every queued prompt; task notifications are not editable and stay."""
        content = obj.get("content")
        if content is not None:
            index = self._find(content)
            taken = [self.pending.pop(index)] if index is not None else []
        else:
            taken = [item for item in self.pending if not item.notification]
            self.pending = [item for item in self.pending if item.notification]
        if taken:
            taken[0].moves.append((line, obj))
        return taken

    def take_pending(self, prompt: Any) -> Item | None:
        """A ``queued_command`` delivering an input still queued (its ``remove`` follows)."""
        index = self._find(prompt)
        if index is None:
            return None
        item = self.pending.pop(index)
        self.delivered.append(item.content)
        return item

    def take_removed(self, prompt: Any) -> Item | None:
        """The removed input a ``queued_command`` attachment delivers (same text), if any."""
        for i, item in enumerate(self.removed):
            if _same(item.content, prompt):
                return self.removed.pop(i)
        return None

    def orphans(self) -> list[Item]:
        """Inputs a prompt typed past them shows were cleared: queued prompts at once, task
        notifications (which wait behind prompts) after a second prompt."""
        kept: list[Item] = []
        dropped: list[Item] = []
        for item in self.pending:
            item.age += 1
            (dropped if not item.notification or item.age >= 2 else kept).append(item)
        self.pending = kept
        return dropped


class QueueMixin(BuilderHost):
    """The builder's queue-operation lines. Needs the builder's ``queue``, ``out``, ``info``,
    ``busy`` and ``_vendor`` (host.py)."""

    def _queue_op(self, line: int, obj: dict[str, Any]) -> None:
        op = obj.get("operation")
        queue = self.queue
        if op == "enqueue":
            for dropped in queue.enqueue(line, obj, self.busy):
                self._vendor_item(dropped)
            return
        if op == "dequeue":
            if len(queue.dequeues) < len(queue.pending):  # it takes out a queued input: held with it
                queue.dequeues.append((line, obj))
                return
            # nothing left for it to take out: a vendor record now, in file order (profile §2)
        elif op == "remove":
            moved = queue.remove(line, obj)
            if moved == "delivered":
                self.out.acc.folded += 1
                return
            if isinstance(moved, Item):
                queue.removed.append(moved)
                return
        if op == "popAll":
            taken = queue.pop_all(line, obj)
            for item in taken:
                queue.withdrawn.append((item, obj, ("human", "queued" if item.busy else "prompt")))
            if taken:
                return
        self._vendor(obj, "queue-operation")

    def _flush_dequeues(self) -> None:
        """Dequeue lines no user line followed: kept as the vendor lines they are, with the
        input each took out."""
        queue = self.queue
        while queue.dequeues:
            index = queue.first()
            if index is not None:
                self._vendor_item(queue.pending.pop(index))
            self._vendor(queue.dequeues.pop(0)[1], "queue-operation")

    def _release_removed(self, continued: Any = None) -> None:
        """Inputs the running turn consumed and no ``queued_command`` carried: each a message
        delivered into the turn (origin steer), with its ``remove`` line's time. ``continued``:
        the ``parentUuid`` of the line about to be handled (the response that acted on them):
        the messages go on the conversation path before it (issue 27.2)."""
        removed = self.queue.removed
        while removed:
            item = removed.pop(0)
            self._queue_message(item, item.moves[-1][1], STEER, None, continued)

    def _release_withdrawn(self, continued: Any = None) -> None:
        """Inputs a ``popAll`` withdrew: each a message ``status: withdrawn`` with the popAll
        line's time, on the conversation path before the line about to be handled (whose
        ``parentUuid`` is ``continued``): a withdrawn message stays on the active path (ASR-225)."""
        withdrawn = self.queue.withdrawn
        while withdrawn:
            item, at, who = withdrawn.pop(0)
            self._queue_message(item, at, who, "withdrawn", continued)

    def _flush_orphans(self) -> None:
        for item in self.queue.orphans():
            self._vendor_item(item)

    def _flush_expired(self, line: int) -> None:
        for item in self.queue.expired(line, self.busy):
            self._vendor_item(item)

    def _vendor_item(self, item: Item) -> None:
        for _line, obj in item.lines():
            self._vendor(obj, "queue-operation")

    def _queue_message(
        self, item: Item, at: dict[str, Any], who: tuple[str, str], status: str | None, continued: Any = None
    ) -> None:
        """The message of a queued input whose own lines decided its fate (ASR-225); on the
        path after the record of line ``continued`` (a uuid) when given."""
        record = opened("message", at.get("timestamp"))
        session = self.info.session_id
        record["messageId"] = f"{session}:enqueue-L{item.line}"
        record["role"] = "user"
        parts = user_parts(item.content, who)
        move_writer(record, parts)
        if status is not None:
            record["status"] = status
        record["content"] = parts
        record["idSource"] = "derived"
        record["assembly"] = {"mode": "folded", "sourceIds": queue_line_ids(session, item)}
        self._splice(record, continued)
        self.out.acc.records += 1
        self.out.acc.folded += len(item.moves)


def queue_line_ids(session: str, item: Item) -> list[str]:
    """The ids of an item's queue lines (they have no uuid: their line numbers)."""
    return [f"{session}:L{n}" for n, _ in item.lines()]


def _same(queued: Any, prompt: Any) -> bool:
    if queued == prompt:
        return True
    if isinstance(prompt, list) and isinstance(queued, str):
        texts = [b.get("text") for b in prompt if isinstance(b, dict) and b.get("type") == "text"]
        return queued in texts
    return False
