"""The input queue (``queue-operation`` lines): what the person typed while Claude worked.

``enqueue`` puts text in the queue; ``dequeue`` submits it as the next user line;
``remove`` / ``popAll`` take it out without a user line. The queue items are held here
until their fate is known, so one typed input becomes one record (ASR-225): the user line
or ``queued_command`` attachment that delivered it, or a withdrawn message. Held: the items
still in the queue, a handful at most.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .info import base
from .parts import move_writer, user_parts

#: The writer of input delivered from the queue.
QUEUED = ("human", "queued")


@dataclass
class Item:
    """One enqueued input and the lines that moved it."""

    line: int
    enqueue: dict[str, Any]
    moves: list[dict[str, Any]] = field(default_factory=list)

    @property
    def content(self) -> Any:
        return self.enqueue.get("content")


class Queue:
    def __init__(self) -> None:
        self.pending: deque[Item] = deque()
        #: Dequeued, waiting for the user line that delivers them.
        self.dequeued: list[Item] = []
        #: Removed, waiting for a ``queued_command`` that delivers them (else withdrawn).
        self.removed: list[Item] = []
        #: Delivered by a ``queued_command`` before their ``remove`` line was written.
        self.delivered: list[Any] = []

    def enqueue(self, line: int, obj: dict[str, Any]) -> None:
        self.pending.append(Item(line, obj))

    def dequeue(self, obj: dict[str, Any]) -> bool:
        if not self.pending:
            return False
        item = self.pending.popleft()
        item.moves.append(obj)
        self.dequeued.append(item)
        return True

    def remove(self, obj: dict[str, Any]) -> bool | str:
        """Move an item to ``removed``; ``"delivered"`` when a ``queued_command`` already
        delivered the item this line removes."""
        content = obj.get("content")
        if self.delivered and (content is None or content in self.delivered):
            if content in self.delivered:
                self.delivered.remove(content)
            else:
                self.delivered.pop(0)
            return "delivered"
        if not self.pending:
            return False
        index = 0
        if content is not None:
            for i, item in enumerate(self.pending):
                if item.content == content:
                    index = i
                    break
        item = self.pending[index]
        del self.pending[index]
        item.moves.append(obj)
        self.removed.append(item)
        return True

    def pop_all(self, obj: dict[str, Any]) -> bool:
        if not self.pending:
            return False
        first = True
        while self.pending:
            item = self.pending.popleft()
            if first:
                item.moves.append(obj)
                first = False
            self.removed.append(item)
        return True

    def take_pending(self, prompt: Any) -> bool:
        """A ``queued_command`` delivering an item still in the queue (its remove follows)."""
        for i, item in enumerate(self.pending):
            if _same(item.content, prompt):
                del self.pending[i]
                self.delivered.append(item.content)
                return True
        return False

    def take_removed(self, prompt: Any) -> Item | None:
        """The removed item a ``queued_command`` attachment delivers (same text), if any."""
        for i, item in enumerate(self.removed):
            if _same(item.content, prompt):
                return self.removed.pop(i)
        return None


class QueueMixin:
    """The builder's queue-operation lines: held items, flushed as vendor records or withdrawn
    messages. Needs the builder's ``queue``, ``out``, ``info`` and ``_vendor``."""

    queue: Queue
    out: Any
    info: Any

    if TYPE_CHECKING:

        def _vendor(self, obj: Any, kind: str) -> None: ...

    def _queue_op(self, line: int, obj: dict[str, Any]) -> None:
        op = obj.get("operation")
        queue = self.queue
        if op == "enqueue":
            queue.enqueue(line, obj)
            return
        if op == "dequeue" and queue.dequeue(obj):
            return
        if op == "remove":
            moved = queue.remove(obj)
            if moved == "delivered":
                self.out.acc.folded += 1
            if moved:
                return
        if op == "popAll" and queue.pop_all(obj):
            return
        self._vendor(obj, "queue-operation")

    def _flush_dequeued(self) -> None:
        """Dequeued input no user line delivered: kept as the vendor lines they are."""
        for item in self.queue.dequeued:
            self._vendor(item.enqueue, "queue-operation")
            for move in item.moves:
                self._vendor(move, "queue-operation")
        self.queue.dequeued.clear()

    def _flush_removed(self) -> None:
        """Input removed from the queue and never delivered: a withdrawn message (ASR-225)."""
        for item in self.queue.removed:
            self._withdrawn(item)
        self.queue.removed.clear()

    def _withdrawn(self, item: Item) -> None:
        obj = item.enqueue
        parts = user_parts(obj.get("content"), QUEUED)
        record = base("message", obj)
        record["messageId"] = f"{self.info.session_id}:enqueue-L{item.line}"
        record["role"] = "user"
        move_writer(record, parts)
        record["status"] = "withdrawn"
        record["content"] = parts
        record["idSource"] = "derived"
        self.out.put(record)
        self.out.acc.records += 1
        self.out.acc.folded += len(item.moves)


def _same(queued: Any, prompt: Any) -> bool:
    if queued == prompt:
        return True
    if isinstance(prompt, list) and isinstance(queued, str):
        texts = [b.get("text") for b in prompt if isinstance(b, dict) and b.get("type") == "text"]
        return queued in texts
    return False
