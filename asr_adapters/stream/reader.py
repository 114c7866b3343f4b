"""Reading ASR streams back, one record at a time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..core.errors import StreamFormatError
from ..core.source import BadLine, Source

if TYPE_CHECKING:
    from ..model.api import Envelope


def iter_lines(src: str | os.PathLike[str] | IO[bytes] | bytes) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed JSON)`` for each non-blank line; raises on a line that is not JSON."""
    source = Source(src)
    for number, raw in source.lines():
        try:
            yield number, orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reason = raw.reason if isinstance(raw, BadLine) else str(exc)
            raise StreamFormatError(source.display, f"not JSON Lines: {reason}", line=number) from None


def read_records(src: str | os.PathLike[str] | IO[bytes] | bytes) -> Iterator[dict[str, Any]]:
    """The records of a stream as plain dicts, streamed."""
    for number, value in iter_lines(src):
        if not isinstance(value, dict):
            raise StreamFormatError(None, "a record must be a JSON object", line=number)
        yield value


def read_models(src: str | os.PathLike[str] | IO[bytes] | bytes) -> Iterator[Envelope]:
    """The records of a stream as pydantic models (unknown types and fields kept)."""
    from ..model.api import to_model

    for record in read_records(src):
        yield to_model(record)
