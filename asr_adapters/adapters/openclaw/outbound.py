"""Records of what happened to outbound messages and delegations, built from the entries
that record them: a delivery-mirror, a silent final reply, a ``message`` tool result, an
accepted ``sessions_spawn``. Never a delivery from a message's mere existence (ASR-237).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.refs import session_ref
from . import assistant as am
from .index import arr, obj
from .routing import Routing


def reply_delivery(
    routing: Routing,
    base: dict[str, Any],
    message: dict[str, Any],
    parts: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    synthetic: bool,
    message_id: str | None,
) -> list[dict[str, Any]]:
    """A delivery-mirror is the record of a send; a silent final reply is a held-back one."""
    if message_id is None:
        return []
    delivery: dict[str, Any] = {"type": "delivery", **base, "message": f"messageId={message_id}"}
    if synthetic:
        if message.get("model") != "delivery-mirror":
            return []
        status, reason = "sent", None
    else:
        token = am.silent_token(parts)
        if token is None or calls or message.get("stopReason") not in ("stop", None):
            return []
        status, reason = "suppressed", token
    # a mirror is written into the session of the conversation it went to, and records no
    # target of its own: only the session's own conversation (index, session key) is known
    # (issue 27.15). REPLY_SKIP answers another session (sessions_send ping-pong), not a
    # conversation; another held-back reply would have gone where the session replies.
    if synthetic:
        conversation = routing.session_conversation
    else:
        conversation = routing.current_conversation if reason != "REPLY_SKIP" else None
    if conversation is not None:
        delivery["conversation"] = conversation
    delivery["status"] = status
    if reason is not None:
        delivery["reason"] = reason
    return [delivery]


def subagent(
    resolve: Callable[[str], str | None] | None,
    base: dict[str, Any],
    call_id: str,
    message: dict[str, Any],
    data: dict[str, Any],
) -> list[dict[str, Any]]:
    """A ``sessions_spawn`` the result accepted: the child's key is its address, and its
    session id when the index (or the SQLite session rows) maps that key."""
    details = obj(message.get("details"))
    key = details.get("childSessionKey")
    if not isinstance(key, str) or not key or message.get("isError") is True:
        return []
    record: dict[str, Any] = {"type": "subagent", **base, "callId": call_id}
    child = resolve(key) if resolve is not None else None
    if child:
        record["session"] = session_ref("openclaw", child)
    record["address"] = key
    agent_type = data.get("agentId") or data.get("runtime")
    if isinstance(agent_type, str) and agent_type:
        record["agentType"] = agent_type
    description = data.get("task") if isinstance(data.get("task"), str) else data.get("label")
    if isinstance(description, str) and description:
        record["description"] = description
    for field in ("runId", "mode", "label"):
        value = details.get(field) if field != "label" else data.get("label")
        if value is not None:
            record[field] = value
    return [record]


def send_delivery(
    routing: Routing,
    base: dict[str, Any],
    message: dict[str, Any],
    parts: list[dict[str, Any]],
    message_id: str | None,
    data: dict[str, Any],
) -> list[dict[str, Any]]:
    """A ``message`` tool send: sent with the platform ids its result carries, or failed.

    The delivery names its tool call (``callId``), not a message: what was sent is the call's
    input, and the assistant message that made the call was not itself sent there."""
    details = obj(message.get("details"))
    result = obj(details.get("result"))
    ids = arr(result.get("messageIds"))
    ids = [str(i) for i in ids if isinstance(i, str | int) and not isinstance(i, bool)]
    single = result.get("messageId")
    if isinstance(single, str | int) and not isinstance(single, bool) and str(single) not in ids:
        ids.insert(0, str(single))
    failed = message.get("isError") is True or details.get("ok") is False
    if not ids and not failed:
        return []
    delivery: dict[str, Any] = {"type": "delivery", **base}
    channel = data.get("channel") or details.get("channel")
    target = data.get("target") or data.get("to") or details.get("to")
    conversation = routing.target_conversation(channel, target)
    if conversation is not None:
        delivery["conversation"] = conversation
    if failed:
        delivery["status"] = "failed"
        reason = "".join(p.get("text", "") for p in parts if p.get("type") == "text")
        if reason:
            delivery["reason"] = reason
    else:
        delivery["status"] = "sent"
        delivery["platformMessageIds"] = ids
    delivery["callId"] = str(message.get("toolCallId", ""))
    return [delivery]
