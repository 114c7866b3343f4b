"""zstd and gzip inputs decompressed a small step at a time, under a ratio and a size cap.

Where compressed data breaks off (a file cut while written) or is corrupt, reading ends there
and ``problem`` says why; data expanding past the caps raises ``ZstdBomb``. ``source.Source``
opens a compressed input through ``decompressor``; an OpenClaw ``event_zstd`` blob goes
through ``decompress_zstd``.
"""

from __future__ import annotations

import io
from typing import IO, Any, BinaryIO

from .errors import InputError

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
GZIP_MAGIC = b"\x1f\x8b"
#: Compressed bytes fed to zstd at a time: bounds what one step can expand to (an RLE block
#: turns 4 bytes into 128 KiB, so 1 KiB of input gives at most 32 MiB).
_ZSTD_CHUNK = 1024
#: A zstd input expanding more than this many times is refused as a decompression bomb, checked
#: once ``_RATIO_FLOOR`` bytes have come out (session logs compress about 5 to 50 times).
MAX_ZSTD_RATIO = 1000
_RATIO_FLOOR = 64 << 20
#: No zstd input is decompressed past this many bytes, whatever its ratio.
MAX_DECOMPRESSED_BYTES = 64 << 30


class ZstdBomb(InputError):
    """zstd data that expands past the ratio or size cap: refused, never decompressed further."""


class ZstdRaw(io.RawIOBase):
    """zstd frames decompressed a small step at a time. Where the data breaks off mid-frame (a
    file cut while written) or is corrupt, reading ends there and ``problem`` says why, instead of
    the silent end (cut) or the exception (corrupt) of ``zstandard``'s own stream reader. Data
    expanding past ``MAX_ZSTD_RATIO`` or ``limit`` raises ``ZstdBomb`` (one error for the input)."""

    _kind = "zstd"

    def __init__(self, raw: IO[bytes], name: str | None = None, limit: int = MAX_DECOMPRESSED_BYTES) -> None:
        import zstandard

        self._name = name
        self._limit = limit
        self._consumed = 0
        self._produced = 0
        self._raw = raw
        self._new: Any = zstandard.ZstdDecompressor().decompressobj
        self._error: type[Exception] = zstandard.ZstdError
        self._frame: Any = self._new()
        self._in_frame = False
        self._leftover = b""
        self._pending = memoryview(b"")
        self.problem: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            if self.problem is not None:
                return 0
            chunk = self._leftover or self._raw.read(_ZSTD_CHUNK)
            self._leftover = b""
            if not chunk:
                if self._in_frame:
                    self.problem = f"compressed data ends in the middle of a {self._kind} frame (the file was cut)"
                return 0
            try:
                out = self._frame.decompress(chunk)
            except self._error as exc:
                self.problem = f"corrupt {self._kind} data: {exc}"
                return 0
            self._consumed += len(chunk)
            self._produced += len(out)
            self._check_expansion()
            self._in_frame = True
            if self._frame.eof:
                self._leftover = self._frame.unused_data
                self._frame = self._new()
                self._in_frame = False
            self._pending = memoryview(out)
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _check_expansion(self) -> None:
        produced, consumed = self._produced, self._consumed
        if produced > self._limit:
            reason = f"{self._kind} data expands past the {self._limit}-byte limit"
        elif produced > _RATIO_FLOOR and produced > MAX_ZSTD_RATIO * consumed:
            reason = f"{self._kind} data expands more than {MAX_ZSTD_RATIO} times ({consumed} bytes gave {produced})"
        else:
            return
        self.problem = reason
        raise ZstdBomb(self._name, f"{reason}: a decompression bomb, refused")

    def close(self) -> None:
        self._raw.close()
        super().close()


class _GzipRaw(ZstdRaw):
    """gzip members decompressed a small step at a time under the same caps as zstd (ratio and
    size, ``ZstdBomb``); where the data breaks off or is corrupt, reading ends and ``problem``
    says why. Only the decompressor differs, so the loop and the caps are ``ZstdRaw``'s."""

    def __init__(self, raw: IO[bytes], name: str | None = None, limit: int = MAX_DECOMPRESSED_BYTES) -> None:
        import zlib

        super().__init__(raw, name, limit)
        self._kind = "gzip"
        self._new = lambda: _GzipMember(zlib.decompressobj(wbits=31))
        self._error = zlib.error
        self._frame = self._new()


class _GzipMember:
    """A zlib decompressor with the ``eof``/``unused_data`` surface ``ZstdRaw`` reads. Output per
    chunk needs no bound of its own: deflate cannot expand more than about 1032:1, so a 16 KiB
    chunk gives at most ~17 MB before the ratio cap is checked."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def eof(self) -> bool:
        return bool(self._inner.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._inner.unused_data)

    def decompress(self, chunk: bytes) -> bytes:
        return bytes(self._inner.decompress(chunk))


def decompressor(magic: bytes, raw: IO[bytes], name: str | None) -> ZstdRaw:
    return _GzipRaw(raw, name) if magic.startswith(GZIP_MAGIC) else ZstdRaw(raw, name)


def zstd_stream(raw: IO[bytes], name: str | None) -> BinaryIO:
    """A buffered stream decompressing ``raw`` under the ratio and size caps (``ZstdBomb``)."""
    return io.BufferedReader(ZstdRaw(raw, name), 1 << 16)


def decompress_zstd(data: bytes, limit: int) -> bytes:
    """One zstd blob (an OpenClaw ``event_zstd``), decompressed under the same caps as a file and
    ``limit`` bytes: raises ``ValueError`` with the reason when it is corrupt, cut or a bomb."""
    reader = ZstdRaw(io.BytesIO(data), limit=limit)
    pieces = []
    try:
        while piece := reader.read(1 << 20):
            pieces.append(piece)
    except ZstdBomb as exc:
        raise ValueError(exc.reason) from exc
    if reader.problem is not None:
        raise ValueError(reader.problem)
    return b"".join(pieces)
