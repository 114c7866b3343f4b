"""What a reader of a session needs from each record, worked out once for every output format.

The HTML page and the Markdown text show the same things in the same order; this module
decides them: each content part's effective author and origin (ASR-224), how a part is
labelled, which tool results failed, which plan revision a plan record is, what a usage
object adds up to. It keeps a little state per stream (call names by ``callId``, plan
revision counts), never the records themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import sealed

#: Labels for the authors of ASR-202, in the words a reader expects.
AUTHOR_LABELS = {
    "human": "person",
    "model": "model",
    "harness": "harness",
    "hook": "hook",
    "tool": "tool",
    "agent": "agent",
}

#: What the page's labels mean, in plain words: the legend and the tooltips say them.
AUTHOR_WORDS = {
    "human": "a person typed or chose it",
    "model": "the model generated it",
    "harness": "the agent software inserted it",
    "hook": "a hook the user configured produced it",
    "agent": "another agent produced it",
    "tool": "a tool produced it, delivered as a message",
    "unknown": "the source does not say who wrote it",
}
ORIGIN_WORDS = {
    "prompt": "typed and sent as a normal prompt",
    "queued": "sent while the agent was busy, delivered at the next chance",
    "steer": "sent into a turn that was already running",
    "command": "a slash command or similar command",
    "injected": "context the agent software inserted (reminders, attachments, instructions)",
    "memory": "loaded from a memory store",
    "retrieval": "found by a search and inserted",
    "subagent_report": "a subagent's result, sent back as a message",
    "inter_session": "a message from another session or its agent",
    "notice": "a notice the agent software showed the person",
}
VISIBILITY_WORDS = {
    "full": "the provider exposed the model's reasoning text",
    "summary": "the provider exposed only a summary of the reasoning",
    "omitted": "the provider or the agent withheld the reasoning text",
    "encrypted": "the reasoning exists only as ciphertext, which is never shown",
    "redacted": "the provider redacted the reasoning",
    "unknown": "the source does not say whether this is the full reasoning or a summary",
}
AUDIENCE_WORDS = {
    "model": "only the model saw this, the person did not",
    "user": "only the person saw this, the model did not",
    "both": "the person and the model both saw this",
    "unknown": "the source does not say who saw this",
}
CAPTURE_WORDS = {
    "absent": "the source keeps no copy of this",
    "truncated": "the source keeps only part of this",
    "masked": "the source rewrote this after the model saw it",
    "redacted": "the source removed this for privacy or security",
}
RECORD_ID_WORDS = "the record's id: its number in the stream (r26 is the 26th record); a link to this record"
BOOKKEEPING_WORDS = (
    "native items the agent wrote that no ASR record type holds (settings, snapshots, markers), kept as they were"
)
COPY_WORDS = "a copy of a record of another session (history replayed into this one), not new content of this one"


def words(table: dict[str, str], value: Any) -> str:
    """The plain words for a label (its last segment for a namespaced value)."""
    short = short_value(value) if isinstance(value, str) else "unknown"
    return table.get(short or "unknown", f"a value the agent defines: {value}")


#: Origins whose text a reader usually skips: collapsed by default, size shown.
COLLAPSED_ORIGINS = frozenset({"injected", "memory", "retrieval"})

#: Image types a page may embed as ``data:`` URIs (no SVG: it can carry script).
EMBEDDABLE_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

#: Normalized usage keys (docs/format.md) and the short names shown for them.
USAGE_KEYS = (
    ("inputTokens", "in"),
    ("outputTokens", "out"),
    ("cacheReadTokens", "cache read"),
    ("cacheWriteTokens", "cache write"),
    ("reasoningTokens", "reasoning"),
    ("totalTokens", "total"),
)

FAILED_STATUSES = frozenset({"error", "failed", "failure"})


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def embeddable_image(part: dict[str, Any]) -> bool:
    """An image part the page may show inline: a raster type and well-formed base64 bytes."""
    data = part.get("data")
    return (
        part.get("mimeType") in EMBEDDABLE_IMAGES
        and isinstance(data, str)
        and len(data) % 4 == 0
        and _BASE64.fullmatch(data) is not None
    )


def effective(part: dict[str, Any], message: dict[str, Any], key: str) -> str | None:
    """A part's own value, else the message's (ASR-224); ``None`` means unknown."""
    value = part.get(key)
    if isinstance(value, str):
        return value
    value = message.get(key)
    return value if isinstance(value, str) else None


def short_value(value: Any) -> str | None:
    """A namespaced open value (``ai.openclaw/heartbeat``) shown by its last segment; None for
    anything but a string (a stream someone else wrote may hold any type anywhere)."""
    if not isinstance(value, str):
        return None
    return value.rsplit("/", 1)[-1]


def author_label(author: Any) -> str:
    if not isinstance(author, str):
        return "unknown"
    return AUTHOR_LABELS.get(author, short_value(author) or author)


def css_token(value: Any) -> str:
    """A value reduced to characters safe in a class name."""
    if not value or not isinstance(value, str):
        return "unknown"
    return "".join(c if c.isalnum() else "-" for c in short_value(value) or value)[:40]


def duration(seconds: float) -> str:
    """A duration a person reads (``2 h 05 min``, ``3 min 20 s``)."""
    whole = int(seconds)
    if whole >= 3600:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
    if whole >= 60:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole} s"


def text_size(text: str) -> str:
    """A byte size a person reads (``1.2 KB``)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def opaque_size(opaque: Any) -> int:
    """How many characters of ciphertext an opaque value holds (never its content)."""
    if isinstance(opaque, dict):
        data = opaque.get("data")
        if isinstance(data, str):
            return len(data)
        blob = opaque.get("blob")
        if isinstance(blob, dict) and isinstance(blob.get("size"), int):
            return int(blob["size"])
    if isinstance(opaque, str):
        return len(opaque)
    return 0


