"""What each ui row (``say``/``ask`` subtype) is, and the pre-pass that aligns rows with
the api history (``conversationHistoryIndex``, else order)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .parts import parse_json

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


NONE = ("", "")
#: one tuple per subtype seen, shared by every row of it (``subtypes`` keeps one per row)
_SAYS: dict[str, tuple[str, str]] = {}
_ASKS: dict[str, tuple[str, str]] = {}
_SHARED_LIMIT = 4096


def _shared(table: dict[str, tuple[str, str]], kind: str, sub: str) -> tuple[str, str]:
    pair = table.get(sub)
    if pair is None:
        pair = (kind, sub)
        if len(table) < _SHARED_LIMIT:
            table[sub] = pair
    return pair


def subtype(row: Any) -> tuple[str, str]:
    """(``say``/``ask``, its subtype) of a ui row; ("", "") for anything else."""
    if not isinstance(row, dict):
        return NONE
    kind = row.get("type")
    if kind == "say":
        sub = row.get("say")
        if isinstance(sub, str):
            return _shared(_SAYS, "say", sub)
    elif kind == "ask":
        sub = row.get("ask")
        if isinstance(sub, str):
            return _shared(_ASKS, "ask", sub)
    return NONE


def subtypes(ui: list[Any]) -> list[tuple[str, str]]:
    """``subtype`` of every row, worked out once: the mapping asks it of each row many times."""
    return [subtype(row) for row in ui]


REQUEST = ("say", "api_req_started")


def human_kind(kind: tuple[str, str], position: int) -> bool:
    """A row a person wrote, from its ``subtype``: ``task``, ``user_feedback``, or the first row's text."""
    return kind[0] == "say" and (kind[1] in HUMAN_SAYS or (kind[1] == "text" and position == 0))


def text_kind(kind: tuple[str, str], row: Any) -> bool:
    """A row showing model prose or reasoning (a partial row with no text yet shows nothing)."""
    if (kind[0] == "say" and kind[1] in TEXT_SAYS) or (kind[0] == "ask" and kind[1] in TEXT_ASKS):
        return not (row.get("partial") is True and not row.get("text"))
    return False


def call_kind(kind: tuple[str, str]) -> bool:
    return (kind[0] == "say" and kind[1] in CALL_SAYS) or (kind[0] == "ask" and kind[1] in CALL_ASKS)


def is_human(row: Any, position: int) -> bool:
    return human_kind(subtype(row), position)


def is_text(row: Any) -> bool:
    return text_kind(subtype(row), row)


def is_call(row: Any) -> bool:
    return call_kind(subtype(row))


def is_request(row: Any) -> bool:
    return subtype(row) == REQUEST


#: the ask a reply that is a question to the person shows (``ask_followup_question``)
FOLLOWUP = ("ask", "followup")


@dataclass
class Alignment:
    """Per ui row: the api message it belongs to; per api message: its candidate rows."""

    target: list[int | None] = field(default_factory=list)
    native: bool = True
    display: dict[int, list[int]] = field(default_factory=dict)
    requests: dict[int, list[int]] = field(default_factory=dict)
    #: per api_req_started row: the first row of its response in the timeline, if any
    response: dict[int, int] = field(default_factory=dict)


def align(ui: list[Any], api: list[Any], kinds: list[tuple[str, str]] | None = None) -> Alignment:
    """Cline stamps each row with ``conversationHistoryIndex`` = the api history's length - 1
    when the row was written, so a row belongs to api message index + 1. Rows without it
    (older builds) are placed by order: the n-th request is the n-th user message.
    ``kinds``: the rows' ``subtypes``, when the caller has them already."""
    if kinds is None:
        kinds = subtypes(ui)
    out = Alignment()
    users = [i for i, m in enumerate(api) if isinstance(m, dict) and m.get("role") == "user"]
    requests_seen = -1
    targets = out.target
    for position, row in enumerate(ui):
        kind = kinds[position]
        index = row.get("conversationHistoryIndex") if kind[0] or isinstance(row, dict) else None
        request = kind == REQUEST
        target: int | None
        if type(index) is int:
            target = index + 1
        else:
            out.native = out.native and not api
            if request:
                requests_seen += 1
                target = users[requests_seen] if requests_seen < len(users) else None
            elif human_kind(kind, position):
                target = users[requests_seen + 1] if requests_seen + 1 < len(users) else None
            else:
                target = users[requests_seen] + 1 if 0 <= requests_seen < len(users) else None
        targets.append(target)
        if target is None:
            continue
        if request:
            out.requests.setdefault(target, []).append(position)
        elif human_kind(kind, position) or text_kind(kind, row):
            out.display.setdefault(target, []).append(position)
    count = len(ui)
    for position, kind in enumerate(kinds):
        if kind != REQUEST:
            continue
        for later in range(position + 1, count):
            other = kinds[later]
            if other == REQUEST or human_kind(other, later):
                break
            if text_kind(other, ui[later]) or call_kind(other) or other == FOLLOWUP:
                out.response[position] = later  # (a followup question is the reply: the model asked it)
                break
    return out


