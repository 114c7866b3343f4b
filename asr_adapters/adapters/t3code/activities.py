"""V1 thread activities (``thread.activity-appended``) and the client's answers → ASR records.

Activities are T3 Code's UI timeline: tool lifecycle rows, approvals and questions, runtime
errors and warnings, the provider's checklist. T3 cuts their ``detail``/``message`` strings to
180 characters (177 + ``...``); such a field gets ``capture`` ``truncated``.
"""

from __future__ import annotations

from typing import Any

from . import tools
from .db import verbatim
from .state import REGISTRY, ThreadState, base, data_part, is_truncated_detail, ns, obj, same_error, text_part

TOOL_KINDS = ("tool.started", "tool.updated", "tool.completed", "tool.denied")
NOTICE_KINDS = (
    "runtime.error",
    "runtime.warning",
    "runtime.note",
    "checkpoint.capture.failed",
    "checkpoint.revert.failed",
)
STEP_STATUS = {
    "pending": "pending",
    "inProgress": "in_progress",
    "in_progress": "in_progress",
    "completed": "completed",
}


def _vendor(st: ThreadState, event: dict[str, Any], kind: str) -> str:
    """An activity no record type carries; it belongs to its turn (a revert removes it with
    the turn's other activities, as T3's projector does)."""
    act = obj(obj(event.get("payload")).get("activity"))
    record = base("vendor", event.get("occurredAt"), act.get("turnId"))
    record["schema"] = f"{REGISTRY}/activity/{kind}"
    record["data"] = verbatim(event)
    st.put(record, revertable=True)
    return "vendor"


