"""What a reader of a session needs from each record, worked out once for every output format.

The HTML page and the Markdown text show the same things in the same order; this module
decides them: each content part's effective author and origin (ASR-224), how a part is
labelled, which tool results failed, which plan revision a plan record is, what a usage
object adds up to. The little state a pass keeps (never the records themselves) is in
``tracking.py``; titles and commands in ``titles.py``; the plain words of labels in ``words.py``.
"""

from __future__ import annotations

import re
from typing import Any

from . import sealed

# what the templates and the Markdown writer read through this module, kept in their own modules
from .titles import command_text, effective, title_text, typed_text  # noqa: F401
from .tracking import StreamFacts, Tracker  # noqa: F401

#: Labels for the authors of ASR-202, in the words a reader expects.
AUTHOR_LABELS = {
    "human": "person",
    "model": "model",
    "harness": "harness",
    "hook": "hook",
    "tool": "tool",
    "agent": "agent",
}

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