def usage_summary(record: dict[str, Any]) -> list[tuple[str, int]]:
    """The normalized usage of a record as (label, number) pairs, in a fixed order."""
    usage = record.get("usage")
    if not isinstance(usage, dict):
        return []
    out = []
    for key, label in USAGE_KEYS:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out.append((label, value))
    return out


def usage_partial(record: dict[str, Any]) -> bool:
    """Whether a record's usage is a running count the source never completed."""
    usage = record.get("usage")
    return isinstance(usage, dict) and usage.get("partial") is True


#: outcomes of a call that did not run to an end: shown as themselves, never as a failure
#: (docs/semantics.md, Tool outcome: ``<registry>/denied``, ``<registry>/cancelled``, ``interrupted``)
NOT_RUN_STATUSES = frozenset({"denied", "cancelled", "interrupted"})


#: What each outcome that is not a failure means, in plain words (docs/semantics.md, Tool outcome).
OUTCOME_WORDS = {
    "denied": "the person refused this call (at a prompt, or by a permission rule or mode they set): it did not run",
    "cancelled": "the harness did not run this call, or stopped it on its own account",
    "interrupted": "the person's interrupt stopped this call before it finished",
}


def is_failed_result(record: dict[str, Any]) -> bool:
    """A tool result the source marks as failed (``isError`` or a failure status); a denied,
    cancelled or interrupted call is not one, even where an older stream says ``isError``."""
    status = record.get("status")
    short = (short_value(status) or "") if isinstance(status, str) else ""
    if short in NOT_RUN_STATUSES:
        return False
    return record.get("isError") is True or short in FAILED_STATUSES


def result_outcome(record: dict[str, Any]) -> str | None:
    """What a tool result's badge says: ``failed``, ``denied``, ``cancelled``, ``interrupted``."""
    if is_failed_result(record):
        return "failed"
    status = record.get("status")
    short = short_value(status) if isinstance(status, str) else None
    return short if short in NOT_RUN_STATUSES else None


