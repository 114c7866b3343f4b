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

from ...core.refs import schema_name
from .header import SETTINGS
from .state import REGISTRY, ThreadState, base, data_part, ns, text_part
from .v2items import TERMINAL, TOOL_ITEMS, handoff_record, item_record, message_record, plan_record, track, write_result

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
    record["schema"] = schema_name(REGISTRY, f"v2/{kind}")
    record["data"] = event
    record.update(extra)
    st.put(record)
    return "vendor"


def _run_updated(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """A run rolled back (V2's revert) is recorded, not applied: the run's records stay and
    this record lists them."""
    run = p.get("id")
    if p.get("status") == "rolled_back" and isinstance(run, str) and run not in st.rolled_back:
        st.rolled_back.add(run)
        return vendor(st, event["type"], event, reverted=st.run_records.pop(run))
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
    if kind.startswith("thread."):
        # every thread event carries the whole thread: its branch, worktree, model and modes
        # as they stand from now on (the header states them as of the first message)
        st.settings.update({k: p[k] for k in SETTINGS if k in p})
    if kind == "run.created":
        return _run_created(st, event, p)
    if kind in HEADER_EVENTS:
        return "folded"  # header facts (thread, provider sessions and native thread ids)
    return vendor(st, kind, event)


def _run_created(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """A run is one request: its record carries the settings it ran with, the run's own model
    over the thread's branch, worktree, model and modes as the log set them until then (as
    V1's ``thread.turn-start-requested`` records do)."""
    settings = {k: st.settings[k] for k in SETTINGS if st.settings.get(k) is not None}
    if isinstance(p.get("modelSelection"), dict):
        settings["modelSelection"] = p["modelSelection"]
    return vendor(st, event["type"], event, **({"settings": settings} if settings else {}))


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
        record = handoff_record(st, p)
    elif kind == "plan.updated":
        record = plan_record(p, "todo_list" if p.get("kind") == "todo_list" else "proposed_plan", p)
    elif kind == "message.updated":
        record = message_record(p, attachments, final)
    else:
        record = item_record(st, p, attachments, final)
    if record["type"] == "plan":
        supersedes = st.plans.get(record["planId"])
    elif record["type"] == "input_request" and (known := st.requests.get(record["requestId"])) is not None:
        supersedes = known[0]
    if supersedes is not None:
        record["supersedes"] = supersedes
    if len(ids) > 1:
        record["assembly"] = {"mode": "folded", "sourceIds": ids}
    if kind == "turn-item.updated":
        where = {k: p[k] for k in ITEM_PLACE if p.get(k) is not None}
        if where:
            record["turnItem"] = where
    emitted = st.put(record, revertable=True, role="user" if record.get("role") == "user" else "")
    track(st, p.get("runId") or p.get("targetRunId"), emitted["id"])
    if kind == "turn-item.updated":
        st.items[p["id"]] = emitted["id"]
        write_result(st, p, final)
    if record["type"] == "plan":
        st.plans[record["planId"]] = emitted["id"]
    if record["type"] == "message":
        st.message_ids.add(record["messageId"])
    if record["type"] == "input_request":
        st.requests[record["requestId"]] = (emitted["id"], {k: v for k, v in record.items() if k != "supersedes"})
    return str(emitted["id"])


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
