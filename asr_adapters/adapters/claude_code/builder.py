# Whole, over 400 lines: Builder holds one stream's open state (fold, waiting lines) that every line kind updates.
"""One stream's records from Claude Code transcript lines, in file order.

The builder takes parsed lines one at a time (``feed``) and returns the records each line
completes. It holds: the open assistant fold (one message at most), a few lines waiting for a
parent written after them, the records of a response whose usage may still rise (a bounded
number of lines), the input-queue items still undecided, the plan/spawn calls waiting for
their results, and a uuid -> record id map so that each record's ``parent`` names the record
holding its native ``parentUuid`` (the file is a tree; a consumer rebuilds the active path
from these links). That map also detects lines repeated across resumes (same uuid), which
are counted as duplicates. User lines are handled in ``user.py``, attachment and system
lines in ``side.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter
from typing import Any

from ...core.accounting import Accounting
from ...core.adapter import header
from ...core.digests import RecordIds
from ...core.spill import SpillMap, SpillSet
from ...core.timestamps import from_iso, stamp
from ...model.order import canonical_order
from .fold import HELD_LIMIT, Fold, FoldMixin, UsageHold
from .hanging import CompactionAgentMixin
from .info import AGENT, Out, StreamInfo, opened, vendor
from .parts import move_writer
from .plans import TaskList
from .queue import Item, Queue, QueueMixin, queue_line_ids
from .side import SideLinesMixin
from .tools import ToolMixin
from .user import UserLinesMixin

#: Line members every line repeats, or that a record carries in its own fields.
ENVELOPE = frozenset(
    {
        "parentUuid",
        "logicalParentUuid",
        "isSidechain",
        "sessionId",
        "type",
        "uuid",
        "timestamp",
        "agentId",
        "promptId",
        "requestId",
        "message",
        "toolUseResult",
        "sourceToolAssistantUUID",
    }
)
#: Envelope members kept on the first record that carries them and where they change
#: (cwd and version start from the header's values).
TRACKED = frozenset({"cwd", "version", "gitBranch", "slug", "entrypoint", "userType"})
#: (skip, *line keys) -> the line's keys ``_native`` looks at, each with ``key in TRACKED``:
#: lines come in few shapes, so the envelope is sorted out once per shape.
#: Also a getter of the tracked members' values and the untracked members' names.
_NATIVE_KEYS: dict[tuple[Any, ...], tuple[tuple[tuple[str, bool], ...], Any, tuple[str, ...]]] = {}
_NATIVE_LIMIT = 4096
_UNSEEN = object()
#: Line types of the conversation chain: any of them closes an open response.
_CHAIN = frozenset({"user", "attachment", "system"})
#: Line types that wait for a parent written after them (upstream writes an attachment
#: before its parent now and then), and how many lines and how many of them wait at most.
_MAY_WAIT = frozenset({"attachment", "system", "progress"})
WAIT_LINES = 4
#: written messages whose content stays in memory for a possible later part (fold.py)
MESSAGE_HEADS_IN_MEMORY = 64
WAIT_LIMIT = 8


class Builder(FoldMixin, ToolMixin, QueueMixin, SideLinesMixin, UserLinesMixin, CompactionAgentMixin):
    def __init__(self, info: StreamInfo, accounting: Accounting) -> None:
        self.info = info
        self.out = Out(accounting)
        #: line uuid -> id of the record holding it ("" while undecided): parent links and
        #: duplicates, 16 bytes a uuid in memory (``core.digests``).
        self.uuid_rec = RecordIds()
        self.fold: Fold | None = None
        #: message.id -> [record id, content, source line uuids] of the message record that last
        #: carried it: a later part of that response is a revision of it (fold.py). Few entries
        #: stay in memory (they hold content); the rest move to a temporary file.
        self.message_heads = SpillMap(MESSAGE_HEADS_IN_MEMORY)
        self.last_message: tuple[str | None, str | None] = (None, None)
        self.extras_for: str | None = None
        self.usage_for: str | None = None
        self.usage_hold: UsageHold | None = None
        self.line = 0
        #: The tracked envelope members' last values (``_UNSEEN`` before the first).
        self.seen_env: dict[str, Any] = dict.fromkeys(TRACKED, _UNSEEN)
        self.seen_env.update(cwd=info.cwd, version=info.version)
        self.calls: dict[str, tuple[str, Any, dict[str, Any], str]] = {}
        #: every call's tool name by callId, for its tool_result (docs/semantics.md)
        self.call_names = SpillMap()
        #: compact_boundary uuid -> the record of the leaf it continues (a few per file)
        self.compacted_leaf: dict[str, str] = {}
        self.plan_ids: dict[str, str] = {}
        self.tasks = TaskList()
        self.linked_agents = SpillSet()  # child streams a spawn named (one per spawn)
        #: child stream -> its spawn result's usage (fold.py), kept only for the subagent files
        #: found beside the session (``child_keys``): nothing else reads it
        self.child_usage: dict[str, Any] = {}
        self.child_keys: set[str] = set()
        self.sidechain_prompts: dict[str, str] = {}
        self.queue = Queue()
        #: Whether a turn is running (a prompt or tool result is being answered, a tool runs):
        #: input queued then is ``queued``; input queued while idle is an ordinary prompt.
        self.busy = False
        self.first_prompt_seen = info.kind == "main"
        #: (last line to wait for, parent uuid, line, parsed line): lines whose native parent
        #: is not written yet, held a few lines so that the parent's record comes first.
        self.waiting: list[tuple[int, str, int, dict[str, Any]]] = []
        #: parentUuid -> lines of a compaction agent's file that hang from that main line:
        #: context the main model saw that the main file lacks (hanging.py)
        self.hanging: dict[str, list[dict[str, Any]]] = {}
        #: (stream, its own request line) of the compaction agents not placed yet: each one's
        #: subagent record goes before the compact_boundary it produced
        self.compaction_agents: list[tuple[str, dict[str, Any]]] = []
        #: Parallel tool results (tools.py, ``_result_parent``): the message.id of the latest
        #: response, the uuids of its assistant lines and its latest one, and the uuid of the last tool-result line
        #: answering one of them since its last assistant line (None: no such run).
        self.response_id: Any = None
        self.response_lines: set[str] = set()
        self.response_last: str | None = None
        self.result_run: str | None = None

    # -- header -------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        info = self.info
        variant = {"main": "session", "subagent": "subagent", "sidechain": "inline-sidechain"}[info.kind]
        record = header(
            AGENT,
            info.session_id,
            agent_version=info.version,
            source_format="claude-code-jsonl",
            variant=variant,
            file=info.file,
        )
        stamp(record, from_iso(info.ts))
        if info.title:
            record["title"] = info.title
        if info.cwd:
            record["cwd"] = info.cwd
        if info.parent_key:
            record["parent"] = info.parent_key
        if info.derived_id:
            record["idSource"] = "derived"
        if info.meta is not None:  # the .meta.json sidecar, verbatim (not a transcript line)
            record["native"] = {"meta": info.meta}
        return self.out.emit(record)

    # -- lines --------------------------------------------------------------------------

    def feed(self, line: int, obj: Any) -> Iterable[dict[str, Any]]:
        """The records completed by one parsed line (each line gets one accounting outcome)."""
        waiting = self.waiting
        if waiting and isinstance(obj, dict) and obj.get("type") == "assistant":
            self._release_waiting(None)  # never inside a response: they came before it
        if isinstance(obj, dict) and obj.get("type") in _MAY_WAIT and len(waiting) < WAIT_LIMIT:
            parent = obj.get("parentUuid")
            if type(parent) is str and parent not in self.uuid_rec and obj.get("uuid") not in self.uuid_rec:
                waiting.append((line + WAIT_LINES, parent, line, obj))
                return self.out.drain()
        self._feed(line, obj)
        if waiting:
            self._release_waiting(line)
        if self.hanging:
            self._take_hanging(line)
        return self.out.drain()

    def _release_waiting(self, line: int | None) -> None:
        """Handle the waiting lines whose parent now has its record, or that waited long
        enough (``line`` None: all of them)."""
        waiting = self.waiting
        current = self.line
        progress = True
        while waiting and progress:
            progress = False
            for entry in list(waiting):
                until, parent, number, obj = entry
                if line is None or until <= line or self.uuid_rec.get(parent):
                    waiting.remove(entry)
                    self._feed(number, obj)
                    progress = True
        self.line = current

    def _feed(self, line: int, obj: Any) -> None:
        self.line = line
        if self.queue.pending:
            self._flush_expired(line)
        acc = self.out.acc
        if not isinstance(obj, dict):
            self._close_fold()
            self.out.put(vendor("unknown", obj))
            acc.vendor += 1
            return
        uuid = obj.get("uuid")
        if isinstance(uuid, str) and uuid in self.uuid_rec:
            acc.duplicates += 1
            return
        # every handler maps the line's uuid to its record when it writes one; lines that may
        # be held (a response being folded, queue operations) are marked seen now
        kind = obj.get("type")
        if kind == "assistant":
            if isinstance(uuid, str):
                self.uuid_rec[uuid] = ""
            queue = self.queue
            if queue.dequeues:
                self._flush_dequeues()
            if queue.removed:
                self._release_removed(obj.get("parentUuid"))
            if queue.withdrawn:
                self._release_withdrawn(obj.get("parentUuid"))
            self.busy = True
            if queue.pending:
                queue.mark_busy()
            self._response_line(obj)
            self._assistant(obj)
            return
        fold = self.fold
        if fold is not None:
            if kind not in _CHAIN and len(fold.held) < HELD_LIMIT:
                # outside the conversation chain: it must not split the open response
                if isinstance(uuid, str):
                    self.uuid_rec[uuid] = ""
                fold.held.append((line, obj))
                return
            self._close_fold()
        self._line(line, obj, kind)
        return

    def _line(self, line: int, obj: dict[str, Any], kind: Any) -> None:
        """One line other than an assistant line (also a line held while a response was open)."""
        self.line = line
        if self.queue.withdrawn and kind in _CHAIN:
            self._release_withdrawn(obj.get("parentUuid"))
        if kind == "user":
            self._user(obj)
        elif kind == "attachment":
            self._attachment(obj)
        elif kind == "system":
            if self.queue.removed:
                self._release_removed(obj.get("parentUuid"))
            self._system(obj)
        elif kind == "queue-operation":
            uuid = obj.get("uuid")
            if isinstance(uuid, str):
                self.uuid_rec[uuid] = ""
            self._queue_op(line, obj)
        else:
            self._bookkeeping(obj, kind)

    def finish(self, children: list[tuple[str, str | None, dict[str, Any] | None]] = ()) -> Iterable[dict[str, Any]]:  # type: ignore[assignment]
        """Close what is still open at the end of the file."""
        if self.waiting:
            self._release_waiting(None)
        self._close_fold()
        self._flush_dequeues()
        self._release_removed()
        self._release_withdrawn()
        for item in self.queue.pending:  # still queued when the file ends
            self._vendor_item(item)
        self.queue.pending.clear()
        self._finish_tools(list(children))
        if self.usage_hold is not None and self.info.parent_usage is not None:
            self._take_parent_usage(self.info.parent_usage)
        self.release_usage()
        return self.out.drain()

    def _bookkeeping(self, obj: dict[str, Any], kind: Any) -> None:
        """Lines with no ASR home (progress, snapshots, titles, modes…): vendor records."""
        name = str(kind or "unknown")
        data = obj.get("data")
        if kind == "progress" and isinstance(data, dict) and isinstance(data.get("type"), str):
            name = f"progress/{data['type']}"
        self._vendor(obj, name)
        if kind == "file-history-snapshot" and "ts" not in self.out.records[-1] and not obj.get("isSnapshotUpdate"):
            snapshot = obj.get("snapshot")
            if isinstance(snapshot, dict):  # the snapshot's own time, not a neighbour's
                record = self.out.records[-1]
                stamp(record, from_iso(snapshot.get("timestamp")))
                self.out.records[-1] = canonical_order(record)

    # -- helpers used by the mixins -----------------------------------------------------

    def _link(self, record: dict[str, Any], parent_uuid: Any) -> None:
        if isinstance(parent_uuid, str):
            rid = self.uuid_rec.get(parent_uuid)
            if rid:
                record["parent"] = rid

    def _on_path(self, record: dict[str, Any], obj: dict[str, Any]) -> str:
        """Write a record derived from line ``obj`` (a plan, a question, a subagent) on the
        conversation path: its ``parent`` is the line's record, and the line's uuid names the
        new record from now on, so the next line that continues from it continues from this
        one. Following ``parent`` from the last record then keeps it (never a fork)."""
        return self._splice(record, obj.get("uuid"))

    def _splice(self, record: dict[str, Any], uuid: Any) -> str:
        """Write ``record`` after the record of line ``uuid`` and before whatever continues
        from that line: it becomes the parent of the next record naming ``uuid``."""
        line_rid = self.uuid_rec.get(uuid) if type(uuid) is str else None
        if line_rid:
            record["parent"] = line_rid
        rid = self.out.put(record)
        if line_rid and type(uuid) is str:
            self.uuid_rec[uuid] = rid
        return rid

    def _copied(self, record: dict[str, Any], obj: dict[str, Any], field_name: str, value: str) -> None:
        refs = self.info.parent_refs
        if refs is None:  # the main stream: nothing is copied
            return
        uuid = obj.get("uuid")
        if isinstance(uuid, str) and uuid in refs and value:
            record["copiedFrom"] = f"{refs[uuid]}#{field_name}={value}"

    def _native(self, record: dict[str, Any], obj: dict[str, Any], skip: Any = ()) -> None:
        """The line's members no ASR field carries, kept verbatim under ``native`` (the
        envelope repeated on every line is left out unless it changed: cwd, version, branch).
        ``skip``: a tuple of more members to leave out."""
        shape = (skip, *obj)
        try:
            keys, tracked, plain = _NATIVE_KEYS[shape]
        except KeyError:
            keys = tuple((key, key in TRACKED) for key in obj if key not in ENVELOPE and key not in skip)
            names = [key for key, is_tracked in keys if is_tracked]
            tracked = itemgetter(*names) if names else None
            plain = tuple(key for key, is_tracked in keys if not is_tracked)
            if len(_NATIVE_KEYS) < _NATIVE_LIMIT:
                _NATIVE_KEYS[shape] = keys, tracked, plain
        seen = self.seen_env
        native = record.get("native")
        if tracked is None or tracked(obj) == tracked(seen):  # no tracked member changed
            if not plain:
                return
            if native is None:
                record["native"] = {key: obj[key] for key in plain}
            else:
                for key in plain:
                    native[key] = obj[key]
            return
        for key, is_tracked in keys:
            value = obj[key]
            if is_tracked:
                if seen[key] == value:
                    continue
                seen[key] = value
            if native is None:
                native = record["native"] = {}
            native[key] = value

    def _is_copy(self, obj: dict[str, Any]) -> bool:
        refs = self.info.parent_refs
        return refs is not None and obj.get("uuid") in refs

    def _vendor(self, obj: Any, kind: str) -> None:
        record = vendor(kind, obj)
        out = self.out
        if not isinstance(obj, dict):
            out.put(record)
            out.acc.vendor += 1
            return
        parent = obj.get("parentUuid") or obj.get("logicalParentUuid")
        if kind == "system/compact_boundary" and self.compaction_agents and isinstance(parent, str):
            self._place_compaction_agent(parent)
        self._link(record, parent)
        rid = out.put(record)
        out.acc.vendor += 1
        uuid = obj.get("uuid")
        if type(uuid) is str:
            self.uuid_rec[uuid] = rid
            if kind == "system/compact_boundary" and "parent" in record:
                # the summary that follows replaces the path ending at the pre-compaction leaf
                self.compacted_leaf[uuid] = record["parent"]

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
    ) -> str:
        """A message record from one line, its keys set in canonical order.

        ``who``: the (author, origin) the caller built every part without (else the writer
        all parts share moves from them to the message); ``sender``: the ``from`` member;
        ``native``: members for ``native`` besides the line's own; ``skip``: line members
        the record already carries; ``queued``: the queue item this line delivered (its
        queue lines are folded into the record)."""
        record = opened("message", obj.get("timestamp"))
        prompt_id = obj.get("promptId")
        if isinstance(prompt_id, str):
            record["turnId"] = prompt_id
        uuid = obj.get("uuid")
        derived = False
        if not message_id:
            message_id = uuid
            if not isinstance(message_id, str) or not message_id:
                message_id = f"{self.info.session_id}:L{self.line}"  # a line without uuid: its position
                derived = True
        record["messageId"] = message_id
        if role is not None:
            record["role"] = role
        if who is None:
            move_writer(record, parts)
        else:
            record["author"], record["origin"] = who
        if audience is not None:
            record["audience"] = audience
        if sender is not None:
            record["from"] = sender
        record["content"] = parts
        if capture is not None:
            record["capture"] = capture
        elif not parts:
            record["capture"] = {"content": {"state": "absent", "reason": "the line holds no content"}}
        if derived:
            record["idSource"] = "derived"
        parent = obj.get("parentUuid")
        self._link(record, parent)
        if self.info.parent_refs is not None:
            self._copied(record, obj, "messageId", message_id)
        if queued is not None:
            ids = queue_line_ids(self.info.session_id, queued)
            if isinstance(uuid, str):
                ids.append(uuid)
            record["assembly"] = {"mode": "folded", "sourceIds": ids}
        if members is not None:
            record.update(members)
        if native is not None:
            record["native"] = native
        self._native(record, obj, skip)
        rid = self.out.put(record)
        if type(uuid) is str:
            self.uuid_rec[uuid] = rid
        return rid
