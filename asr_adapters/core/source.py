"""Native inputs: a path, bytes or a binary file object, read as a stream.

Discovery (which files exist) lives elsewhere; this module only opens one input, undoes
zstd compression, and hands out its first bytes for sniffing and its lines one at a time,
so memory stays bounded by the longest line, not the file.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
SQLITE_MAGIC = b"SQLite format 3\x00"
HEAD_SIZE = 8192


class _Prefixed(io.RawIOBase):
    """A raw stream that replays bytes already read from a non-seekable stream."""

    def __init__(self, prefix: bytes, rest: IO[bytes]) -> None:
        self._prefix = memoryview(prefix)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._rest.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n


class Source:
    """One native input. ``name`` is a base name only (never a full path, profile §4)."""

    def __init__(self, obj: str | os.PathLike[str] | bytes | IO[bytes], name: str | None = None) -> None:
        self.path: Path | None = None
        self._bytes: bytes | None = None
        self._file: IO[bytes] | None = None
        self._head: bytes | None = None
        if isinstance(obj, bytes | bytearray):
            self._bytes = bytes(obj)
        elif isinstance(obj, str | os.PathLike):
            self.path = Path(obj)
        elif hasattr(obj, "read"):
            self._file = obj
        else:
            raise TypeError(f"cannot read a session from {type(obj).__name__}")
        if name is None:
            if self.path is not None:
                name = self.path.name
            else:
                name = os.path.basename(str(getattr(obj, "name", "") or "")) or "<input>"
        self.name = name

    @property
    def display(self) -> str:
        """How errors name this input."""
        return str(self.path) if self.path is not None else self.name

    def raw_head(self, size: int = HEAD_SIZE) -> bytes:
        """The first bytes as stored (compressed or not)."""
        if self.path is not None:
            with open(self.path, "rb") as handle:
                return handle.read(size)
        if self._bytes is not None:
            return self._bytes[:size]
        if self._head is None:
            self._head = b""
        if len(self._head) < size and self._file is not None:
            # A non-seekable stream: keep what was read so ``open`` can replay it.
            self._head += self._file.read(max(size, HEAD_SIZE) - len(self._head))
        return self._head[:size]

    @property
    def compressed(self) -> bool:
        return self.raw_head(4) == ZSTD_MAGIC

    @property
    def is_sqlite(self) -> bool:
        return self.raw_head(16) == SQLITE_MAGIC

    def head(self, size: int = HEAD_SIZE) -> bytes:
        """The first ``size`` bytes of the content (decompressed), for sniffing."""
        if not self.compressed:
            return self.raw_head(size)
        with self.open() as stream:
            return stream.read(size)

    def open(self) -> BinaryIO:
        """A buffered binary stream over the content, decompressed when it is zstd."""
        raw: IO[bytes]
        if self.path is not None:
            raw = open(self.path, "rb")  # noqa: SIM115 - returned to the caller
        elif self._bytes is not None:
            raw = io.BytesIO(self._bytes)
        else:
            assert self._file is not None
            self.raw_head()
            raw = io.BufferedReader(_Prefixed(self._head or b"", self._file), 1 << 16)
            self._file = None  # a file object can be read once
        if self.compressed_stream_check(raw):
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
            return io.BufferedReader(reader, 1 << 16)
        return raw

    def compressed_stream_check(self, raw: IO[bytes]) -> bool:
        if self.path is not None or self._bytes is not None:
            return self.compressed
        return (self._head or b"")[:4] == ZSTD_MAGIC

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """Non-blank lines with their 1-based line numbers, newline removed."""
        with self.open() as stream:
            number = 0
            for line in stream:
                number += 1
                if line.endswith(b"\n"):
                    line = line[:-1]
                    if line.endswith(b"\r"):
                        line = line[:-1]
                if not line or line.isspace():
                    continue
                yield number, line

    def read_all(self) -> bytes:
        """The whole content, for the formats that are one JSON document."""
        with self.open() as stream:
            return stream.read()
