"""``toolCalls[]`` entries and function-call/response parts -> tool, plan and subagent bodies.

Bodies are plain dicts built in canonical key order, ``type`` first with ``seq`` and ``id``
placeholders (``core.adapter.start``), so the emitter numbers them in place; the mapper
decides whether each one is new, a revision (``supersedes``) or a repeat of what it wrote.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.outcome import denied, not_a_failure, set_exit_code
from ...core.refs import session_ref
from ...core.timestamps import from_iso
from .parts import REGISTRY, map_part, native_parts, output_capture

RESULT_SCHEMA = f"{REGISTRY}/functionResponse"
DISPLAY_SCHEMA = f"{REGISTRY}/resultDisplay"
_CALL_KEYS = frozenset(("id", "name", "args", "result", "status", "timestamp", "resultDisplay", "agentId"))
_STATUS = {"success": "complete", "error": "error"}
#: the capture state of a tool_result whose entry recorded no output (``result`` null or empty)
NO_OUTPUT = {"state": "absent", "reason": "Gemini CLI recorded no output for this call"}
_TODO_STATUS = ("pending", "in_progress", "completed")
TODO_PLAN_ID = "write_todos"
#: tools that delegate to a subagent named in their arguments (``args.agent_name``)
AGENT_TOOLS = ("invoke_agent",)
#: the per-agent tools of the CLI's built-in agents (each agent its own tool, named as the agent)
AGENT_NAMED_TOOLS = ("codebase_investigator", "cli_help")
#: the arguments that hold an agent's task, in the order they are looked for
TASK_ARGUMENTS = ("prompt", "question", "objective")


def stamped(kind: str, value: Any) -> dict[str, Any]:
    """A new ``kind`` body with ``seq``/``id`` placeholders (as ``core.adapter.start``) and
    the time ``value`` names, if any: the start of every body, in one call."""
    ts, precision = from_iso(value)
    body: dict[str, Any] = {"type": kind, "seq": 0, "id": ""}
    if ts is not None:
        body["ts"] = ts
        if precision is not None:
            body["tsPrecision"] = precision
    return body


def response_parts(
    native: Any, call_id: str | None, name: Any, registry: str = REGISTRY
) -> tuple[list[dict[str, Any]], bool]:
    """A tool output (``result`` Part[] or a user turn's parts) -> (ASR parts, output was an error).
    ``registry``: the agent whose file it is (Qwen Code writes the same function responses)."""
    out: list[dict[str, Any]] = []
    failed = False
    for part in native if type(native) is list else native_parts(native):
        if type(part) is str:
            part = {"text": part}  # as native_parts makes it
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            out.append(map_part(part, registry))
            continue
        body = response.get("response")
        text = None
        if type(body) is dict and len(body) == 1:  # {output} or {error}, a string: the text
            text = body.get("output")
            if text is None:
                text = body.get("error")
                if isinstance(text, str):
                    failed = True
        if isinstance(text, str):
            mapped: dict[str, Any] = {"type": "text", "text": text}
        else:
            mapped = {"type": "data", "data": body, "schema": f"{registry}/functionResponse"}
        if len(part) == 1 and len(response) <= 3 and response.get("id") == call_id and response.get("name") == name:
            out.append(mapped)  # the common case: nothing beside id, name and response
            continue
        rest = {k: v for k, v in response.items() if k != "response"}
        if rest.get("id") == call_id:
            rest.pop("id")
        if rest.get("name") == name:
            rest.pop("name")
        other = {k: v for k, v in part.items() if k != "functionResponse"}
        if rest or other:
            meta: dict[str, Any] = {}
            if rest:
                meta["functionResponse"] = rest
            meta.update(other)
            mapped["_meta"] = {f"{registry}/part": meta}
        out.append(mapped)
    return out, failed


def display_parts(display: Any, registry: str = REGISTRY) -> list[dict[str, Any]]:
    """``resultDisplay`` (what the UI showed) -> displayContent parts."""
    if display is None:
        return []
    if isinstance(display, str):
        return [{"type": "text", "text": display}]
    return [{"type": "data", "data": display, "schema": f"{registry}/resultDisplay"}]


def call_body(call: dict[str, Any], call_id: str, derived: bool, ts: Any, link: dict[str, str]) -> dict[str, Any]:
    """The ``tool_call`` of one ``toolCalls[]`` entry; ``link`` is its messageId or inferenceId."""
    body = stamped("tool_call", ts)
    if "inferenceId" in link:
        body["inferenceId"] = link["inferenceId"]
    body["callId"] = call_id
    if isinstance(call.get("name"), str):
        body["name"] = call["name"]
    if "messageId" in link:
        body["messageId"] = link["messageId"]
    if "args" in call:
        body["input"] = call["args"]
    if derived:
        body["idSource"] = "derived"
    extra = _extra_keys(call)
    if extra:
        body["gemini"] = {k: call[k] for k in extra}
    return body


_EXTRA_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _extra_keys(call: dict[str, Any]) -> tuple[str, ...]:
    """The entry's members without a place in tool_call or tool_result, in their order
    (remembered per key shape: entries of one session come in a few shapes)."""
    shape = tuple(call)
    extra = _EXTRA_KEYS.get(shape)
    if extra is None:
        extra = tuple(k for k in shape if k not in _CALL_KEYS)
        if len(_EXTRA_KEYS) < 1024:
            _EXTRA_KEYS[shape] = extra
    return extra


def own_result(result: Any, call_id: str, name: Any, position: int) -> Any:
    """The part of a ``result`` that answers this call: the functionResponse part (and the
    parts after it, up to the next response) whose id is the call's, else the one at the
    call's position among the responses when it has the call's name.

    Gemini CLI's masking sync (chatRecordingService ``updateMessagesFromHistory``, upstream
    5411f113) sets every ``toolCalls[]`` entry's ``result`` to *all* the parts of the
    function-response turn, so with several calls in one reply each call's result holds its
    siblings' outputs too. A result with one response (or none) is the call's own, as is.
    """
    if type(result) is not list:
        return result
    starts = [
        i for i, part in enumerate(result) if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]
    if len(starts) < 2:
        return result
    chosen = next((i for i in starts if result[i]["functionResponse"].get("id") == call_id), None)
    if chosen is None and position < len(starts):
        candidate = starts[position]
        response = result[candidate]["functionResponse"]
        if response.get("name") == name and not isinstance(response.get("id"), str):
            chosen = candidate
    if chosen is None:
        return result
    end = next((i for i in starts if i > chosen), len(result))
    begin = 0 if chosen == starts[0] else chosen  # parts before the first response go with it
    return result[begin:end]


#: what the scheduler writes when the person declines a confirmation (``handleCancellation``,
#: also on an abort while it waits) or stops a running tool, and the policy engine's refusal
_NOT_ALLOWED = "User did not allow tool call"
#: statuses under which the call did not run to an outcome: no ``isError`` either way
NOT_RUN = frozenset({f"{REGISTRY}/denied", f"{REGISTRY}/cancelled", "interrupted"})
_STOPPED = "User cancelled tool execution"
_POLICY = "Tool execution denied by policy"
#: the shell tool's own line in its output (``Exit Code: N``; "(none)" while it has none)
_EXIT_CODE = re.compile(r"(?:^|\n)Exit Code: (-?\d+)(?:\n|\Z)")


def result_outcome(body: dict[str, Any], name: Any, content: list[dict[str, Any]], registry: str = REGISTRY) -> None:
    """The outcome a result's own text records (docs/semantics.md, Tool outcome): the person's
    refusal or a policy's is ``denied``, a stopped run ``interrupted`` (neither a failure);
    ``run_shell_command``'s "Exit Code: N" is the ``exitCode``."""
    text = "".join(p["text"] for p in content if p.get("type") == "text" and isinstance(p.get("text"), str))
    if _NOT_ALLOWED in text[:200] or text.startswith(_POLICY):
        body["status"] = denied(registry)
        not_a_failure(body)
    elif _STOPPED in text[:200]:
        body["status"] = "interrupted"
        not_a_failure(body)
    elif name == "run_shell_command" and "Exit Code: " in text:
        match = _EXIT_CODE.search(text)
        if match is not None:
            set_exit_code(body, int(match.group(1)))