def handle(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    act = p.get("activity")
    if not isinstance(act, dict) or not isinstance(act.get("kind"), str):
        return _vendor(st, event, "unknown")
    kind = act["kind"]
    payload = obj(act.get("payload"))
    if kind in TOOL_KINDS:
        return tools.tool_row(st, act, kind, payload)
    if kind in ("approval.requested", "user-input.requested"):
        return _request(st, event, act, kind, payload)
    if kind in ("approval.resolved", "user-input.resolved"):
        return _answer(st, event, act.get("createdAt"), payload, ns("resolved"), human=False)
    if kind == "turn.plan.updated":
        return _plan(st, act, payload)
    if kind in NOTICE_KINDS or (kind.startswith("provider.") and kind.endswith(".failed")):
        return _notice(st, act, kind, payload)
    return _vendor(st, event, kind)


# -- questions and approvals ----------------------------------------------------------------


def _request(st: ThreadState, event: dict[str, Any], act: dict[str, Any], kind: str, payload: dict[str, Any]) -> str:
    request_id = payload.get("requestId")
    if not isinstance(request_id, str):
        return _vendor(st, event, kind)
    record = base("input_request", act.get("createdAt"), act.get("turnId"))
    record["requestId"] = request_id
    record["kind"] = ns("approval" if kind == "approval.requested" else "user-input")
    content = [text_part(act["summary"])] if isinstance(act.get("summary"), str) else []
    content.append(data_part(payload, kind))
    record["content"] = content
    if is_truncated_detail(payload.get("detail")):
        record["capture"] = {"content": {"state": "truncated", "reason": "T3 Code keeps 180 characters of detail"}}
    record["activityId"] = act.get("id")
    emitted = st.put(record, revertable=True)
    st.requests[request_id] = (emitted["id"], {k: v for k, v in record.items() if k not in ("ts", "tsPrecision")})
    return "records"


def response(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """The client's ``thread.approval-response-requested`` / ``user-input-response-requested``."""
    human = event.get("actorKind") == "client"
    return _answer(st, event, p.get("createdAt") or event.get("occurredAt"), p, ns("answered"), human=human)


def _answer(
    st: ThreadState, event: dict[str, Any], at: Any, payload: dict[str, Any], status: str, *, human: bool
) -> str:
    request_id = payload.get("requestId")
    known = st.requests.get(request_id) if isinstance(request_id, str) else None
    if known is None:
        return _vendor(st, event, event["type"] if event["type"] != "thread.activity-appended" else "answer")
    previous, original = known
    record = base("input_request", at, original.get("turnId"))
    for key, value in original.items():
        if key not in ("type", "turnId", "supersedes", "activityId", "answer", "status"):
            record[key] = value
    if "decision" in payload:
        answer: list[dict[str, Any]] = [text_part(str(payload["decision"]))]
    else:
        answer = [data_part(payload.get("answers"), "user-input-answers")]
    if human:
        for part in answer:
            part["author"] = "human"
    record["answer"] = answer
    record["status"] = status
    record["supersedes"] = previous
    record["eventId"] = event.get("eventId")
    emitted = st.put(record, revertable=True)
    if status == ns("resolved"):
        del st.requests[request_id]  # type: ignore[arg-type]
    else:
        st.requests[request_id] = (emitted["id"], original)  # type: ignore[index]
    return "records"


# -- checklist and notices -------------------------------------------------------------------


def _plan(st: ThreadState, act: dict[str, Any], payload: dict[str, Any]) -> str:
    turn = act.get("turnId")
    plan_id = f"turn:{turn}:plan" if isinstance(turn, str) else f"thread:{st.thread_id}:plan"
    entries = []
    for step in payload.get("plan") or ():
        if not isinstance(step, dict):
            continue
        text = step.get("step", step.get("content"))
        status = step.get("status")
        entries.append(
            {
                "content": text if isinstance(text, str) else str(text),
                "status": STEP_STATUS.get(status, ns(str(status))) if isinstance(status, str) else "pending",
            }
        )
    record = base("plan", act.get("createdAt"), turn)
    record["planId"] = plan_id
    record["planType"] = "items"
    record["entries"] = entries
    record["idSource"] = "derived"
    previous = st.plans.get(plan_id)
    if previous is not None:
        record["supersedes"] = previous
    if "explanation" in payload:
        record["explanation"] = payload["explanation"]
    record["activityId"] = act.get("id")
    st.plans[plan_id] = st.put(record, revertable=True)["id"]
    return "records"


def _notice(st: ThreadState, act: dict[str, Any], kind: str, payload: dict[str, Any]) -> str:
    """ASR-205: a harness notice to the user (errors, warnings, failed provider calls). An
    error activity repeating the error a session-set already reported is folded into that
    notice: T3 records one provider error as session-set, ``runtime.error`` and session-set
    again, and a failed turn start as session-set then ``provider.turn.start.failed``."""
    message = payload.get("message")
    turn = act.get("turnId")
    error = message if kind == "runtime.error" else payload.get("detail") if kind.startswith("provider.") else None
    if isinstance(error, str):
        if same_error(st.error_notice, turn, error):
            return "folded"
        st.error_notice = (turn if isinstance(turn, str) else None, error)
    record = base("message", act.get("createdAt"), turn)
    record["messageId"] = str(act.get("id"))
    record["author"] = "harness"
    record["origin"] = "notice"
    record["audience"] = "user"
    content: list[dict[str, Any]] = []
    if isinstance(message, str):
        content.append(text_part(message))
        if isinstance(payload.get("detail"), str):
            content.append(text_part(payload["detail"]))
    else:
        content.append(text_part(str(act.get("summary") or kind)))
        if payload:
            content.append(data_part(payload, f"activity/{kind}"))
    record["content"] = content
    capture: dict[str, Any] = {"role": {"state": "absent", "reason": "a UI notice, not sent to the model"}}
    if is_truncated_detail(message):
        capture["content"] = {"state": "truncated", "reason": "T3 Code keeps 180 characters of the message"}
    record["capture"] = capture
    record["activityKind"] = kind
    if kind == "runtime.error" and isinstance(turn, str):
        record["turnStatus"] = "error"
    st.put(record, revertable=True)
    return "records"
