"""``asr show``: a session as a page a person reads (HTML or Markdown), or a folder as a site.

Readers of the stream (this package) sit beside the writers of the converters: a page is made
from ASR records only, so every agent the converters read is shown with no per-agent code.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from .._lazy import lazy_names
from ..core.errors import InputError

# The renderers (jinja2, markdown-it) are imported at first use (``asr_adapters._lazy``):
# ``asr export`` reads streams through ``open_records`` and must not load the viewer.
_LAZY = {
    "StreamFacts": ".reading",
    "render_html": ".html",
    "render_index": ".html",
    "render_markdown": ".markdown",
    "render_site": ".site",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, ["is_asr_stream", "open_records"])

if TYPE_CHECKING:
    from .html import render_html, render_index
    from .markdown import render_markdown
    from .reading import StreamFacts
    from .site import render_site

__all__ = ["StreamFacts", "open_records", "render_html", "render_index", "render_markdown", "render_site"]


def is_asr_stream(path: str | os.PathLike[str]) -> bool:
    """True when the file's first line is an ASR header written by a producer."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return False
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return (
        isinstance(value, dict)
        and value.get("type") == "session"
        and value.get("seq") == 1
        and isinstance(value.get("producer"), dict)
    )


def open_records(path: str | os.PathLike[str], agent: str | None = None) -> Iterator[dict[str, Any]]:
    """The records of an ASR stream, or of a native file's main stream converted on the fly."""
    target = Path(path)
    if not target.exists():
        raise InputError(str(path), "no such file")
    if target.is_dir():
        raise InputError(str(path), "is a folder; give -o SITE_DIR to make a site of it")
    if agent is None and is_asr_stream(target):
        from ..stream.reader import read_records

        return read_records(target)
    from ..convert import Conversion

    conversion = Conversion(str(target), agent, as_dicts=True)
    return _main_stream(conversion)


def _main_stream(conversion: Any) -> Iterator[dict[str, Any]]:
    for stream in conversion.streams():
        if stream.main:
            yield from stream.records
        else:
            for _ in stream.records:
                pass


def write_page(
    path: str | os.PathLike[str], dest: IO[str], *, fmt: str = "html", agent: str | None = None
) -> StreamFacts:
    """Render one source (ASR stream or native file) as HTML or Markdown into ``dest``."""
    records = open_records(path, agent)
    if fmt == "markdown":
        from .markdown import render_markdown

        return render_markdown(records, dest)
    from .html import render_html

    return render_html(records, dest)
