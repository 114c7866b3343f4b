# Over 400 lines: every Droid line kind shares the visibility and author rules held here.
"""One Droid transcript record at a time, into ASR records (docs/agents/droid.md has the table).

Every native line ends in records or one vendor record. The mapper keeps only the calls seen
(name and input, for result names and subagents; spilled to disk past a bound) and the id of
the last plan and of the last record written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.adapter import Adapter, Context, Emitter, start
from ...core.refs import put_id, schema_name
from ...core.spill import SpillMap
from ...core.timestamps import from_epoch_millis, from_iso, stamp
from .blocks import HARNESS, REGISTRY, data_part, media_part, reasoning_part, result_parts, split_reminders

__all__ = ["REGISTRY", "DroidMapper"]

_MESSAGE_KNOWN = frozenset({"type", "id", "timestamp", "message"})
_INNER_KNOWN = frozenset({"role", "content", "modelId"})
_CALL_KNOWN = frozenset({"type", "id", "name", "input"})
_RESULT_KNOWN = frozenset({"type", "tool_use_id", "toolUseId", "content", "is_error", "isError"})
#: the delegation tool (entireio/cli ``factoryaidroid/types.go``: ``PreToolUse[Task]``)
TASK_TOOL = "Task"
#: what the first user message of a Task child starts with (ain3sh survey, entireio/cli)
TASK_PROMPT = "# Task Tool Invocation"
_TODO_STATUS = ("pending", "in_progress", "completed")
_PRIORITY = ("high", "medium", "low")
#: FactoryDroidMessageSchema ``visibility`` -> who saw the line (ASR-204)
_AUDIENCE = {"llm_only": "model", "user_only": "user", "both": "both"}


def _written(part: dict[str, Any], who: tuple[str, str] | None) -> dict[str, Any]:
    if who is not None:
        part["author"], part["origin"] = who
    return part


def _stamp(record: dict[str, Any], value: Any) -> None:
    """ISO string, or epoch milliseconds (both occur, ain3sh survey)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        stamp(record, from_epoch_millis(value))
    else:
        stamp(record, from_iso(value))


