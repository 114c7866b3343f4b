"""Cline's model-facing text, taken apart where Cline itself marks the boundaries.

User-side text mixes the person's words (inside ``<task>``, ``<feedback>``, ``<answer>``,
``<user_message>``), harness insertions (``<environment_details>``, attached files,
reminders, ``[TASK RESUMPTION]``) and tool output (``[read_file for 'x'] Result:``).
Every piece keeps its exact text: the pieces of one text concatenate back to it (ASR-211).
Assistant text of the XML era holds tool calls as tags (``<read_file><path>…</path></read_file>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUMAN, HARNESS, UNKNOWN, RESULT = "human", "harness", "unknown", "result"

#: Cline writes ``<tag>\n…\n</tag>`` around what the person typed
_TAGS = ("task", "feedback", "answer", "user_message")
_WRAP = re.compile(r"(<(task|feedback|answer|user_message)>\n)(.*?)(\n</\2>)", re.S)
#: ``[tool for 'target'] Result:``: the target is a parameter as the model wrote it (a command,
#: a path), so it can span lines; bounded so that an unclosed header costs one bounded scan
_RESULT = re.compile(r"\[([A-Za-z0-9_.:\-]+)(?: for '([\s\S]{0,65536}?)')?\] Result:")
#: what Cline writes in place of a result for a call it did not run, in every build's wording
#: (cline/cline ``formatResponse.toolAlreadyUsed``, ``ToolExecutor.createToolRejectionMessage``):
#: the reply had used a tool already, or the person had rejected an earlier call
_SKIPPED = re.compile(
    r"Tool \[(?P<already>[A-Za-z0-9_.:\-]+)\] was not executed because a tool has already been used"
    r"|(?:Skipping tool|Tool) \[(?P<old>[A-Za-z0-9_.:\-]+)(?: for '(?P<old_target>[\s\S]{0,65536}?)')?\]"
    r" (?:due to|was interrupted and not executed due to) user rejecting a previous tool\."
    r"|(?:Skipping tool|Tool was interrupted and not executed) due to user rejecting a previous tool\. "
    r"\[(?P<new>[A-Za-z0-9_.:\-]+)(?: for '(?P<new_target>[\s\S]{0,65536}?)')?\]"
    r"|(?:Skipping MCP tool|MCP tool) (?P<mcp>[A-Za-z0-9_.:\-]+)"
    r" (?:due to|was interrupted and not executed due to) user rejecting a previous tool\."
)
#: how the harness's own insertions begin
HARNESS_STARTS = (
    "<environment_details>",
    "[TASK RESUMPTION]",
    "Files attached by the user",
    "<file_content",
    "# task_progress",
    "# TODO LIST",
    "# Todo List",
    "# Focus Chain",
    "<explicit_instructions",
    "[Response interrupted",
    "The user has provided feedback",
    # formatResponse's nudges and notices (cline/cline src/core/prompts/responses.ts): the
    # retry after a reply with no tool, the mistake-limit intro, the resumption without a
    # new message, the context-truncation notice
    "[ERROR] You did not use a tool",
    "You seem to be having trouble proceeding.",
    "(The user did not provide a new message.",
    "[NOTE] Some previous conversation history",
)
FEEDBACK_INTRO = "The user has provided feedback"
DENIED = "bot.cline/denied"
#: a call Cline did not run because the reply already used a tool (formatResponse.toolAlreadyUsed)
CANCELLED = "bot.cline/cancelled"


def result_state(tool: str | None, text: str) -> tuple[bool | None, str | None]:
    """(isError, status) a ``[tool] Result:`` text states in Cline's own words, right after the
    header: McpHub's "Error:" line before an MCP result whose ``isError`` is true; the person's
    refusal (``formatResponse.toolDenied…``: "The user denied this operation"); a call Cline
    skipped because the reply had used a tool already (``toolAlreadyUsed``: cancelled), with or
    without a header before it; a call skipped after the person rejected an earlier one."""
    if skipped(text) is not None:
        return None, CANCELLED
    header = _RESULT.match(text)
    if header is None:
        return None, None
    output = text[header.end() :].lstrip()
    if tool == "use_mcp_tool" and output.startswith("Error:\n"):
        return True, None
    if output.startswith("The user denied this operation"):
        return None, DENIED
    if output.startswith("Tool [") and "] was not executed because a tool has already been used" in output[:200]:
        return None, CANCELLED
    return None, None


def block_result_state(text: str) -> str | None:
    """The status a native ``tool_result`` block's own text states in Cline's words (no
    ``[tool] Result:`` header there): a call it did not run (``skipped``: cancelled; Roo Code
    and Kilo Code also write "Skipping MCP tool x due to user rejecting a previous tool."), or
    the person's refusal ("The user denied this operation": denied)."""
    if skipped(text) is not None:
        return CANCELLED
    if text.startswith("The user denied this operation"):
        return DENIED
    return None


