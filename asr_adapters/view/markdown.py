"""One ASR stream as Markdown, in the page's reading order, for an issue or a pull request.

Model text is kept as the Markdown it is, inside a quote (``> `` on every line), so whatever it
writes (a label, a record heading, a turn rule) renders inside the model's part, never beside
the real ones; model text holding raw HTML (which could close that quote on a renderer that
keeps HTML) is fenced instead, as the page shows raw HTML as text. Every other text goes in a
fence longer than any backtick run inside it, so nothing a session holds can break out of its
block. Each part starts with its author and origin, as on the page.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import IO, Any

from ..validate.checked import Checked, CheckedStream, Unreadable
from . import ansi, reading, sealed

_BACKTICKS = re.compile(r"`{3,}")
_SPECIAL = re.compile(r"([\\`*_\[\]<>|#!~&])")


def inline(value: object) -> str:
    """A value shown inline (a name, a status, a plan entry) as literal text: Markdown and
    HTML characters escaped, line breaks folded, so it cannot open a tag or a block."""
    text = " ".join(str(value).split())
    return _SPECIAL.sub(r"\\\1", text)


def fence(text: str, info: str = "") -> str:
    text = ansi.strip(text)  # a fence cannot colour: escape sequences left out, in display only
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=2)
    mark = "`" * max(3, longest + 1)
    return f"{mark}{info}\n{text}\n{mark}\n"


#: CommonMark's line endings (``str.splitlines`` knows more, which Markdown does not split on).
_LINE_END = re.compile(r"\r\n|\r|\n")


def _raw_html(text: str) -> bool:
    """Whether a renderer that keeps raw HTML (GitHub) would read HTML in ``text``."""
    for token in _html_parser().parse(text):
        if token.type == "html_block" or any(child.type == "html_inline" for child in token.children or ()):
            return True
    return False


@functools.cache
def _html_parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True})


def model_markdown(text: str) -> str:
    """Model text as Markdown inside a quote of its own (issue 25.20), or fenced when it holds raw
    HTML; ends in a blank line, so the next part is never a lazy continuation of the quote."""
    if _raw_html(text):
        return fence(text)
    return "".join(f"> {line}\n" if line else ">\n" for line in _LINE_END.split(text)) + "\n"


def _label(author: str | None, origin: str | None, phase: str | None = None) -> str:
    bits = [reading.author_label(author)]
    if origin:
        bits.append(reading.short_value(origin) or origin)
    if phase:
        bits.append(reading.short_value(phase) or phase)
    return "\\[" + " · ".join(inline(b) for b in bits) + "\\]"


def _part(p: dict[str, Any], msg: dict[str, Any]) -> str:
    author = reading.effective(p, msg, "author")
    origin = reading.effective(p, msg, "origin")
    phase = reading.effective(p, msg, "phase")
    label = _label(author, origin, phase)
    kind = p.get("type")
    if kind == "text" and isinstance(p.get("text"), str):
        text = p["text"]
        if msg.get("_plain") and author is None and origin is None:
            return fence(text)
        if (
            origin
            and (reading.short_value(origin) or "") in reading.COLLAPSED_ORIGINS
            and msg.get("summaryOf") != "compaction"
        ):
            size = reading.text_size(text)
            return f"*{label}* ({size})\n\n<details><summary>show</summary>\n\n{fence(text)}\n</details>\n"
        if author == "model" and not msg.get("_plain"):
            return f"*{label}*\n\n{model_markdown(text)}"
        return f"*{label}*\n\n{fence(text)}"
    if kind == "reasoning":
        vis = p.get("visibility") if isinstance(p.get("visibility"), str) else None
        out = f"*{label} reasoning: {inline(vis or 'visibility unknown')}*"
        if p.get("opaque"):
            out += f" (encrypted, {reading.opaque_size(p['opaque'])} bytes)"
        out += "\n\n"
        if isinstance(p.get("text"), str) and p["text"]:
            out += fence(p["text"])
        summary = p.get("summary")
        for segment in summary if isinstance(summary, list) else ():
            if isinstance(segment, str):
                out += "summary:\n\n" + fence(segment)
        return out
    if kind == "image":
        return f"*{label}* image {inline(p.get('mimeType', ''))}\n"
    if kind == "opaque":
        return f"*{label}* opaque {inline(p.get('format', ''))}, {reading.opaque_size(p)} bytes\n"
    return f"*{label}* {inline(kind)} part\n\n{fence(reading.reading_json(p), 'json')}"


def _parts(items: Any, msg: dict[str, Any]) -> str:
    if not isinstance(items, list):
        return ""
    shown = [p for p in items if isinstance(p, dict) and not _blank_text(p)]
    return "\n".join(_part(p, msg) for p in shown)


def _blank_text(part: dict[str, Any]) -> bool:
    text = part.get("text")
    return part.get("type") == "text" and isinstance(text, str) and not text.strip()


def _ts(record: dict[str, Any]) -> str:
    ts = record.get("ts")
    return f" · {inline(ts)}" if isinstance(ts, str) else ""


def _record(r: dict[str, Any], tracker: reading.Tracker) -> str:
    kind = r.get("type")
    rid = r.get("id", "?")
    if kind == "message":
        bits = [str(r.get("role") or "role unknown")]
        for key in ("status", "origin"):
            if isinstance(r.get(key), str):
                bits.append(reading.short_value(r[key]) or r[key])
        if isinstance(r.get("copiedFrom"), str):
            bits.append("copy")
        head = f"### {inline(rid)} · " + " · ".join(inline(b) for b in bits) + _ts(r) + "\n\n"
        for field in ("content", "displayContent"):
            note = reading.capture_notes(r, field)
            if note:
                head += f"> {field}: {inline(note)}\n\n"
        error = reading.error_text(r)
        if error:
            head += "error:\n\n" + fence(error) + "\n"
        sender = tracker.sender(r)
        if sender:
            head += f"from {inline(sender)}\n\n"
        if r.get("status") == "withdrawn":
            head += "> Withdrawn: removed from the queue before the model received it.\n\n"
        blank = reading.blank_parts(r.get("content"))
        if blank and not isinstance(r.get("displayContent"), list):
            head += f"only whitespace: the text of this message is {inline(blank)}\n\n"
        if isinstance(r.get("displayContent"), list):
            body = "**What the user saw**\n\n" + _parts(r["displayContent"], r)
            if r.get("content"):
                body += "\n**What the model received**\n\n" + _parts(r["content"], r)
        elif reading.command_text(r.get("content"), r):
            typed = reading.command_text(r.get("content"), r) or ""
            body = f"*\\[person · command\\]* {inline(typed)}\n\n"
            recorded = _parts(r.get("content"), r)
            body += f"<details><summary>the command as recorded</summary>\n\n{recorded}\n</details>\n"
        else:
            body = _parts(r.get("content"), r)
        usage = reading.usage_summary(r)
        if usage:
            running = " (a running count, not the final one)" if reading.usage_partial(r) else ""
            body += "\ntokens: " + ", ".join(f"{label} {n:,}" for label, n in usage) + running + "\n"
        return head + body
    if kind == "tool_call":
        command = reading.shell_command(r)
        text = f"### {inline(rid)} · tool call {inline(r.get('name'))}{_ts(r)}\n\n"
        if command is not None:
            text += fence("$ " + command, "sh")
        for member, what in sealed.opaque_arguments(r):
            text += f"{inline(member)}: {inline(what)}\n\n"
        rest, blocks = reading.split_input(reading.input_shown(r) if "input" in r else r.get("arguments"))
        if rest != {}:
            text += ("\n" if command is not None else "") + fence(reading.reading_json(rest), "json")
        for member, body in blocks:
            text += f"\n{inline(member)}:\n\n" + fence(body)
        return text
    if kind == "tool_result":
        outcome = reading.result_outcome(r)
        failed = f" · **{outcome}**" if outcome else ""
        exit_code = r.get("exitCode")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            failed += f" · exit code {exit_code}"
        name = tracker.call_name(r.get("callId"))
        return f"### {inline(rid)} · result{f' of {inline(name)}' if name else ''}{failed}{_ts(r)}\n\n" + _parts(
            r.get("content"), {"_plain": True}
        )
    if kind == "plan":
        revision = tracker.plan_revision(r.get("planId"))
        text = f"### {inline(rid)} · plan ({inline(r.get('planType'))}) revision {revision}{_ts(r)}\n\n"
        entries = r.get("entries")
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict):
                box = "x" if entry.get("status") == "completed" else " "
                text += f"- [{box}] {inline(entry.get('content'))} ({inline(entry.get('status'))})\n"
        return text + _parts(r.get("content"), {})
    if kind == "delivery":
        reason = f" ({inline(r['reason'])})" if isinstance(r.get("reason"), str) else ""
        target = f" for {inline(r['message'])}" if isinstance(r.get("message"), str) else ""
        return f"### {inline(rid)} · delivery **{inline(r.get('status'))}**{reason}{target}{_ts(r)}\n"
    if kind == "subagent":
        child = inline(r["session"]) if isinstance(r.get("session"), str) else "not recorded"
        kind_of = r.get("agentType") if isinstance(r.get("agentType"), str) and r["agentType"].strip() else None
        about = r.get("description") if isinstance(r.get("description"), str) and r["description"].strip() else None
        text = f"### {inline(rid)} · subagent{f' {inline(kind_of)}' if kind_of else ''}{_ts(r)}\n\n"
        text += f"{inline(about)}\n\n" if about else ""
        text += f"child session: {child}\n"
        if kind_of is None and about is None:
            text += "\nThe source records no type or description for this subagent.\n"
        return text
    if kind == "input_request":
        text = f"### {inline(rid)} · question to the user{_ts(r)}\n\n" + _parts(r.get("content"), {})
        if isinstance(r.get("answer"), list):
            text += "\nanswer:\n\n" + _parts(r["answer"], {})
        return text
    refs, message_ids = reading.removal_targets(r)
    if refs or message_ids:
        what = reading.short_value(r.get("schema")) or str(kind)
        removed = ", ".join(inline(ref) for ref in refs) + ("; messages " if refs and message_ids else "")
        removed += ", ".join(inline(mid) for mid in message_ids) if message_ids else ""
        return f"### {inline(rid)} · removed from the history ({inline(what)}){_ts(r)}\n\nremoved: {removed}\n"
    return ""


def _revises(r: dict[str, Any]) -> str:
    """The line that says a record is a later state of another (``supersedes``)."""
    target = r.get("supersedes")
    return f"revises {inline(target)}\n\n" if isinstance(target, str) and r.get("type") != "plan" else ""


def render_markdown(items: Iterable[Any], dest: IO[str]) -> reading.StreamFacts:
    """Write a stream as Markdown; vendor and declaration records are left out. ``items`` are
    records, or the ``Checked`` lines of a ``CheckedStream``: a line that breaks the format's rules
    is marked with them, and one that cannot be shown as its record is shown as its JSON."""
    facts = reading.StreamFacts()
    tracker = reading.Tracker()
    started = False
    for item in items:
        record, findings, line = (
            (item.record, item.errors, item.line) if isinstance(item, Checked) else (item, [], None)
        )
        if not started:
            started = True
            if isinstance(record, dict) and record.get("type") == "session":
                facts.observe(record)
                tracker.declare_header(record)
                dest.write(_guarded_header(record) + _findings(findings) + ("\n" if findings else ""))
                continue
        text = _guarded(record, findings, line, facts, tracker)
        if text:
            dest.write(text + "\n")
    if isinstance(items, CheckedStream) and (items.broken or items.stream_errors):
        dest.write(_stream_findings(items))
        facts.broken = items.broken + len(items.stream_errors)
    return facts


def _guarded(
    record: Any, findings: list[Any], line: int | None, facts: reading.StreamFacts, tracker: reading.Tracker
) -> str:
    """One record's Markdown with the rules it breaks; a line that is not a record, or whose
    members have the wrong shape, as its JSON (never an exception)."""
    where = f"line {line}" if line is not None else "a line"
    if not isinstance(record, dict):
        what = record.reason if isinstance(record, Unreadable) else "not a record"
        body = "" if isinstance(record, Unreadable) else fence(reading.reading_json(record), "json")
        return f"### {where} · {inline(what)}\n\n" + _findings(findings) + body
    try:
        facts.observe(record)
        if record.get("type") == "session":
            if not findings:
                return ""
            raise ValueError("a session header after the first record")
        turn = f"\n---\n\n*turn {inline(record.get('turnId'))}*\n\n" if tracker.see(record) else ""
        compacted = tracker.compacted(record)
        if compacted is not None:
            through = compacted["through"]
            start = compacted["from"] or compacted["previous"]
            span = (
                f" (records {f'from {inline(start)} ' if start else 'from the start '}through {inline(through)})"
                if through
                else " (the replaced history is not in this stream)"
            )
            turn += f"\n---\n\n**Context compacted**: the model's history{span} was replaced by this summary.\n\n"
        text = _record(record, tracker)
        if text and record.get("supersedes"):
            head, _, body = text.partition("\n\n")
            text = f"{head}\n\n{_revises(record)}{body}"
    except Exception as exc:  # a record of the wrong shape: shown as it is
        kind = record.get("type") if isinstance(record.get("type"), str) else "?"
        head = f"### {where} · not shown as a {inline(kind)} record ({inline(type(exc).__name__)})\n\n"
        return head + _findings(findings) + fence(reading.reading_json(record), "json")
    if findings:
        kind = record.get("type")
        shown = kind if isinstance(kind, str) else f"type {reading.reading_json(kind)[:40]}"
        rid = record.get("id")
        text = (text or f"### {inline(rid if isinstance(rid, str) else where)} · {inline(shown)}\n\n") + _findings(
            findings
        )
    return turn + text


def _findings(findings: list[Any]) -> str:
    lines = [f"> **breaks {inline(f.rule)}**: {inline(f.message)}\n" for f in findings[:5]]
    if len(findings) > 5:
        lines.append(f"> and {len(findings) - 5} more\n")
    return "".join(lines) + ("\n" if lines else "")


def _stream_findings(stream: CheckedStream) -> str:
    text = "\n---\n\n## This stream breaks rules of the ASR format\n\n"
    if stream.broken:
        text += f"{stream.broken} line(s) are marked where they are. "
    text += f"`asr validate {inline(stream.display)}` lists every finding.\n\n"
    for finding in stream.stream_errors[:20]:
        text += f"- {inline(finding.describe())}\n"
    return text


def _guarded_header(record: dict[str, Any]) -> str:
    try:
        return _header(record)
    except Exception:  # a header whose members have the wrong shape: its JSON
        return "# ASR session\n\n" + fence(reading.reading_json(record), "json") + "\n"


def _header(h: dict[str, Any]) -> str:
    title = h.get("title") if isinstance(h.get("title"), str) else h.get("session")
    lines = [f"# {inline(title)}", ""]
    agent: dict[str, Any] = h["agent"] if isinstance(h.get("agent"), dict) else {}
    for label, value in (
        ("session", h.get("session")),
        ("agent", " ".join(str(v) for v in (agent.get("name"), agent.get("version")) if v)),
        ("folder", h.get("cwd")),
        ("started", h.get("ts")),
        ("parent", h.get("parent")),
    ):
        if value:
            lines.append(f"- {label}: {inline(value)}")
    return "\n".join(lines) + "\n\n"
