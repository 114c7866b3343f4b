"""Files OpenClaw keeps beside a transcript that record outbound attempts for it.

The index's ``pendingFinalDelivery*`` fields, the cron runner's run log and the outbound
queue's ``failed/`` folder. Each is read only when present and only for this session; a
run-log line or a queue entry that becomes a record counts as a native item.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.accounting import Diagnostic
from ...core.adapter import Context, Emitter
from ...core.companion import CompanionSkipped, linked_out, open_companion, read_companion, report_skip, root
from ...core.lenient import REPLACED
from ...core.timestamps import from_epoch_millis, stamp
from .index import SessionInfo, obj
from .routing import Routing

_CRON_DELIVERY = {"delivered": "sent", "not-delivered": "failed"}
#: A delivery-queue entry larger than this is not read.
MAX_QUEUE_ENTRY_BYTES = 16 << 20


def state_dir(path: Path) -> Path:
    """``<state>`` for ``<state>/agents/<id>/sessions/<file>``; the file's own folder otherwise."""
    parts = path.resolve().parents
    if len(parts) >= 4 and parts[0].name == "sessions" and parts[2].name == "agents":
        return parts[3]
    return path.resolve().parent


def pending_delivery(info: SessionInfo | None, routing: Routing) -> dict[str, Any] | None:
    """A final reply the index still holds for delivery (2026.5+ ``pendingFinalDelivery*``).

    Only for the session the index row currently names: the row says nothing about
    earlier generations. The reply is not linked to a message (that would need matching
    by text); the index fields are kept verbatim.
    """
    if info is None or not info.current or info.pending_delivery.get("pendingFinalDelivery") is not True:
        return None
    fields = info.pending_delivery
    record: dict[str, Any] = {"type": "delivery"}
    stamp(record, from_epoch_millis(fields.get("pendingFinalDeliveryLastAttemptAt")))
    if routing.session_conversation is not None:
        record["conversation"] = routing.session_conversation
    record["status"] = "queued"
    if fields.get("pendingFinalDeliveryLastError") not in (None, ""):
        record["reason"] = str(fields["pendingFinalDeliveryLastError"])
    attempts = fields.get("pendingFinalDeliveryAttemptCount")
    if isinstance(attempts, int) and not isinstance(attempts, bool):
        record["attempt"] = attempts
    record["pendingFinalDelivery"] = fields
    return record


def cron_deliveries(
    path: Path | None,
    session_id: str,
    info: SessionInfo | None,
    job_id: str | None,
    emit: Emitter,
    context: Context,
) -> Iterator[dict[str, Any]]:
    """The cron runner's record of delivering this run's result (``cron/runs/<jobId>.jsonl``).

    The run log names the session of each run; its ``deliveryStatus`` is OpenClaw's
    outcome of handing the summary to the channel (``delivered`` → sent: no platform
    receipt is involved; ``not-delivered`` → failed). The log does not say which message
    was delivered, so the record names none.
    """
    if path is None:
        return
    if info is not None and info.key and ":cron:" in info.key:
        job_id = info.key.split(":cron:", 1)[1].split(":", 1)[0]
    if not job_id or "/" in job_id or "\\" in job_id:
        return
    runs = root(state_dir(path), "cron", "runs")
    log = runs.path / f"{job_id}.jsonl"
    try:
        handle = open_companion(log, [runs], None)
    except CompanionSkipped as exc:
        report_skip(context.accounting, exc, "cron run log")
        return
    except OSError:
        return
    if handle is None:
        return
    with handle:
        for number, line in enumerate(handle, 1):
            try:
                entry, repaired = items.loads(line)
            except orjson.JSONDecodeError:
                continue
            if repaired:
                context.accounting.diagnostics.append(Diagnostic(str(log), number, REPLACED))
            if not isinstance(entry, dict) or entry.get("sessionId") != session_id:
                continue
            raw = entry.get("deliveryStatus")
            if isinstance(raw, str):
                if raw == "not-requested":
                    continue
                status = _CRON_DELIVERY.get(raw, "unknown")
            elif entry.get("delivered") is True:
                status = "sent"
            else:
                continue  # no record of a delivery attempt
            context.accounting.native_items += 1
            context.accounting.records += 1
            record: dict[str, Any] = {"type": "delivery"}
            stamp(record, from_epoch_millis(entry.get("ts")))
            record["status"] = status
            if entry.get("deliveryError") not in (None, ""):
                record["reason"] = str(entry["deliveryError"])
            record["cronRun"] = entry
            yield emit(record)


def failed_deliveries(
    path: Path | None, info: SessionInfo | None, routing: Routing, emit: Emitter, context: Context
) -> Iterator[dict[str, Any]]:
    """Sends OpenClaw gave up on (``delivery-queue/failed/``) whose mirror names this session."""
    if path is None or info is None or not info.key:
        return
    queue = root(state_dir(path), "delivery-queue", "failed")
    folder = queue.path
    if not folder.is_dir():
        return
    if (reason := linked_out(queue)) is not None:  # one warning for the folder, no file of it read
        context.accounting.diagnostics.append(Diagnostic(str(folder), None, f"delivery queue skipped: {reason}"))
        return
    for file in sorted(folder.glob("*.json")):
        try:
            raw = read_companion(file, [queue], MAX_QUEUE_ENTRY_BYTES)
            entry, repaired = items.loads(raw) if raw is not None else (None, False)
        except CompanionSkipped as exc:
            report_skip(context.accounting, exc, "delivery-queue entry")
            continue
        except (OSError, orjson.JSONDecodeError):
            continue
        if not isinstance(entry, dict):
            continue
        if repaired:
            context.accounting.diagnostics.append(Diagnostic(str(file), None, REPLACED))
        mirror = obj(entry.get("mirror"))
        if info.key not in (mirror.get("sessionKey"), entry.get("sessionKey")):
            continue
        context.accounting.native_items += 1
        context.accounting.records += 1
        record: dict[str, Any] = {"type": "delivery"}
        stamp(record, from_epoch_millis(entry.get("enqueuedAt")))
        conversation = routing.target_conversation(entry.get("channel"), entry.get("to"))
        for decl in routing.take_pending():
            yield emit(decl)
        if conversation is not None:
            record["conversation"] = conversation
        record["status"] = "failed"
        if entry.get("lastError") not in (None, ""):
            record["reason"] = str(entry["lastError"])
        if isinstance(entry.get("retryCount"), int):
            record["attempt"] = entry["retryCount"]
        record["queueEntry"] = entry
        yield emit(record)
