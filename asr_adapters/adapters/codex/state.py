"""The state a rollout conversion carries from line to line, and how records leave it.

Records are built as plain dicts in canonical key order and pass through ``put``. While a
user message waits to learn whether the next event pairs it with a person's submission,
later records queue behind it, so the stream stays in file order.
"""

from __future__ import annotations

from typing import Any

from ...core.adapter import Adapter, Context, Emitter
from ...core.refs import schema_name
from ...core.timestamps import from_iso
from .matching import MirrorMatcher


class HeldUserMessage:
    """A user-role message whose unmarked parts wait for the pairing ``user_message`` event."""

    __slots__ = ("line", "open_parts", "record")

    def __init__(self, record: dict[str, Any], open_parts: list[int], line: int | None) -> None:
        self.record = record
        self.open_parts = open_parts
        self.line = line


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
        self.group: list[dict[str, Any]] | None = None
        self.group_usage: dict[str, Any] | None = None
        self.pending_usage: dict[str, Any] | None = None
        self.usage_follows = False
        #: whether the thread whose history is being copied (a later session_meta) is a subagent
        self.copied_subagent = False
        self.plan_heads: dict[str, str] = {}
        #: vendor schema name per native kind (a few dozen kinds; one string each)
        self.schemas: dict[str, str] = {}
        self.spawns: dict[str, dict[str, Any]] = {}
        self.held: HeldUserMessage | None = None
        self.queue: list[dict[str, Any]] = []
        self.ready: list[dict[str, Any]] = []
        self.messages = MirrorMatcher()
        self.reasoning = MirrorMatcher()
        self.aborted: str | None = None
        self.header_done = False
        self.line: int | None = None
        self.timestamp: str | None = None
        #: Line-level members beside the payload (``ordinal``, harness ``metadata``).
        self.line_extra: dict[str, Any] | None = None

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
        if record["type"] == "message" and not record.get("content"):
            # Empty content needs a capture state saying why (ASR-200): the item held none.
            capture = record.setdefault("capture", {})
            capture.setdefault("content", {"state": "absent", "reason": "the native item holds no content"})
        if self.copied_from is not None and record["type"] != "session" and "copiedFrom" not in record:
            record["copiedFrom"] = self.copy_ref(record)
        self.deliver(record)

    def deliver(self, record: dict[str, Any]) -> None:
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
        """Number what is ready; plan revisions learn what they supersede here."""
        ready, self.ready = self.ready, []
        emit = self.emit
        heads = self.plan_heads
        out = []
        for record in ready:
            if record["type"] == "plan":
                head = heads.get(record["planId"])
                if head is not None:
                    record["supersedes"] = head
                heads[record["planId"]] = emit.next_id
            out.append(emit(record))
        return out
