"""V1 orchestration events (``orchestration_events``) → ASR records.

History is replayed from the event log, not read from the projections: projections drop what a
revert removed, the log keeps it. Reverts are recorded as they happened (a vendor record that
lists the records it reverted), never applied.
"""

from __future__ import annotations

import glob
import hashlib
from pathlib import Path
from typing import Any

from ...core.accounting import Accounting, Diagnostic
from ...core.companion import CompanionSkipped, check_companion, linked_out, open_companion, report_skip, root
from ...core.refs import schema_name
from . import activities, tools
from .db import verbatim
from .state import REGISTRY, Fold, ThreadState, base, ns, obj, same_error, string, text_part
from .text import split_user_text

TERMINAL_TURN = {"interrupted": "interrupted", "stopped": "interrupted", "error": "error"}


#: events that set the thread's branch, worktree, model or modes
SETTING_EVENTS = ("thread.created", "thread.meta-updated", "thread.runtime-mode-set", "thread.interaction-mode-set")
SETTINGS = ("branch", "worktreePath", "modelSelection", "runtimeMode", "interactionMode")


def vendor(st: ThreadState, kind: str, event: dict[str, Any], turn_id: Any = None, **extra: Any) -> str:
    """A row no record type carries; one that belongs to a turn is removed with it by a revert."""
    record = base("vendor", event.get("occurredAt"), turn_id)
    record["schema"] = schema_name(REGISTRY, kind)
    record["data"] = verbatim(event)
    record.update(extra)
    st.put(record, revertable="turnId" in record)
    return "vendor"


def _settings(st: ThreadState, p: dict[str, Any]) -> None:
    for name in SETTINGS:
        if name in p:
            st.settings[name] = p[name]


