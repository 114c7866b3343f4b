# Whole, over 400 lines: tool results and what tools mean beyond them (plans, subagents) share one call index.
"""Tool results, and what some tools mean beyond their call: plans and subagent spawns.

TodoWrite, TaskCreate, TaskUpdate and TaskList results become ``plan`` records (written
after the result, when the tool accepted the change); ExitPlanMode becomes a ``document``
plan named by its plan file; Task / Agent results become ``subagent`` records naming the
child's stream. Held: the calls of those tools that still wait for their result.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...core.accounting import Diagnostic
from ...core.digests import RecordIds
from ...core.outcome import cancelled, denied, not_a_failure, set_exit_code
from ...core.spill import SpillMap, SpillSet
from ...core.timestamps import from_iso, stamp
from .info import REGISTRY, agent_key, opened
from .parts import result_parts
from .plans import REFUSED, TaskList, read_plan_file, todo_entries

PLAN_TOOLS = frozenset(
    {"TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "ExitPlanMode", "Task", "Agent", "AskUserQuestion"}
)
_SPAWN_FACTS = (
    ("address", "name"),
    ("agentType", "subagent_type"),
    ("agentType", "agentType"),
    ("description", "description"),
)
#: tool_result members the record carries in its own fields (a set: line keys are not the
#: interned constants, so a tuple would compare each one by value)
_RESULT_FIELDS = frozenset({"type", "tool_use_id", "is_error", "content"})
_AGENT_TAIL = re.compile(r"agentId: ([A-Za-z0-9_-]+)")


#: the texts Claude Code writes as a tool result when the call did not run to an outcome
#: (its message constants REJECT_MESSAGE / the "Permission for this tool use was denied" auto
#: rejection, CANCEL_MESSAGE and INTERRUPT_MESSAGE_FOR_TOOL_USE; samples 1.0.43, 2.1.38)
_DENIED_TEXTS = (
    "The user doesn't want to proceed with this tool use.",
    "Error: The user doesn't want to proceed with this tool use.",
    "Permission for this tool use was denied.",
    "The agent proposed a plan that was rejected by the user.",
)
_INTERRUPTED_TEXTS = (
    "The user doesn't want to take this action right now.",
    "[Request interrupted by user for tool use]",
)
#: a parallel call the harness did not run because a sibling call failed (sample 2.1.38)
_SIBLING_ERRORED = "<tool_use_error>Sibling tool call errored</tool_use_error>"
#: the Bash tool's failure text: "Exit code N" then the output (sample 2.0.76)
_BASH_EXIT = re.compile(r"(?:Error: )?Exit code (-?\d+)(?:\n|\Z)")


def result_outcome(record: dict[str, Any], name: str | None, content: Any, line: dict[str, Any]) -> None:
    """What the result's own text or the line's ``toolUseResult`` records of the call's outcome:
    the person's refusal (``denied``), the harness's cancellation of a sibling call, an
    interruption, or the Bash command's exit code (docs/semantics.md, Tool outcome)."""
    text = _text(content)
    result = line.get("toolUseResult")
    if (
        result == "User rejected tool use"
        or isinstance(line.get("toolDenialKind"), str)
        or text.startswith(_DENIED_TEXTS)
    ):
        record["status"] = denied(REGISTRY)
        not_a_failure(record)
    elif text == _SIBLING_ERRORED or result == "Sibling tool call errored":
        record["status"] = cancelled(REGISTRY)
        not_a_failure(record)
    elif text.startswith(_INTERRUPTED_TEXTS) or (isinstance(result, dict) and result.get("interrupted") is True):
        record["status"] = "interrupted"
        not_a_failure(record)
    elif name == "Bash" and record.get("isError") is True:
        match = _BASH_EXIT.match(text)
        if match is not None:
            set_exit_code(record, int(match.group(1)))


