"""The state a rollout conversion carries from line to line, and how records leave it.

Records are built as plain dicts in canonical key order and pass through ``put``. While a
user message waits to learn whether the next event pairs it with a person's submission,
later records queue behind it, so the stream stays in file order. A mirror event no item
has taken yet holds an ``EventSlot`` at its place in the stream for the same reason: if no
item takes it, its record is written there, before the lines that followed it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ...core import digests
from ...core.adapter import Adapter, Context, Emitter
from ...core.digests import DigestMap
from ...core.refs import schema_name
from ...core.spill import SpillMap
from ...core.timestamps import from_iso
from .matching import MirrorMatcher

#: ids each duplicate-rule map holds in memory before it moves older ones to disk (a 2 MiB
#: table at most; a real session rarely holds as many item ids), or the maps' default if lower
ID_LIMIT = 32_768


class HeldUserMessage:
    """A user-role message whose unmarked parts wait for the pairing ``user_message`` event."""

    __slots__ = ("line", "open_parts", "record")

    def __init__(self, record: dict[str, Any] | None, open_parts: list[int], line: int | None) -> None:
        #: None for a repeated item (a counted duplicate): its pairing event is one too
        self.record = record
        self.open_parts = open_parts
        self.line = line


class EventSlot:
    """The place of mirror events that wait for their item: one event, or the run of
    ``agent_reasoning`` events one reasoning item produced. Records from later lines wait
    behind it (up to ``BACKLOG_LIMIT``) until every event in it is paired or released."""

    __slots__ = ("detached", "records", "released", "waiting")

    def __init__(self) -> None:
        self.waiting = 0
        #: events no item took, in file order (they become this slot's record)
        self.released: list[dict[str, Any]] = []
        #: None while an event still waits; then the records written in the slot's place
        self.records: list[dict[str, Any]] | None = None
        #: the stream went on past it (backlog bound): its records are written when resolved
        self.detached = False


#: records that may wait behind an unresolved event slot before the stream moves past it
BACKLOG_LIMIT = 1024


class ConverterState:
    """Everything the mapping mixins share."""

    def __init__(self, adapter: Adapter, context: Context, era: str) -> None:
        self.adapter = adapter
        self.context = context
        self.acc = context.accounting
        self.era = era
        self.emit = Emitter(context.accounting)
        self.thread_id: str | None = None
        self.session_ref = "codex:unknown"
        self.tree_root: str | None = None
        self.subagent = False
        self.turn_id: str | None = None
        self.model: str | None = None
        self.copied_from: str | None = None
        self.copy_offset = 0
        #: how many copied session_meta lines are open (a fork of a fork copies two)
        self.copy_depth = 0
        self.trigger_turn: bool | None = None
        #: the last ``token_count`` payload (a repeat in full is a duplicate) and the last
        #: ``total_token_usage`` (a new total means a response's usage arrived)
        self.last_token_event: Any = None
        self.last_token_total: Any = None
        #: the records of the model response being written, held until its ``token_count``
        #: (see usage.py); None when no response is open
        self.group: list[Any] | None = None
        self.group_usage: dict[str, Any] | None = None
        self.pending_usage: dict[str, Any] | None = None
        self.usage_follows = False
        #: whether the thread whose history is being copied (a later session_meta) is a subagent
        self.copied_subagent = False
        self.plan_heads: dict[str, str] = {}
        #: a digest of each native item with an id, by ``<kind>:<id>`` (a repeat in full is a
        #: duplicate), and the seq of the record that last wrote each messageId / callId (a
        #: changed repeat supersedes it); 16 bytes an id in memory, never the items
        self.item_digests = DigestMap(min(ID_LIMIT, digests.DEFAULT_LIMIT))
        self.native_heads = DigestMap(min(ID_LIMIT, digests.DEFAULT_LIMIT))
        #: vendor schema name per native kind (a few dozen kinds; one string each)
        self.schemas: dict[str, str] = {}
        self.spawns: dict[str, dict[str, Any]] = {}
        #: the tool each call names, by callId: an output names none (``tool_result.name``)
        self.call_names = SpillMap()
        self.held: HeldUserMessage | None = None
        self.queue: list[Any] = []
        #: records (and event slots) in stream order, numbered by ``drain``
        self.ready: list[Any] = []
        self.messages = MirrorMatcher(self.mirror_paired)
        self.reasoning = MirrorMatcher(self.mirror_paired)
        #: the slot of the run of reasoning events being read (one item's), its last line and kind
        self.run_slot: EventSlot | None = None
        self.run_line = 0
        self.run_kind = ""
        #: ``web_search_end`` events waiting for their ``web_search_call`` item: (action, call id)
        self.web_searches: deque[tuple[Any, str]] = deque()
        self.aborted: str | None = None
        self.header_done = False
        self.line: int | None = None
        self.timestamp: str | None = None
        #: Line-level members beside the payload (``ordinal``, harness ``metadata``).
        self.line_extra: dict[str, Any] | None = None

    def mirror_paired(self, pending: dict[str, Any]) -> None:
        """Overridden by the event mapper: an item took this pending event."""

    # -- ids and envelope ---------------------------------------------------------------

    def where(self) -> str:
        """The position part of a derived id: ``L<line>`` (JSONL) or ``I<index>`` (G0 items)."""
        return f"I{self.line}" if self.era == "json" else f"L{self.line}"

    def derived(self, kind: str) -> str:
        return f"{kind}@{self.where()}"

    def envelope(self, kind: str) -> dict[str, Any]:
        """A record started with ``type``, ``ts`` and ``turnId`` of the current line."""
        record: dict[str, Any] = {"type": kind, "seq": 0, "id": ""}  # core.adapter.start, inlined
        stamp = self.timestamp
        if stamp is not None:
            ts, precision = from_iso(stamp)
            if ts is not None:
                record["ts"] = ts
                if precision is not None:
                    record["tsPrecision"] = precision
        if self.turn_id is not None:
            record["turnId"] = self.turn_id
        if self.line_extra:
            record["codexLine"] = self.line_extra
        return record

    def keep(self, kind: str, data: Any) -> None:
        """A native item with no ASR home, kept verbatim; in a fork's copied history it is a
        copy of the parent's own line (the parent's stream holds it), so a counted duplicate."""
        if self.copied_from is not None:
            self.acc.duplicates += 1
            return
        self.put(self.vendor(kind, data))
        self.acc.vendor += 1

    def vendor(self, kind: str, data: Any) -> dict[str, Any]:
        record = self.envelope("vendor")
        record.pop("codexLine", None)  # the verbatim line in data holds it
        schema = self.schemas.get(kind)
        if schema is None:
            schema = schema_name(self.adapter.registry_name, kind)
            if len(self.schemas) < 256:  # kinds come from the input: keep the cache bounded
                self.schemas[kind] = schema
        record["schema"] = schema
        record["data"] = data
        return record

    # -- output -------------------------------------------------------------------------

    def put(self, record: dict[str, Any]) -> None:
        mark_empty(record)
        if self.copied_from is not None and record["type"] != "session" and "copiedFrom" not in record:
            record["copiedFrom"] = self.copy_ref(record)
        self.deliver(record)

    def deliver(self, record: Any) -> None:
        """Behind a held user message, into the open response, or out, keeping file order."""
        if self.held is not None:
            self.queue.append(record)
        elif self.group is not None:
            self.group.append(record)
        else:
            self.ready.append(record)

    def copy_ref(self, record: dict[str, Any]) -> str:
        """``codex:<parent>#<ref>`` for a record replayed from the parent's history.

        A native id names the parent's record directly. A derived id (``kind@L<n>``) is
        rewritten to the parent's line: Codex copies the parent's rollout items in order,
        starting with the parent's session_meta, so child line ``copy_offset + j`` is parent
        line ``j`` (an assumption that fails where the parent file had lines Codex drops on
        load, such as ghost snapshots; see docs/agents/codex.md)."""
        derived = record.get("idSource") == "derived"
        for key in ("messageId", "callId"):
            value = record.get(key)
            if not isinstance(value, str):
                continue
            if derived:
                kind, at, line = value.rpartition("@L")
                if at and line.isdigit():
                    value = f"{kind}@L{int(line) - self.copy_offset}"
            return f"codex:{self.copied_from}#{key}={value}"
        return f"codex:{self.copied_from}#r1"

    def drain(self) -> list[dict[str, Any]]:
        """Number what is ready, up to the first event slot still waiting for its item;
        plan revisions learn what they supersede here."""
        ready = self.ready
        if not ready:
            return []
        if type(ready[0]) is EventSlot and ready[0].records is None and len(ready) <= BACKLOG_LIMIT:
            return []  # the usual wait: nothing to scan
        out: list[dict[str, Any]] = []
        for index, record in enumerate(ready):
            if type(record) is EventSlot:
                if record.records is None:
                    if len(ready) - index <= BACKLOG_LIMIT:
                        self.ready = ready[index:]
                        return out
                    record.detached = True  # too much waits behind it: written when resolved
                    continue
                for resolved in record.records:
                    self.number(resolved, out)
                continue
            self.number(record, out)
        self.ready = []
        return out

    def number(self, record: dict[str, Any], out: list[dict[str, Any]]) -> None:
        kind = record["type"]
        if kind == "plan":
            heads = self.plan_heads
            head = heads.get(record["planId"])
            if head is not None:
                record["supersedes"] = head
            heads[record["planId"]] = self.emit.next_id
        elif (kind == "message" or kind == "tool_call") and "idSource" not in record:  # derived: one line's
            # A native item whose id was already written, changed (a repeat in full never
            # gets here): a revision of the record that last carried the id.
            native_id = record.get("messageId" if kind == "message" else "callId")
            if isinstance(native_id, str):
                head = self.native_heads.swap(f"{kind[0]}:{native_id}", self.emit.seq + 1)
                if head is not None and "copiedFrom" not in record:
                    record["supersedes"] = f"r{head}"
        if "summaryOf" in record and kind == "message":
            # A compaction replaces the thread's history up to here: every record before it
            # in stream order (the header aside), back to the previous compaction's summary.
            record["compaction"] = {"through": f"r{self.emit.seq}"} if self.emit.seq > 1 else {}
        out.append(self.emit(record))


def mark_empty(record: dict[str, Any]) -> None:
    """Empty content needs a capture state saying why (ASR-200): the item held none."""
    if record["type"] == "message" and not record.get("content"):
        capture = record.setdefault("capture", {})
        capture.setdefault("content", {"state": "absent", "reason": "the native item holds no content"})