def result_body(call: dict[str, Any], call_id: str, position: int = 0) -> dict[str, Any]:
    """The ``tool_result`` of one ``toolCalls[]`` entry (the ``position``-th of its reply),
    with what the UI showed as displayContent."""
    body = stamped("tool_result", call.get("timestamp"))
    body["callId"] = call_id
    if isinstance(call.get("name"), str):
        body["name"] = call["name"]
    native_status = call.get("status")
    status = (_STATUS.get(native_status) or f"{REGISTRY}/{native_status}") if isinstance(native_status, str) else None
    name = call.get("name")
    content, failed = response_parts(own_result(call.get("result"), call_id, name, position), call_id, name)
    if status is not None:
        body["status"] = status
    # isError only where the source states it: an error status or output, or success; a
    # cancelled (or otherwise ended) call with no error output says nothing either way
    if failed or native_status in ("error", "success"):
        body["isError"] = native_status == "error" or failed
    result_outcome(body, name, content)
    body["content"] = content
    capture = output_capture(content)
    if capture is None and not content:
        capture = NO_OUTPUT
    if capture is not None:
        body["capture"] = {"content": capture}
    if "resultDisplay" in call:
        display = call["resultDisplay"]
        body["displayContent"] = [{"type": "text", "text": display}] if type(display) is str else display_parts(display)
    if "status" in call and status is None:
        body["nativeStatus"] = call["status"]
    return body


