"""``asr show``: a session as a page a person reads (HTML or Markdown), or a folder as a site.

Readers of the stream (this package) sit beside the writers of the converters: a page is made
from ASR records only, so every agent the converters read is shown with no per-agent code.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

from .._lazy import lazy_names
from ..stream.opening import conversion_of, existing_file, is_asr_file, main_stream

# The renderers (jinja2, markdown-it) are imported at first use (``asr_adapters._lazy``):
# ``asr show --help`` loads none of them. Reading a stream is ``asr_adapters.stream``'s.
_LAZY = {
    "StreamFacts": ".reading",
    "render_html": ".html",
    "render_index": ".html",
    "render_markdown": ".markdown",
    "render_site": ".site",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, ["open_page_source", "write_page"])

if TYPE_CHECKING:
    from .html import render_html, render_index
    from .markdown import render_markdown
    from .reading import StreamFacts
    from .site import render_site

__all__ = [
    "StreamFacts",
    "open_page_source",
    "render_html",
    "render_index",
    "render_markdown",
    "render_site",
]


def open_page_source(path: str | os.PathLike[str], agent: str | None = None, *, redactor: Any = None) -> Iterable[Any]:
    """What ``asr show`` reads: an ASR stream as a ``CheckedStream`` (every line, with the rules it
    breaks: a stream someone else wrote is shown, marked, whatever it holds), or a native file's
    main stream converted on the fly."""
    target = existing_file(path)
    if agent is None and is_asr_file(target):
        from ..validate.checked import CheckedStream

        return CheckedStream(target, transform=None if redactor is None else redactor.record)
    return main_stream(conversion_of(target, agent, redactor))


def write_page(
    path: str | os.PathLike[str], dest: IO[str], *, fmt: str = "html", agent: str | None = None, redactor: Any = None
) -> StreamFacts:
    """Render one source (ASR stream or native file) as HTML or Markdown into ``dest``, redacted
    by ``redactor`` (an ``asr_adapters.redact.Redactor``) when given."""
    items = open_page_source(path, agent, redactor=redactor)
    if fmt == "markdown":
        from .markdown import render_markdown

        return render_markdown(items, dest)
    from .html import render_html

    return render_html(items, dest)