#: where a new section starts inside Cline's flattened request text (blocks joined by a blank line)
_SECTION = re.compile(
    r"\n\n(?=<(?:task|feedback|answer|user_message|environment_details|file_content)>"
    r"|\[TASK RESUMPTION\]|\[[A-Za-z0-9_.:\-]+(?: for '[\s\S]{0,65536}?')?\] Result:|\n?# task_progress|\n?# TODO LIST"
    r"|Tool \[[A-Za-z0-9_.:\-]+\] was not executed because|Skipping tool |Tool was interrupted and not executed"
    r"|Tool \[[A-Za-z0-9_.:\-]+(?: for '[\s\S]{0,65536}?')?\] was interrupted and not executed"
    r"|\n?# Todo List|Files attached by the user)"
)


@dataclass
class Piece:
    """One run of text with who put it there; ``tool``/``target`` for a tool result."""

    kind: str
    text: str
    tool: str | None = None
    target: str | None = None
    #: a call Cline did not run (``skipped``): its result is Cline's notice, not tool output
    skipped: bool = False


@dataclass
class XmlCall:
    name: str
    params: dict[str, str] = field(default_factory=dict)
    raw: str = ""


def skipped(text: str) -> tuple[str, str | None] | None:
    """(tool, target) when ``text`` starts with Cline's notice for a call it did not run."""
    match = _SKIPPED.match(text)
    if match is None:
        return None
    tool = match.group("already") or match.group("old") or match.group("new") or match.group("mcp")
    return tool, match.group("old_target") or match.group("new_target")


def targets(arguments: object, target: str) -> bool:
    """Whether a call's arguments hold what its result header names: Cline writes one parameter
    there as the model sent it (``command``, ``path``, ``regex``, ``server_name``, ``url`` …;
    ``search_files`` adds `` in '<file_pattern>'``), so one of the call's own values."""
    if not isinstance(arguments, dict):
        return False
    for value in arguments.values():
        if isinstance(value, str) and value and (value == target or target.startswith(value + "' in '")):
            return True
    return False


def result_header(text: str) -> tuple[str, str | None] | None:
    """(tool, target) when ``text`` is a bare ``[tool for 'x'] Result:`` block (the output
    follows in the next blocks, as Cline's XML era sends it)."""
    match = _RESULT.match(text)
    if match is None or text[match.end() :].strip():
        return None
    return match.group(1), match.group(2)


def starts_section(text: str) -> bool:
    """Whether a block opens something other than tool output: a wrapper, a harness
    insertion, or another tool's result."""
    stripped = text.lstrip()
    return bool(
        stripped.startswith(HARNESS_STARTS)
        or _WRAP.match(stripped)
        or _RESULT.match(stripped)
        or _SKIPPED.match(stripped)
    )


def wrapper_start(text: str) -> int | None:
    """Where the wrapper that *ends* ``text`` begins (the person's feedback Cline appends
    to a tool result), if any. Only a wrapper closing the text counts, opened at the last
    opening tag, so tags quoted inside tool output are never taken for the person's words."""
    stripped = text.rstrip()
    best: int | None = None
    for tag in _TAGS:
        close = f"\n</{tag}>"
        if not stripped.endswith(close):
            continue
        start = stripped.rfind(f"<{tag}>\n", 0, len(stripped) - len(close) + 1)
        if start >= 0 and (best is None or start > best):
            best = start
    return best


def _plain(text: str) -> str:
    return HARNESS if text.lstrip().startswith(HARNESS_STARTS) else UNKNOWN


#: what Cline's parseMentions writes in place of a mention the person typed (`@/a.md` ->
#: `'a.md' (see below for file content)`): Cline's words, not the person's
_MENTION = re.compile(
    r"'[^'\n]+' \(see below for (?:file|folder|site) content\)"
    r"|Workspace Problems \(see below for diagnostics\)"
    r"|Terminal Output \(see below for output\)"
    r"|Working directory changes \(see below for details\)"
    r"|Git commit '[a-f0-9]{7,40}' \(see below for commit info\)"
)


def _typed(text: str, out: list[Piece]) -> None:
    """The inside of a wrapper: the person's words, with Cline's mention rewrites split out."""
    position = 0
    for match in _MENTION.finditer(text):
        if match.start() > position:
            out.append(Piece(HUMAN, text[position : match.start()]))
        out.append(Piece(HARNESS, match.group(0)))
        position = match.end()
    if position < len(text):
        out.append(Piece(HUMAN, text[position:]))


