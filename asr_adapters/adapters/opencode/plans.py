"""OpenCode's todo list as one ``plan`` (planType ``items``, planId ``todos``, derived).

The ``todowrite`` tool replaces the whole list, so each call's input is a complete snapshot: a
plan record superseding the previous one. The store keeps only the current list (the ``todo``
table, or ``storage/todo/<ses>.json``): the same snapshot as the last call (counted a
duplicate), or a plan record of its own when it differs (a list written by another path).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.timestamps import from_epoch_millis, stamp
from .parts import REGISTRY, obj

PLAN_ID = "todos"
_STATUSES = {"pending", "in_progress", "completed"}
_PRIORITIES = {"high", "medium", "low"}


def entries(todos: list[Any]) -> list[dict[str, Any]] | None:
    """Plan entries from OpenCode todos, or None when the list holds something else."""
    out: list[dict[str, Any]] = []
    ids = [t.get("id") for t in todos if isinstance(t, dict)]
    unique_ids = all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids)
    for todo in todos:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        if not isinstance(todo.get("status"), str | None) or not isinstance(todo.get("priority"), str | None):
            return None  # a status or priority that is not a name: the list holds something else
        entry: dict[str, Any] = {}
        if unique_ids:
            entry["entryId"] = todo["id"]
        entry["content"] = todo["content"]
        status = todo.get("status")
        entry["status"] = status if status in _STATUSES else f"{REGISTRY}/{status}"
        priority = todo.get("priority")
        if priority in _PRIORITIES:
            entry["priority"] = priority
        elif priority is not None:
            entry["priority"] = f"{REGISTRY}/{priority}"
        out.append(entry)
    return out


class TodoPlans:
    """The plan records of one session, each superseding the previous one."""

    def __init__(self, emit: Emitter, accounting: Accounting) -> None:
        self.emit = emit
        self.accounting = accounting
        self.last_id: str | None = None
        self.last_entries: list[dict[str, Any]] | None = None

    def _plan(
        self, items: list[dict[str, Any]], call_id: str | None, ts: Any, turn: str | None = None
    ) -> dict[str, Any]:
        record = start("plan")
        stamp(record, from_epoch_millis(ts))
        if turn is not None:
            record["turnId"] = turn
        record["planId"] = PLAN_ID
        record["planType"] = "items"
        if call_id is not None:
            record["callId"] = call_id
        record["entries"] = items
        record["idSource"] = "derived"
        if self.last_id is not None:
            record["supersedes"] = self.last_id
        emitted = self.emit(record)
        self.last_id, self.last_entries = emitted["id"], items
        return emitted

    def from_call(self, call_id: str, state: dict[str, Any], turn: str | None = None) -> dict[str, Any] | None:
        """The plan a ``todowrite`` call set (its input's ``todos``), part of the call's records
        (so in the call's turn, ``turn``)."""
        todos = state["input"].get("todos")
        items = entries(todos) if isinstance(todos, list) else None
        if items is None:
            return None
        time = obj(state.get("time"))
        return self._plan(items, call_id, time.get("end", time.get("start")), turn)

    def from_store(self, todos: list[Any], ts: Any = None) -> Iterator[dict[str, Any]]:
        """The stored current list: a duplicate of the last call's plan, or a plan of its own."""
        comparable = [{k: v for k, v in e.items() if k != "entryId"} for e in self.last_entries or []]
        items = entries(todos)
        if items is None:
            self.accounting.vendor += 1
            record = stamp(start("vendor"), from_epoch_millis(ts))
            record.update(schema=f"{REGISTRY}/todo", data=todos)
            yield self.emit(record)
            return
        if (
            self.last_entries is not None
            and [{k: v for k, v in e.items() if k != "entryId"} for e in items] == comparable
        ):
            self.accounting.duplicates += 1
            return
        self.accounting.records += 1
        yield self._plan(items, None, ts)
