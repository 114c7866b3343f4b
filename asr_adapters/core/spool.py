"""Records that must wait, kept in order on disk instead of in memory.

An adapter sometimes writes a record whose content may still change (a response's usage
that a later line of the same response raises), so the records after it cannot be handed
out yet. How long that lasts is the source's business (parallel tool calls, a subagent's
progress lines), so the waiting records go, past a few in memory, to a private temporary
file: memory stays bounded by the largest record, not by how long the wait lasts. Records
are written as the stream writer writes them and read back as JSON; reading never runs code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..stream.writer import dumps


class RecordSpool:
    """An append-only queue of records on a temporary file, read back once, in order."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self.count = 0

    def append(self, record: dict[str, Any]) -> None:
        if self._file is None:
            import tempfile  # on the first record that waits: most conversions never need one

            self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by drain/close
        self._file.write(dumps(record))
        self.count += 1

    def drain(self) -> Iterator[dict[str, Any]]:
        """Every record appended, in order. The spool is empty at once (appends after this
        start a new file); the records are read back as the iterator is consumed."""
        handle, self._file, self.count = self._file, None, 0
        return _read(handle) if handle is not None else iter(())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self.count = 0


def _read(handle: IO[bytes]) -> Iterator[dict[str, Any]]:
    with handle:
        handle.seek(0)
        for line in handle:
            yield _loads(line)


def _loads(line: bytes) -> dict[str, Any]:
    try:
        value: dict[str, Any] = orjson.loads(line)
    except orjson.JSONDecodeError:  # what orjson refused to write (deep nesting, big integers)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 5000))
        try:
            value = json.loads(line)
        finally:
            sys.setrecursionlimit(limit)
    return value
