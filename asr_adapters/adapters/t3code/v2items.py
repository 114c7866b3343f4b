"""Records of V2 snapshots: one builder per turn item kind (and conversation messages,
plans, handoffs). ``v2`` decides when a snapshot is written; these decide what it becomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.outcome import set_exit_code
from ...core.refs import session_ref
from .state import NO_OUTCOME, ThreadState, base, data_part, ns, obj, text_part, tool_status
from .text import split_user_text
from .v1 import attachment_parts

TERMINAL = {"completed", "failed", "cancelled", "interrupted"}
MESSAGE_STATUS = {"completed": "complete", "interrupted": "interrupted", "cancelled": "interrupted", "failed": "error"}
CREATED_BY = {"user": "human", "agent": "agent", "system": "harness"}
INTENT = {"turn_start": "prompt", "queued_turn": "queued", "steer": "steer", "promoted_queued_to_steer": "steer"}
TOOL_ITEMS = {"command_execution", "file_change", "file_search", "web_search", "dynamic_tool"}


def track(st: ThreadState, run: Any, record_id: str) -> None:
    if isinstance(run, str):
        st.run_records.add(run, record_id)


def _start(kind: str, p: dict[str, Any]) -> dict[str, Any]:
    return base(kind, p.get("startedAt") or p.get("createdAt") or p.get("updatedAt"), p.get("providerTurnId"))


def message_record(p: dict[str, Any], attachments: Path | None, final: bool) -> dict[str, Any]:
    """A conversation message with no turn item (system messages, notifications)."""
    if p.get("role") == "user":
        record = _user({**p, "messageId": str(p.get("id"))}, attachments)
        for key in ("notification", "scheduledTaskId", "delegatedCompletion", "runId"):
            if p.get(key) is not None:
                record[key] = p[key]
        return record
    record = _start("message", p)
    record["messageId"] = str(p.get("id"))
    role = p.get("role")
    record["role"] = role if role in ("user", "assistant", "system") else ns(str(role))
    author = CREATED_BY.get(p.get("createdBy")) if role != "assistant" else "model"  # type: ignore[arg-type]
    if author is not None:
        record["author"] = author
    if not final:
        record["status"] = "partial"
    images, _ = attachment_parts(p.get("attachments"), attachments)
    record["content"] = _text_parts(p.get("text")) + images
    if p.get("context") is not None:
        record["content"].append(data_part(p["context"], "composer-context"))
    if not record["content"]:
        record["capture"] = {"content": {"state": "absent", "reason": "T3 Code stored no text for this message"}}
    if isinstance(p.get("senderThreadId"), str):
        record["from"] = {"session": session_ref("t3code", p["senderThreadId"])}
    for key in ("notification", "scheduledTaskId", "delegatedCompletion", "runId"):
        if p.get(key) is not None:
            record[key] = p[key]
    return record


def item_record(st: ThreadState, p: dict[str, Any], attachments: Path | None, final: bool) -> dict[str, Any]:
    t = p["type"]
    if t == "user_message":
        return _user(p, attachments)
    if t in ("assistant_message", "reasoning"):
        record = _start("message", p)
        record["messageId"] = p["messageId"] if t == "assistant_message" else p["id"]
        record["role"] = "assistant"
        record["author"] = "model"
        record["status"] = MESSAGE_STATUS.get(p.get("status"), "partial")  # type: ignore[arg-type]
        text = p.get("text") if isinstance(p.get("text"), str) else ""
        if t == "reasoning":
            record["content"] = [{"type": "reasoning", "text": text}]
        else:
            images, _ = attachment_parts(p.get("attachments"), attachments)
            record["content"] = ([text_part(text)] if text else []) + images
            if not record["content"]:
                record["capture"] = {
                    "content": {"state": "absent", "reason": "T3 Code stored no text for this message"}
                }
        return record
    if t in ("proposed_plan", "todo_list"):
        return plan_record(p, t, p)
    if t in ("user_input_request", "approval_request"):
        return _request(p)
    if t == "subagent":
        return _subagent(p)
    if t in TOOL_ITEMS:
        return _tool_call(p)
    return _notice(p)


def _user(p: dict[str, Any], attachments: Path | None) -> dict[str, Any]:
    record = _start("message", p)
    message_id = p.get("messageId")
    derived = not isinstance(message_id, str) or not message_id
    record["messageId"] = f"item:{p.get('id')}" if derived else message_id
    record["role"] = "user"
    author = CREATED_BY.get(p.get("createdBy"), "human")  # type: ignore[arg-type]
    origin = INTENT.get(p.get("inputIntent"), "prompt")  # type: ignore[arg-type]
    if isinstance(p.get("senderThreadId"), str):
        record["from"] = {"session": session_ref("t3code", p["senderThreadId"])}
        if author == "agent":
            origin = "inter_session"
    record["content"] = []
    text = p.get("text")
    display = split_user_text(text, author=author, origin=origin) if isinstance(text, str) else _text_parts(text)
    if p.get("context") is not None:
        display.append(data_part(p["context"], "composer-context"))
    images, missing = attachment_parts(p.get("attachments"), attachments)
    record["displayContent"] = display + images
    capture: dict[str, Any] = {
        "content": {"state": "absent", "reason": "T3 Code stores the composer text and context, not the provider input"}
    }
    if missing:
        capture["displayContent"] = {"state": "truncated", "reason": "image bytes are not in the database"}
    record["capture"] = capture
    if derived:
        record["idSource"] = "derived"
    return record


def plan_record(p: dict[str, Any], t: str, source: dict[str, Any]) -> dict[str, Any]:
    record = _start("plan", p)
    record["planId"] = str(p.get("planId") or p.get("id"))
    if t == "todo_list":
        record["planType"] = "items"
        entries = []
        for step in p.get("steps") or ():
            if isinstance(step, dict):
                status = {"running": "in_progress"}.get(step.get("status"), step.get("status"))  # type: ignore[arg-type]
                entries.append(
                    {
                        "entryId": str(step.get("id")),
                        "content": str(step.get("text")),
                        "status": status if status in ("pending", "in_progress", "completed") else ns(str(status)),
                    }
                )
        record["entries"] = entries
        if "explanation" in p:
            record["explanation"] = p["explanation"]
    else:
        record["planType"] = "document"
        record["content"] = [text_part(p.get("markdown") or "")]
    if isinstance(p.get("status"), str):
        record["planStatus"] = p["status"]
    return record


def _request(p: dict[str, Any]) -> dict[str, Any]:
    record = _start("input_request", p)
    record["requestId"] = str(p.get("requestId"))
    if p["type"] == "approval_request":
        record["kind"] = ns("approval")
        content = [text_part(p["prompt"])] if isinstance(p.get("prompt"), str) else []
        details = {k: p[k] for k in ("requestKind", "appName", "title") if k in p}
        content.append(data_part(details, "approval-request"))
        record["content"] = content
        if "options" in p:
            record["options"] = p["options"]
    else:
        record["kind"] = ns("user-input")
        record["content"] = [data_part(p.get("questions"), "user-input-questions")]
        if "questionAnswer" in p:
            record["answer"] = [data_part(p["questionAnswer"], "user-input-answer")]
    if isinstance(p.get("status"), str):
        record["status"] = ns(p["status"])
    return record


def _subagent(p: dict[str, Any]) -> dict[str, Any]:
    record = _start("subagent", p)
    record["callId"] = p["id"]
    if isinstance(p.get("childThreadId"), str):
        record["session"] = session_ref("t3code", p["childThreadId"])
    if isinstance(p.get("driver"), str):
        record["agentType"] = p["driver"]
    if isinstance(p.get("title"), str):
        record["description"] = p["title"]
    if isinstance(p.get("status"), str):
        record["status"] = tool_status(p["status"])  # the delegation's outcome (Subagent outcome)
    for key in ("prompt", "progress", "result", "origin", "providerInstanceId", "subagentId"):
        if key in p:
            record["subagentOrigin" if key == "origin" else key] = p[key]
    return record


def _tool_name(p: dict[str, Any]) -> Any:
    """The tool a v2 tool item names: its type, a dynamic tool's own name."""
    return (p.get("toolName") or p["type"]) if p["type"] == "dynamic_tool" else p["type"]