def function_call_body(
    part: dict[str, Any], call_id: str, derived: bool, ts: Any, link: dict[str, str]
) -> dict[str, Any]:
    """A ``functionCall`` part (raw API content) -> a tool_call body."""
    call = part["functionCall"]
    native = {"name": call.get("name"), "args": call.get("args")} if "args" in call else {"name": call.get("name")}
    body = call_body(native, call_id, derived, ts, link)
    rest = {k: v for k, v in call.items() if k not in ("id", "name", "args")}
    rest.update({k: v for k, v in part.items() if k != "functionCall"})
    if rest:
        body["gemini"] = rest
    return body


def todo_plan(call: dict[str, Any], call_id: str) -> dict[str, Any] | None:
    """A successful ``write_todos`` call -> a complete snapshot of the session's todo list."""
    args = call.get("args")
    todos = args.get("todos") if isinstance(args, dict) else None
    if call.get("status") != "success" or not isinstance(todos, list):
        return None
    entries = []
    for todo in todos:
        if not isinstance(todo, dict) or not isinstance(todo.get("description"), str):
            return None
        status = todo.get("status")
        entry: dict[str, Any] = {
            "content": todo["description"],
            "status": status if status in _TODO_STATUS else f"{REGISTRY}/{status}",
        }
        entries.append(entry)
    body = stamped("plan", call.get("timestamp"))
    body.update(planId=TODO_PLAN_ID, planType="items", callId=call_id, entries=entries, idSource="derived")
    return body


def written_markdown(call: dict[str, Any]) -> tuple[str, str] | None:
    """(path, whole text) of a Markdown file a successful call wrote, as the session records
    it: the diff display's ``filePath`` and ``newContent`` (write_file, replace: the file
    after the edit), else ``write_file``'s own ``file_path`` and ``content`` arguments."""
    if call.get("status") != "success":
        return None
    display = call.get("resultDisplay")
    if (
        type(display) is dict
        and isinstance(display.get("filePath"), str)
        and isinstance(display.get("newContent"), str)
    ):
        path, text = display["filePath"], display["newContent"]
    else:
        args = call.get("args")
        if call.get("name") != "write_file" or type(args) is not dict:
            return None
        path, text = args.get("file_path"), args.get("content")
        if not isinstance(path, str) or not isinstance(text, str):
            return None
    return (path, text) if path.endswith(".md") else None