class DroidMapper:
    """Converts the records of one transcript, in order, through one emitter."""

    def __init__(self, adapter: Adapter, context: Context, emit: Emitter, *, child: bool) -> None:
        self.adapter = adapter
        self.accounting = context.accounting
        self.emit = emit
        #: a Task child: its first user prompt is the parent agent's, not a person's
        self.child = child
        self._prompted = False
        self.calls = SpillMap()  # tool_use id -> (name, input, id of its latest record)
        #: a line's id -> (id of its latest message record or None, the record before the line's
        #: first record): a repeated id revises (``supersedes``); a compaction's anchor is kept
        self.lines = SpillMap()
        self._plan: str | None = None
        self._number = 0

    def record(self, number: int, item: Any) -> Iterator[dict[str, Any]]:
        self._number = number
        records: list[dict[str, Any]] = []
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(kind, str):
            kind = "unknown"
        elif kind == "message" and isinstance(item.get("message"), dict):
            records = self._message(item)
        elif kind == "message" and isinstance(item.get("role"), str) and isinstance(item.get("text"), str):
            records = self._flat(item)
        elif kind == "todo_state":
            records = self._todos(item)
        elif kind == "compaction_state":
            records = self._compaction(item)
        if not records:
            records = [self._vendor(item, kind)]
            self.accounting.vendor += 1
        else:
            self.accounting.records += 1
        line_id = item.get("id") if kind == "message" else None
        if isinstance(line_id, str) and line_id:
            earlier = self.lines.get(line_id)
            self.lines[line_id] = (earlier[0] if earlier else None, f"r{self.emit.seq}")
        for record in records:
            out = self.emit(record)
            if out["type"] == "message" and isinstance(line_id, str) and out.get("messageId") == line_id:
                self.lines[line_id] = (out["id"], self.lines[line_id][1])
            elif out["type"] == "tool_call" and out.get("idSource") != "derived":
                name, args, _ = self.calls[out["callId"]]
                self.calls[out["callId"]] = (name, args, out["id"])
            yield out

    # -- pieces ---------------------------------------------------------------------------

    def _base(self, kind: str, item: dict[str, Any]) -> dict[str, Any]:
        record = start(kind)
        _stamp(record, item.get("timestamp"))
        return record

    def _vendor(self, item: Any, kind: str) -> dict[str, Any]:
        record = start("vendor")
        if isinstance(item, dict):
            _stamp(record, item.get("timestamp"))
        record["schema"] = schema_name(REGISTRY, kind)
        record["data"] = item
        return record

    def _message_id(self, record: dict[str, Any], item: dict[str, Any]) -> None:
        native = item.get("id")
        if isinstance(native, str) and native:
            record["messageId"] = native
            earlier = self.lines.get(native)
            if earlier is not None and earlier[0] is not None:
                record["supersedes"] = earlier[0]  # Droid wrote this message again (PROFILE-native-id)
        else:
            record["messageId"] = f"L{self._number}"
            record["idSource"] = "derived"

    @staticmethod
    def _rest(record: dict[str, Any], item: dict[str, Any], known: frozenset[str]) -> None:
        for key, value in item.items():
            if key not in known:
                record[key] = value

    # -- message ----------------------------------------------------------------------------

    def _message(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        inner = item["message"]
        role = inner.get("role")
        if role == "user":
            return self._user(item, inner)
        if role == "assistant":
            return self._assistant(item, inner)
        if role == "system":
            return self._user(item, inner, "system")
        if role == "tool":  # FactoryDroidMessageSchema's fourth role; ASR has none of that name
            return self._user(item, inner, f"{REGISTRY}/tool")
        return []  # another role: kept whole as vendor

    def _user(self, item: dict[str, Any], inner: dict[str, Any], role: str = "user") -> list[dict[str, Any]]:
        content = inner.get("content")
        blocks: list[Any] = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        if not isinstance(content, str | list):
            return []
        # FactoryDroidMessageSchema keeps visibility inside ``message``; some readers read it on the
        # line: both are accepted, the inner one first
        visibility = inner.get("visibility", item.get("visibility"))
        if not isinstance(visibility, str):
            visibility = None  # a value of another type says nothing Droid writes (kept verbatim below)
        default = self._writer(inner, blocks, visibility, role)
        parts: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for block in blocks:
            text = block if isinstance(block, str) else block.get("text") if isinstance(block, dict) else None
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(text, str) and (isinstance(block, str) or kind == "text"):
                for piece, who in split_reminders(text, default):
                    parts.append(_written({"type": "text", "text": piece}, who))
            elif kind == "tool_result":
                results.append(self._result(item, block))
            elif kind in ("image", "document"):
                parts.append(_written(media_part(block), default))
            else:
                parts.append(_written(data_part(block, f"block/{kind}"), default))
        records: list[dict[str, Any]] = []
        if parts or not results:
            if any(p.get("origin") == "prompt" for p in parts):
                self._prompted = True
            record = self._base("message", item)
            self._message_id(record, item)
            record["role"] = role
            whos = {(p.get("author"), p.get("origin")) for p in parts}
            if len(whos) == 1:  # one writer: on the message, not on each part
                author, origin = whos.pop()
                if author is not None and origin is not None:
                    record["author"], record["origin"] = author, origin
                for part in parts:
                    part.pop("author", None)
                    part.pop("origin", None)
            if visibility in _AUDIENCE:
                record["audience"] = _AUDIENCE[visibility]
            if visibility == "user_only" and parts:  # shown to the user, never sent (ASR-207)
                record["content"] = []
                record["displayContent"] = parts
                record["capture"] = {"content": {"state": "absent", "reason": "visibility user_only: not sent"}}
            else:
                record["content"] = parts
            if not parts:
                record["capture"] = {"content": {"state": "absent", "reason": "the message holds no blocks"}}
            self._rest(record, item, _MESSAGE_KNOWN)
            self._rest(record, inner, _INNER_KNOWN | {"id", "timestamp"})
            records.append(record)
        elif results:
            # only results: the line's id and other members go on the first result
            results[0]["droidMessageId"] = item.get("id")
            self._rest(results[0], item, _MESSAGE_KNOWN)
        return records + results

    def _writer(self, inner: dict[str, Any], blocks: list[Any], visibility: Any, role: str) -> tuple[str, str] | None:
        """Who wrote a user line's text (what the reminder tags do not mark): a hook run's row
        (``hookEventName``, reader: it records a hook run, not a turn), an ``llm_only`` injection
        (the harness's), a ``user_only`` line (unknown), the parent agent's Task prompt (its
        ``# Task Tool Invocation`` heading, or a Task child's first prompt), else the person's."""
        if role == "system":
            return HARNESS
        if role != "user":
            return None  # a tool-role line that is no tool result: its writer is not recorded
        if inner.get("hookEventName") is not None:
            return ("hook", "injected")
        if visibility == "llm_only":
            return HARNESS
        if visibility == "user_only":
            return None  # never sent to the model, so no prompt either
        first = blocks[0] if blocks else None
        text = first if isinstance(first, str) else first.get("text") if isinstance(first, dict) else None
        if (isinstance(text, str) and text.startswith(TASK_PROMPT)) or (self.child and not self._prompted):
            return ("agent", "prompt")  # the parent's Task prompt (ASR-202: not a person)
        return ("human", "prompt")

    def _result(self, item: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
        """A ``tool_result`` block (snake_case on disk; the SDK's camelCase accepted too)."""
        record = self._base("tool_result", item)
        call_id = block.get("tool_use_id", block.get("toolUseId"))
        record["callId"] = call_id if isinstance(call_id, str) else f"L{self._number}:unpaired"
        if not isinstance(call_id, str):
            record["idSource"] = "derived"
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        if call is not None and isinstance(call[0], str):
            record["name"] = call[0]
        error = block.get("is_error", block.get("isError"))
        if isinstance(error, bool):
            record["isError"] = error  # no status: Droid states none (docs/semantics.md)
        record["content"] = result_parts(block.get("content"))
        if record.get("name") == TASK_TOOL:  # the child's answer, delivered as the call's result
            for part in record["content"]:
                part["author"], part["origin"] = "agent", "subagent_report"
        if not record["content"]:
            record["capture"] = {"content": {"state": "absent", "reason": "the result holds no content"}}
        self._rest(record, block, _RESULT_KNOWN)
        return record

    def _assistant(self, item: dict[str, Any], inner: dict[str, Any]) -> list[dict[str, Any]]:
        content = inner.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return []
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for index, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                part: dict[str, Any] = {"type": "text", "text": block["text"]}
                if "id" in block:
                    part["_meta"] = {f"{REGISTRY}/block": {"id": block["id"]}}
                parts.append(part)
            elif kind in ("thinking", "redacted_thinking"):
                parts.append(reasoning_part(block))
            elif kind == "tool_use":
                calls.append(self._call(item, block, index))
            elif kind in ("image", "document"):
                parts.append(media_part(block))
            else:
                parts.append(data_part(block, f"block/{kind}"))
        facts: dict[str, Any] = {}
        known = _INNER_KNOWN
        if "modelId" in inner:
            facts["model"] = inner["modelId"]
            if "model" in inner:  # kept beside, not over modelId's value
                facts["droidModel"] = inner["model"]
                known = _INNER_KNOWN | {"model"}
        records: list[dict[str, Any]] = []
        if parts or not calls:
            record = self._base("message", item)
            self._message_id(record, item)
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = parts
            if not parts:
                record["capture"] = {"content": {"state": "absent", "reason": "the message holds no blocks"}}
            record.update(facts)
            self._rest(record, item, _MESSAGE_KNOWN)
            self._rest(record, inner, known)
            records.append(record)
            for call in calls:
                call["messageId"] = record["messageId"]
        elif calls:  # a response of calls only: no empty message; its line id kept on the first call
            calls[0]["droidMessageId"] = item.get("id")
            calls[0].update(facts)
            self._rest(calls[0], item, _MESSAGE_KNOWN)
            self._rest(calls[0], inner, known)
        for call in calls:
            records.append(call)
            if call.get("name") == TASK_TOOL:
                records.append(self._subagent(item, call))
        return records

    def _call(self, item: dict[str, Any], block: dict[str, Any], index: int) -> dict[str, Any]:
        record = self._base("tool_call", item)
        put_id(record, "callId", block.get("id"), f"L{self._number}:content[{index}]")
        if isinstance(block.get("name"), str):
            record["name"] = block["name"]
        if "input" in block:
            record["input"] = block["input"]
        self._rest(record, block, _CALL_KNOWN)  # thoughtSignature, riskLevel, riskLevelReason
        earlier = self.calls.get(record["callId"]) if "idSource" not in record else None
        if earlier is not None and earlier[2] is not None:
            record["supersedes"] = earlier[2]  # the call written again with its message
        self.calls[record["callId"]] = (block.get("name"), block.get("input"), None)
        return record

    def _subagent(self, item: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
        """A ``Task`` call: the child is a session file of its own whose ``session_start`` names
        this call (``callingToolUseId``); the parent's file does not name the child's id, so
        ``session`` is absent here (the child's header names this session as its parent)."""
        record = self._base("subagent", item)
        record["callId"] = call["callId"]
        args = call.get("input") if isinstance(call.get("input"), dict) else {}
        assert isinstance(args, dict)
        if isinstance(args.get("subagent_type"), str):
            record["agentType"] = args["subagent_type"]
        if isinstance(args.get("description"), str):
            record["description"] = args["description"]
        return record

    def _flat(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        """The flat ``{id, role, text, timestamp, session_id}`` variant (some sub-agent files)."""
        record = self._base("message", item)
        self._message_id(record, item)
        record["role"] = item["role"]
        text = item["text"]
        if item["role"] == "user" and text.startswith(TASK_PROMPT):
            record["author"], record["origin"] = "agent", "prompt"  # the parent's Task prompt
        elif item["role"] == "assistant":
            record["author"] = "model"
        record["content"] = [{"type": "text", "text": text}]
        self._rest(record, item, frozenset({"type", "id", "role", "text", "timestamp"}))
        return [record]

    # -- todo and compaction ------------------------------------------------------------------

    def _todos(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        """A ``todo_state`` snapshot of the TodoWrite list: item form -> an ``items`` plan; the
        string form (a numbered text list) -> a ``document`` plan holding the text as is."""
        holder = item.get("todos")
        todos = holder.get("todos") if isinstance(holder, dict) else holder
        record = self._base("plan", item)
        record.update(planId="todo", idSource="derived")
        if isinstance(todos, str):
            record["planType"] = "document"
            record["content"] = [{"type": "text", "text": todos}]
        elif isinstance(todos, list):
            entries = [self._entry(t) for t in todos]
            if any(e is None for e in entries):
                return []
            ids = [e["entryId"] for e in entries if e is not None and "entryId" in e]
            if len(set(ids)) != len(ids):
                for entry in entries:  # ASR-236: ids unique in one record, else none
                    if entry is not None:
                        entry.pop("entryId", None)
            record["planType"] = "items"
            record["entries"] = entries
        else:
            return []
        if self._plan is not None:
            record["supersedes"] = self._plan
        self._plan = self.emit.next_id
        self._rest(record, item, frozenset({"type", "id", "timestamp", "todos"}))
        if "id" in item:
            record["todoStateId"] = item["id"]
        return [record]

    @staticmethod
    def _entry(todo: Any) -> dict[str, Any] | None:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        entry: dict[str, Any] = {}
        if isinstance(todo.get("id"), str | int) and not isinstance(todo.get("id"), bool):
            entry["entryId"] = str(todo["id"])
        entry["content"] = todo["content"]
        status = todo.get("status")
        entry["status"] = status if status in _TODO_STATUS else f"{REGISTRY}/{status}"
        if todo.get("priority") in _PRIORITY:
            entry["priority"] = todo["priority"]
        rest = {k: v for k, v in todo.items() if k not in ("id", "content", "status", "priority")}
        if rest or ("priority" in todo and todo["priority"] not in _PRIORITY):
            entry["droid"] = {k: v for k, v in todo.items() if k not in ("id", "content", "status")}
        return entry

    def _compaction(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        """A ``compaction_state`` of ``summaryKind`` ``llm_summary`` (or none): its summary replaces,
        in the model's context, the history before ``anchorMessage`` (the first message kept, as
        the review reads agent-beacon; docs/agents/droid.md); the earlier lines stay in the file.
        Another kind (``provider_switch_serialization`` re-serializes the turns, reader: no
        summary) is kept as a vendor record."""
        if item.get("summaryKind", "llm_summary") != "llm_summary":
            return []
        text = item.get("summaryText")
        summary = item.get("summary")
        if not isinstance(text, str) and isinstance(summary, dict) and isinstance(summary.get("body"), str):
            text = summary["body"]  # the shape specstory reads
        if not isinstance(text, str):
            return []
        record = self._base("message", item)
        self._message_id(record, item)
        # the harness put the summary in; which role carries it in the next request, and who
        # sees it, is not recorded (no audience, ASR-204)
        record.update(author="harness", origin="injected")
        record["content"] = [{"type": "text", "text": text}]
        record["capture"] = {"role": {"state": "absent", "reason": "compaction_state names no role"}}
        record["summaryOf"] = "compaction"
        through = f"r{self.emit.seq}"
        anchor = item.get("anchorMessage")
        kept = self.lines.get(anchor["id"]) if isinstance(anchor, dict) and isinstance(anchor.get("id"), str) else None
        if kept is not None:
            through = kept[1]  # the record before the anchor's first record
        record["compaction"] = {"through": through} if through != "r1" else {}  # r1: the header
        self._rest(record, item, frozenset({"type", "id", "timestamp", "summaryText"}))
        return [record]