def _tool_call(p: dict[str, Any]) -> dict[str, Any]:
    t = p["type"]
    value: Any
    record = _start("tool_call", p)
    record["callId"] = p["id"]
    if t == "command_execution":
        record["name"], value = t, {"command": p.get("input")}
    elif t == "dynamic_tool":
        record["name"], value = _tool_name(p), p.get("input")
    elif t == "file_change":
        record["name"], value = t, {k: p[k] for k in ("fileName", "changes") if k in p}
    elif t == "file_search":
        record["name"], value = t, {k: p[k] for k in ("pattern",) if k in p}
    else:
        record["name"], value = t, {k: p[k] for k in ("patterns",) if k in p}
    record["input"] = value
    if isinstance(p.get("title"), str):
        record["title"] = p["title"]
    return record


def write_result(st: ThreadState, p: dict[str, Any], final: bool) -> None:
    """The tool_result of a finished tool item (written right after its call)."""
    t = p["type"]
    if t not in TOOL_ITEMS or not final or p.get("status") not in TERMINAL:
        return
    record = base("tool_result", p.get("completedAt") or p.get("updatedAt"), p.get("providerTurnId"))
    record["callId"] = p["id"]
    record["name"] = _tool_name(p)  # as its call names it
    record["status"] = tool_status(p["status"])
    if p.get("outputIndicatesFailure") is not None and record["status"] not in NO_OUTCOME:
        record["isError"] = bool(p["outputIndicatesFailure"])
    content: list[dict[str, Any]] = []
    if t == "command_execution":
        if isinstance(p.get("output"), str):
            content.append(text_part(p["output"]))
    elif t == "file_change":
        if isinstance(p.get("diffStr"), str):
            content.append(text_part(p["diffStr"]))
        extra = {k: p[k] for k in ("oldStr", "newStr", "additions", "deletions") if k in p}
        if extra:
            content.append(data_part(extra, "file-change"))
    elif "results" in p:
        content.append(data_part(p["results"], f"{t}-results"))
    elif "output" in p:
        out = p["output"]
        content.append(text_part(out) if isinstance(out, str) else data_part(out, "dynamic-tool-output"))
    record["content"] = content
    if p.get("outputOmitted"):
        record["capture"] = {"content": {"state": "absent", "reason": "output withheld from this event"}}
    if "exitCode" in p and record["status"] not in NO_OUTCOME:
        set_exit_code(record, p["exitCode"])
    track(st, p.get("runId"), st.put(record, revertable=True)["id"])