def _wrapped(text: str, out: list[Piece]) -> None:
    """``text`` with the person's words inside wrapper tags split from the tags themselves."""
    position = 0
    for match in _WRAP.finditer(text):
        if match.start() > position:
            out.append(Piece(_plain(text[position : match.start()]), text[position : match.start()]))
        out.append(Piece(HARNESS, match.group(1)))
        if match.group(3):
            _typed(match.group(3), out)
        out.append(Piece(HARNESS, match.group(4)))
        position = match.end()
    if position < len(text):
        out.append(Piece(_plain(text[position:]), text[position:]))


def _section(text: str, out: list[Piece]) -> None:
    result = _RESULT.match(text)
    if result is None:
        skip = skipped(text)
        if skip is not None:  # Cline's notice for a call it did not run: that call's result
            out.append(Piece(RESULT, text, skip[0], skip[1], skipped=True))
            return
        _wrapped(text, out)
        return
    # a tool result; human feedback Cline appends to it stays out of the result
    start = wrapper_start(text)
    cut = len(text) if start is None else start
    if start is not None or result.group(1) == "attempt_completion":
        # Cline's sentence introducing the person's feedback is its own (harness); only before the
        # feedback it introduces or in attempt_completion's result, never quoted in other output
        intro = text.rfind(FEEDBACK_INTRO, result.end(), cut)
        if intro >= 0 and (intro == result.end() or text[intro - 1] in "\n "):
            cut = intro
    out.append(Piece(RESULT, text[:cut], result.group(1), result.group(2)))
    if cut < len(text):
        _wrapped(text[cut:], out)


def split_text(text: str, flattened: bool = False) -> list[Piece]:
    """The pieces of one user-side text block (``flattened``: Cline's whole request text,
    where blocks were joined by blank lines), adjacent pieces of one kind merged, white
    space alone joined to the piece before it."""
    if not flattened and text[:1] not in "[TS" and _WRAP.search(text) is None:
        # no tool result header, no wrapper: one piece (most blocks; what the loop below finds)
        return [Piece(_plain(text), text)] if text else []
    chunks: list[str] = []
    if flattened:
        position = 0
        for match in _SECTION.finditer(text):
            chunks.append(text[position : match.start() + 2])
            position = match.start() + 2
        chunks.append(text[position:])
    else:
        chunks = [text]
    pieces: list[Piece] = []
    for chunk in chunks:
        if chunk:
            _section(chunk, pieces)
    merged: list[Piece] = []
    for piece in pieces:
        if merged and ((not piece.text.strip() and piece.kind != RESULT) or piece.kind == merged[-1].kind != RESULT):
            merged[-1].text += piece.text
        else:
            merged.append(piece)
    return merged


#: tools Cline (and its forks) let the model call with XML tags
XML_TOOLS = frozenset(
    {
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "execute_command",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "codebase_search",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "plan_mode_respond",
        "act_mode_respond",
        "new_task",
        "switch_mode",
        "load_mcp_documentation",
        "web_fetch",
        "web_search",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "fetch_instructions",
        "update_todo_list",
        "use_subagents",
    }
)
#: what Cline appends to a reply it cut short before storing it (cline/cline ``Task``: the
#: stream was aborted, failed, or stopped for the person's feedback or after the one tool a reply
#: may use), with the status each gives the reply (ASR-206)
_INTERRUPTED = re.compile(
    r"\n\n\[Response interrupted by (user|API Error|user feedback|a tool use result\. Only one tool may be used"
    r" at a time and should be placed at the end of the message\.)\]\Z"
)
_INTERRUPT_STATUS = {"API Error": "error"}


def interrupted(text: str) -> tuple[str, str, str] | None:
    """(the text before, Cline's marker, the reply's status) when ``text`` ends with the marker
    Cline appends to a reply it cut short (``\\n\\n[Response interrupted by user]`` …)."""
    if not text.endswith("]"):
        return None
    match = _INTERRUPTED.search(text)
    if match is None:
        return None
    return text[: match.start()], match.group(0), _INTERRUPT_STATUS.get(match.group(1), "interrupted")


_TAG = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.S)
_PARAM = re.compile(r"<([a-z_0-9]+)>(.*?)</\1>", re.S)


def split_assistant(text: str) -> list[str | XmlCall]:
    """Assistant text with its XML tool calls taken out, in order; text between them is kept
    exactly, white space alone between calls is dropped."""
    out: list[str | XmlCall] = []
    position = 0
    for match in _TAG.finditer(text):
        if match.group(1) not in XML_TOOLS:
            continue
        before = text[position : match.start()]
        if before.strip():
            out.append(before)
        params = {m.group(1): m.group(2).strip() for m in _PARAM.finditer(match.group(2))}
        out.append(XmlCall(match.group(1), params, match.group(0)))
        position = match.end()
    rest = text[position:]
    if rest.strip() or not out:
        out.append(rest)
    return out
