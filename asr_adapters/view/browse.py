"""A session's page opened in the browser (``asr show --open``, ``asr search --open``)."""

from __future__ import annotations

import os
import tempfile
import webbrowser
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..outputs import text_output


def split_target(path: str) -> tuple[str, str | None]:
    """``FILE#RECORD`` (the link ``asr search`` prints) as the file and the record's id; a path
    that exists as given is a file, whatever characters it holds."""
    if os.path.lexists(path) or "#" not in path:
        return path, None
    file, _, record = path.rpartition("#")
    return (file, record or None) if os.path.lexists(file) else (path, None)


def open_page(page: str | os.PathLike[str], record: str | None = None) -> None:
    """Open a written page in the default browser, at ``record``'s anchor when given."""
    uri = Path(page).resolve().as_uri()
    webbrowser.open(uri + ("#" + quote(record, safe="") if record else ""))


def show_at(stream: str, record: str | None, *, agent: str | None = None, redactor: Any = None) -> Path:
    """Write the page of ``stream`` into a new private folder and open it at ``record``."""
    from . import write_page

    page = Path(tempfile.mkdtemp(prefix="asr-show-")) / "page.html"
    with text_output(page, Path(stream)) as handle:
        write_page(stream, handle, agent=agent, redactor=redactor)
    open_page(page, record)
    return page