def _notice(p: dict[str, Any]) -> dict[str, Any]:
    """ASR-205: errors, system notices, interrupt results and notifications shown to the user."""
    record = _start("message", p)
    record["messageId"] = p["id"]
    record["author"] = "harness"
    record["origin"] = "notice"
    record["audience"] = "user"
    t = p["type"]
    content: list[dict[str, Any]] = []
    if t == "error":
        failure = obj(p.get("failure"))
        content.append(text_part(str(failure.get("message", ""))))
        record["error"] = failure
    elif t == "notification":
        content.append(text_part(str(p.get("summary", ""))))
        if isinstance(p.get("detail"), str):
            content.append(text_part(p["detail"]))
    else:
        content.append(text_part(str(p.get("message", ""))))
    record["content"] = content
    record["capture"] = {"role": {"state": "absent", "reason": "a timeline notice, not sent to the model"}}
    record["itemType"] = t
    return record


def handoff_record(st: ThreadState, p: dict[str, Any]) -> dict[str, Any]:
    """The context handoff T3 sent to a new provider thread (ASR-229: derivedFrom only from the
    items the payload lists as rendered into it)."""
    record = base("message", p.get("createdAt"))
    summary_id = p.get("summaryMessageId")
    record["messageId"] = summary_id if isinstance(summary_id, str) else f"handoff:{p.get('id')}"
    record["role"] = "user"
    record["author"] = "harness"
    record["origin"] = "injected"
    history = obj(p.get("history"))
    derived = []
    for message in history.get("messages") or ():
        if isinstance(message, dict) and message.get("itemId") in st.items:
            derived.append(st.items[message["itemId"]])
    if derived:
        record["derivedFrom"] = derived
    summary = p.get("summaryText")
    if isinstance(summary, str):
        record["content"] = [text_part(summary)]
    else:  # no summary text stored (or not text): say so rather than invent one (ASR-200, 210)
        record["content"] = []
        record["capture"] = {"content": {"state": "absent", "reason": "the handoff holds no summary text"}}
    if not isinstance(summary_id, str):
        record["idSource"] = "derived"
    record["handoff"] = {
        k: p[k]
        for k in (
            "id",
            "strategy",
            "status",
            "fromProviderThreadIds",
            "toProviderThreadId",
            "coveredRunOrdinals",
            "targetRunId",
        )
        if k in p
    }
    return record


def _text_parts(text: Any) -> list[dict[str, Any]]:
    """A stored ``text``: a text part, or (not a string, as no T3 Code writes) kept as data."""
    if isinstance(text, str):
        return [text_part(text)] if text else []
    return [] if text is None else [data_part(text, "text")]
