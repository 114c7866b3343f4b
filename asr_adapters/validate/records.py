"""Checks of one record at a time, one function per record type, over plain dicts.

Checks that need other records (references, declarations, plan revisions) live in
``stream.py``. Every check takes any JSON value in any field and reports; none raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.vocab import (
    AUDIENCES,
    AUTHORS,
    CORRESPONDENCES,
    DELIVERY_STATUSES,
    ENTRY_STATUSES,
    MESSAGE_STATUSES,
    NO_VALUES,
    ORIGINS,
    PHASES,
    PLAN_STATUSES,
    PLAN_TYPES,
    PRIORITIES,
    RECIPIENT_KINDS,
    ROLES,
    SUMMARY_KINDS,
    TOOL_STATUSES,
    VIA,
    is_open_value,
)
from .formats import actor_problem, is_record_ref, is_session_ref, is_str_list, path_problem, show
from .parts import Report, check_parts

_EMPTY: dict = {}
_MISSING: Any = object()
_ROUTING = frozenset(
    {"from", "recipients", "derivedFrom", "triggersTurn", "addressed", "conversation", "platform", "via"}
)
_MESSAGE_RARE = _ROUTING | {
    "status",
    "displayContent",
    "displayCorrespondence",
    "usage",
    "nativeUsage",
    "summaryOf",
    "compaction",
}
#: capture states under which a message's content may be empty while displayContent holds it (ASR-207).
_DISPLAY_ONLY_STATES = ("absent", "redacted")


def _open(record: dict, key: str, listed: frozenset[str], report: Report, rule: str = "PROFILE-open-value") -> None:
    if key in record and not is_open_value(record[key], listed):
        report(rule, f"{key} {show(record[key])} is not a spec value or a namespaced one")


def _state(capture: dict, field: str) -> Any:
    entry = capture.get(field)
    return entry.get("state") if isinstance(entry, dict) else None


def _bad(value: Any, listed: frozenset[str]) -> bool:
    """True when ``value`` is neither a listed value nor a namespaced one (fast for listed strings)."""
    return not (value.__class__ is str and value in listed) and not is_open_value(value, listed)


def check_message(record: dict, report: Report) -> None:
    get = record.get
    message_id = get("messageId")
    if not isinstance(message_id, str) or not message_id:
        report("ASR-200", "a message must contain messageId (a non-empty string)")
    capture = get("capture", _EMPTY)
    if capture.__class__ is not dict and not isinstance(capture, dict):
        capture = _EMPTY
    content = get("content", _MISSING)
    if isinstance(content, list):
        if content:
            check_parts(content, "content", report, record)
        else:
            _check_empty_content(get("displayContent"), capture, report)
    elif content is _MISSING:
        report("ASR-200", "a message must contain content")
    else:
        report("ASR-200", f"content must be an array of content parts, not {show(content)}")
    role = get("role", _MISSING)
    if role is _MISSING:
        if "role" not in capture:
            report("ASR-200", "a message must contain role unless capture.role gives a capture state")
    else:
        if _bad(role, ROLES):
            report("PROFILE-open-value", f"role {show(role)} is not a spec value or a namespaced one")
        if capture and _state(capture, "role") == "absent":
            report("ASR-201", "role is present but capture.role says the source has no role")
    for key, listed in (("author", AUTHORS), ("origin", ORIGINS), ("phase", PHASES)):
        value = get(key, _MISSING)
        if value is not _MISSING and _bad(value, listed):
            report("PROFILE-open-value", f"{key} {show(value)} is not a spec value or a namespaced one")
    audience = get("audience", _MISSING)
    if audience is not _MISSING and not (audience.__class__ is str and audience in AUDIENCES):
        report("ASR-204", f"audience must be model, user, both or unknown, not {show(audience)}")
    origin = get("origin")
    if origin == "notice" and (get("author") != "harness" or audience != "user"):
        report("ASR-205", "a stored harness notice must have author harness, origin notice and audience user")
    elif origin == "injected" and get("author") == "human":
        report("ASR-203", "content inserted by the harness (origin injected) cannot have author human")
    if not _MESSAGE_RARE.isdisjoint(record):
        _check_message_rare(record, content, report)
    if (
        content.__class__ is list
        and len(content) == 1
        and content[0].__class__ is dict
        and content[0].get("type") == "reasoning"
        and role is not _MISSING
        and role != "assistant"
    ):
        report("ASR-220", f"a reasoning-only message is model output: role must be assistant, not {show(role)}")


def _check_message_rare(record: dict, content: Any, report: Report) -> None:
    """The message members most messages do not have."""
    if "status" in record:
        status = record["status"]
        if _bad(status, MESSAGE_STATUSES):
            report("ASR-206", f"status {show(status)} is not a spec value or a namespaced one")
        elif status == "withdrawn" and (record.get("role") == "assistant" or record.get("author") == "model"):
            report("ASR-225", "withdrawn is for queued input removed before delivery, not for model output")
    display = record.get("displayContent")
    if "displayContent" in record:
        check_parts(display, "displayContent", report, record)
    if "displayCorrespondence" in record:
        _open(record, "displayCorrespondence", CORRESPONDENCES, report)
        if not display or not isinstance(display, list) or not content or not isinstance(content, list):
            report("ASR-208", "displayCorrespondence asserts a link between content and displayContent; one is empty")
    if "summaryOf" in record or "compaction" in record:
        check_summary(record, report)
    if not _ROUTING.isdisjoint(record):
        _check_routing(record, report)


def check_summary(record: dict, report: Report) -> None:
    """``summaryOf`` and the compaction shape (docs/format.md, Compaction): a record that holds
    the summary replacing history says so with ``summaryOf: "compaction"`` and may name the
    replaced history with ``compaction: {from?, through?}`` (record refs)."""
    _open(record, "summaryOf", SUMMARY_KINDS, report)
    if "compaction" not in record:
        return
    compaction = record["compaction"]
    if record.get("summaryOf") != "compaction":
        report("PROFILE-compaction", "compaction is only for the record with summaryOf: compaction")
    if not isinstance(compaction, dict):
        report("PROFILE-compaction", f"compaction must be an object {{from?, through?}}, not {show(compaction)}")
        return
    for key, value in compaction.items():
        if key not in ("from", "through"):
            report("PROFILE-compaction", f"compaction has an unknown member {key!r} (from and through only)")
        elif not is_record_ref(value):
            report("PROFILE-compaction", f"compaction.{key} must be a record ref, not {show(value)}")


def _check_empty_content(display: Any, capture: dict, report: Report) -> None:
    state = _state(capture, "content")
    if isinstance(display, list) and display:
        if state not in _DISPLAY_ONLY_STATES:
            report(
                "ASR-207",
                "content is empty and displayContent holds the message: capture.content must be absent"
                f" (or redacted), not {show(state)}",
            )
    elif "content" not in capture:
        report("ASR-200", "content is empty and no capture.content state explains why")


def _check_routing(record: dict, report: Report) -> None:
    if "from" in record:
        problem = actor_problem(record["from"])
        if problem is not None:
            report("ASR-228", f"from is not an actor reference: {problem}")
    if "recipients" in record:
        recipients = record["recipients"]
        if not isinstance(recipients, list):
            report("ASR-228", "recipients must be an array of {actor, kind?}")
        else:
            for index, entry in enumerate(recipients):
                if not isinstance(entry, dict):
                    report("ASR-228", f"recipients[{index}] must be an object {{actor, kind?}}")
                    continue
                problem = actor_problem(entry.get("actor"))
                if problem is not None:
                    report("ASR-228", f"recipients[{index}].actor is not an actor reference: {problem}")
                if "kind" in entry and not is_open_value(entry["kind"], RECIPIENT_KINDS):
                    report(
                        "PROFILE-open-value",
                        f"recipients[{index}].kind {show(entry['kind'])} is not primary, additional or namespaced",
                    )
    if "derivedFrom" in record:
        derived = record["derivedFrom"]
        if not isinstance(derived, list):
            report("ASR-228", "derivedFrom must be an array of refs")
        else:
            for index, target in enumerate(derived):
                if not is_record_ref(target) and not is_session_ref(target, with_record=True):
                    report(
                        "ASR-228",
                        f"derivedFrom[{index}] {show(target)} is not a record ref or a session reference with a #",
                    )
    for key in ("triggersTurn", "addressed"):
        if key in record and not isinstance(record[key], bool):
            report("ASR-226", f"{key} must be a boolean, not {show(record[key])}")
    if "conversation" in record and (not isinstance(record["conversation"], str) or not record["conversation"]):
        report("ASR-226", f"conversation must be a conversation id, not {show(record['conversation'])}")
    if "platform" in record:
        platform = record["platform"]
        if (
            not isinstance(platform, dict)
            or ("messageIds" in platform and not is_str_list(platform["messageIds"]))
            or ("replyTo" in platform and not isinstance(platform["replyTo"], str))
        ):
            report("ASR-226", "platform must be {messageIds?: string[], replyTo?: string}")
    _open(record, "via", VIA, report)


def check_plan(record: dict, report: Report) -> None:
    plan_id = record.get("planId")
    plan_type = record.get("planType")
    if not isinstance(plan_id, str) or not plan_id:
        report("ASR-221", "a plan must contain planId (a non-empty string)")
    if not isinstance(plan_type, str):
        report("ASR-221", "a plan must contain planType (a string)")
        plan_type = None
    elif not is_open_value(plan_type, PLAN_TYPES):
        report("PROFILE-open-value", f"planType {show(plan_type)} is not a spec value or a namespaced one")
    _open(record, "status", PLAN_STATUSES, report)
    if plan_type == "items":
        entries = record.get("entries")
        if not isinstance(entries, list):
            report("ASR-221", "an items plan must contain entries (an array)")
        else:
            _check_entries(entries, report)
    elif plan_type in ("document", "goal"):
        capture = record.get("capture")
        if "content" not in record and not (isinstance(capture, dict) and "content" in capture):
            report("ASR-221", f"a {plan_type} plan must contain content or a capture.content state")
    if "content" in record:
        check_parts(record["content"], "content", report)
    if "source" in record:
        problem = path_problem(record["source"])
        if problem is not None:
            report("PROFILE-pathref", f"source: {problem}")
    if "callId" in record and not isinstance(record["callId"], str):
        report("ASR-221", "callId must be a string")


def _check_entries(entries: list, report: Report) -> None:
    ids: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            report("ASR-221", f"entries[{index}] must be an object with content and status")
            continue
        if not isinstance(entry.get("content"), str) or "status" not in entry:
            report("ASR-221", f"entries[{index}] must contain content (a string) and status")
        if "status" in entry and not is_open_value(entry["status"], ENTRY_STATUSES):
            report("PROFILE-open-value", f"entries[{index}].status {show(entry['status'])} is not a spec value")
        if "priority" in entry and not is_open_value(entry["priority"], PRIORITIES):
            report("PROFILE-open-value", f"entries[{index}].priority {show(entry['priority'])} is not a spec value")
        if "entryId" in entry:
            entry_id = entry["entryId"]
            if not isinstance(entry_id, str):
                report("ASR-236", f"entries[{index}].entryId must be a string, not {show(entry_id)}")
            elif entry_id in ids:
                report("ASR-236", f"entries[{index}].entryId {entry_id!r} is not unique in the plan")
            else:
                ids.add(entry_id)
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or "blockedBy" not in entry:
            continue
        blocked = entry["blockedBy"]
        if not is_str_list(blocked):
            report("ASR-236", f"entries[{index}].blockedBy must be an array of entryIds")
            continue
        for blocker in blocked:
            if blocker not in ids or blocker == entry.get("entryId"):
                report("ASR-236", f"entries[{index}].blockedBy {blocker!r} is not another entry's entryId")


def check_delivery(record: dict, report: Report) -> None:
    if "status" not in record:
        report("ASR-234", "a delivery must contain status")
    elif not isinstance(record["status"], str):
        report("ASR-234", f"status must be a string, not {show(record['status'])}")
    else:
        _open(record, "status", DELIVERY_STATUSES, report)
    if "message" in record and not is_record_ref(record["message"]):
        report("ASR-235", f"a delivery's message must be a record ref, not {show(record['message'])}")
    if "conversation" in record and (not isinstance(record["conversation"], str) or not record["conversation"]):
        report("ASR-235", f"a delivery's conversation must be a conversation id, not {show(record['conversation'])}")
    if "reason" in record and not isinstance(record["reason"], str):
        report("ASR-234", "reason must be a string")
    if "platformMessageIds" in record and not is_str_list(record["platformMessageIds"]):
        report("ASR-234", "platformMessageIds must be an array of strings")
    if "attempt" in record:
        attempt = record["attempt"]
        if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 0:
            report("ASR-234", f"attempt must be a non-negative integer, not {show(attempt)}")


def _strings(record: dict, keys: tuple[str, ...], rule: str, report: Report) -> None:
    for key in keys:
        if key in record and not isinstance(record[key], str):
            report(rule, f"{key} must be a string, not {show(record[key])}")


def check_tool_call(record: dict, report: Report) -> None:
    if not isinstance(record.get("callId"), str) or not record["callId"]:
        report("PROFILE-tool", "a tool_call must contain callId (a non-empty string)")
    _strings(record, ("name", "messageId", "arguments"), "PROFILE-tool", report)
    if "input" in record and "arguments" in record:
        report("PROFILE-tool", "a tool_call has input (parsed) or arguments (raw), not both")
    _open(record, "status", TOOL_STATUSES, report)
    if "summaryOf" in record or "compaction" in record:
        check_summary(record, report)


def check_tool_result(record: dict, report: Report) -> None:
    if not isinstance(record.get("callId"), str) or not record["callId"]:
        report("PROFILE-tool", "a tool_result must contain callId (a non-empty string)")
    _strings(record, ("name",), "PROFILE-tool", report)
    if "content" in record:
        check_parts(record["content"], "content", report)
    if "isError" in record and not isinstance(record["isError"], bool):
        report("PROFILE-tool", f"isError must be a boolean, not {show(record['isError'])}")
    if "exitCode" in record and type(record["exitCode"]) is not int:
        report("PROFILE-tool", f"exitCode must be an integer, not {show(record['exitCode'])}")
    _open(record, "status", TOOL_STATUSES, report)


def check_subagent(record: dict, report: Report) -> None:
    if "session" in record and not is_session_ref(record["session"]):
        report("PROFILE-ref", f"a subagent's session must be a session reference, not {show(record['session'])}")
    _strings(record, ("callId", "address", "agentType", "description"), "PROFILE-subagent", report)
    _open(record, "status", TOOL_STATUSES, report)


def check_input_request(record: dict, report: Report) -> None:
    _strings(record, ("requestId", "callId"), "PROFILE-input-request", report)
    _open(record, "status", NO_VALUES, report)
    _open(record, "kind", NO_VALUES, report)
    for key in ("content", "answer"):
        if key in record:
            check_parts(record[key], key, report)


def check_vendor(record: dict, report: Report) -> None:
    schema = record.get("schema")
    namespace, _, kind = schema.partition("/") if isinstance(schema, str) else ("", "", "")
    if "." not in namespace or not kind:
        report("PROFILE-vendor", f"a vendor record's schema must be '<registry name>/<kind>', not {show(schema)}")
    if "data" not in record:
        report("PROFILE-vendor", "a vendor record must contain data (the native item)")


def check_participant(record: dict, report: Report) -> None:
    if not isinstance(record.get("participantId"), str) or not record["participantId"]:
        report("PROFILE-declaration", "a participant declaration needs participantId (a non-empty string)")


def check_conversation(record: dict, report: Report) -> None:
    if not isinstance(record.get("conversationId"), str) or not record["conversationId"]:
        report("PROFILE-declaration", "a conversation declaration needs conversationId (a non-empty string)")


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
