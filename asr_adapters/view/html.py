"""One ASR stream as one self-contained HTML page, written while the records stream in.

Jinja2 with autoescape renders every value (session content is untrusted); model text goes
through markdown-it-py with raw HTML off (``markup.py``). The page carries its CSS and script
inline under a Content-Security-Policy that allows only that script (by hash) and ``data:``
images, so even a rendering mistake could not run a script from a session or make a request.
Every record is its own block with ``content-visibility: auto``, so a browser lays out only
what is on screen: a 50 MB session stays usable (docs/viewer.md).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import IO, Any

import orjson
from jinja2 import Environment, FileSystemLoader, Template, select_autoescape
from markupsafe import Markup

from ..validate.checked import Checked, CheckedStream, Unreadable
from ..validate.stream import Finding
from ..version import __version__
from . import ansi, reading, sealed, words
from .markup import mark_placeholders, markdown_html

TEMPLATES = Path(__file__).with_name("templates")

LinkResolver = Callable[[str], "str | None"]

#: Records are written as HTML until the page holds this many characters; later ones go in
#: inert JSON chunks of about CHUNK_CHARS that the page's script inserts as the reader scrolls
#: (a browser parses and lays out a 45 MB page in minutes, a 4 MB one in about a second).
INLINE_CHARS = 4_000_000
CHUNK_CHARS = 1_000_000


def _shown(value: Any) -> Any:
    """A JSON null a stream holds where a string belongs is shown as nothing, not as ``None``."""
    return "" if value is None else value


@cache
def environment() -> Environment:
    """The template environment: autoescaped, undefined values render empty."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
        keep_trailing_newline=False,
        finalize=_shown,
    )
    env.globals.update(
        effective=reading.effective,
        author_label=reading.author_label,
        css_token=reading.css_token,
        short=reading.short_value,
        text_size=reading.text_size,
        duration=reading.duration,
        opaque_size=reading.opaque_size,
        split_long=reading.split_long,
        preview=reading.preview,
        split_input=reading.split_input,
        error_text=reading.error_text,
        capture=reading.capture_notes,
        usage=reading.usage_summary,
        usage_partial=reading.usage_partial,
        failed_result=reading.is_failed_result,
        result_outcome=reading.result_outcome,
        removal=reading.removal_targets,
        blank_parts=reading.blank_parts,
        ansi=ansi.to_html,
        command_text=reading.command_text,
        words=words.words,
        origin_words=words.ORIGIN_WORDS,
        author_words=words.AUTHOR_WORDS,
        visibility_words=words.VISIBILITY_WORDS,
        audience_words=words.AUDIENCE_WORDS,
        capture_words=words.CAPTURE_WORDS,
        record_id_words=words.RECORD_ID_WORDS,
        bookkeeping_words=words.BOOKKEEPING_WORDS,
        copy_words=words.COPY_WORDS,
        to_json=lambda value: orjson.dumps(value).decode(),
        outcome_words=words.OUTCOME_WORDS,
        shell=reading.shell_command,
        json=reading.reading_json,
        is_list=lambda value: isinstance(value, list),
        markdown=lambda text: Markup(markdown_html(text)),
        collapsed_origins=reading.COLLAPSED_ORIGINS,
        embeddable_image=reading.embeddable_image,
        opaque_arguments=sealed.opaque_arguments,
        input_shown=reading.input_shown,
    )
    return env