def removal_targets(record: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What a removal record (a rewind, a revert, an ``/undo``) takes out of the history: the
    record refs of its ``reverted`` and the message ids of its ``removedMessageIds``
    (docs/validation.md, PROFILE-ref); two empty lists for any other record."""
    refs = record.get("reverted")
    ids = record.get("removedMessageIds")
    return (
        [ref for ref in refs if isinstance(ref, str)] if isinstance(refs, list) else [],
        [mid for mid in ids if isinstance(mid, str)] if isinstance(ids, list) else [],
    )


def blank_parts(content: Any) -> str | None:
    """When every part of a content array is text of only whitespace, what that text is, in
    words (``2 newlines``); None when any part holds more (or there are no parts)."""
    if not isinstance(content, list) or not content:
        return None
    text = ""
    for part in content:
        if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
            return None
        if part["text"].strip():
            return None
        text += part["text"]
    if not text:
        return "empty"
    names = {"\n": "newline", " ": "space", "\t": "tab", "\r": "carriage return"}
    kinds = sorted({names.get(c, f"U+{ord(c):04X}") for c in text})
    return f"{len(text)} character(s): " + ", ".join(kinds)


def capture_notes(record: dict[str, Any], field_name: str) -> str | None:
    """``absent``/``truncated``/… for a field, with its reason, when the record says so."""
    capture = record.get("capture")
    if not isinstance(capture, dict):
        return None
    state = capture.get(field_name)
    if not isinstance(state, dict) or not isinstance(state.get("state"), str):
        return None
    reason = state.get("reason")
    return f"{state['state']}: {reason}" if isinstance(reason, str) and reason else state["state"]


@dataclass
class StreamFacts:
    """What one pass over a stream learns for the index page and the links between pages."""

    session: str | None = None
    agent: str | None = None
    title: str | None = None
    first_ts: str | None = None
    parent: str | None = None
    first_prompt: str | None = None
    children: list[str] = field(default_factory=list)
    broken: int = 0  # lines and stream-level rules of the ASR format broken (a CheckedStream's)
    summary: Any = None  # the stream's ``stats.SessionSummary``, when the page was written whole
    authors: set[str] = field(default_factory=set)  # who wrote text in it (ASR-224), for the index's filter
    tools: set[str] = field(default_factory=set)  # the tools it called

    def _authors(self, record: dict[str, Any]) -> None:
        for member in ("content", "displayContent"):
            parts = record.get(member)
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, dict):
                    author = effective(part, record, "author")
                    if author is not None and len(self.authors) < 32:
                        self.authors.add(author)

    def observe(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.first_ts is None and isinstance(record.get("ts"), str):
            self.first_ts = record["ts"]
        if kind == "session":
            self.session = _str(record.get("session"))
            agent = record.get("agent")
            self.agent = _str(agent.get("name")) if isinstance(agent, dict) else None
            self.title = _str(record.get("title"))
            self.parent = _str(record.get("parent"))
        elif kind == "tool_call" and isinstance(record.get("name"), str) and len(self.tools) < 200:
            self.tools.add(record["name"])
        elif kind == "message":
            self._authors(record)
            content = record.get("content")
            if self.first_prompt is None and record.get("role") == "user" and isinstance(content, list):
                prompt = command_text(content, record) or typed_text(content, record)
                if title_text(prompt):
                    self.first_prompt = title_text(prompt, 300)
        elif kind == "subagent" and isinstance(record.get("session"), str):
            self.children.append(record["session"])
        if kind != "session" and isinstance(record.get("title"), str) and record["title"].strip():
            self.title = record["title"]  # a title the source gave later (docs/semantics.md, Titles)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class Tracker:
    """Per-stream state the reading order needs: bounded by the number of distinct ids."""

    call_names: dict[str, str] = field(default_factory=dict)
    plan_revisions: dict[str, int] = field(default_factory=dict)
    participants: dict[str, str] = field(default_factory=dict)
    turn: str | None = None
    compaction: str | None = None  # the id of the latest compaction summary seen
    titled: bool = False  # whether a message already named the untitled session

    def title_candidate(self, record: dict[str, Any]) -> str | None:
        """The first words the person typed, for the first message that has them: the page's
        heading when the session has no title."""
        if self.titled or record.get("role") != "user":
            return None
        for member in ("content", "displayContent"):
            parts = record.get(member)
            if not isinstance(parts, list):
                continue
            text = command_text(parts, record) or typed_text(parts, record)
            title = title_text(text)
            if title:
                self.titled = True
                return title
        return None

    def compacted(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """For a compaction summary (``summaryOf: "compaction"``, docs/format.md): what it
        replaced, as {"from", "through", "previous"} refs (None where the record says nothing);
        None for any other record."""
        if record.get("summaryOf") != "compaction":
            return None
        span = record.get("compaction")
        span = span if isinstance(span, dict) else {}
        found = {
            "from": span.get("from") if isinstance(span.get("from"), str) else None,
            "through": span.get("through") if isinstance(span.get("through"), str) else None,
            "previous": self.compaction,
        }
        if isinstance(record.get("id"), str):
            self.compaction = record["id"]
        return found

    def declare(self, declaration: Any) -> None:
        """Remember a participant's name (header list or a late ``participant`` record)."""
        if isinstance(declaration, dict) and isinstance(declaration.get("participantId"), str):
            labels = (declaration.get(key) for key in ("name", "label", "kind"))
            label = next((value for value in labels if isinstance(value, str) and value), None)
            self.participants[declaration["participantId"]] = label or declaration["participantId"]

    def declare_header(self, header: dict[str, Any]) -> None:
        """The participants a header declares (any other value there declares none)."""
        declared = header.get("participants")
        for declaration in declared if isinstance(declared, list) else ():
            self.declare(declaration)

    def sender(self, record: dict[str, Any]) -> str | None:
        """Who sent a message (``from``), named as the stream declares the participant."""
        actor = record.get("from")
        if not isinstance(actor, dict):
            return None
        participant = actor.get("participant")
        if isinstance(participant, str):
            return self.participants.get(participant, participant)
        session = actor.get("session")
        if isinstance(session, str):
            address = actor.get("address")
            return f"{session} {address}" if isinstance(address, str) else session
        return None

    def call_name(self, call_id: Any) -> str | None:
        return self.call_names.get(call_id) if isinstance(call_id, str) else None

    def plan_revision(self, plan_id: Any) -> int:
        if not isinstance(plan_id, str):
            return 1
        count = self.plan_revisions.get(plan_id, 0) + 1
        self.plan_revisions[plan_id] = count
        return count

    def see(self, record: dict[str, Any]) -> bool:
        """Remember what later records refer to; True when a new turn starts here."""
        if record.get("type") == "participant":
            self.declare(record)
        if record.get("type") == "tool_call" and isinstance(record.get("callId"), str):
            name = record.get("name")
            self.call_names[record["callId"]] = name if isinstance(name, str) else "?"
        turn = record.get("turnId")
        if isinstance(turn, str) and turn != self.turn:
            self.turn = turn
            return True
        return False


_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def command_text(parts: Any, message: dict[str, Any]) -> str | None:
    """The slash command a person typed, as they typed it (``/compact keep the tests``), when the
    message's command parts (origin ``command``) hold it in the command markup a harness writes
    around it (``<command-name>``, ``<command-args>``); None for any other message."""
    if not isinstance(parts, list):
        return None
    name = args = None
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("text"), str):
            continue
        if effective(part, message, "origin") != "command":
            continue
        found = _COMMAND_NAME.search(part["text"])
        name = name or (found.group(1).strip() if found else None)
        found = _COMMAND_ARGS.search(part["text"])
        args = args or (found.group(1).strip() if found else None)
    if not name:
        return None
    return f"{name} {args}" if args else name


