"""What each ui row (``say``/``ask`` subtype) is, and the pre-pass that aligns rows with
the api history (``conversationHistoryIndex``, else order)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: rows a person wrote
HUMAN_SAYS = frozenset({"task", "user_feedback"})
#: rows showing model prose or reasoning
TEXT_SAYS = frozenset({"text", "completion_result", "reasoning"})
TEXT_ASKS = frozenset({"plan_mode_respond", "act_mode_respond"})
#: rows showing a tool call the model made
CALL_SAYS = frozenset(
    {
        "tool",
        "command",
        "browser_action_launch",
        "browser_action",
        "load_mcp_documentation",
        "use_subagents",
        "use_mcp_server",
    }
)
CALL_ASKS = frozenset({"tool", "command", "use_mcp_server", "browser_action_launch", "use_subagents"})
#: rows showing a harness notice
NOTICE_SAYS = frozenset(
    {
        "error",
        "error_retry",
        "diff_error",
        "clineignore_error",
        "command_permission_denied",
        "info",
        "shell_integration_warning",
        "shell_integration_warning_with_suggestion",
    }
)
NOTICE_ASKS = frozenset({"api_req_failed", "mistake_limit_reached", "auto_approval_max_req_reached"})


def subtype(row: Any) -> tuple[str, str]:
    """(``say``/``ask``, its subtype) of a ui row; ("", "") for anything else."""
    if not isinstance(row, dict):
        return "", ""
    kind = row.get("type")
    if kind == "say" and isinstance(row.get("say"), str):
        return "say", row["say"]
    if kind == "ask" and isinstance(row.get("ask"), str):
        return "ask", row["ask"]
    return "", ""


def is_human(row: Any, position: int) -> bool:
    kind, sub = subtype(row)
    if kind != "say":
        return False
    return sub in HUMAN_SAYS or (sub == "text" and position == 0)


def is_text(row: Any) -> bool:
    kind, sub = subtype(row)
    if (kind == "say" and sub in TEXT_SAYS) or (kind == "ask" and sub in TEXT_ASKS):
        return not (row.get("partial") is True and not row.get("text"))
    return False


def is_call(row: Any) -> bool:
    kind, sub = subtype(row)
    return (kind == "say" and sub in CALL_SAYS) or (kind == "ask" and sub in CALL_ASKS)


def is_request(row: Any) -> bool:
    return subtype(row) == ("say", "api_req_started")


@dataclass
class Alignment:
    """Per ui row: the api message it belongs to; per api message: its candidate rows."""

    target: list[int | None] = field(default_factory=list)
    native: bool = True
    display: dict[int, list[int]] = field(default_factory=dict)
    requests: dict[int, list[int]] = field(default_factory=dict)
    #: per api_req_started row: the first row of its response in the timeline, if any
    response: dict[int, int] = field(default_factory=dict)


def align(ui: list[Any], api: list[Any]) -> Alignment:
    """Cline stamps each row with ``conversationHistoryIndex`` = the api history's length - 1
    when the row was written, so a row belongs to api message index + 1. Rows without it
    (older builds) are placed by order: the n-th request is the n-th user message."""
    out = Alignment()
    users = [i for i, m in enumerate(api) if isinstance(m, dict) and m.get("role") == "user"]
    requests_seen = -1
    for position, row in enumerate(ui):
        index = row.get("conversationHistoryIndex") if isinstance(row, dict) else None
        target: int | None
        if type(index) is int:
            target = index + 1
        else:
            out.native = out.native and not api
            if is_request(row):
                requests_seen += 1
                target = users[requests_seen] if requests_seen < len(users) else None
            elif is_human(row, position):
                target = users[requests_seen + 1] if requests_seen + 1 < len(users) else None
            else:
                target = users[requests_seen] + 1 if 0 <= requests_seen < len(users) else None
        out.target.append(target)
        if target is None:
            continue
        if is_request(row):
            out.requests.setdefault(target, []).append(position)
        elif is_human(row, position) or is_text(row):
            out.display.setdefault(target, []).append(position)
    for position, row in enumerate(ui):
        if not is_request(row):
            continue
        for later in range(position + 1, len(ui)):
            other = ui[later]
            if is_request(other) or is_human(other, later):
                break
            if is_text(other) or is_call(other):
                out.response[position] = later
                break
    return out