#: the tool names a ``[tool for 'x'] Result:`` header uses for a ``ClineSayTool.tool`` of a ui
#: row (cline/cline ``src/shared/ExtensionMessage.ts`` and the tool handlers that say them)
SAY_TOOL_NAMES: dict[str, frozenset[str]] = {
    "readFile": frozenset({"read_file"}),
    "listFilesTopLevel": frozenset({"list_files"}),
    "listFilesRecursive": frozenset({"list_files"}),
    "listCodeDefinitionNames": frozenset({"list_code_definition_names"}),
    "searchFiles": frozenset({"search_files"}),
    "newFileCreated": frozenset({"write_to_file"}),
    "editedExistingFile": frozenset({"replace_in_file", "write_to_file", "apply_diff", "apply_patch"}),
    "fileDeleted": frozenset({"delete_file", "apply_patch"}),
    "webFetch": frozenset({"web_fetch"}),
    "webSearch": frozenset({"web_search"}),
    "summarizeTask": frozenset({"summarize_task"}),
    "useSkill": frozenset({"use_skill"}),
}
#: the ``ClineSayTool`` members that hold what a header names as the call's target
_SAY_TARGETS = ("path", "regex", "serverName", "url", "query")


def _same_path(shown: str, target: str) -> bool:
    """A ui row's path (workspace-relative, or absolute) and a header's (as the model wrote it)
    name the same file when one ends with the other, separators aside."""
    a, b = shown.replace("\\", "/").rstrip("/"), target.replace("\\", "/").rstrip("/")
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def ui_tool_matches(shown: tuple[str, Any] | None, tool: str | None, target: str | None) -> bool:
    """Whether a call a ui row showed (its name and ``uiTool``) is the call of ``tool`` on
    ``target`` that a ``[tool for 'target'] Result:`` header names."""
    if shown is None or tool is None:
        return False
    name, payload = shown
    if tool != name and tool not in SAY_TOOL_NAMES.get(name, ()):
        return False
    if target is None:
        return True
    if isinstance(payload, str):  # a command row: the command, perhaps with Cline's flag after it
        return payload == target or payload.startswith(target)
    if isinstance(payload, dict):
        for key in _SAY_TARGETS:
            value = payload.get(key)
            if (
                isinstance(value, str)
                and value
                and (target == value or target.startswith(value + "' in '") or _same_path(value, target))
            ):
                return True
    return False


def ui_label(row: dict[str, Any], sub: str, completed: bool) -> tuple[str, Any]:
    """(the name a ui call row gives its call, what the row shows: parsed JSON, else the text).
    A ``tool`` row names it by Cline's ui label (``ClineSayTool.tool``: ``readFile``); a
    ``command`` row after a ``completion_result`` (``completed``) is ``attempt_completion``'s."""
    text = row.get("text")
    parsed = parse_json(text)
    shown = parsed if parsed is not None else text
    if sub == "command":
        # the command row of attempt_completion's `command` parameter, else a command the model ran
        return ("attempt_completion" if completed else "execute_command"), shown
    if sub in ("browser_action_launch", "load_mcp_documentation"):
        return ("browser_action" if sub == "browser_action_launch" else sub), shown
    field = "type" if sub == "use_mcp_server" else "tool"
    named = parsed.get(field) if isinstance(parsed, dict) else None
    return (named if isinstance(named, str) else sub), shown


def pick_shown_call(calls: list[str], shown: dict[str, tuple[str, Any]], tool: str | None, target: str | None) -> str:
    """Take from ``calls`` the shown call a rendered ``[tool for 'target'] Result:`` answers:
    Cline renders the results in the order it ran the calls, so the first shown call, unless a
    later one is the call of that tool on that target (``ui_tool_matches``)."""
    if len(calls) > 1:
        for position, call_id in enumerate(calls):
            if ui_tool_matches(shown.get(call_id), tool, target):
                return calls.pop(position)
    return calls.pop(0)