def typed_text(parts: list[Any], message: dict[str, Any]) -> str:
    """The text a person typed into a message: its parts by author human, else (a chat whose
    source names the sender but not their kind, ASR-202) its prompt parts of unknown author."""
    texts = [p for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    human = "".join(p["text"] for p in texts if effective(p, message, "author") == "human")
    if human.strip():
        return human
    return "".join(
        p["text"]
        for p in texts
        if effective(p, message, "author") is None and effective(p, message, "origin") in ("prompt", "queued", "steer")
    )


def title_text(text: str, limit: int = 100) -> str:
    """What a session with no title is called: the first line a person typed, its command
    markup read as the command, escape sequences and runs of blanks left out."""
    from .ansi import strip

    command = command_text([{"type": "text", "text": text, "origin": "command"}], {})
    if command:
        return command[:limit]
    for line in strip(text).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def preview(text: str, limit: int = 90) -> str:
    """The first non-blank line of a collapsed part, shortened: says what the part holds."""
    from .ansi import strip

    for line in strip(text).splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def error_text(record: dict[str, Any]) -> str | None:
    """The source's error for a failed message (the ``error`` member), as text."""
    error = record.get("error")
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        message = error.get("message")
        return message if isinstance(message, str) else reading_json(error)
    return None


def split_long(text: str, lines: int = 40, chars: int = 4000) -> tuple[str, str]:
    """A long text as (what is shown, what "show all" reveals); short text has no rest."""
    cut = -1
    start = 0
    for _ in range(lines):
        cut = text.find("\n", start)
        if cut < 0:
            break
        start = cut + 1
    else:
        cut = start
    limit = min(len(text), chars)
    if 0 < cut < limit:
        limit = cut
    if limit >= len(text):
        return text, ""
    return text[:limit], text[limit:]


def split_input(value: Any) -> tuple[Any, list[tuple[str, str]]]:
    """A tool input as (what reads well as JSON, [(member, multi-line text)]): file bodies and
    prompts are shown as text blocks, not as JSON strings full of ``\\n``."""
    if not isinstance(value, dict):
        return value, []
    blocks = [(k, v) for k, v in value.items() if isinstance(v, str) and "\n" in v]
    if not blocks:
        return value, []
    names = {k for k, _ in blocks}
    return {k: v for k, v in value.items() if k not in names}, blocks


def _shell(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    for key in ("command", "cmd"):
        command = value.get(key)
        if isinstance(command, str):
            return key, command
        if isinstance(command, list) and all(isinstance(c, str) for c in command):
            return key, " ".join(command)
    return None


def shell_command(record: dict[str, Any]) -> str | None:
    """The command line of a shell tool call, when its input is one (never an encrypted one)."""
    found = _shell(sealed.plain_input(record))
    return found[1] if found else None


def input_shown(record: dict[str, Any]) -> Any:
    """A tool call's input as the page lays it out beside the command line: without its
    encrypted arguments (shown apart) and without the command (shown once, as a command line)."""
    value = sealed.plain_input(record)
    found = _shell(value)
    if found is None:
        return value
    return {key: item for key, item in value.items() if key != found[0]}


#: Values nested deeper than this are shown as compact JSON: indentation grows with the square of
#: the depth (a 2 KB line 1000 levels deep would become 2 MB of page).
INDENT_DEPTH = 32


def reading_json(value: Any) -> str:
    """JSON for display, indented unless deeply nested, for any value the stream holds (within
    ``core.nesting.MAX_NESTING``, as every reader keeps), its opaque values sealed (``sealed``)."""
    from ..core import nesting

    try:
        value = sealed.sealed(value)
        return nesting.dumps(value, indent=nesting.depth(value, INDENT_DEPTH) <= INDENT_DEPTH).decode()
    except (TypeError, ValueError, RecursionError):  # not JSON at all (a library caller's object)
        return f"<{type(value).__name__}>"
