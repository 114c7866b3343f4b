"""Markdown to HTML for model text, with the page's safety rules built in.

Session content is untrusted. markdown-it-py renders CommonMark with raw HTML off, so any
``<script>`` in a message is shown as text; links are kept only for ``http``/``https``
(and ``mailto``) and open with ``rel="noopener noreferrer"``; images are never loaded from
Markdown (a page must make no request), only shown as their link text.
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

_SAFE_SCHEMES = ("http://", "https://", "mailto:")


def _validate_link(url: str) -> bool:
    return url.strip().lower().startswith(_SAFE_SCHEMES)


def _link_open(renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer")
    tokens[idx].attrSet("target", "_blank")
    return renderer.renderToken(tokens, idx, options, env)


def _image(renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """A Markdown image becomes its alt text and address as text: a page fetches nothing."""
    token = tokens[idx]
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    src = token.attrGet("src") or ""
    return f'<span class="md-image">[image: {escape(alt)} {escape(str(src))}]</span>'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    return md


_MD = _build()


def markdown_html(text: str) -> str:
    """Model text as HTML (escaped, no raw HTML, safe links only)."""
    return _MD.render(text)


_TAG = re.compile(r"(<[^>]*>)")
_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9-]+):([0-9a-f]{10})\]")


def mark_placeholders(html: str) -> str:
    """Redaction placeholders (``[REDACTED:kind:hash]``, docs/redaction.md) in the text of a
    rendered record marked as such (a span the page styles), never inside a tag."""
    if "[REDACTED:" not in html:
        return html
    parts = _TAG.split(html)
    for index in range(0, len(parts), 2):  # the text between tags (escaped: it holds no "<")
        parts[index] = _PLACEHOLDER.sub(_span, parts[index])
    return "".join(parts)


def _span(match: re.Match[str]) -> str:
    return f'<span class="redacted" title="redacted: {match.group(1)}">{match.group(0)}</span>'
