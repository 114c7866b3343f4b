"""Opening what a consumer reads (``asr show``, ``asr export``): an ASR stream as it is, or a
native file's streams converted on the fly. Here, not in the viewer, so the exporters ask
whether a file is an ASR stream without loading the viewer."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import InputError
from ..core.source import Source
from .sniff import is_asr_stream

if TYPE_CHECKING:
    from ..convert import Conversion


def is_asr_file(path: str | os.PathLike[str]) -> bool:
    """True when the file starts as an ASR stream does (``sniff.is_asr_stream``: a ``session``
    header numbered 1 naming a session and an agent), the same rule ``asr convert`` refuses such a
    file by. A header without ``producer`` is still one: the page marks what it lacks (issue 25.22)."""
    try:
        head = Source(path).head()
    except (InputError, OSError):
        return False
    return is_asr_stream(head)


def open_records(
    path: str | os.PathLike[str], agent: str | None = None, *, redactor: Any = None
) -> Iterator[dict[str, Any]]:
    """The records of an ASR stream that ``asr validate`` accepts (``InvalidStream`` otherwise:
    its first finding), or of a native file's main stream converted on the fly: records a
    consumer can rely on (``asr export``)."""
    target = existing_file(path)
    if agent is None and is_asr_file(target):
        from ..validate.checked import require_valid
        from .reader import read_records

        require_valid(target)
        records = read_records(target)
        return records if redactor is None else redactor.records(records)
    return main_stream(conversion_of(target, agent, redactor))


def existing_file(path: str | os.PathLike[str]) -> Path:
    """``path`` as a file that exists; a folder is refused (a site is made of a folder)."""
    target = Path(path)
    if not target.exists():
        raise InputError(str(path), "no such file")
    if target.is_dir():
        raise InputError(str(path), "is a folder; give -o SITE_DIR to make a site of it")
    return target


def conversion_of(target: str | os.PathLike[str], agent: str | None, redactor: Any = None) -> Conversion:
    """The conversion of a native file (``agent``: the one named, else detected), as dicts."""
    from ..convert import Conversion

    return Conversion(str(target), agent, as_dicts=True, redactor=redactor)


def main_stream(conversion: Conversion) -> Iterator[dict[str, Any]]:
    """The records of a conversion's main stream; every other stream is read through and dropped."""
    for stream in conversion.streams():
        if stream.main:
            yield from stream.records
        else:
            for _ in stream.records:
                pass
