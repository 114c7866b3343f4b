"""Base64 runs in a text, and the text one decodes to: where ``scan`` looks for a secret a
session printed encoded (a Kubernetes secret, ``base64 .env``)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")  # greedy: each match is a whole run
_BASE64_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
#: the UTF-8 of a text with its base64 characters made ``a`` and every other byte a space
_RUN_MARKS = bytes(0x61 if byte in _BASE64_BYTES else 0x20 for byte in range(256))
_RUN_NEEDLE = b"a" * 24
#: what may stand between two lines of one wrapped base64 run
_LINE_BREAK = re.compile(r"\r?\n[ \t]*")
#: a wrapped block's short last line: fewer characters than a run, then the line's end
_TAIL = re.compile(r"[A-Za-z0-9+/_-]{1,23}={0,2}(?=[ \t]*(?:\r?\n|\Z))")
#: a decoded base64 run is scanned only when it reads as text
PRINTABLE = re.compile(rb"[\t\n\r\x20-\x7e]*")
#: the characters that begin a group of four of the base64 of ASCII (values 0 to 31: the top
#: six bits of a byte under 0x80); paths and identifiers mostly fail it at once
_FIRST_OF_FOUR = re.compile(r"[A-Za-f]*")


def groups(text: str) -> list[list[re.Match[str]]]:
    """The base64 runs of ``text``, those that continue one another over a line break (the
    line before a multiple of 4 long, with no padding; the next one right after the break,
    indentation allowed) in one group, 1,000 lines at most. A group's last line may be shorter
    than a run (``base64`` ends a block with what is left: a token cut there would leave its
    tail encoded beside the placeholder)."""
    found: list[list[re.Match[str]]] = []
    for match in runs(text):
        if found and len(found[-1]) < 1000:
            last = found[-1][-1]
            if _continues(last) and _LINE_BREAK.fullmatch(text, last.end(), match.start()):
                found[-1].append(match)
                continue
        _with_tail(text, found)
        found.append([match])
    _with_tail(text, found)
    return found


def _continues(run: re.Match[str]) -> bool:
    """Whether a wrapped block may go on after this line: a multiple of 4 long, no padding."""
    line = run.group()
    return len(line) % 4 == 0 and line[-1] != "="


def _with_tail(text: str, found: list[list[re.Match[str]]]) -> None:
    """The last group with its short last line, when one follows it on the next line alone."""
    if not found or len(found[-1]) >= 1000 or not _continues(found[-1][-1]):
        return
    brk = _LINE_BREAK.match(text, found[-1][-1].end())
    if brk is None:
        return
    tail = _TAIL.match(text, brk.end())
    if tail is not None:
        found[-1].append(tail)


def runs(text: str) -> Iterator[re.Match[str]]:
    """``RUN.finditer(text)``, found faster: ``bytes.find`` of 24 marks in a row skips
    most of the text, where the regex tests every character. A run is ASCII, so each run of
    24 or more marks in the text's UTF-8 is one whole run of the text; in a text that is not
    ASCII it is found by its characters, from where the last one ended (the runs between
    are shorter, so the first place it stands is its own)."""
    data = text.encode("utf-8", "surrogatepass")
    marks = data.translate(_RUN_MARKS)
    ascii_text = len(data) == len(text)
    at = resume = 0
    while True:
        start = marks.find(_RUN_NEEDLE, at)
        if start < 0:
            return
        at = marks.find(b" ", start + 24)
        if at < 0:
            at = len(marks)
        if not ascii_text:
            start = text.find(data[start:at].decode("ascii"), resume)
        match = RUN.match(text, start)
        if match is None:  # cannot be: the regex takes the run and up to two "="
            return
        resume = match.end()
        yield match


def decoded(run: str) -> str | None:
    """The text a base64 run decodes to, when it is printable ASCII (12 bytes at least)."""
    stripped = run.rstrip("=")
    if len(stripped) % 4 == 1:
        return None
    if _FIRST_OF_FOUR.fullmatch(stripped[::4]) is None:
        return None  # a group's first character past f gives a first byte of 0x80 or more: not text
    padded = stripped + "=" * (-len(stripped) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_" if ("-" in run or "_" in run) else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 12 or PRINTABLE.fullmatch(raw) is None:
        return None
    return raw.decode("ascii")
