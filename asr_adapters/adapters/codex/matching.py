"""Pairing ``event_msg`` mirrors with the response items they duplicate.

Codex writes a UI event (``agent_message``, ``agent_reasoning`` …) next to most response
items, usually just before it, sometimes after. An event is dropped as a counted duplicate
when an item of its kind takes it; an event no item takes is the only record of what it
says, so it becomes a record itself when its turn ends. Pairing prefers equal text and
falls back to order (sanitised files rewrite the two copies differently).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any


class MirrorMatcher:
    """Two queues: events waiting for an item, and item texts waiting for an event."""

    def __init__(self, on_taken: Callable[[Any], None] | None = None, limit: int = 256) -> None:
        self.pending: deque[tuple[str, Any]] = deque()
        self.credits: deque[str] = deque()
        #: texts of repeated items (counted duplicates): they take only an event of equal text
        self.echoes: deque[str] = deque()
        self.limit = limit
        #: told of each pending event an item takes (its place in the stream is resolved)
        self.on_taken = on_taken

    def item(self, texts: list[str]) -> int:
        """An item arrived with these texts; returns how many pending events it took."""
        taken = 0
        for text in texts:
            if self.pending:
                self._take(self.pending, text)
                taken += 1
            else:
                self.credits.append(text)
        while len(self.credits) > self.limit:
            self.credits.popleft()
        return taken

    def repeat(self, texts: list[str]) -> int:
        """An exact repeat of an item already written (a re-appended line) came with these
        texts: it takes only events of equal text (its own repeated mirror), never one by
        order, so an event no item holds is never lost to it. Returns how many it took."""
        taken = 0
        for text in texts:
            index = next((i for i, (candidate, _) in enumerate(self.pending) if candidate == text), None)
            if index is None:
                self.echoes.append(text)
                continue
            event = self.pending[index][1]
            del self.pending[index]
            taken += 1
            if self.on_taken is not None:
                self.on_taken(event)
        while len(self.echoes) > self.limit:
            self.echoes.popleft()
        return taken

    def event(self, text: str, event: Any) -> bool:
        """An event arrived; True when an earlier item already holds its text."""
        if self.echoes and text in self.echoes:
            self.echoes.remove(text)
            return True
        if self.credits:
            self._take_text(text)
            return True
        self.pending.append((text, event))
        return False

    def overflow(self) -> list[Any]:
        """Events beyond the bound, released early so memory stays bounded."""
        released = []
        while len(self.pending) > self.limit:
            released.append(self.pending.popleft()[1])
        return released

    def close(self) -> list[Any]:
        """The turn ended: events no item took, in order; credits are forgotten."""
        left = [event for _, event in self.pending]
        self.pending.clear()
        self.credits.clear()
        self.echoes.clear()
        return left

    def _take(self, queue: deque[tuple[str, Any]], text: str) -> None:
        for index, (candidate, _) in enumerate(queue):
            if candidate == text:
                taken = queue[index][1]
                del queue[index]
                break
        else:
            taken = queue.popleft()[1]
        if self.on_taken is not None:
            self.on_taken(taken)

    def _take_text(self, text: str) -> None:
        try:
            self.credits.remove(text)
        except ValueError:
            self.credits.popleft()
