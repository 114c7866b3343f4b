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
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import IO, Any

import orjson
from jinja2 import Environment, FileSystemLoader, Template, select_autoescape
from markupsafe import Markup

from ..version import __version__
from . import reading
from .markup import markdown_html

TEMPLATES = Path(__file__).with_name("templates")

LinkResolver = Callable[[str], "str | None"]

#: Records are written as HTML until the page holds this many characters; later ones go in
#: inert JSON chunks of about CHUNK_CHARS that the page's script inserts as the reader scrolls
#: (a browser parses and lays out a 45 MB page in minutes, a 4 MB one in about a second).
INLINE_CHARS = 4_000_000
CHUNK_CHARS = 1_000_000


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


@cache
def environment() -> Environment:
    """The template environment: autoescaped, undefined values render empty."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
        keep_trailing_newline=False,
    )
    env.globals.update(
        effective=reading.effective,
        author_label=reading.author_label,
        css_token=reading.css_token,
        short=reading.short_value,
        text_size=reading.text_size,
        opaque_size=reading.opaque_size,
        split_long=reading.split_long,
        preview=reading.preview,
        split_input=reading.split_input,
        error_text=reading.error_text,
        capture=reading.capture_notes,
        usage=reading.usage_summary,
        usage_partial=reading.usage_partial,
        failed_result=reading.is_failed_result,
        shell=reading.shell_command,
        json=_json,
        is_list=lambda value: isinstance(value, list),
        markdown=lambda text: Markup(markdown_html(text)),
        collapsed_origins=reading.COLLAPSED_ORIGINS,
        embeddable_image=reading.embeddable_image,
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
        env = environment()
        self._record: Template = env.get_template("record.html")
        self._started = False

    def head(self, header: dict[str, Any] | None) -> None:
        h = header or {}
        title = h.get("title") if isinstance(h.get("title"), str) else None
        title = title or (h.get("session") if isinstance(h.get("session"), str) else None) or "ASR session"
        for declaration in h.get("participants") or ():
            self.tracker.declare(declaration)
        self.dest.write(
            environment()
            .get_template("head.html")
            .render(
                h=h,
                title=title,
                untitled=not isinstance(h.get("title"), str),
                css=Markup(static_text("page.css")),
                script_hash=script_hash(),
                link=self.links,
                index_link=self.index_link,
            )
        )
        self._started = True

    def record(self, record: dict[str, Any]) -> None:
        self.facts.observe(record)
        if not self._started:
            self.head(record if record.get("type") == "session" else None)
            if record.get("type") == "session":
                return
        if record.get("type") == "session":
            return
        new_turn = self.tracker.see(record)
        revision = self.tracker.plan_revision(record.get("planId")) if record.get("type") == "plan" else 0
        html = self._record.render(
            r=record,
            new_turn=new_turn,
            revision=revision,
            call_name=self.tracker.call_name,
            sender=self.tracker.sender,
            link=self.links,
        )
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

    def finish(self) -> None:
        if not self._started:
            self.head(None)
        self._flush_chunk()
        footer = f"Rendered by asr-adapters {__version__} from an ASR stream; model text as CommonMark, raw HTML off."
        if self.chunks:
            self.dest.write(
                f'<div id="more" data-chunks="{self.chunks}"><button type="button" id="load-all">'
                f"show the rest of the session ({self.chunks} more part(s))</button></div>\n"
            )
        self.dest.write(
            environment().get_template("foot.html").render(footer=footer, script=Markup(static_text("page.js")))
        )


def render_html(
    records: Iterable[dict[str, Any]],
    dest: IO[str],
    *,
    links: LinkResolver | None = None,
    index_link: str | None = None,
) -> reading.StreamFacts:
    """Write the page of one stream; returns what the pass learned (for an index)."""
    writer = PageWriter(dest, links=links, index_link=index_link)
    for record in records:
        if isinstance(record, dict):
            writer.record(record)
    writer.finish()
    return writer.facts


def render_index(rows: list[dict[str, Any]], dest: IO[str]) -> None:
    """The site's index page: one row per stream, filtered in the browser."""
    dest.write(
        environment()
        .get_template("index.html")
        .render(
            rows=rows,
            css=Markup(static_text("page.css")),
            script=Markup(static_text("page.js")),
            script_hash=script_hash(),
        )
    )


__all__ = ["PageWriter", "render_html", "render_index"]
