"""Per-thread conversion state shared by the V1 and V2 mappers.

A handler gets one native event row, appends the records it makes to ``out`` through
:meth:`ThreadState.put`, and returns the row's single accounting outcome (``records``,
``vendor``, ``folded`` or ``duplicates``); the driver counts it, so every row ends in exactly
one outcome.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter
from ...core.refs import schema_name
from ...core.timestamps import from_iso, stamp

REGISTRY = "chat.t3.code"


def ns(value: str) -> str:
    """A vendor value of an open field (profile §2)."""
    return f"{REGISTRY}/{value}"


class RevertIndex:
    """Revertable records as three parallel compact arrays (a few bytes per record)."""

    def __init__(self) -> None:
        self.seqs = array("q")
        self.turns = array("q")
        self.users = bytearray()
        self.turn_ids: dict[str, int] = {}
        self.turn_names: list[str] = []

    def add(self, seq: int, turn: Any, user: bool) -> None:
        index = -1
        if turn is not None:
            index = self.turn_ids.get(turn, -1)
            if index < 0:
                index = self.turn_ids[turn] = len(self.turn_names)
                self.turn_names.append(turn)
        self.seqs.append(seq)
        self.turns.append(index)
        self.users.append(user)

    def revert(self, keep_users: int, retained: set[str]) -> list[str]:
        """Drop and return (as record ids) what a revert removes: user messages after the
        first ``keep_users``, and records of turns not in ``retained``."""
        keep = {i for i, name in enumerate(self.turn_names) if name in retained}
        seqs, turns, users = array("q"), array("q"), bytearray()
        gone: list[str] = []
        count = 0
        for seq, turn, user in zip(self.seqs, self.turns, self.users, strict=True):
            if user:
                count += 1
                kept = count <= keep_users
            else:
                kept = turn == -1 or turn in keep
            if kept:
                seqs.append(seq)
                turns.append(turn)
                users.append(user)
            else:
                gone.append(f"r{seq}")
        self.seqs, self.turns, self.users = seqs, turns, users
        return gone


@dataclass
class Fold:
    """A message being assembled from several events (V1 streaming chunks, V2 item snapshots)."""

    record: dict[str, Any]
    text: str
    source_ids: list[str]
    turn_id: str | None = None


@dataclass
class ThreadState:
    """What one thread's conversion remembers between events (bounded by open folds and ids)."""

    thread_id: str
    accounting: Accounting
    emit: Emitter = field(init=False)
    out: list[dict[str, Any]] = field(default_factory=list)
    active_turn: str | None = None
    folds: dict[str, Fold] = field(default_factory=dict)
    #: every revertable record, compactly (a revert can reach back to any turn): its seq, the
    #: index of its turn in ``turns`` (-1: none) and whether it is a user message
    live: RevertIndex = field(default_factory=lambda: RevertIndex())
    checkpoints: dict[str, int] = field(default_factory=dict)
    plans: dict[str, str] = field(default_factory=dict)
    requests: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    open_tools: dict[tuple[str | None, str], deque[str]] = field(default_factory=dict)
    #: open V1 tool calls: call id -> id of its latest tool_call record
    tool_calls: dict[str, str] = field(default_factory=dict)
    items: dict[str, str] = field(default_factory=dict)
    message_ids: set[str] = field(default_factory=set)
    user_turns: dict[str, str] = field(default_factory=dict)
    v2_event_ids: set[str] = field(default_factory=set)
    v2_item_messages: set[str] = field(default_factory=set)
    v2_item_plans: set[str] = field(default_factory=set)
    #: V2 snapshots not yet written: key -> (event ids, latest event)
    v2_open: dict[str, tuple[list[str], dict[str, Any]]] = field(default_factory=dict)
    #: V2 snapshots written: key -> (record id of the last revision, digest of its payload)
    v2_done: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    #: V2 run id -> ids of the records written for it (for rollbacks); rolled-back runs
    run_records: dict[str, list[str]] = field(default_factory=dict)
    rolled_back: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.emit = Emitter(self.accounting)

    def put(self, record: dict[str, Any], *, revertable: bool = False, role: str = "") -> dict[str, Any]:
        """Emit one record (numbered now, so its id is known) and queue it for the stream."""
        emitted = self.emit(record)
        self.out.append(emitted)
        if revertable:
            self.live.add(emitted["seq"], record.get("turnId"), role == "user")
        return emitted


def base(kind: str, at: Any, turn_id: Any = None) -> dict[str, Any]:
    """The start of a record in canonical order: type, ts/tsPrecision, turnId."""
    record: dict[str, Any] = {"type": kind}
    stamp(record, from_iso(at))
    if isinstance(turn_id, str) and turn_id:
        record["turnId"] = turn_id
    return record


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def data_part(data: Any, schema: str) -> dict[str, Any]:
    return {"type": "data", "data": data, "schema": schema_name(REGISTRY, schema)}


def is_truncated_detail(value: Any) -> bool:
    """T3 cuts activity details to 180 characters, the last three being ``...``."""
    return isinstance(value, str) and len(value) == 180 and value.endswith("...")


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (payloads are decoded leniently)."""
    return value if isinstance(value, dict) else {}


def string(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default
