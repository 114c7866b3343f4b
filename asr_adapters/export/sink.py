"""Export documents are written as UTF-8 bytes (orjson's output) straight into the text stream's
binary buffer when it has one: decoding each piece to ``str`` for a text stream to encode it
back cost about a tenth of the ATIF writer's time."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, Any

#: Where document bytes go.
Write = Callable[[bytes], Any]


def byte_writer(out: IO[str]) -> Write:
    """A function writing UTF-8 bytes to ``out``: into its buffer when ``out`` is a UTF-8
    ``TextIOWrapper`` (flushed first, so earlier text stays in front), else decoded to text.
    Text written to ``out`` later still follows: the wrapper flushes into the same buffer."""
    if isinstance(out, io.TextIOWrapper) and out.encoding.lower().replace("-", "").replace("_", "") == "utf8":
        out.flush()
        return out.buffer.write
    return lambda data: out.write(data.decode())
