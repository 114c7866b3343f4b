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
_RESULT = re.compile(r"\[([A-Za-z0-9_.:\-]+)(?: for '(.*?)')?\] Result:")
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
    skipped because the reply had used a tool already (``toolAlreadyUsed``: cancelled)."""
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


#: where a new section starts inside Cline's flattened request text (blocks joined by a blank line)
_SECTION = re.compile(
    r"\n\n(?=<(?:task|feedback|answer|user_message|environment_details|file_content)>"
    r"|\[TASK RESUMPTION\]|\[[A-Za-z0-9_.:\-]+(?: for '[^\n]*?')?\] Result:|\n?# task_progress|\n?# TODO LIST"
    r"|\n?# Todo List|Files attached by the user)"
)


@dataclass
class Piece:
    """One run of text with who put it there; ``tool``/``target`` for a tool result."""

    kind: str
    text: str
    tool: str | None = None
    target: str | None = None


@dataclass
class XmlCall:
    name: str
    params: dict[str, str] = field(default_factory=dict)
    raw: str = ""


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
    return bool(stripped.startswith(HARNESS_STARTS) or _WRAP.match(stripped) or _RESULT.match(stripped))


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
    if not flattened and text[:1] != "[" and _WRAP.search(text) is None:
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
