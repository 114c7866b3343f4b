"""Reading a stream file for the validator: JSON Lines framing, with convert's limits.

One loop (``read_lines``) reads every stream a command checks: ``asr validate``, and ``asr show``
and ``asr export`` (``checked.py``), so the three agree on what is wrong with a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..core import source as core_source
from ..core.errors import InputError
from ..core.nesting import MAX_NESTING, deeper_than, too_deep_reason
from ..core.source import BadLine, Source
from .limits import summarized
from .stream import Finding, StreamValidator

_BOM = b"\xef\xbb\xbf"


def validate(src: str | os.PathLike[str] | IO[bytes] | bytes) -> list[Finding]:
    """Validate one ASR stream: a path, a binary file object or bytes (zstd is undone).

    A file that is not JSON Lines, or cannot be read, gives one finding, never an exception.
    """
    try:
        source = Source(src)
    except InputError as exc:  # a missing path, a folder, a closed file: one finding
        return [Finding("PROFILE-jsonl", None, None, f"cannot read: {exc.reason}", exc.file)]
    validator = StreamValidator(source.display)
    _read(source, validator)
    return summarized(validator.finish(), source.display)


_BLOCK = 1 << 17  # bytes per read: small enough to stay in cache


def _blocks(stream: IO[bytes], validator: StreamValidator, display: str) -> Iterator[tuple[list[bytes], bool, bool]]:
    """Lines a block at a time, newlines removed; whether they all ended in a newline, and whether any in CRLF.

    Only the last block can hold a line without one: the tail of a file that does not end in ``\\n``.
    A line longer than convert's limit (``MAX_LINE_BYTES``) ends the reading: it comes as a
    ``BadLine`` (empty bytes with the reason), so ``/dev/zero`` or a sparse file of NULs costs the
    limit, not its size, and never runs forever.
    """
    limit = core_source.MAX_LINE_BYTES
    partial: list[bytes] = []
    size = 0  # bytes of the line begun in earlier blocks
    while True:
        try:
            block = stream.read(_BLOCK)
        except Exception as exc:  # a read error, a broken zstd frame, a decompression bomb
            reason = exc.reason if isinstance(exc, InputError) else str(exc) or type(exc).__name__
            validator.findings.append(Finding("PROFILE-jsonl", None, None, f"cannot read: {reason}", display))
            validator.unreadable = validator.count == 0
            return
        if not block:
            break
        lines = block.split(b"\n")
        if len(lines) == 1:
            size += len(block)
            if size > limit:  # reading stops here: /dev/zero or a sparse file never end a line
                yield [_too_long(limit)], False, False
                return
            partial.append(block)
            continue
        if size + len(lines[0]) > limit:
            yield [_too_long(limit)], False, False
            return
        if partial:
            partial.append(lines[0])
            lines[0] = b"".join(partial)
        partial, size = [], 0
        tail = lines.pop()
        if tail:
            partial.append(tail)
            size = len(tail)
        yield lines, True, b"\r" in block or lines[0].endswith(b"\r")
    if partial:
        yield [b"".join(partial)], False, False


def _too_long(limit: int) -> BadLine:
    return BadLine(f"a line longer than the {limit}-byte limit; the rest of the stream was not read")


class Unreadable:
    """A line of a stream that is not JSON (``read_lines`` has already recorded its finding)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def read_lines(source: Source, validator: StreamValidator) -> Iterator[tuple[int, Any]]:
    """``(line number, JSON value)`` for each line of a stream, in order, recording in
    ``validator.findings`` what is wrong with the file's lines as it meets it (not JSON, a byte
    order mark, a blank line, CRLF, no newline at the end, over-long, nested past ``MAX_NESTING``);
    a line that is not JSON comes as an ``Unreadable``. The caller adds each value to the
    validator (``validate``), or also shows it (``asr show``, ``checked.CheckedStream``)."""
    display = source.display
    loads = orjson.loads
    number = 0
    crlf = blank = 0
    try:
        stream = source.open()
    except Exception as exc:  # any failure to open is a finding
        validator.findings.append(Finding("PROFILE-jsonl", None, None, f"cannot read: {exc}", display))
        validator.unreadable = True
        return
    with stream:
        first = True
        ended = True
        for lines, complete, cr in _blocks(stream, validator, display):
            ended = complete
            if first:
                first = False
                if lines[0].startswith(_BOM):
                    validator.findings.append(
                        Finding("PROFILE-jsonl", None, 1, "the stream starts with a byte order mark", display)
                    )
                    lines[0] = lines[0][3:]
            if cr and not crlf:
                for index, raw in enumerate(lines):
                    if raw.endswith(b"\r"):
                        crlf = number + index + 1
                        break
            for raw in lines:
                number += 1
                if not raw:
                    if raw.__class__ is BadLine:  # over-long: never held, the last line read (``_blocks``)
                        prefix = "not an ASR JSON Lines stream: " if validator.count == 0 else ""
                        validator.findings.append(Finding("PROFILE-jsonl", None, number, prefix + raw.reason, display))
                        validator.unreadable = validator.count == 0
                        if not validator.unreadable:
                            yield number, Unreadable(raw.reason)
                        return
                    blank = blank or number
                    continue
                try:
                    value = loads(raw)
                except orjson.JSONDecodeError as exc:
                    if raw.isspace():
                        blank = blank or number
                        continue
                    if validator.count == 0:
                        validator.findings.append(
                            Finding("PROFILE-jsonl", None, number, f"not an ASR JSON Lines stream: {exc}", display)
                        )
                        validator.unreadable = True
                        return
                    reason = f"not a JSON line: {exc}"
                    validator.findings.append(Finding("PROFILE-jsonl", None, number, reason, display))
                    yield number, Unreadable(reason)
                    continue
                if value.__class__ is not dict and validator.count == 0:
                    validator.findings.append(
                        Finding(
                            "PROFILE-jsonl",
                            None,
                            number,
                            f"not an ASR JSON Lines stream: line {number} is a JSON {type(value).__name__},"
                            " not an object",
                            display,
                        )
                    )
                    validator.unreadable = True
                    return
                if deeper_than(raw, value, MAX_NESTING):  # the one limit of every command (core/nesting)
                    message = f"the record is {too_deep_reason(MAX_NESTING)}"
                    validator.findings.append(Finding("PROFILE-nesting", validator.count + 1, number, message, display))
                yield number, value
    findings = validator.findings
    if number == 0 and not findings:
        problem = _compression_problem(source)
        if problem is not None:
            findings.append(Finding("PROFILE-jsonl", None, None, f"cannot read: {problem}", display))
            validator.unreadable = True
            return
    if crlf:
        findings.append(Finding("PROFILE-jsonl", None, crlf, "lines end in \\r\\n; a record ends in \\n", display))
    if blank:
        findings.append(Finding("PROFILE-jsonl", None, blank, "a blank line; every line is one record", display))
    if not ended:
        findings.append(Finding("PROFILE-jsonl", None, number, "the last record has no \\n after it", display))


def _read(source: Source, validator: StreamValidator) -> None:
    add = validator.add
    for number, value in read_lines(source, validator):
        if value.__class__ is not Unreadable:
            add(value, number)


def _compression_problem(source: Source) -> str | None:
    """Why a zstd input gave no bytes, when it is broken (the stream reader can report plain EOF)."""
    try:
        if not source.compressed:
            return None
        import zstandard

        zstandard.ZstdDecompressor().decompressobj().decompress(source.raw_head(1 << 16))
    except Exception as exc:  # a broken frame, an unreadable file
        return str(exc) or type(exc).__name__
    return None
