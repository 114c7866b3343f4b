"""One Qwen Code ``ChatRecord`` at a time, into ASR records.

The parts inside ``message`` are the Gemini API's ``Content`` parts, as Gemini CLI stores
them, so they are mapped by the Gemini CLI adapter's functions (``map_part``,
``attribute_prompt``, ``response_parts``, ``function_call_body``, ``result_outcome``), under
Qwen Code's own registry name. What differs is the record around them (one record per line,
``uuid`` / ``parentUuid`` chain, ``system`` subtypes, ``toolCallResult``), the reasoning (a
``thought`` part here holds whatever reasoning text the backend returned, not a Gemini
summary) and the usage convention (``usage.py``). docs/agents/qwen-code.md lists each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.adapter import Adapter, Context, Emitter
from ...core.outcome import not_a_failure
from ...core.refs import put_id, schema_name
from ...core.spill import SpillMap
from ...core.timestamps import from_iso, stamp
from ..gemini_cli.parts import attribute_prompt, map_part, native_parts
from ..gemini_cli.tools import display_parts, function_call_body, response_parts, result_outcome
from .system import SystemRecords
from .usage import normalized_usage

REGISTRY = "ai.qwen.qwen-code"
#: the members every record repeats (``ChatRecord``); the header holds the first record's
ENVELOPE = ("sessionId", "cwd", "version", "gitBranch")
_KNOWN = frozenset(
    {"uuid", "parentUuid", "timestamp", "type", "subtype", "message", "usageMetadata", "toolCallResult", *ENVELOPE}
)
#: a UserPromptSubmit hook's context, a part of its own on the prompt (2026 builds)
HOOK_CONTEXT = "<qwen:user-prompt-submit-context>"
#: the shell tool's text when the person stopped the command (``tools/shell.ts``)
SHELL_CANCELLED = "Command was cancelled by user"
#: user-record subtypes: who wrote them and how they came in
_USER_SUBTYPES = {
    "notification": ("harness", "injected"),  # a background task's report, delivered as user input
    "cron": ("harness", "injected"),
    "mid_turn_user_message": ("human", "steer"),  # drained into the turn with the tool results
}
_TOOL_STATUS = {"success": "complete", "error": "error", "cancelled": f"{REGISTRY}/cancelled"}
_SUBAGENT_STATUS = {"completed": "complete", "failed": "error"}
#: the delegation tool: ``task`` up to 0.14's rename, ``agent`` after
AGENT_TOOLS = ("agent", "task")
_TODO_STATUS = ("pending", "in_progress", "completed")


class QwenMapper(SystemRecords):
    """Converts the records of one recording, in order, through one emitter."""

    def __init__(self, adapter: Adapter, context: Context, emit: Emitter, envelope: dict[str, Any]) -> None:
        self.adapter = adapter
        self.accounting = context.accounting
        self.emit = emit
        self.envelope = envelope
        #: uuid -> seq of its first record, for ``parent`` links (older ones wait on disk)
        self.records_of = SpillMap()
        #: call id -> (tool name, arguments), for result names, plans and subagents
        self.calls = SpillMap()
        self.plans: dict[str, str] = {}  # planId -> id of its last record (supersedes)
        self._parent: str | None = None
        self._number = 0

    def record(self, number: int, item: Any) -> Iterator[dict[str, Any]]:
        """The records of one native line; accounts it as records or vendor."""
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            self.accounting.vendor += 1
            yield self.emit(self.adapter.vendor("unknown", item))
            return
        uuid = item.get("uuid")
        self._number = number
        parent_id = item.get("parentUuid")
        found = self.records_of.get(parent_id) if isinstance(parent_id, str) else None
        self._parent = None if found is None else f"r{found}"
        kind, subtype = item["type"], item.get("subtype")
        records: list[dict[str, Any]] = []
        if isinstance(uuid, str) and uuid in self.records_of:
            kind = "repeated-record"  # a uuid written twice: a copied line, kept verbatim
        elif kind == "user":
            records = self._user(item)
        elif kind == "assistant" and subtype is None:
            records = self._assistant(item, number)
        elif kind == "tool_result" and subtype is None:
            records = self._tool_result(item)
        elif kind == "system":
            records = self._system(item)
        if not records:
            schema = kind if subtype is None else f"{kind}/{subtype}"
            records = [self._vendor(item, schema)]
        if all(r["type"] == "vendor" for r in records):
            self.accounting.vendor += 1
        else:
            self.accounting.records += 1
        if isinstance(uuid, str) and kind != "repeated-record":
            self.records_of[uuid] = self.emit.seq + 1
        for record in records:
            yield self.emit(record)

    # -- shared pieces --------------------------------------------------------------------

    def _base(self, kind: str, item: dict[str, Any]) -> dict[str, Any]:
        record: dict[str, Any] = {"type": kind}
        stamp(record, from_iso(item.get("timestamp")))
        return record

    def _tail(self, record: dict[str, Any], item: dict[str, Any], known: frozenset[str] = _KNOWN) -> None:
        """The ``parent`` link (once per native record), then the record's other members
        verbatim, and the envelope members that differ from the header's (a resumed
        session can carry another version)."""
        if self._parent is not None:
            record["parent"] = self._parent
            self._parent = None
        for key, value in item.items():
            if key in ENVELOPE:
                if value != self.envelope.get(key):
                    record[key] = value
            elif key not in known:
                record[key] = value

    def _message_id(self, record: dict[str, Any], item: dict[str, Any]) -> None:
        """``messageId``: the record's ``uuid``; a record without one gets ``L<line>``, derived."""
        put_id(record, "messageId", item.get("uuid"), f"L{self._number}")

    def _vendor(self, item: dict[str, Any], schema: str) -> dict[str, Any]:
        record = self._base("vendor", item)
        record["schema"] = schema_name(REGISTRY, schema)
        record["data"] = item
        if self._parent is not None:
            record["parent"] = self._parent
            self._parent = None
        return record

    def _parts(self, item: dict[str, Any]) -> list[Any]:
        message = item.get("message")
        return native_parts(message.get("parts")) if isinstance(message, dict) else []

    # -- user -----------------------------------------------------------------------------

    def _user(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        subtype = item.get("subtype")
        if subtype is not None and subtype not in _USER_SUBTYPES:
            return []
        native = self._parts(item)
        if not native and not isinstance(item.get("message"), dict):
            return []
        record = self._base("message", item)
        self._message_id(record, item)
        record["role"] = "user"
        author, origin = _USER_SUBTYPES[subtype] if isinstance(subtype, str) else ("human", "prompt")
        record["author"], record["origin"] = author, origin
        content = [map_part(p, REGISTRY, thought_summary=False) for p in native]
        if author == "human":
            content = [
                {**p, "author": "hook", "origin": "injected"}
                if isinstance(p.get("text"), str) and p["text"].startswith(HOOK_CONTEXT)
                else p
                for p in attribute_prompt(content)
            ]
        record["content"] = content
        payload = item.get("systemPayload")
        display = payload.get("displayText") if isinstance(payload, dict) else None
        if isinstance(display, str):
            record["displayContent"] = [{"type": "text", "text": display}]
            if content:
                record["displayCorrespondence"] = "native"
        if not content:
            record["capture"] = {"content": {"state": "absent", "reason": "the record holds no parts"}}
        self._tail(record, item)
        return [record]

    # -- assistant --------------------------------------------------------------------------

    def _assistant(self, item: dict[str, Any], number: int) -> list[dict[str, Any]]:
        native_uuid = item.get("uuid")
        uuid = native_uuid if isinstance(native_uuid, str) and native_uuid else f"L{number}"
        content: list[dict[str, Any]] = []
        calls: list[tuple[int, dict[str, Any]]] = []
        for index, part in enumerate(self._parts(item)):
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                calls.append((index, part))
            else:
                content.append(map_part(part, REGISTRY, thought_summary=False))
        if not content and not calls:
            return []
        facts: dict[str, Any] = {}
        if "model" in item:
            facts["model"] = item["model"]
        if "usageMetadata" in item:
            usage = normalized_usage(item["usageMetadata"])
            if usage is not None:
                facts["usage"] = usage
            facts["nativeUsage"] = item["usageMetadata"]
        records: list[dict[str, Any]] = []
        link: dict[str, str] = {}
        if content:
            record = self._base("message", item)
            record["messageId"] = uuid
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = content
            if uuid != item.get("uuid"):
                record["idSource"] = "derived"
            record.update(facts)
            self._tail(record, item, _KNOWN | {"model"})
            records.append(record)
            link = {"messageId": uuid}
        for position, (index, part) in enumerate(calls):
            native_id = part["functionCall"].get("id")
            derived = not (isinstance(native_id, str) and native_id)
            call_id = f"{uuid}:parts[{index}]" if derived else native_id
            body = function_call_body(part, call_id, derived, item.get("timestamp"), link)
            if not content and position == 0:
                body.update(facts)
                self._tail(body, item, _KNOWN | {"model"})
            records.append(body)
            call = part["functionCall"]
            self.calls[call_id] = (call.get("name"), call.get("args"))
        return records

    # -- tool results -------------------------------------------------------------------------

    def _tool_result(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        parts = self._parts(item)
        result = item.get("toolCallResult")
        result = result if isinstance(result, dict) else {}
        responses = [p["functionResponse"] for p in parts if isinstance(p, dict) and "functionResponse" in p]
        response: dict[str, Any] = responses[0] if responses and isinstance(responses[0], dict) else {}
        call_id = result.get("callId") if isinstance(result.get("callId"), str) else response.get("id")
        if not isinstance(call_id, str):
            return []
        name, args = self.calls.get(call_id) or (None, None)
        if isinstance(response.get("name"), str):
            name = response["name"]
        record = self._base("tool_result", item)
        record["callId"] = call_id
        if isinstance(name, str):
            record["name"] = name
        native_status = result.get("status")
        content, failed = response_parts(parts, call_id, name, REGISTRY)
        if isinstance(native_status, str):
            record["status"] = _TOOL_STATUS.get(native_status) or f"{REGISTRY}/{native_status}"
        if failed or native_status in ("error", "success"):
            record["isError"] = native_status == "error" or failed
        text = "".join(p["text"] for p in content if isinstance(p.get("text"), str))
        if text.startswith(SHELL_CANCELLED):
            record["status"] = "interrupted"
            not_a_failure(record)
        else:
            result_outcome(record, name, content, REGISTRY)
        record["content"] = content
        if not content:
            record["capture"] = {"content": {"state": "absent", "reason": "the record holds no function response"}}
        if "resultDisplay" in result:
            shown = display_parts(result["resultDisplay"], REGISTRY)
            record["displayContent"] = shown
            if content and shown:
                record["displayCorrespondence"] = "native"
        rest = {k: v for k, v in result.items() if k not in ("callId", "status", "resultDisplay")}
        if rest:
            record["toolCallResult"] = rest
        self._tail(record, item)
        records = [record]
        if name in AGENT_TOOLS:
            records.append(self._subagent(item, call_id, args, result.get("resultDisplay"), record))
        elif name == "todo_write" and native_status == "success":
            plan = self._todos(item, call_id, args)
            if plan is not None:
                records.append(plan)
        return records

    def _subagent(
        self, item: dict[str, Any], call_id: str, args: Any, display: Any, result: dict[str, Any]
    ) -> dict[str, Any]:
        """A foreground subagent (the ``agent`` / ``task`` tool): Qwen Code records no
        transcript of its own for it (≤ 0.14), only this call, its result and telemetry."""
        body = self._base("subagent", item)
        body["callId"] = call_id
        args = args if isinstance(args, dict) else {}
        report = display if isinstance(display, dict) and display.get("type") == "task_execution" else {}
        agent = args.get("subagent_type") or report.get("subagentName")
        if isinstance(agent, str) and agent:
            body["agentType"] = agent
        description = args.get("description") or report.get("taskDescription")
        if isinstance(description, str):
            body["description"] = description
        status = report.get("status")
        if isinstance(status, str):
            if status == "cancelled":
                body["status"] = "interrupted" if result.get("status") == "interrupted" else f"{REGISTRY}/cancelled"
            else:
                body["status"] = _SUBAGENT_STATUS.get(status) or f"{REGISTRY}/{status}"
        return body

    def _todos(self, item: dict[str, Any], call_id: str, args: Any) -> dict[str, Any] | None:
        """A successful ``todo_write``: the complete todo list (``todos[{id, content, status}]``)."""
        todos = args.get("todos") if isinstance(args, dict) else None
        if not isinstance(todos, list):
            return None
        entries = []
        for todo in todos:
            if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
                return None
            status = todo.get("status")
            entry: dict[str, Any] = {}
            if isinstance(todo.get("id"), str):
                entry["entryId"] = todo["id"]
            entry["content"] = todo["content"]
            entry["status"] = status if status in _TODO_STATUS else f"{REGISTRY}/{status}"
            entries.append(entry)
        if len({e.get("entryId") for e in entries if "entryId" in e}) != sum(1 for e in entries if "entryId" in e):
            for entry in entries:  # ids must be unique in one record (ASR-236): keep them elsewhere
                entry.pop("entryId", None)
        body = self._base("plan", item)
        body.update(planId="todo_write", planType="items", callId=call_id, entries=entries, idSource="derived")
        previous = self.plans.get("todo_write")
        if previous is not None:
            body["supersedes"] = previous
        self.plans["todo_write"] = f"r{self.emit.seq + 2}"  # after the tool_result before it
        return body