def same_file(recorded: str, named: str) -> bool:
    """Whether two spellings of a path name one file: equal, or one the other's tail."""
    a, b = recorded.replace("\\", "/"), named.replace("\\", "/")
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))


def plan_document(call: dict[str, Any], call_id: str, text: str | None = None) -> dict[str, Any] | None:
    """An approved ``exit_plan_mode`` call -> the plan document, named by its file; its text
    is ``text``, the file's last version the session recorded (None: no copy in the session)."""
    args = call.get("args")
    path = args.get("plan_path") if isinstance(args, dict) else None
    if call.get("status") != "success" or not isinstance(path, str) or not path:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    plan_id = name[:-3] if name.endswith(".md") else name
    body = stamped("plan", call.get("timestamp"))
    body.update(planId=plan_id or path, planType="document", callId=call_id)
    if text is not None:
        body["content"] = [{"type": "text", "text": text}]
    body["source"] = {"root": None, "path": path}
    if text is None:
        body["capture"] = {
            "content": {
                "state": "absent",
                "reason": "the plan is a separate Markdown file, and the session holds no copy of its text",
            }
        }
    body["idSource"] = "derived"
    return body


def delegates(call: dict[str, Any], display: Any) -> bool:
    """Whether a call of a per-agent tool of older versions (each agent its own tool, named
    as the agent: ``codebase_investigator``, ``cli_help``) ran a subagent, told by its name
    or by the words the CLI's subagent invocation writes: the output ``Subagent '<name>'
    finished.`` (or ``failed``), the display ``Subagent <name> Finished``."""
    name = call.get("name")
    if not isinstance(name, str) or not name:
        return False
    if name in AGENT_NAMED_TOOLS:
        return True
    texts = [display] if isinstance(display, str) else []
    result = call.get("result")
    for part in result if type(result) is list else ():
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            texts.extend(v for v in (body.get("output"), body.get("error")) if isinstance(v, str))
    quoted, plain = f"Subagent '{name}' ", f"Subagent {name} "
    return any(text.lstrip().startswith((quoted, plain)) for text in texts)


def subagent_body(call: dict[str, Any], call_id: str) -> dict[str, Any] | None:
    """A call that started a subagent -> a subagent record; None for other calls.

    A delegation is a call with ``agentId`` (v0.39+: the child's session), a call of the
    agent tool ``invoke_agent``, a call whose ``resultDisplay`` is a SubagentProgress, or a
    call of a per-agent tool of older versions (``delegates``). ``agentType`` names the
    agent, never the tool: ``args.agent_name``, else the progress display's ``agentName``,
    else the tool's name for the per-agent tools, whose name is the agent's.
    ``description`` is the task given to the agent: the ``prompt`` argument, or the name the
    agent's own parameters give it (upstream agent-tool ``mapParams`` maps the prompt onto
    ``question`` for ``cli_help``, ``objective`` for ``codebase_investigator``).
    """
    agent_id = call.get("agentId")
    session = agent_id if isinstance(agent_id, str) and agent_id else None
    display = call.get("resultDisplay")
    progress = display if type(display) is dict and display.get("isSubagentProgress") is True else None
    name = call.get("name")
    if session is None and progress is None and name not in AGENT_TOOLS and not delegates(call, display):
        return None
    # the entry's own time (issue 27.12): the subagent is derived from this toolCalls[] entry
    body = stamped("subagent", call.get("timestamp"))
    body["callId"] = call_id
    if session is not None:
        body["session"] = session_ref("gemini-cli", session)
    args = call.get("args")
    args = args if type(args) is dict else {}
    agent = args.get("agent_name")
    if not isinstance(agent, str) and progress is not None:
        agent = progress.get("agentName")
    if not isinstance(agent, str) and name not in AGENT_TOOLS:
        agent = name
    if isinstance(agent, str) and agent:
        body["agentType"] = agent
    for key in TASK_ARGUMENTS:
        task = args.get(key)
        if isinstance(task, str):
            body["description"] = task
            break
    return body
