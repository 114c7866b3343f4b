"""Checks of records, one function per record type, over plain dicts."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..model.vocab import (
    AUDIENCES,
    AUTHORS,
    CORRESPONDENCES,
    DELIVERY_STATUSES,
    ENTRY_STATUSES,
    MESSAGE_STATUSES,
    ORIGINS,
    PHASES,
    PLAN_STATUSES,
    PLAN_TYPES,
    PRIORITIES,
    RECIPIENT_KINDS,
    ROLES,
    VIA,
    is_open_value,
)
from .parts import Report, check_parts

SESSION_REF = re.compile(r"[a-z0-9][a-z0-9._-]*:[^#\s]+(#[^\s=]+=.+)?\Z")
RECORD_REF = re.compile(r"r[1-9][0-9]*\Z|[A-Za-z_][A-Za-z0-9_]*=.+\Z", re.S)


def is_record_ref(value: Any) -> bool:
    return isinstance(value, str) and RECORD_REF.match(value) is not None


def is_session_ref(value: Any, *, with_record: bool = False) -> bool:
    if not isinstance(value, str):
        return False
    match = SESSION_REF.match(value)
    return match is not None and (not with_record or match.group(1) is not None)


def is_actor(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if "session" in value:
        return is_session_ref(value["session"]) and isinstance(value.get("address", ""), str)
    return isinstance(value.get("participant"), str)


def _open(record: dict, key: str, listed: frozenset[str], rule: str, report: Report) -> None:
    if key in record and not is_open_value(record[key], listed):
        report(rule, f"{key} {record[key]!r} is not a spec value or a namespaced one")


def check_message(record: dict, report: Report) -> None:
    if not isinstance(record.get("messageId"), str) or not record["messageId"]:
        report("ASR-200", "a message must contain a string messageId")
    content = record.get("content")
    if content is None:
        report("ASR-200", "a message must contain content")
    else:
        check_parts(content, "content", report)
    capture = record.get("capture") or {}
    if "role" not in record:
        if "role" not in capture:
            report("ASR-200", "a message must contain role unless capture.role gives a capture state")
    elif not is_open_value(record["role"], ROLES):
        report("ASR-201", f"role {record['role']!r} is not a spec value or a namespaced one")
    _open(record, "author", AUTHORS, "ASR-202", report)
    _open(record, "origin", ORIGINS, "ASR-202", report)
    _open(record, "phase", PHASES, "ASR-224", report)
    if "audience" in record and record["audience"] not in AUDIENCES:
        report("ASR-204", f"audience must be model, user, both or unknown, not {record['audience']!r}")
    _open(record, "status", MESSAGE_STATUSES, "ASR-206", report)
    _open(record, "via", VIA, "ASR-226", report)
    _check_notice(record, report)
    display = record.get("displayContent")
    if display is not None:
        check_parts(display, "displayContent", report)
        if content == [] and display and (capture.get("content") or {}).get("state") != "absent":
            report("ASR-207", "only a display representation: content must be empty and capture.content absent")
    if "displayCorrespondence" in record:
        _open(record, "displayCorrespondence", CORRESPONDENCES, "ASR-208", report)
        if display is None:
            report("ASR-208", "displayCorrespondence without displayContent")
    _check_routing(record, report)
    if (
        isinstance(content, list)
        and content
        and all(isinstance(p, dict) and p.get("type") == "reasoning" for p in content)
    ):
        if len(content) != 1:
            report("ASR-219", "a reasoning-only message holds exactly one reasoning part")
        if record.get("role", "assistant") != "assistant":
            report("ASR-220", "a reasoning-only message has role assistant")


def _check_notice(record: dict, report: Report) -> None:
    if record.get("origin") == "notice" and (record.get("author") != "harness" or record.get("audience") != "user"):
        report("ASR-205", "a stored harness notice must have author harness, origin notice, audience user")


def _check_routing(record: dict, report: Report) -> None:
    if "from" in record and not is_actor(record["from"]):
        report("ASR-228", "from must be an actor reference ({session, address?} or {participant})")
    recipients = record.get("recipients")
    if recipients is not None:
        if not isinstance(recipients, list):
            report("ASR-228", "recipients must be an array")
        else:
            for index, entry in enumerate(recipients):
                if not isinstance(entry, dict) or not is_actor(entry.get("actor")):
                    report("ASR-228", f"recipients[{index}].actor must be an actor reference")
                elif "kind" in entry and not is_open_value(entry["kind"], RECIPIENT_KINDS):
                    report("ASR-228", f"recipients[{index}].kind {entry['kind']!r} is not primary or additional")
    derived = record.get("derivedFrom")
    if derived is not None and (
        not isinstance(derived, list)
        or not all(is_record_ref(d) or is_session_ref(d, with_record=True) for d in derived)
    ):
        report("ASR-228", "each derivedFrom entry must be a record ref or a session reference with a # part")
    for key in ("triggersTurn", "addressed"):
        if key in record and not isinstance(record[key], bool):
            report("ASR-226", f"{key} must be a boolean")
    platform = record.get("platform")
    if platform is not None and (
        not isinstance(platform, dict)
        or not isinstance(platform.get("messageIds", []), list)
        or not isinstance(platform.get("replyTo", ""), str)
    ):
        report("ASR-226", "platform must be {messageIds?: string[], replyTo?: string}")


def check_plan(record: dict, report: Report) -> None:
    if not isinstance(record.get("planId"), str) or not isinstance(record.get("planType"), str):
        report("ASR-221", "a plan must contain planId and planType")
        return
    plan_type = record["planType"]
    if not is_open_value(plan_type, PLAN_TYPES):
        report("ASR-221", f"planType {plan_type!r} is not a spec value or a namespaced one")
    _open(record, "status", PLAN_STATUSES, "ASR-221", report)
    if plan_type == "items":
        entries = record.get("entries")
        if not isinstance(entries, list):
            report("ASR-221", "an items plan must contain entries")
        else:
            _check_entries(entries, report)
    elif (
        plan_type in ("document", "goal") and "content" not in record and "content" not in (record.get("capture") or {})
    ):
        report("ASR-221", f"a {plan_type} plan must contain content or a capture.content state")
    if "content" in record:
        check_parts(record["content"], "content", report)


def _check_entries(entries: list, report: Report) -> None:
    ids: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or "status" not in entry:
            report("ASR-221", f"entries[{index}] must contain content and status")
            continue
        if not is_open_value(entry["status"], ENTRY_STATUSES):
            report("ASR-221", f"entries[{index}].status {entry['status']!r} is not a spec value")
        if "priority" in entry and not is_open_value(entry["priority"], PRIORITIES):
            report("ASR-221", f"entries[{index}].priority {entry['priority']!r} is not high, medium or low")
        if "entryId" in entry:
            if entry["entryId"] in ids:
                report("ASR-236", f"entryId {entry['entryId']!r} is not unique in the plan")
            ids.add(entry["entryId"])
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        for blocker in entry.get("blockedBy") or ():
            if blocker not in ids or blocker == entry.get("entryId"):
                report("ASR-236", f"entries[{index}].blockedBy {blocker!r} is not another entry's entryId")


def check_delivery(record: dict, report: Report) -> None:
    if "status" not in record:
        report("ASR-234", "a delivery must contain status")
    else:
        _open(record, "status", DELIVERY_STATUSES, "ASR-234", report)
    if "message" in record and not is_record_ref(record["message"]):
        report("ASR-235", "a delivery's message must be a record ref")
    ids = record.get("platformMessageIds")
    if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
        report("ASR-235", "platformMessageIds must be an array of strings")


def check_tool_call(record: dict, report: Report) -> None:
    if not isinstance(record.get("callId"), str):
        report("PROFILE-tool", "a tool_call must contain a string callId")


def check_tool_result(record: dict, report: Report) -> None:
    if not isinstance(record.get("callId"), str):
        report("PROFILE-tool", "a tool_result must contain a string callId")
    if "content" in record:
        check_parts(record["content"], "content", report)
    if "isError" in record and not isinstance(record["isError"], bool):
        report("PROFILE-tool", "isError must be a boolean")


def check_subagent(record: dict, report: Report) -> None:
    if "session" in record and not is_session_ref(record["session"]):
        report("PROFILE-ref", "a subagent's session must be a session reference")


def check_input_request(record: dict, report: Report) -> None:
    for key in ("content", "answer"):
        if key in record:
            check_parts(record[key], key, report)


def check_vendor(record: dict, report: Report) -> None:
    schema = record.get("schema")
    if not isinstance(schema, str) or "/" not in schema or "data" not in record:
        report("PROFILE-vendor", "a vendor record needs schema '<registry name>/<kind>' and data")


def check_participant(record: dict, report: Report) -> None:
    if not isinstance(record.get("participantId"), str):
        report("ASR-227", "a participant declaration needs participantId")


def check_conversation(record: dict, report: Report) -> None:
    if not isinstance(record.get("conversationId"), str):
        report("ASR-227", "a conversation declaration needs conversationId")


RECORD_CHECKS: dict[str, Callable[[dict, Report], None]] = {
    "message": check_message,
    "plan": check_plan,
    "delivery": check_delivery,
    "tool_call": check_tool_call,
    "tool_result": check_tool_result,
    "subagent": check_subagent,
    "input_request": check_input_request,
    "vendor": check_vendor,
    "participant": check_participant,
    "conversation": check_conversation,
}