class ToolMixin:
    """Needs the builder's ``out``, ``info``, ``uuid_rec``, ``_link``, ``_copied``."""

    calls: dict[str, tuple[str, Any, dict[str, Any], str]]  # callId -> (name, input, line, rid)
    call_names: SpillMap  # callId -> the tool its call named
    plan_ids: dict[str, str]  # planId -> id of its latest record
    tasks: TaskList
    linked_agents: SpillSet  # child session refs a spawn named
    child_usage: dict[str, Any]  # child session ref -> the usage its spawn's result records
    child_keys: set[str]  # the child streams of the subagent files found beside the session
    sidechain_prompts: dict[str, str]  # first prompt of an inline sidechain -> its session ref
    out: Any
    info: Any
    uuid_rec: RecordIds
    response_id: Any
    response_lines: set[str]
    response_last: str | None
    result_run: str | None

    if TYPE_CHECKING:

        def _link(self, record: dict[str, Any], parent_uuid: Any) -> None: ...

        def _copied(self, record: dict[str, Any], obj: dict[str, Any], field_name: str, value: str) -> None: ...

        def _native(self, record: dict[str, Any], obj: dict[str, Any], skip: Any = ()) -> None: ...

        def _on_path(self, record: dict[str, Any], obj: dict[str, Any]) -> str: ...

    def _response_line(self, obj: dict[str, Any]) -> None:
        """Note an assistant line: the lines of one response (one ``message.id``) whose
        parallel tool results ``_result_parent`` chains. A new line ends a run of results."""
        message = obj.get("message")
        message_id = message.get("id") if isinstance(message, dict) else None
        if message_id is None or message_id != self.response_id:
            self.response_id = message_id
            self.response_lines = set()
            self.response_last = None
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            self.response_lines.add(uuid)
            self.response_last = uuid
        self.result_run = None

    def _result_parent(self, obj: dict[str, Any]) -> tuple[str | None, bool]:
        """The record a tool-result line continues from, and whether that is not its native
        parent. Claude Code writes each parallel result under its own tool_use line, so a
        walk from the last line keeps one branch; its loader (``recoverOrphanedParallelToolResults``
        in ``sessionStorage.ts``) puts the response's other calls and results back after the
        response's last line on the chain. Here a result answering a line of the same response
        as the result before it, with no assistant line between, continues from that result
        (its last derived record: a subagent, a plan), in file order, and the first of them
        from the response's latest line; the native parentUuid is then kept in ``native``."""
        parent = obj.get("parentUuid")
        uuid = obj.get("uuid")
        run = self.result_run
        self.result_run = None
        if type(parent) is not str or parent not in self.response_lines:
            return (self.uuid_rec.get(parent) if type(parent) is str else None), False
        if isinstance(uuid, str):
            self.result_run = uuid
        native = self.uuid_rec.get(parent)
        latest = run if run is not None else self.response_last
        rid = self.uuid_rec.get(latest) if latest is not None else None
        if rid:
            return rid, rid != native
        return native, False

    def _remember_call(self, call: dict[str, Any], obj: dict[str, Any]) -> None:
        name = call.get("name")
        if name in PLAN_TOOLS and call["callId"]:
            self.calls[call["callId"]] = (name, call.get("input"), obj, self.out.emit.next_id)

    def _tool_results(self, obj: dict[str, Any], blocks: list[Any]) -> None:
        """One ``tool_result`` record per block; ``toolUseResult`` kept on the first."""
        first = True
        timestamp = obj.get("timestamp")
        prompt_id = obj.get("promptId")
        parent = obj.get("parentUuid")
        parent_rid, recovered = self._result_parent(obj)
        copies = self.info.parent_refs is not None
        for index, block in enumerate(blocks):
            if type(block) is not dict or block.get("type") != "tool_result":
                continue
            native = block.get("tool_use_id")
            call_id = native if isinstance(native, str) and native else f"{obj.get('uuid')}:result-{index}"
            pending = self.calls.pop(call_id, None) if call_id and self.calls else None
            record = opened("tool_result", timestamp)
            if isinstance(prompt_id, str):
                record["turnId"] = prompt_id
            record["callId"] = call_id
            name = self.call_names.pop(call_id, None)  # one result per call: its entry is done
            if name is not None:
                record["name"] = name
            is_error = block.get("is_error")
            if isinstance(is_error, bool):
                record["isError"] = is_error
            result_outcome(record, name, block.get("content"), obj)
            report = pending is not None and pending[0] in ("Task", "Agent") and block.get("is_error") is not True
            parts = record["content"] = result_parts(block.get("content"), report=report)
            for part in parts:
                if part.get("type") == "text" and "<persisted-output>" in part.get("text", ""):
                    reason = "the output was written to a tool-results file; the transcript keeps a preview"
                    record["capture"] = {"content": {"state": "truncated", "reason": reason}}
                    break
            if parent_rid:
                record["parent"] = parent_rid
            if call_id is not native:
                record["idSource"] = "derived"
            if copies:
                self._copied(record, obj, "callId", call_id)
            for key, value in block.items():
                if key not in _RESULT_FIELDS:
                    record[key] = value
            if "id" in block and "seq" not in block:
                del record["seq"]  # the emitter's copy keeps a native "id", as it always did
            if first:
                if "toolUseResult" in obj:
                    record["toolUseResult"] = obj["toolUseResult"]
                self._native(record, obj)
                if recovered:  # ``parent`` no longer carries it
                    record.setdefault("native", {})["parentUuid"] = parent
            rid = self.out.put(record)
            if first:
                uuid = obj.get("uuid")
                if isinstance(uuid, str):
                    self.uuid_rec[uuid] = rid
                    if parent == uuid:  # a line naming itself: later blocks link to its first
                        parent_rid = rid
                first = False
            if pending is not None:
                self._after_result(pending, obj, block, rid)

    def _after_result(
        self, pending: tuple[str, Any, dict[str, Any], str], obj: dict[str, Any], block: dict[str, Any], rid: str
    ) -> None:
        name, call_input, _call_line, _call_rid = pending
        call_input = call_input if isinstance(call_input, dict) else {}
        result = obj.get("toolUseResult")
        failed = block.get("is_error") is True
        if name in ("Task", "Agent"):
            text = _text(block.get("content"))
            self._spawn(block.get("tool_use_id"), call_input, obj, result, text, failed)
        elif name == "AskUserQuestion":
            self._questions(obj, block, call_input, result)
        elif failed:
            return
        elif name == "TodoWrite":
            entries = todo_entries(call_input.get("todos"))
            if entries is not None:
                self._plan(obj, block, f"todos:{self.info.session_id}", {"planType": "items", "entries": entries})
        elif name == "TaskGet":
            self.tasks.learn(result, _text(block.get("content")))
        elif name in ("TaskCreate", "TaskUpdate", "TaskList"):
            entries = None
            if name == "TaskCreate":
                changed = self.tasks.create(call_input, result, _text(block.get("content")))
            elif name == "TaskUpdate":
                changed = not (isinstance(result, dict) and result.get("success") is False) and self.tasks.update(
                    call_input
                )
            else:
                before = self.tasks.entries()
                self.tasks.replace(result.get("tasks") if isinstance(result, dict) else None)
                entries = self.tasks.entries()
                changed = entries != before
            if changed and self.tasks.complete():
                plan = {"planType": "items", "entries": entries if entries is not None else self.tasks.entries()}
                self._plan(obj, block, f"tasks:{self.info.session_id}", plan)
        elif name == "ExitPlanMode":
            self._plan_document(obj, block, call_input, result)

    def _questions(self, obj: dict[str, Any], block: dict[str, Any], call_input: dict[str, Any], result: Any) -> None:
        """AskUserQuestion: one ``input_request`` per question, with the answer the result records."""
        questions = call_input.get("questions")
        answers = result.get("answers") if isinstance(result, dict) else None
        answers = answers if isinstance(answers, dict) else {}
        call_id = block.get("tool_use_id")
        for index, question in enumerate(questions if isinstance(questions, list) else ()):
            if not isinstance(question, dict):
                continue
            record: dict[str, Any] = {"type": "input_request", "seq": 0, "id": ""}
            self.out.stamp(record, obj.get("timestamp"))
            record["requestId"] = f"{call_id}/{index}"
            record["callId"] = call_id
            text = question.get("question")
            if isinstance(text, str):
                record["content"] = [{"type": "text", "text": text}]
            if isinstance(question.get("options"), list):
                record["options"] = question["options"]
            answer = answers.get(text) if isinstance(text, str) else None
            if isinstance(answer, str):
                record["answer"] = [{"type": "text", "text": answer, "author": "human"}]
            record["idSource"] = "derived"
            rest = {k: v for k, v in question.items() if k not in ("question", "options")}
            if rest:
                record["native"] = rest
            self._on_path(record, obj)

    def _plan(
        self, obj: dict[str, Any], block: dict[str, Any], plan_id: str, body: dict[str, Any], derived: bool = True
    ) -> None:
        record = opened("plan", obj.get("timestamp"))
        record["planId"] = plan_id
        record["planType"] = body["planType"]
        record["callId"] = block.get("tool_use_id")
        for key in ("entries", "content", "source", "capture"):
            if key in body:
                record[key] = body[key]
        if derived:
            record["idSource"] = "derived"
        previous = self.plan_ids.get(plan_id)
        if previous is not None:
            record["supersedes"] = previous
        self.plan_ids[plan_id] = self._on_path(record, obj)

    def _plan_document(
        self, obj: dict[str, Any], block: dict[str, Any], call_input: dict[str, Any], result: Any
    ) -> None:
        """ExitPlanMode: the plan as the transcript keeps it, else the plan file when found."""
        named = result.get("filePath") if isinstance(result, dict) else None
        named = named if isinstance(named, str) else None
        slug = obj.get("slug") if isinstance(obj.get("slug"), str) else None
        text = call_input.get("plan") if isinstance(call_input.get("plan"), str) else None
        if text is None and isinstance(result, dict) and isinstance(result.get("plan"), str):
            text = result["plan"]
        found = None
        missing = "plan file not found"
        if text is None:
            text, found, missing = read_plan_file(named, slug, self.info.path)
            if text is None and missing.startswith(REFUSED):  # a file there that may not be read: counted
                where = str(self.info.path) if self.info.path is not None else self.info.file
                self.out.acc.diagnostics.append(Diagnostic(where, None, f"plan file skipped: {missing}"))
        path = named or found
        plan_id = _stem(path) or slug
        body: dict[str, Any] = {"planType": "document"}
        if text is not None:
            body["content"] = [{"type": "text", "text": text}]
        else:
            body["capture"] = {"content": {"state": "absent", "reason": missing}}
        if path:
            body["source"] = {"root": None, "path": path}
        self._plan(obj, block, plan_id or f"plan:{self.info.session_id}", body, derived=plan_id is None)

    def _spawn(
        self,
        call_id: Any,
        call_input: dict[str, Any],
        result_line: dict[str, Any],
        result: Any,
        text: str,
        failed: bool = False,
    ) -> None:
        agent_id = result.get("agentId") if isinstance(result, dict) else None
        if not isinstance(agent_id, str):
            match = _AGENT_TAIL.search(text)
            agent_id = match.group(1) if match else None
        if failed and not agent_id:
            return  # the call failed before any agent ran (input validation…): no delegation
        session = None
        if agent_id:
            session = agent_key(self.info.root_session, agent_id)
            usage = result.get("usage") if isinstance(result, dict) else None
            if isinstance(usage, dict) and session in self.child_keys:
                self.child_usage[session] = usage  # the child's last response, as the parent saw it
        elif isinstance(call_input.get("prompt"), str):
            session = self.sidechain_prompts.get(call_input["prompt"])
        self._subagent(result_line, call_id, session, call_input, on_path=True)

    def _subagent(
        self,
        line: dict[str, Any] | None,
        call_id: Any,
        session: str | None,
        facts: dict[str, Any],
        on_path: bool = False,
    ) -> None:
        """A ``subagent`` record with the time of the line it comes from. ``on_path``: written
        after that line (the spawn's result) and put on the conversation path there; otherwise
        (a spawn whose result never came, a transcript no spawn named) it has no ``parent``:
        its ``callId`` links it to its call."""
        record: dict[str, Any] = {"type": "subagent", "seq": 0, "id": ""}
        if line is not None:
            stamp(record, from_iso(line.get("timestamp")))
        if isinstance(call_id, str) and call_id:
            record["callId"] = call_id
        if session:
            record["session"] = session
            self.linked_agents.add(session)
        for key, field in (
            ("address", "name"),
            ("agentType", "subagent_type"),
            ("agentType", "agentType"),
            ("description", "description"),
        ):
            if isinstance(facts.get(field), str) and key not in record:
                record[key] = facts[field]
        if on_path and line is not None:
            self._on_path(record, line)
        else:
            self.out.put(record)

    def _finish_tools(self, children: list[tuple[str, str | None, dict[str, Any] | None]]) -> None:
        """Spawns whose result never came, then child transcripts no spawn named."""
        by_call = {call: key for key, call, _ in children if call}
        for call_id, (name, call_input, line, _rid) in list(self.calls.items()):
            if name in ("Task", "Agent"):
                facts = call_input if isinstance(call_input, dict) else {}
                self._subagent(line, call_id, by_call.get(call_id), facts)
        self.calls.clear()
        for key, _call, meta in children:
            if key not in self.linked_agents:
                self._subagent(None, None, key, meta or {})


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _stem(path: str | None) -> str | None:
    if not path:
        return None
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name or None