@cache
def static_text(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


@cache
def script_hash() -> str:
    """The CSP source expression of the page's only script."""
    digest = hashlib.sha256(static_text("page.js").encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _no_links(_: str) -> str | None:
    return None


class PageWriter:
    """Writes one stream's page to ``dest`` record by record; ``facts`` fills as it goes."""

    def __init__(
        self,
        dest: IO[str],
        *,
        links: LinkResolver | None = None,
        index_link: str | None = None,
        inline_chars: int = INLINE_CHARS,
        chunk_chars: int = CHUNK_CHARS,
    ) -> None:
        self.dest = dest
        self.inline_chars = inline_chars
        self.chunk_chars = chunk_chars
        self._written = 0
        self._chunk: list[str] = []
        self._chunk_size = 0
        self.chunks = 0
        self.links = links or _no_links
        self.index_link = index_link
        self.facts = reading.StreamFacts()
        self.tracker = reading.Tracker()
        self.summary = SummaryFeed()
        env = environment()
        self._record: Template = env.get_template("record.html")
        self._invalid: Template = env.get_template("invalid.html")
        self._started = False
        self.invalid = 0  # lines shown as their JSON (not records, or not of their type's shape)

    def add(self, item: Any) -> None:
        """One item of a stream: a record (a converted native file's) or a ``Checked`` line of an
        ASR stream, shown with the rules it breaks."""
        if isinstance(item, Checked):
            self.record(item.record, item.errors, item.line)
        else:
            self.record(item)

    def head(self, header: dict[str, Any] | None, findings: Sequence[Finding] = ()) -> None:
        h = header or {}
        title = h.get("title") if isinstance(h.get("title"), str) else None
        title = title or (h.get("session") if isinstance(h.get("session"), str) else None) or "ASR session"
        self.tracker.declare_header(h)
        template = environment().get_template("head.html")
        values = {
            "title": title,
            "untitled": not isinstance(h.get("title"), str),
            "css": Markup(static_text("page.css")),
            "script_hash": script_hash(),
            "link": self.links,
            "index_link": self.index_link,
            "findings": findings,
        }
        try:
            text = template.render(h=h, **values)
        except Exception:  # a header of the wrong shape everywhere: the page still opens, marked
            text = template.render(h={}, header_json=reading.reading_json(h), **values)
        self.dest.write(text)
        self._started = True

    def record(self, record: Any, findings: Sequence[Finding] = (), line: int | None = None) -> None:
        """Write one record (or a line that is not one): through its template, or, when a stream
        someone else wrote breaks it, as its JSON with what is wrong; never an exception."""
        self.summary.observe(record)
        if not self._started:
            header = record if isinstance(record, dict) and record.get("type") == "session" else None
            self.head(header, findings)
            if header is not None:
                self.facts.observe(header)
                return
        if not isinstance(record, dict):
            self._emit(self._unreadable(record, findings, line, "not a record"))
            return
        try:
            html = self._render(record, findings)
        except Exception as exc:  # a record of the wrong shape: shown as it is, never a traceback
            html = self._unreadable(record, findings, line, f"not shown as a {_kind(record)} record: {_reason(exc)}")
        if html:
            self._emit(html)

    def _render(self, record: dict[str, Any], findings: Sequence[Finding]) -> str:
        self.facts.observe(record)
        if record.get("type") == "session":
            if not findings:
                return ""  # a header again (a finding says so when it is one)
            raise ValueError("a session header after the first record")
        new_turn = self.tracker.see(record)
        revision = self.tracker.plan_revision(record.get("planId")) if record.get("type") == "plan" else 0
        html = self._record.render(
            r=record,
            new_turn=new_turn,
            revision=revision,
            compacted=self.tracker.compacted(record),
            title_candidate=self.tracker.title_candidate(record) if record.get("type") == "message" else None,
            call_name=self.tracker.call_name,
            sender=self.tracker.sender,
            link=self.links,
            findings=findings,
        )
        return mark_placeholders(html)

    def _unreadable(self, value: Any, findings: Sequence[Finding], line: int | None, what: str) -> str:
        self.invalid += 1
        if isinstance(value, Unreadable):
            text, what = "", value.reason
        else:
            text = reading.reading_json(value)
        return self._invalid.render(line=line, what=what, text=text, findings=findings)

    def _emit(self, html: str) -> None:
        if self._written < self.inline_chars:
            self.dest.write(html)
            self.dest.write("\n")
            self._written += len(html) + 1
            return
        self._chunk.append(html)
        self._chunk_size += len(html)
        if self._chunk_size >= self.chunk_chars:
            self._flush_chunk()

    def _flush_chunk(self) -> None:
        """Later records wait in an inert JSON block until the reader scrolls to them."""
        if not self._chunk:
            return
        data = orjson.dumps("\n".join(self._chunk)).decode().replace("<", "\\u003c")
        self.dest.write(f'<script type="application/json" class="chunk">{data}</script>\n')
        self._chunk, self._chunk_size = [], 0
        self.chunks += 1

    def finish(self, broken: int = 0, stream_findings: Sequence[Finding] = (), file: str | None = None) -> None:
        """Close the page; ``broken`` lines and ``stream_findings`` (from a ``CheckedStream``) are
        summed up at its end, where the script also puts a line at its top."""
        if not self._started:
            self.head(None)
        self.facts.summary = self.summary.finish()
        self._flush_chunk()
        footer = f"Rendered by asr-adapters {__version__} from an ASR stream; model text as CommonMark, raw HTML off."
        if self.chunks:
            self.dest.write(
                f'<div id="asr-more" data-chunks="{self.chunks}"><button type="button" id="asr-load-all">'
                f"show the rest of the session ({self.chunks} more part(s))</button></div>\n"
            )
        if broken or stream_findings:
            shown = stream_findings[:FINDINGS_SHOWN]
            more = len(stream_findings) - len(shown)
            template = environment().get_template("findings.html")
            self.dest.write(template.render(broken=broken, findings=shown, more=more, file=file))
        self.dest.write(
            environment().get_template("foot.html").render(footer=footer, script=Markup(static_text("page.js")))
        )


class SummaryFeed:
    """The session's ``stats.session_summary``, built as the page's records stream by (the site
    index takes every figure from it). A record the summary cannot read is left out of it, and
    counted: a stream someone else wrote may hold any shape anywhere."""

    def __init__(self) -> None:
        from ..stats.scanner import SessionScanner

        self.scanner = SessionScanner()
        self.unread = 0

    def observe(self, record: Any) -> None:
        if not isinstance(record, dict):
            return
        try:
            self.scanner.observe(record)
        except Exception:  # a member of a shape the summary does not read
            self.unread += 1

    def finish(self) -> Any:
        try:
            return self.scanner.finish()
        except Exception:
            return None


#: Stream-level findings listed at the end of a page (``asr validate`` lists them all).
FINDINGS_SHOWN = 20


def _kind(record: dict[str, Any]) -> str:
    kind = record.get("type")
    return kind if isinstance(kind, str) and len(kind) < 40 else "?"


def _reason(exc: BaseException) -> str:
    text = str(exc) if not isinstance(exc, RecursionError) else "nested too deep to lay out"
    text = " ".join(text.split())
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


def render_html(
    items: Iterable[Any],
    dest: IO[str],
    *,
    links: LinkResolver | None = None,
    index_link: str | None = None,
) -> reading.StreamFacts:
    """Write the page of one stream (records, or the ``Checked`` lines of a ``CheckedStream``,
    whose findings the page marks); returns what the pass learned (for an index)."""
    writer = PageWriter(dest, links=links, index_link=index_link)
    for item in items:
        writer.add(item)
    if isinstance(items, CheckedStream):
        writer.finish(items.broken, items.stream_errors, items.display)
    else:
        writer.finish()
    writer.facts.broken = getattr(items, "broken", 0) + len(getattr(items, "stream_errors", ()))
    return writer.facts


def render_index(rows: list[dict[str, Any]], dest: IO[str], columns: Sequence[tuple[str, str]] = ()) -> None:
    """The site's index page: one row per stream, filtered in the browser."""
    dest.write(
        environment()
        .get_template("index.html")
        .render(
            rows=rows,
            columns=columns,
            css=Markup(static_text("page.css")),
            script=Markup(static_text("page.js")),
            script_hash=script_hash(),
        )
    )


__all__ = ["PageWriter", "render_html", "render_index"]
