# Whole, over 400 lines: Source is one input's life (open, sniff, decompress, recode, lines) over one shared state.
"""Native inputs: a path, bytes or a binary file object, read as a stream.

Discovery (which files exist) lives elsewhere; this module only opens one input, undoes
zstd or gzip compression (``compression``) and other text forms (``encoding``), and hands
out its first bytes for sniffing and its lines one at a time, so memory stays bounded by
the longest line, not the file, and a line longer than ``MAX_LINE_BYTES`` is skipped
without being held whole (docs/reliability.md).
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

# compression's names that callers import from here too (incremental, openclaw.store, tests)
from .compression import GZIP_MAGIC, ZSTD_MAGIC, ZstdRaw, decompressor
from .compression import MAX_ZSTD_RATIO as MAX_ZSTD_RATIO
from .compression import ZstdBomb as ZstdBomb
from .compression import decompress_zstd as decompress_zstd
from .compression import zstd_stream as zstd_stream
from .encoding import CR_ONLY, Recoded, recode, text_form
from .errors import InputError

SQLITE_MAGIC = b"SQLite format 3\x00"
#: A UTF-8 byte order mark: ignored at the start of any text input (editors on Windows write it).
UTF8_BOM = b"\xef\xbb\xbf"
HEAD_SIZE = 8192
#: A line longer than this is skipped (counted unreadable, reported), never held in memory.
MAX_LINE_BYTES = 256 << 20
#: How much ``Source.lines`` reads at a time.
LINE_BLOCK = 1 << 18
#: A single-document input (Gemini CLI ``.json``, Codex TS-era ``.json``) longer than this is refused.
MAX_DOCUMENT_BYTES = 256 << 20
#: How far a file with no line end in its first ``HEAD_SIZE`` bytes is read to find its first one.
_LINE_END_PROBE = 1 << 20
#: Compressed bytes of a once-readable stream kept for sniffing (more than a zstd block).
_STREAM_HEAD = 256 << 10


class BadLine(bytes):
    """Stands in for a line that could not be read at all (longer than the limit, or where
    compressed data breaks off). It never parses as JSON, so every reader counts it unreadable;
    ``reason`` says why, and ``Context.warn`` reports that reason."""

    reason: str

    def __new__(cls, reason: str) -> BadLine:
        line = super().__new__(cls, b"")
        line.reason = reason
        return line


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


class HeadLines:
    """The lines of an input's head that parse as JSON, for detection to score.

    ``values`` are the parsed values of the head's complete lines, in order; a line that does
    not parse (a garbage first line, a torn write) is left out and counted in ``unreadable``,
    so one bad line does not hide what follows it. The line the head cuts off is not read.
    """

    __slots__ = ("unreadable", "values")

    def __init__(self, values: list[Any], unreadable: int) -> None:
        self.values = values
        self.unreadable = unreadable

    @classmethod
    def of(cls, head: bytes) -> HeadLines:
        import orjson

        from .lenient import loads_with_lone_surrogates

        lines = head.split(b"\n")
        if len(head) >= HEAD_SIZE:
            lines.pop()  # cut off by the head's end (or empty after its last newline)
        values: list[Any] = []
        unreadable = 0
        for line in lines:
            line = line.strip()
            if not line:
                continue
            try:
                values.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                try:  # JavaScript's lone surrogate escapes (core.lenient): still the line's shape
                    values.append(loads_with_lone_surrogates(line))
                except (ValueError, RecursionError):
                    unreadable += 1
        return cls(values, unreadable)

    @property
    def objects(self) -> list[dict[str, Any]]:
        """The values that are JSON objects (every line a JSONL agent writes is one)."""
        return [value for value in self.values if type(value) is dict]

    def share(self, looks_right: Callable[[dict[str, Any]], bool]) -> float:
        """The share of the parsed lines for which ``looks_right`` holds (0 with none parsed):
        how much of the head looks like one agent's lines. A line that is not an object counts
        against it."""
        values = self.values
        if not values:
            return 0.0
        return sum(1 for value in values if type(value) is dict and _holds(looks_right, value)) / len(values)


def _holds(looks_right: Callable[[dict[str, Any]], bool], value: dict[str, Any]) -> bool:
    """``looks_right(value)``, False for a line whose names are arrays or objects (a sniff looks
    names up in sets: such a line is no agent's, never a crash of detection, issue 25.7)."""
    try:
        return looks_right(value)
    except TypeError:
        return False


def _regular(path: Path) -> bool:
    """Whether ``path`` is a regular file (read by path, as often as needed); False for a FIFO or
    a device (read once as a stream). A missing path or a folder is an ``InputError``."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise InputError(str(path), "no such file") from exc
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise InputError(str(path), "is a folder, not a session file (asr batch converts folders)")
    return stat.S_ISREG(mode)


def _name_of(obj: Any) -> str:
    return os.path.basename(str(getattr(obj, "name", "") or ""))


class Source:
    """One native input. ``name`` is a base name only (never a full path, profile §4)."""

    def __init__(self, obj: str | os.PathLike[str] | bytes | IO[bytes], name: str | None = None) -> None:
        self.path: Path | None = None
        self._bytes: bytes | None = None
        self._file: IO[bytes] | None = None
        self._head: bytes | None = None
        #: what ``raw_head`` and ``head`` read from a path or decompressed, kept for every later
        #: sniff: detection asks each adapter, and each looks at the same first bytes
        self._stored_head: bytes | None = None
        self._content_head: bytes | None = None
        self._head_lines: HeadLines | None = None
        self._stored_size = self._content_size = 0
        self._zstd: ZstdRaw | None = None
        #: Line numbers of the ``BadLine`` items handed out, with their reasons.
        self.bad_lines: dict[int, str] = {}
        self._named: str | None = None  # the path of a FIFO or device read as a stream
        self._form: tuple[str | None] | None = None  # ``form``, once looked at
        if isinstance(obj, bytes | bytearray):
            self._bytes = bytes(obj)
        elif isinstance(obj, str | os.PathLike):
            path = Path(obj)
            if _regular(path):
                self.path = path
            else:  # a FIFO, ``<(…)``, a device: readable once, like stdin
                self._named = str(path)
                try:
                    self._file = open(path, "rb")  # noqa: SIM115 - read to the end by ``open``
                except OSError as exc:
                    raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
                name = name or path.name
        elif hasattr(obj, "read"):
            if getattr(obj, "closed", False):
                raise InputError(_name_of(obj) or None, "the file object is closed")
            self._file = obj
        else:
            raise TypeError(f"cannot read a session from {type(obj).__name__}")
        if name is None:
            name = self.path.name if self.path is not None else _name_of(obj) or "<input>"
        self.name = name

    @property
    def display(self) -> str:
        """How errors name this input."""
        if self.path is not None:
            return str(self.path)
        return self._named or self.name

    def raw_head(self, size: int = HEAD_SIZE) -> bytes:
        """The first bytes as stored (compressed or not). A path is read once for every size up
        to the largest asked so far."""
        if self.path is not None:
            stored = self._stored_head
            if stored is None or (len(stored) < size and len(stored) == self._stored_size):
                self._stored_size = max(size, HEAD_SIZE)
                with open(self.path, "rb") as handle:
                    self._stored_head = stored = handle.read(self._stored_size)
            return stored[:size]
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
    def gzipped(self) -> bool:
        return self.raw_head(2) == GZIP_MAGIC

    @property
    def is_sqlite(self) -> bool:
        return self.raw_head(16) == SQLITE_MAGIC

    def head(self, size: int = HEAD_SIZE) -> bytes:
        """The first ``size`` bytes of the content (decompressed, a UTF-8 BOM left out, UTF-16 or
        UTF-32 decoded and CR line ends made LF: see ``form``), for sniffing; read (and
        decompressed) once for every size up to the largest asked so far."""
        form = self.form
        if form is not None:
            wide = 1 if form == CR_ONLY else 4
            return recode(self._content(size * wide + 4), form)[:size]
        head = self._content(size + len(UTF8_BOM))
        return (head[len(UTF8_BOM) :] if head.startswith(UTF8_BOM) else head)[:size]

    def _content(self, wanted: int) -> bytes:
        """The first ``wanted`` bytes of the content as ``_head_with_bom`` reads them, kept: every
        adapter's sniff and ``form`` look at the same first bytes."""
        head = self._content_head
        if head is None or (len(head) < wanted and len(head) == self._content_size):
            self._content_size = max(wanted, HEAD_SIZE + len(UTF8_BOM))
            self._content_head = head = self._head_with_bom(self._content_size)
        return head[:wanted]

    def head_lines(self) -> HeadLines:
        """The JSON values of the head's first lines (see ``HeadLines``), parsed once for every
        adapter's sniff."""
        if self._head_lines is None:
            self._head_lines = HeadLines.of(self.head())
        return self._head_lines

    @property
    def form(self) -> str | None:
        """How the text differs from UTF-8 with LF (or CRLF) line ends (``text_form``), or None:
        every reader (``head``, ``open``, ``lines``, ``read_all``) then sees it recoded, so
        detection and adapters read UTF-16, UTF-32 and CR-only files as any other."""
        if self._form is None:
            form = None
            if not self.is_sqlite:
                head = self._content(HEAD_SIZE)
                if b"\n" not in head and b"\r" not in head and len(head) == HEAD_SIZE:
                    head = self._content(_LINE_END_PROBE)  # a long first line: find its end
                form = text_form(head)
            self._form = (form,)
        return self._form[0]

    def _head_with_bom(self, size: int) -> bytes:
        if not self.compressed and not self.gzipped:
            return self.raw_head(size)
        if self.path is None and self._bytes is None:
            # A stream can be read once: decompress the first bytes kept for ``open`` to replay
            # (enough for zstd's largest block), leaving the stream itself unread.
            raw = self.raw_head(_STREAM_HEAD)
            reader = decompressor(raw, io.BytesIO(raw), self.display)
            with io.BufferedReader(reader) as stream:
                head = stream.read(size)
            self._zstd = reader if len(raw) < _STREAM_HEAD else None  # a problem only if it ended there
            return head
        with self._decompressed() as stream:
            return stream.read(size)

    def open(self) -> BinaryIO:
        """A buffered binary stream over the content, decompressed when it is zstd or gzip, and
        recoded when it is UTF-16, UTF-32 or has CR line ends (``form``)."""
        form = self.form
        stream = self._decompressed()
        if form is not None:
            return io.BufferedReader(Recoded(stream, form), 1 << 16)
        return stream

    def _decompressed(self) -> BinaryIO:
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
        self._zstd = None
        magic = self._magic()
        if magic.startswith((ZSTD_MAGIC, GZIP_MAGIC)):
            self._zstd = decompressor(magic, raw, self.display)
            return io.BufferedReader(self._zstd, 1 << 16)
        return raw

    def _magic(self) -> bytes:
        """The first bytes as stored, without reading a once-readable stream again."""
        if self.path is not None or self._bytes is not None:
            return self.raw_head(4)
        return (self._head or b"")[:4]

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """Non-blank lines with their 1-based line numbers, newline removed.

        Read in blocks and split on newlines (a ``readline`` per line cost about half of what
        parsing the line costs). A line longer than ``MAX_LINE_BYTES``, and the place where
        compressed data breaks off, come as a ``BadLine`` (never JSON, so readers count it
        unreadable); an over-long line is counted, not held."""
        limit = MAX_LINE_BYTES
        with self.open() as stream:
            zstd = self._zstd
            read = stream.read
            number = 0
            pending: list[bytes] = []  # the start of a line that runs past the block
            pending_size = 0
            skipping = False  # inside a line already known to be over-long
            first = True
            while block := read(LINE_BLOCK):
                if first:
                    first = False
                    if block.startswith(UTF8_BOM):
                        block = block[len(UTF8_BOM) :]
                pieces = block.split(b"\n")
                tail = pieces.pop()
                if pieces and (pending_size or skipping):  # the first piece ends a line begun earlier
                    number += 1
                    size = pending_size + len(pieces[0])
                    if skipping or size >= limit:
                        yield number, self._too_long(number, size + 1)  # with its newline
                    else:
                        pending.append(pieces[0])
                        line = b"".join(pending)
                        if line.endswith(b"\r"):
                            line = line[:-1]
                        if line and not line.isspace():
                            yield number, line
                    pending, pending_size, skipping = [], 0, False
                    del pieces[0]
                if len(block) < limit and b"\r" not in block:
                    # the common block: no line in it can be over-long or end in CR
                    for line in pieces:
                        number += 1
                        if line and (line[0] == 123 or not line.isspace()):  # 123: "{"
                            yield number, line
                    pieces = []
                for line in pieces:
                    number += 1
                    if len(line) >= limit:
                        yield number, self._too_long(number, len(line) + 1)
                        continue
                    if line.endswith(b"\r"):
                        line = line[:-1]
                    if line and not line.isspace():
                        yield number, line
                if tail:
                    pending_size += len(tail)
                    if skipping or pending_size >= limit:
                        skipping, pending = True, []
                    else:
                        pending.append(tail)
            if pending_size or skipping:  # a last line without its newline (a torn write)
                number += 1
                if skipping:
                    yield number, self._too_long(number, pending_size)
                else:
                    line = b"".join(pending)
                    if line.endswith(b"\r"):
                        line = line[:-1]
                    if line and not line.isspace():
                        yield number, line
            if zstd is not None and zstd.problem is not None:
                yield number + 1, self._bad(number + 1, f"{zstd.problem}; the rest of the input is lost")

    @property
    def compression_problem(self) -> str | None:
        """Why the compressed data read so far broke off (cut or corrupt), if it did."""
        return self._zstd.problem if self._zstd is not None else None

    def _too_long(self, number: int, size: int) -> BadLine:
        return self._bad(number, f"line of {size} bytes is longer than the {MAX_LINE_BYTES}-byte limit")

    def _bad(self, number: int, reason: str) -> BadLine:
        self.bad_lines[number] = reason
        return BadLine(reason)

    def read_all(self) -> bytes:
        """The whole content, for the formats that are one JSON document."""
        limit = MAX_DOCUMENT_BYTES
        with self.open() as stream:
            data = stream.read(limit + 1)
            zstd = self._zstd
        if len(data) > limit:
            raise InputError(self.display, f"longer than the {limit}-byte limit for a single JSON document")
        if zstd is not None and zstd.problem is not None:
            raise InputError(self.display, zstd.problem)
        return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data
