"""What the builder's line-handler mixins (queue, side and user lines) use of the builder: its
state and the two record writers. Declared once here so that type checkers see one signature
of ``_message``; the builder (builder.py) defines them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .queue import Item, Queue


class BuilderHost:
    out: Any
    info: Any
    queue: Queue
    busy: bool
    compacted_leaf: dict[str, str]

    if TYPE_CHECKING:

        def _vendor(self, obj: Any, kind: str) -> None: ...

        def _splice(self, record: dict[str, Any], uuid: Any) -> str: ...

        def _message(
            self,
            obj: dict[str, Any],
            parts: list[dict[str, Any]],
            *,
            message_id: str | None = None,
            role: str | None = "user",
            who: tuple[str, str] | None = None,
            sender: dict[str, Any] | None = None,
            audience: str | None = None,
            capture: dict[str, Any] | None = None,
            native: dict[str, Any] | None = None,
            skip: tuple[str, ...] = (),
            queued: Item | None = None,
            members: dict[str, Any] | None = None,
        ) -> str: ...