def turn_start(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """``thread.turn-start-requested``: the turn it started (from the event log, see
    ``Database.event_message_turns``) and the settings it ran with: the request's own model
    and modes over the thread's branch, worktree and model as the log set them."""
    _settings(st, p)
    message_id = p.get("messageId")
    turn = st.user_turns.get(message_id) if isinstance(message_id, str) else None
    settings = {name: st.settings[name] for name in SETTINGS if st.settings.get(name) is not None}
    return vendor(st, event["type"], event, turn_id=turn, settings=settings)


def interrupt(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """``thread.turn-interrupt-requested`` is the only record of an interruption: T3 ends the
    provider's interrupted turn with session status ``ready``. The turn's assistant messages
    that close from now on are ``interrupted``; this record marks the turn."""
    turn = p.get("turnId") if isinstance(p.get("turnId"), str) else st.active_turn
    if turn is None:
        return vendor(st, event["type"], event)
    st.interrupted.add(turn)
    return vendor(st, event["type"], event, turn_id=turn, turnStatus="interrupted")


def handle(st: ThreadState, event: dict[str, Any], attachments: Path | None) -> str:
    kind = event["type"]
    payload = event.get("payload")
    if not isinstance(payload, dict):
        return vendor(st, kind, event)
    if kind == "thread.message-sent":
        return message_sent(st, event, payload, attachments)
    if kind == "thread.activity-appended":
        return activities.handle(st, event, payload)
    if kind == "thread.session-set":
        return session_set(st, event, payload)
    if kind == "thread.proposed-plan-upserted":
        return proposed_plan(st, event, payload)
    if kind == "thread.reverted":
        return reverted(st, event, payload)
    if kind in ("thread.approval-response-requested", "thread.user-input-response-requested"):
        return activities.response(st, event, payload)
    if kind == "thread.turn-diff-completed":
        # The turn's checkpoint: a revert that removes the turn removes it too.
        turn, count = payload.get("turnId"), payload.get("checkpointTurnCount")
        if isinstance(turn, str) and isinstance(count, int):
            st.live.checkpoint(turn, count)
        return vendor(st, kind, event, turn_id=turn)
    if kind == "thread.turn-start-requested":
        return turn_start(st, event, payload)
    if kind == "thread.turn-interrupt-requested":
        return interrupt(st, event, payload)
    if kind in SETTING_EVENTS:
        _settings(st, payload)
        if kind == "thread.created":
            return "folded"  # header facts
    return vendor(st, kind, event)


# -- messages ------------------------------------------------------------------------------


def message_sent(st: ThreadState, event: dict[str, Any], p: dict[str, Any], attachments: Path | None) -> str:
    message_id = p.get("messageId")
    if not isinstance(message_id, str):
        return vendor(st, event["type"], event)
    text = string(p.get("text"))
    role = p.get("role")
    fold = st.folds.get(message_id)
    if p.get("streaming") is True:
        if fold is None:
            st.folds[message_id] = Fold(_message_start(p, event), text, [event["eventId"]], p.get("turnId"))
            return "records"
        fold.text += text
        fold.source_ids.append(event["eventId"])
        return "folded"
    if fold is not None:
        # Completion: empty text keeps what was streamed; a non-empty text replaces it (the
        # projector's rule), so the final snapshot never duplicates the chunks.
        if text:
            fold.text = text
        fold.source_ids.append(event["eventId"])
        _close(st, message_id, "complete", p.get("attachments"), attachments)
        return "folded"
    if message_id in st.message_ids:
        # An empty completion for a message already written (after an interrupted turn closed
        # it) adds nothing; a text is a rewrite of the message.
        return "folded" if not text else _revision(st, event, p, message_id, attachments)
    record = _message_start(p, event)
    if role == "user":
        st.error_notice = None  # a new request: an error after it is a new one
        turn = st.user_turns.get(message_id)
        if turn is not None and "turnId" not in record:
            record["turnId"] = turn
        _user_content(record, text, p.get("attachments"), attachments, p.get("context"))
        st.message_ids.add(message_id)
        st.put(record, revertable=True, role="user")
        return "records"
    st.folds[message_id] = Fold(record, text, [event["eventId"]], p.get("turnId"))
    _close(st, message_id, "complete", p.get("attachments"), attachments)
    return "records"


def _revision(
    st: ThreadState, event: dict[str, Any], p: dict[str, Any], message_id: str, attachments: Path | None
) -> str:
    """A second complete message under an id already written: a rewrite, kept as a revision."""
    record = _message_start(p, event)
    if p.get("role") == "user":
        _user_content(record, p.get("text") or "", p.get("attachments"), attachments)
    else:
        record["content"] = [text_part(p.get("text") or "")]
    record["supersedes"] = f"messageId={message_id}"
    st.put(record, revertable=True, role="user" if p.get("role") == "user" else "")
    return "records"


def _message_start(p: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    record = base("message", p.get("createdAt") or event.get("occurredAt"), p.get("turnId"))
    record["messageId"] = p["messageId"]
    role = p.get("role")
    if isinstance(role, str) and role in ("user", "assistant", "system"):
        record["role"] = role
    elif isinstance(role, str):
        record["role"] = ns(role)
    else:
        record["capture"] = {"role": {"state": "absent"}}
    if role == "assistant":
        record["author"] = "model"
    return record


def _user_content(record: dict[str, Any], text: str, atts: Any, folder: Path | None, context: Any = None) -> None:
    """ASR-207: T3 keeps only the composer-built text (and, in later builds, the structured
    composer context its links point at), so it is display content."""
    display = split_user_text(text)
    if context is not None:
        display.append({"type": "data", "data": context, "schema": f"{REGISTRY}/composer-context"})
    images, missing = attachment_parts(atts, folder)
    record["content"] = []
    record["displayContent"] = display + images
    capture: dict[str, Any] = dict(record.get("capture") or {})
    capture["content"] = {
        "state": "absent",
        "reason": "T3 Code stores the text its composer built, not the input the provider received",
    }
    if missing:
        capture["displayContent"] = {
            "state": "truncated",
            "reason": "image bytes are kept in T3 Code's attachments folder, not in the database",
        }
    record["capture"] = capture


def attachment_parts(atts: Any, folder: Path | None) -> tuple[list[dict[str, Any]], bool]:
    """Image parts for stored attachment metadata; bytes by BlobRef when the file is found."""
    parts: list[dict[str, Any]] = []
    missing = False
    if not isinstance(atts, list):
        return parts, missing
    for att in atts:
        if not isinstance(att, dict):
            continue
        mime = string(att.get("mimeType"), "application/octet-stream")
        meta = {k: att[k] for k in ("id", "name", "sizeBytes") if k in att}
        part: dict[str, Any] = {"type": "image" if att.get("type", "image") == "image" else "data", "mimeType": mime}
        if part["type"] == "data":
            part = {"type": "data", "data": att, "schema": f"{REGISTRY}/attachment"}
            parts.append(part)
            continue
        blob = _blob(folder, att.get("id"), mime)
        if blob is not None:
            part["blob"] = blob
        else:
            missing = True
        part["_meta"] = {f"{REGISTRY}/attachment": meta}
        parts.append(part)
    return parts, missing


def _blob(folder: Path | None, attachment_id: Any, mime: str) -> dict[str, Any] | None:
    """The attachment's digest and size. The id is content: matched literally (no wildcards),
    and only a regular file inside the attachments folder is read (core.companion; the adapter
    reports the files it refuses once, ``check_attachments``)."""
    if folder is None or not isinstance(attachment_id, str) or "/" in attachment_id or attachment_id.startswith("."):
        return None
    allowed = [root(folder.parent, folder.name)]  # attachments/ under the database's own folder
    for path in sorted(folder.glob(f"{glob.escape(attachment_id)}.*")):
        try:
            handle = open_companion(path, allowed, None)
        except (CompanionSkipped, OSError):
            continue
        if handle is None:
            continue
        digest = hashlib.sha256()
        size = 0
        with handle:
            while chunk := handle.read(1 << 16):
                digest.update(chunk)
                size += len(chunk)
        return {"blob": f"sha256:{digest.hexdigest()}", "size": size, "mimeType": mime}
    return None


def check_attachments(folder: Path | None, accounting: Accounting) -> None:
    """Report, once each, the files of the attachments folder ``_blob`` will not read (a FIFO,
    a device, a link out of the folder): counted warnings, not silent gaps."""
    if folder is None:
        return
    allowed = root(folder.parent, folder.name)
    if (reason := linked_out(allowed)) is not None:  # the folder itself: one warning, no file read
        accounting.diagnostics.append(Diagnostic(str(folder), None, f"attachments skipped: {reason}"))
        return
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for path in entries:
        try:
            check_companion(path, [allowed])
        except CompanionSkipped as exc:
            report_skip(accounting, exc, "attachment")


def _close(
    st: ThreadState, message_id: str, status: str, atts: Any = None, folder: Path | None = None, error: Any = None
) -> None:
    fold = st.folds.pop(message_id)
    record = fold.record
    if status in ("complete", "partial") and fold.turn_id is not None and fold.turn_id in st.interrupted:
        status = "interrupted"
    content: list[dict[str, Any]] = [text_part(fold.text)] if fold.text else []
    images, missing = attachment_parts(atts, folder)
    content += images
    record["status"] = status
    record["content"] = content
    if not content:
        record["capture"] = {"content": {"state": "absent", "reason": "T3 Code stored no text for this message"}}
    elif missing:
        record["capture"] = {"content": {"state": "truncated", "reason": "image bytes are not in the database"}}
    if error is not None:
        record["error"] = error
    if len(fold.source_ids) > 1:
        record["assembly"] = {"mode": "folded", "sourceIds": fold.source_ids}
    st.message_ids.add(message_id)
    st.put(record, revertable=True)


def flush(st: ThreadState, status: str, turn_id: str | None = None, error: Any = None) -> int:
    """Write the open assistant folds (of one turn, or all) with ``status``."""
    ids = [m for m, f in st.folds.items() if turn_id is None or f.turn_id in (turn_id, None)]
    for message_id in ids:
        _close(st, message_id, status, error=error)
    return len(ids)


# -- turn lifecycle, plans, reverts ---------------------------------------------------------


def session_set(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """Lifecycle, not messages: ``running`` opens a turn, a terminal status closes its open
    messages with that status. An error is one notice however often T3 repeats it (the
    provider's error, its ``runtime.error`` and the failed turn each set ``error``)."""
    session = obj(p.get("session"))
    status = session.get("status")
    active = session.get("activeTurnId")
    if status == "running" and isinstance(active, str):
        if active != st.active_turn:
            st.error_notice = None
        st.active_turn = active
        return "folded"
    if st.active_turn is not None and status != "starting" and (status != "running" or active != st.active_turn):
        tools.end_turn(st, st.active_turn)
    ended = TERMINAL_TURN.get(status) if isinstance(status, str) else None
    if ended is not None:
        turn = st.active_turn if st.active_turn is not None else (active if isinstance(active, str) else None)
        error = session.get("lastError")
        closed = flush(st, ended, turn, error)
        st.active_turn = None
        if status == "error" and isinstance(error, str) and error:
            if same_error(st.error_notice, turn, error):
                return "folded"
            return _session_notice(st, event, error, turn)
        if closed:
            return "folded"
        return vendor(st, event["type"], event)  # nothing open to carry the status: keep the event
    if status in ("ready", "idle"):
        st.active_turn = None
        st.error_notice = None
    return "folded"


def _session_notice(st: ThreadState, event: dict[str, Any], error: str, turn: str | None) -> str:
    """A session that ended in error: its ``lastError`` is the notice T3 shows."""
    st.error_notice = (turn, error)
    record = base("message", event.get("occurredAt"), turn)
    record["messageId"] = f"session-error:{event['eventId']}"
    record["author"] = "harness"
    record["origin"] = "notice"
    record["audience"] = "user"
    record["content"] = [text_part(error)]
    record["capture"] = {"role": {"state": "absent", "reason": "a UI notice, not sent to the model"}}
    record["idSource"] = "derived"
    record["session"] = obj(obj(event.get("payload")).get("session"))
    if turn is not None:
        record["turnStatus"] = "error"
    st.put(record, revertable=True)
    return "records"


def proposed_plan(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    plan = p.get("proposedPlan")
    if not isinstance(plan, dict) or not isinstance(plan.get("id"), str):
        return vendor(st, event["type"], event)
    record = base("plan", plan.get("updatedAt") or event.get("occurredAt"), plan.get("turnId"))
    record["planId"] = plan["id"]
    record["planType"] = "document"
    markdown = plan.get("planMarkdown")
    record["content"] = [text_part(markdown)] if isinstance(markdown, str) else []
    previous = st.plans.get(plan["id"])
    if previous is not None:
        record["supersedes"] = previous
    for key in ("implementedAt", "implementationThreadId"):
        if plan.get(key) is not None:
            record[key] = plan[key]
    st.plans[plan["id"]] = st.put(record, revertable=True)["id"]
    return "records"


def reverted(st: ThreadState, event: dict[str, Any], p: dict[str, Any]) -> str:
    """Mirror the projector's revert: turns whose checkpoint count exceeds ``turnCount`` go,
    user messages beyond the first ``turnCount`` go; records without a turn stay."""
    count = p.get("turnCount")
    if not isinstance(count, int):
        return vendor(st, event["type"], event)
    return vendor(st, event["type"], event, reverted=st.live.revert(count))
