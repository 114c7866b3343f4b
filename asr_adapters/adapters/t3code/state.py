"""Per-thread conversion state shared by the V1 and V2 mappers.

A handler gets one native event row, appends the records it makes to ``out`` through
:meth:`ThreadState.put`, and returns the row's single accounting outcome (``records``,
``vendor``, ``folded`` or ``duplicates``); the driver counts it, so every row ends in exactly
one outcome.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import Emitter
from ...core.refs import schema_name
from ...core.spill import SpillMap, SpillSet
from ...core.timestamps import from_iso, stamp
from .revert import RevertLog, RunLog

REGISTRY = "chat.t3.code"


def ns(value: str) -> str:
    """A vendor value of an open field (profile §2)."""
    return f"{REGISTRY}/{value}"


#: a provider item's status (Codex's ThreadItem ``status``, T3 Code's own v2 item status) in
#: the tool vocabulary (docs/semantics.md): the person's decline is ``denied``, a
#: cancellation the harness made ``cancelled``; other values are namespaced
_TOOL_STATUS = {
    "completed": "complete",
    "failed": "error",
    "interrupted": "interrupted",
    "declined": f"{REGISTRY}/denied",
    "denied": f"{REGISTRY}/denied",
    "cancelled": f"{REGISTRY}/cancelled",
}
#: statuses under which the tool did not run to an outcome: no ``isError`` either way
NO_OUTCOME = frozenset({"interrupted", f"{REGISTRY}/denied", f"{REGISTRY}/cancelled"})


def tool_status(value: str) -> str:
    """A native item status as a ``tool_result`` / ``subagent`` status."""
    return _TOOL_STATUS.get(value) or ns(value)


@dataclass
class Fold:
    """A message being assembled from several events (V1 streaming chunks, V2 item snapshots)."""

    record: dict[str, Any]
    text: str
    source_ids: list[str]
    turn_id: str | None = None


@dataclass
class ThreadState:
    """What one thread's conversion remembers between events.

    Everything kept per record, message, item, plan, request, turn or run is bounded: the
    newest entries in memory, older ones in private temporary SQLite files (``core.spill``,
    ``revert``), since a revert, a supersedes or a duplicate check can reach back to any of
    them. Only what is open (folds, snapshots not yet written, tool calls of the running turn)
    is kept in plain dicts, and only while it is open."""

    thread_id: str
    accounting: Accounting
    emit: Emitter = field(init=False)
    out: list[dict[str, Any]] = field(default_factory=list)
    active_turn: str | None = None
    folds: dict[str, Fold] = field(default_factory=dict)
    #: every revertable record (seq, turn, user message or not) and every turn's checkpoint
    #: count: a V1 revert can reach back to any turn
    live: RevertLog = field(default_factory=RevertLog)
    #: plan id -> id of its latest record (for ``supersedes``)
    plans: SpillMap = field(default_factory=SpillMap)
    #: request id -> (id of its latest record, that record) until it is resolved
    requests: SpillMap = field(default_factory=SpillMap)
    #: open V1 tool calls by (turn, item type), oldest first (``tools.OpenCall``)
    open_tools: dict[tuple[str | None, str], deque[Any]] = field(default_factory=dict)
    #: the error notice of the error T3 is reporting now: (turn, its text); the session-sets
    #: and the ``runtime.error`` activity that repeat it are folded into it
    error_notice: tuple[str | None, str] | None = None
    #: turns whose interruption the user requested (their messages that close later are
    #: interrupted, whatever status T3 gives the turn's end)
    interrupted: SpillSet = field(default_factory=SpillSet)
    #: the thread's settings as the event log has set them so far (per-turn settings)
    settings: dict[str, Any] = field(default_factory=dict)
    #: V2 turn item id -> id of its record (a handoff names the items rendered into it)
    items: SpillMap = field(default_factory=SpillMap)
    #: ids of the messages written (a later copy or empty completion is not a new message)
    message_ids: SpillSet = field(default_factory=SpillSet)
    #: user message id -> turn id (``projection_turns``), loaded by the adapter
    user_turns: SpillMap = field(default_factory=SpillMap)
    #: user message id -> [thread id, plan id] of the proposed plan its turn implements
    plan_sources: SpillMap = field(default_factory=SpillMap)
    #: message and plan ids that a V2 turn item carries (their other copies are duplicates)
    v2_item_messages: SpillSet = field(default_factory=SpillSet)
    v2_item_plans: SpillSet = field(default_factory=SpillSet)
    #: V2 snapshots not yet written: key -> (event ids, latest event)
    v2_open: dict[str, tuple[list[str], dict[str, Any]]] = field(default_factory=dict)
    #: V2 snapshots written: key -> (record id of the last revision, digest of its payload)
    v2_done: SpillMap = field(default_factory=SpillMap)
    #: V2 run id -> ids of the records written for it (for rollbacks); rolled-back runs
    run_records: RunLog = field(default_factory=RunLog)
    rolled_back: SpillSet = field(default_factory=SpillSet)

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


def same_error(notice: tuple[str | None, str] | None, turn: Any, text: str) -> bool:
    """Whether ``text`` (in ``turn``) repeats the error ``notice`` reports: the same turn (or an
    unknown one) and the same text, either side possibly cut to T3's 180 characters."""
    if notice is None or (notice[0] is not None and isinstance(turn, str) and turn != notice[0]):
        return False
    known = notice[1]
    if known == text:
        return True
    return any(is_truncated_detail(cut) and full.startswith(cut[:-3]) for cut, full in ((known, text), (text, known)))


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (payloads are decoded leniently)."""
    return value if isinstance(value, dict) else {}


def string(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default
