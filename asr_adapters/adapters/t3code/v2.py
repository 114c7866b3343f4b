"""Orchestration V2 events (``orchestration_v2_events``) → ASR records.

V2 events carry whole snapshots (a turn item, a run, a handoff) and repeat them as they change.
A snapshot is held until its status is terminal, then written once with ``assembly`` listing
every event folded into it; a later, different snapshot of something already written is a
revision (``supersedes``). Snapshots still open at the end of the thread are written as they
stand (messages with status ``partial``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from .state import REGISTRY, ThreadState, base, data_part, ns, obj, text_part
from .text import split_user_text
from .v1 import attachment_parts

TERMINAL = {"completed", "failed", "cancelled", "interrupted"}
MESSAGE_STATUS = {"completed": "complete", "interrupted": "interrupted", "cancelled": "interrupted", "failed": "error"}
CREATED_BY = {"user": "human", "agent": "agent", "system": "harness"}
INTENT = {"turn_start": "prompt", "queued_turn": "queued", "steer": "steer", "promoted_queued_to_steer": "steer"}
TOOL_ITEMS = {"command_execution", "file_change", "file_search", "web_search", "dynamic_tool"}
NOTICE_ITEMS = {"error", "system_notice", "run_interrupt_request", "run_interrupt_result", "notification"}
MAPPED_ITEMS = (
    TOOL_ITEMS
    | NOTICE_ITEMS
    | {"user_message", "assistant_message", "reasoning", "proposed_plan", "todo_list"}
    | {"user_input_request", "approval_request", "subagent"}
)
#: Where a turn item sits in T3's model, kept on its record (ids, order, native reference).
ITEM_PLACE = (
    "id",
    "runId",
    "nodeId",
    "providerThreadId",
    "nativeItemRef",
    "parentItemId",
    "ordinal",
    "creationSource",
    "scheduledTaskId",
    "toolSurface",
    "toolSource",
)
HEADER_EVENTS = {"thread.created", "provider-session.attached", "provider-thread.updated"}


def vendor(st: ThreadState, kind: str, event: dict[str, Any], **extra: Any) -> str:
    record = base("vendor", event.get("occurredAt"))
    record["schema"] = f"{REGISTRY}/v2/{kind}"
    record["data"] = event
    record.update(extra)
    st.put(record)
    return "vendor"


def _track(st: ThreadState, run: Any, record_id: str) -> None:
    if isinstance(run, str):
        st.run_records.setdefault(run, []).append(record_id)


def _run_updated(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """A run rolled back (V2's revert) is recorded, not applied: the run's records stay and
    this record lists them."""
    run = p.get("id")
    if p.get("status") == "rolled_back" and isinstance(run, str) and run not in st.rolled_back:
        st.rolled_back.add(run)
        return vendor(st, event["type"], event, reverted=st.run_records.pop(run, []))
    return vendor(st, event["type"], event)


def handle(st: ThreadState, event: dict[str, Any], attachments: Path | None) -> str:
    kind = event["type"]
    p = event.get("payload")
    if not isinstance(p, dict):
        return vendor(st, kind, event)
    if kind == "turn-item.updated":
        item_type = p.get("type")
        if item_type not in MAPPED_ITEMS or not isinstance(p.get("id"), str):
            return vendor(st, f"turn-item/{item_type}", event)
        if item_type in ("user_message", "assistant_message") and _imported(st, p):
            return "duplicates"
        return snapshot(st, f"item:{p['id']}", event, _settled(p), attachments)
    if kind == "message.updated":
        message_id = p.get("id")
        if message_id in st.v2_item_messages or message_id in st.message_ids:
            return "duplicates"  # the turn item (or the V1 history) carries the same message
        return snapshot(st, f"message:{message_id}", event, p.get("streaming") is False, attachments)
    if kind == "plan.updated":
        if p.get("id") in st.v2_item_plans:
            return "duplicates"  # the proposed_plan / todo_list turn item carries it
        return snapshot(st, f"plan:{p.get('id')}", event, True, attachments)
    if kind == "context-handoff.updated":
        return snapshot(st, f"handoff:{p.get('id')}", event, p.get("status") in ("ready", "failed"), attachments)
    if kind == "runtime-request.updated":
        return _runtime_request(st, event, p)
    if kind == "run.updated":
        return _run_updated(st, event, p)
    if kind in HEADER_EVENTS:
        return "folded"  # header facts (thread, provider sessions and native thread ids)
    return vendor(st, kind, event)


def _settled(p: dict[str, Any]) -> bool:
    """Whether a turn item snapshot is written now: requests and checklists at every change
    (each is a state the user saw), user messages once stored, the rest when finished."""
    item_type = p.get("type")
    if item_type in ("user_input_request", "approval_request", "todo_list"):
        return True
    if item_type == "user_message":
        return p.get("status") != "pending"
    if item_type == "proposed_plan" and p.get("streaming") is False:
        return True
    return p.get("status") in TERMINAL


def _imported(st: ThreadState, p: dict[str, Any]) -> bool:
    """A message turn item copied from V1 history (same message id) is written once."""
    message_id = p.get("messageId")
    return isinstance(message_id, str) and message_id in st.message_ids and f"item:{p.get('id')}" not in st.v2_done


def _digest(p: dict[str, Any]) -> bytes:
    stable = {k: v for k, v in p.items() if k != "updatedAt"}
    return hashlib.blake2b(orjson.dumps(stable, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()


def snapshot(st: ThreadState, key: str, event: dict[str, Any], terminal: bool, attachments: Path | None) -> str:
    done = st.v2_done.get(key)
    if done is not None:
        digest = _digest(event["payload"])
        if digest == done[1]:
            return "folded"
        rid = write(st, event, [event["eventId"]], done[0], attachments)
        st.v2_done[key] = (rid, digest)
        return "records"
    entry = st.v2_open.get(key)
    outcome = "folded" if entry is not None else "records"
    ids = (entry[0] if entry is not None else []) + [event["eventId"]]
    if terminal:
        st.v2_open.pop(key, None)
        st.v2_done[key] = (write(st, event, ids, None, attachments), _digest(event["payload"]))
    else:
        st.v2_open[key] = (ids, event)
    return outcome


def flush_open(st: ThreadState, attachments: Path | None) -> None:
    for key, (ids, event) in list(st.v2_open.items()):
        del st.v2_open[key]
        st.v2_done[key] = (write(st, event, ids, None, attachments, final=False), _digest(event["payload"]))


def write(
    st: ThreadState,
    event: dict[str, Any],
    ids: list[str],
    supersedes: str | None,
    attachments: Path | None,
    final: bool = True,
) -> str:
    """Write the records of one snapshot; returns the id of its main record."""
    p = event["payload"]
    kind = event["type"]
    if kind == "context-handoff.updated":
        record = _handoff(st, p)
    elif kind == "plan.updated":
        record = _plan(p, "todo_list" if p.get("kind") == "todo_list" else "proposed_plan", p)
    elif kind == "message.updated":
        record = _message(p, attachments, final)
    else:
        record = _item(st, p, attachments, final)
    if record["type"] == "plan":
        supersedes = st.plans.get(record["planId"])
    elif record["type"] == "input_request" and record["requestId"] in st.requests:
        supersedes = st.requests[record["requestId"]][0]
    if supersedes is not None:
        record["supersedes"] = supersedes
    if len(ids) > 1:
        record["assembly"] = {"mode": "folded", "sourceIds": ids}
    if kind == "turn-item.updated":
        where = {k: p[k] for k in ITEM_PLACE if p.get(k) is not None}
        if where:
            record["turnItem"] = where
    emitted = st.put(record, revertable=True, role="user" if record.get("role") == "user" else "")
    _track(st, p.get("runId") or p.get("targetRunId"), emitted["id"])
    if kind == "turn-item.updated":
        st.items[p["id"]] = emitted["id"]
        _result(st, p, final)
    if record["type"] == "plan":
        st.plans[record["planId"]] = emitted["id"]
    if record["type"] == "message":
        st.message_ids.add(record["messageId"])
    if record["type"] == "input_request":
        st.requests[record["requestId"]] = (emitted["id"], {k: v for k, v in record.items() if k != "supersedes"})
    return str(emitted["id"])


def _start(kind: str, p: dict[str, Any]) -> dict[str, Any]:
    return base(kind, p.get("startedAt") or p.get("createdAt") or p.get("updatedAt"), p.get("providerTurnId"))


def _message(p: dict[str, Any], attachments: Path | None, final: bool) -> dict[str, Any]:
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
    record["content"] = ([text_part(p["text"])] if p.get("text") else []) + images
    if p.get("context") is not None:
        record["content"].append(data_part(p["context"], "composer-context"))
    if not record["content"]:
        record["capture"] = {"content": {"state": "absent", "reason": "T3 Code stored no text for this message"}}
    if isinstance(p.get("senderThreadId"), str):
        record["from"] = {"session": f"t3code:{p['senderThreadId']}"}
    for key in ("notification", "scheduledTaskId", "delegatedCompletion", "runId"):
        if p.get(key) is not None:
            record[key] = p[key]
    return record


def _item(st: ThreadState, p: dict[str, Any], attachments: Path | None, final: bool) -> dict[str, Any]:
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
        return _plan(p, t, p)
    if t in ("user_input_request", "approval_request"):
        return _request(p)
    if t == "subagent":
        return _subagent(p)
    if t in TOOL_ITEMS:
        return _tool_call(p)
    return _notice(p)


def _user(p: dict[str, Any], attachments: Path | None) -> dict[str, Any]:
    record = _start("message", p)
    record["messageId"] = p["messageId"]
    record["role"] = "user"
    author = CREATED_BY.get(p.get("createdBy"), "human")  # type: ignore[arg-type]
    origin = INTENT.get(p.get("inputIntent"), "prompt")  # type: ignore[arg-type]
    if isinstance(p.get("senderThreadId"), str):
        record["from"] = {"session": f"t3code:{p['senderThreadId']}"}
        if author == "agent":
            origin = "inter_session"
    record["content"] = []
    display = split_user_text(p.get("text") or "", author=author, origin=origin)
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
    return record


def _plan(p: dict[str, Any], t: str, source: dict[str, Any]) -> dict[str, Any]:
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
        record["session"] = f"t3code:{p['childThreadId']}"
    if isinstance(p.get("driver"), str):
        record["agentType"] = p["driver"]
    if isinstance(p.get("title"), str):
        record["description"] = p["title"]
    for key in ("prompt", "progress", "result", "status", "origin", "providerInstanceId", "subagentId"):
        if key in p:
            record["subagentOrigin" if key == "origin" else key] = p[key]
    return record


def _tool_call(p: dict[str, Any]) -> dict[str, Any]:
    t = p["type"]
    value: Any
    record = _start("tool_call", p)
    record["callId"] = p["id"]
    if t == "command_execution":
        record["name"], value = t, {"command": p.get("input")}
    elif t == "dynamic_tool":
        record["name"], value = p.get("toolName") or t, p.get("input")
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


def _result(st: ThreadState, p: dict[str, Any], final: bool) -> None:
    """The tool_result of a finished tool item (written right after its call)."""
    t = p["type"]
    if t not in TOOL_ITEMS or not final or p.get("status") not in TERMINAL:
        return
    record = base("tool_result", p.get("completedAt") or p.get("updatedAt"), p.get("providerTurnId"))
    record["callId"] = p["id"]
    record["status"] = ns(p["status"])
    if p.get("outputIndicatesFailure") is not None:
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
    if "exitCode" in p:
        record["exitCode"] = p["exitCode"]
    _track(st, p.get("runId"), st.put(record, revertable=True)["id"])


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


def _handoff(st: ThreadState, p: dict[str, Any]) -> dict[str, Any]:
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
    record["content"] = [text_part(p.get("summaryText") or "")]
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


def _runtime_request(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    request_id = p.get("id")
    known = st.requests.get(request_id) if isinstance(request_id, str) else None
    if known is None:
        return vendor(st, event["type"], event)
    if p.get("status") != "resolved" or ("decision" not in p and "answers" not in p):
        return "folded"  # a state change of a request already written
    previous, original = known
    record = base("input_request", p.get("resolvedAt") or event.get("occurredAt"), original.get("turnId"))
    for key, value in original.items():
        if key not in ("type", "ts", "tsPrecision", "turnId", "answer", "status", "assembly"):
            record[key] = value
    if "decision" in p:
        record["answer"] = [text_part(str(p["decision"]))]
    else:
        record["answer"] = [data_part(p["answers"], "user-input-answers")]
    record["status"] = ns("resolved")
    record["supersedes"] = previous
    emitted = st.put(record, revertable=True)
    # A resolved request gets no further answer; a later item snapshot still supersedes it
    # through its own entry.
    st.requests.pop(request_id, None)  # type: ignore[arg-type]
    done = st.v2_done.get(f"item:{original.get('turnItem', {}).get('id')}")
    if done is not None:
        st.v2_done[f"item:{original['turnItem']['id']}"] = (emitted["id"], done[1])
    return "records"
