"""``asr show``: a session as a page a person reads (HTML or Markdown), or a folder as a site.

Readers of the stream (this package) sit beside the writers of the converters: a page is made
from ASR records only, so every agent the converters read is shown with no per-agent code.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._lazy import lazy_names
from ..core.errors import InputError
from ..core.source import Source
from ..stream.sniff import is_asr_stream as sniffed_asr_stream

# The renderers (jinja2, markdown-it) are imported at first use (``asr_adapters._lazy``):
# ``asr export`` reads streams through ``open_records`` and must not load the viewer.
_LAZY = {
    "StreamFacts": ".reading",
    "render_html": ".html",
    "render_index": ".html",
    "render_markdown": ".markdown",
    "render_site": ".site",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, ["is_asr_stream", "open_page_source", "open_records"])

if TYPE_CHECKING:
    from .html import render_html, render_index
    from .markdown import render_markdown
    from .reading import StreamFacts
    from .site import render_site

__all__ = [
    "StreamFacts",
    "is_asr_stream",
    "open_page_source",
    "open_records",
    "render_html",
    "render_index",
    "render_markdown",
    "render_site",
]


def is_asr_stream(path: str | os.PathLike[str]) -> bool:
    """True when the file starts as an ASR stream does (``stream.sniff``: a ``session`` header
    numbered 1 naming a session and an agent), the same rule ``asr convert`` refuses such a file
    by. A header without ``producer`` is still one: the page marks what it lacks (issue 25.22)."""
    try:
        head = Source(path).head()
    except (InputError, OSError):
        return False
    return sniffed_asr_stream(head)


def open_records(
    path: str | os.PathLike[str], agent: str | None = None, *, redactor: Any = None
) -> Iterator[dict[str, Any]]:
    """The records of an ASR stream that ``asr validate`` accepts (``InvalidStream`` otherwise:
    its first finding), or of a native file's main stream converted on the fly: records a
    consumer can rely on (``asr export``)."""
    target = _existing_file(path)
    if agent is None and is_asr_stream(target):
        from ..stream.reader import read_records
        from ..validate.checked import require_valid

        require_valid(target)
        records = read_records(target)
        return records if redactor is None else redactor.records(records)
    return _main_stream(_conversion(target, agent, redactor))


def open_page_source(path: str | os.PathLike[str], agent: str | None = None, *, redactor: Any = None) -> Iterable[Any]:
    """What ``asr show`` reads: an ASR stream as a ``CheckedStream`` (every line, with the rules it
    breaks: a stream someone else wrote is shown, marked, whatever it holds), or a native file's
    main stream converted on the fly."""
    target = _existing_file(path)
    if agent is None and is_asr_stream(target):
        from ..validate.checked import CheckedStream

        return CheckedStream(target, transform=None if redactor is None else redactor.record)
    return _main_stream(_conversion(target, agent, redactor))


def _existing_file(path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    if not target.exists():
        raise InputError(str(path), "no such file")
    if target.is_dir():
        raise InputError(str(path), "is a folder; give -o SITE_DIR to make a site of it")
    return target


def _conversion(target: Path, agent: str | None, redactor: Any = None) -> Any:
    from ..convert import Conversion

    return Conversion(str(target), agent, as_dicts=True, redactor=redactor)


def _main_stream(conversion: Any) -> Iterator[dict[str, Any]]:
    for stream in conversion.streams():
        if stream.main:
            yield from stream.records
        else:
            for _ in stream.records:
                pass


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
