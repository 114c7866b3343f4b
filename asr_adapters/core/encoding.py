"""Text that is not UTF-8 with LF line ends (UTF-16 or UTF-32 from a Windows tool, old Mac CR
line ends): recognised from an input's first bytes (``text_form``) and read as UTF-8 with LF
line ends (``Recoded``), so every reader sees one form."""

from __future__ import annotations

import codecs
import io
from typing import IO

#: Byte order marks of the UTF-16 and UTF-32 text a Windows tool may write (UTF-32 first: its
#: little-endian mark starts with UTF-16's).
_WIDE_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
#: Bytes decoded at a time from UTF-16 or UTF-32 text.
_RECODE_CHUNK = 1 << 16
#: What ``Source.form`` names: text that is read as UTF-8 with LF line ends after recoding.
CR_ONLY = "CR line ends"


def text_form(head: bytes) -> str | None:
    """How ``head`` (the first bytes of a text input, decompressed) differs from UTF-8 with LF or
    CRLF line ends: a codec name (``utf-16``, ``utf-32`` with a byte order mark; ``utf-16-le``,
    ``utf-16-be`` for JSON written without one), ``CR_ONLY`` for old Mac line ends (CR alone), or
    None. JSON starts with ``{`` or ``[`` (or white space), so BOM-less UTF-16 shows as that
    character with a NUL beside it, and every other byte NUL."""
    for mark, codec in _WIDE_MARKS:
        if head.startswith(mark):
            return codec
    pairs = len(head[:512]) // 2
    if pairs >= 2:
        sample = head[: 2 * pairs]
        even, odd = sample[0::2], sample[1::2]
        if _wide_json(even, odd):
            return "utf-16-le"
        if _wide_json(odd, even):
            return "utf-16-be"
    cr = head.find(b"\r")
    if cr >= 0 and b"\n" not in head[: cr + 2] and cr + 1 < len(head):
        return CR_ONLY  # the first line ends in a CR not followed by LF
    return None


def _wide_json(low: bytes, high: bytes) -> bool:
    """Whether the low and high bytes of UTF-16 code units look like JSON: it starts with ``{``,
    ``[`` or white space, and nearly every character is below U+0100 (a few may not be: text)."""
    first = low[:1]
    starts = (first in (b"{", b"[") or first.isspace()) and high[:1] == b"\x00"
    return starts and high.count(0) * 10 >= len(high) * 9 and low.count(0) == 0


class Recoded(io.RawIOBase):
    """Text in another form read as UTF-8 with LF line ends: UTF-16 or UTF-32 decoded a piece at a
    time (a lone surrogate kept, so the line holding it is unreadable, not the file), or CR line
    ends turned into LF (a raw CR can only be white space inside JSON, so nothing else changes).
    Where wide text breaks off mid-character (a cut file), the dangling byte comes out as one
    invalid UTF-8 byte: the last line is then unreadable, as any cut line is."""

    def __init__(self, raw: IO[bytes], form: str) -> None:
        self._raw = raw
        self._cr = form == CR_ONLY
        self._decoder = None if self._cr else codecs.getincrementaldecoder(form)("surrogatepass")
        self._pending = memoryview(b"")
        self._carry_cr = False
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending and not self._done:
            self._pending = memoryview(self._next())
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _next(self) -> bytes:
        chunk = self._raw.read(_RECODE_CHUNK)
        final = not chunk
        if final:
            self._done = True
        if self._decoder is not None:
            try:
                text = self._decoder.decode(chunk, final)
            except UnicodeDecodeError:  # only at the end: a character cut in half
                return b"\xff"
            return text.encode("utf-8", "surrogatepass")
        if self._carry_cr:  # a CR that ended the last chunk: CRLF split across two reads
            chunk = b"\r" + chunk
            self._carry_cr = False
        if chunk.endswith(b"\r") and not final:
            chunk, self._carry_cr = chunk[:-1], True
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def close(self) -> None:
        self._raw.close()
        super().close()


def recode(data: bytes, form: str) -> bytes:
    """The start of a text input in ``form`` as UTF-8 with LF line ends (for sniffing)."""
    if form == CR_ONLY:
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    decoder = codecs.getincrementaldecoder(form)("surrogatepass")
    return decoder.decode(data, False).encode("utf-8", "surrogatepass")
