"""One string in, the same string with its secrets replaced by placeholders out.

Besides the secrets written as they are, a string is searched for the three disguises a
session gives them: a token a terminal or an editor wrapped across a line break, a secret
inside a base64 run (a Kubernetes secret, a ``base64 .env`` the agent printed), and a secret
inside JSON held in a string (raw tool arguments), where its quotes and newlines are escaped.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import re
from collections import Counter

import orjson

from .base64_runs import decoded as _decoded
from .base64_runs import groups as _base64_groups
from .detectors import Detector, Hit
from .placeholder import HASH_CHARS as _HASH_CHARS
from .placeholder import PLACEHOLDER

#: a line break with a token character before it (a ``\r`` between them allowed) and, after
#: the next line's indentation, another: where a wrapped token may be (ordinary lines end in a
#: comma or a bracket); whether the run is 16 or more in all is asked of each (the lookbehinds
#: come after the ``\n`` so that the regex keeps its fast search for it)
_WRAPPED = re.compile(
    r"\n(?:(?<=[A-Za-z0-9+/=_.-]\n)|(?<=[A-Za-z0-9+/=_.-]\r\n))(?=[ \t]*(?P<right>[A-Za-z0-9+/=_.-]{1,400}))"
)
_TOKEN_STRING = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-."
_TOKEN_CHARS = frozenset(_TOKEN_STRING)
_INDENT = re.compile(r"[ \t]*")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_.-]+")
_JSON_START = ("{", "[")
#: a string token of JSON text (its content, and the colon that makes it a key); outside its
#: strings valid JSON holds no quote, so the tokens are found in order from the start
_JSON_TOKEN = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"(\s*:)?', re.DOTALL)
#: one escape of a JSON string (a low surrogate after a high one makes one character with it)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
_LOW_SURROGATE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
#: how much text each per-run cache (strings, wrapped-token windows) keeps, in characters
_SEEN_CHARS = 8_000_000


class Scanner:
    """Replaces secrets in strings, counting what it replaced by kind (``counts``, reset by the
    caller for each record). ``key`` keys the placeholders' hash: one run, one key, so the same
    secret gives the same placeholder everywhere in the run and nowhere else."""

    def __init__(self, detector: Detector, key: bytes) -> None:
        self.detector = detector
        self.key = key
        self.counts: Counter[str] = Counter()
        self._placeholders: dict[tuple[str, str], str] = {}
        #: each string's result and what it counted: a session repeats its strings (a working
        #: folder, a tool's input in its call and in the vendor record), and the scan of one
        #: is the same every time (the placeholders are keyed on the secret)
        self._seen: dict[str, tuple[str | None, Counter[str] | None]] = {}
        self._seen_chars = 0
        #: what the search of each wrapped-token window found: the windows of a listing of
        #: files (lines of paths) come again in every message that repeats it (Cline's
        #: environment details), in strings that differ elsewhere
        self._windows: dict[str, list[Hit]] = {}
        self._window_chars = 0

    def placeholder(self, kind: str, secret: str) -> str:
        known = self._placeholders.get((kind, secret))
        if known is None:
            digest = hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
            known = f"[REDACTED:{kind}:{digest[:_HASH_CHARS]}]"
            if len(self._placeholders) < 100_000:
                self._placeholders[(kind, secret)] = known
        return known

    def text(self, text: str) -> str:
        """``text`` with every secret found replaced (the same object when there is none)."""
        if len(text) < 8:
            return text
        known = self._seen.get(text)
        if known is not None:
            if known[1]:
                self.counts.update(known[1])
            return text if known[0] is None else known[0]
        outer = self.counts
        counted: Counter[str] = Counter()
        self.counts = counted
        try:
            result = self._scanned(text)
        finally:
            self.counts = outer
        if counted:
            outer.update(counted)
        if self._seen_chars < _SEEN_CHARS:
            self._seen_chars += len(text)
            self._seen[text] = (None if result is text else result, counted or None)
        return result

    def _scanned(self, text: str) -> str:
        is_json = False
        if text[:1] in _JSON_START or text[:2].lstrip()[:1] in _JSON_START:
            text, is_json = self._json_string(text)
        hits = self.detector.find(text)
        hits = _widened(hits, self._split_hits(text, hits))
        hits += self._base64_hits(text, hits)
        if hits and "[REDACTED:" in text:
            hits = _outside_placeholders(text, hits)
        if not hits:
            return text
        if is_json:  # what the raw text's own scan found keeps to whole characters of one string
            hits = _in_json_strings(text, hits)
        return self._replace(text, hits)

    def _replace(self, text: str, hits: list[Hit]) -> str:
        hits.sort(key=lambda h: h.start)
        out: list[str] = []
        at = 0
        for hit in hits:
            if hit.start < at:
                continue
            out.append(text[at : hit.start])
            out.append(self.placeholder(hit.kind, hit.secret))
            self.counts[hit.kind] += 1
            at = hit.end
        out.append(text[at:])
        return "".join(out)

    def _split_hits(self, text: str, found: list[Hit]) -> list[Hit]:
        """Tokens a terminal or an editor wrapped: at a line break inside a run of token
        characters 16 or more long, the line before it is joined with the next ones (their
        indentation left out; further lines while each is one unbroken run, four at most) and
        searched; a hit that starts on the first line and crosses its end is mapped back."""
        if "\n" not in text:
            return []
        hits: list[Hit] = []
        lines: dict[int, tuple[int, int, int, bool]] = {}  # a line met again by the next window
        for match in _WRAPPED.finditer(text):
            newline = match.start()
            end = newline - 1 if text[newline - 1] == "\r" else newline
            right = match.end("right") - match.start("right")
            if right < 15:  # the token characters before the break, 16 at most, make up the rest?
                before = text[end - 16 if end > 16 else 0 : end]
                if len(before) - len(before.rstrip(_TOKEN_STRING)) + right < 16:
                    continue
            start = text.rfind("\n", 0, end) + 1
            pieces = [(start, end)]
            at = newline + 1
            for _ in range(3):
                line = lines.get(at)
                if line is None:
                    line = lines[at] = _line_at(text, at)
                line_end, stop, begin, whole_run = line
                if begin >= stop or text[begin] not in _TOKEN_CHARS:
                    break
                pieces.append((begin, stop))
                if not whole_run or line_end >= len(text):
                    break
                at = line_end + 1
            if len(pieces) < 2:
                continue
            joined = "".join([text[a:b] for a, b in pieces])
            first = end - start
            found_there = self._windows.get(joined)
            if found_there is None:
                found_there = self.detector.find(joined, joinable_only=True)
                if self._window_chars < _SEEN_CHARS:
                    self._window_chars += len(joined)
                    self._windows[joined] = found_there
            for hit in found_there:
                if hit.start >= first or hit.end <= first:
                    continue  # not across the first break: the direct search's, or the next window's
                hits.append(Hit(start + hit.start, _mapped(pieces, hit.end), hit.kind, hit.secret))
        return hits

    def _base64_hits(self, text: str, found: list[Hit]) -> list[Hit]:
        """A base64 run whose decoded text holds a secret: the whole run is replaced (keyed on
        the secret, so it reads as the same placeholder as the secret written plainly). Runs
        on consecutive lines, each but the last a multiple of 4 long (``base64`` wraps at 76),
        are one run: decoded alone, a line would give only part of a secret it cuts."""
        hits = []
        for group in _base64_groups(text):
            if len(group) > 1:
                hit = self._base64_hit("".join(m.group() for m in group), group[0].start(), group[-1].end(), found)
                if hit is not None:
                    hits.append(hit)
                    continue
            for match in group:
                hit = self._base64_hit(match.group(), match.start(), match.end(), found)
                if hit is not None:
                    hits.append(hit)
        return hits

    def _base64_hit(self, run: str, start: int, end: int, found: list[Hit]) -> Hit | None:
        if run.islower() or run.isupper():  # a path, a word, a hex digest: not base64 of text
            return None
        decoded = _decoded(run)
        if decoded is None:
            return None
        inner = self.detector.find(decoded)
        if not inner or _overlaps(found, start, end):
            return None
        self.counts.update(h.kind for h in inner[1:])
        return Hit(start, end, inner[0].kind, inner[0].secret)

    def _json_string(self, text: str) -> tuple[str, bool]:
        """JSON held in a string (raw tool arguments): each string value is decoded and
        scanned, and a secret found in it is replaced where it stands in the raw text, in
        whatever spelling the raw text gives it (``\\u0067hp_…``, ``\\/``, ``\\u000a`` for a
        wrapped token's line break): the rest of the raw text is kept byte for byte, so the
        string stays the same JSON. Also says whether ``text`` is JSON."""
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text, False
        if not isinstance(value, (dict, list)):
            return text, False
        hits: list[Hit] = []
        for token in _JSON_TOKEN.finditer(text):
            if token.group(2):  # a key: structure, as a tool input's keys are
                continue
            raw = token.group(1)
            offset = token.start(1)
            if "\\" not in raw:
                hits.extend(Hit(offset + h.start, offset + h.end, h.kind, h.secret) for h in self._inner_hits(raw))
                continue
            found = self._inner_hits(_unescaped(text[token.start() : token.end(1) + 1]))
            if found:
                marks = _escape_marks(raw)
                hits.extend(
                    Hit(offset + _raw_offset(marks, h.start), offset + _raw_offset(marks, h.end), h.kind, h.secret)
                    for h in found
                )
        return (self._replace(text, hits) if hits else text), True

    def _inner_hits(self, value: str) -> list[Hit]:
        hits = _widened(self.detector.find(value), self._split_hits(value, []))
        hits += self._base64_hits(value, hits)
        return _outside_placeholders(value, hits) if hits and "[REDACTED:" in value else hits


def _widened(direct: list[Hit], split: list[Hit]) -> list[Hit]:
    """The direct hits, with each secret found across a line break in place of the direct hits
    it contains (its first line alone); a split hit that only partly overlaps one is dropped."""
    for hit in split:
        inside = [h for h in direct if hit.start <= h.start and h.end <= hit.end]
        if any(h.start < hit.end and hit.start < h.end for h in direct if h not in inside):
            continue
        direct = [h for h in direct if h not in inside] + [hit]
    return direct


def _line_at(text: str, at: int) -> tuple[int, int, int, bool]:
    """The line that begins at ``at``: where its break is, where it stops (before a ``\r``),
    where its indentation ends, and whether the rest is one run of token characters."""
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    stop = line_end - 1 if line_end > at and text[line_end - 1] == "\r" else line_end
    begin = _INDENT.match(text, at, stop).end()  # type: ignore[union-attr]  # matches empty text
    return line_end, stop, begin, _TOKEN_RUN.fullmatch(text, begin, stop) is not None


def _lines(text: str) -> list[tuple[int, int]]:
    """Each line's start and end (its ``\r\n`` or ``\n`` left out)."""
    lines = []
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            lines.append((start, len(text)))
            return lines
        lines.append((start, end - 1 if end > start and text[end - 1] == "\r" else end))
        start = end + 1


def _mapped(pieces: list[tuple[int, int]], position: int) -> int:
    """An end offset in the joined pieces as an offset in the text."""
    for start, end in pieces:
        if position <= end - start:
            return start + position
        position -= end - start
    return pieces[-1][1]


def _overlaps(hits: list[Hit], start: int, end: int) -> bool:
    return any(h.start < end and start < h.end for h in hits)


def _outside_placeholders(text: str, hits: list[Hit]) -> list[Hit]:
    """The hits that touch no placeholder already in ``text`` (a user's pattern can match
    the hex digits of its hash): a placeholder stays whole."""
    taken = [m.span() for m in PLACEHOLDER.finditer(text)]
    return [h for h in hits if not any(start < h.end and h.start < end for start, end in taken)]


def _in_json_strings(text: str, hits: list[Hit]) -> list[Hit]:
    """Hits the scan of JSON text found, each kept within the string it starts in and to
    whole characters of it: an escape it cuts (a value's pattern that ends on the backslash
    of ``\\"``) is left out of it, so the placeholder never breaks the JSON. A hit outside every
    string (a user's pattern over a number) is kept as it is."""
    contents = [(token.start(1), token.end(1)) for token in _JSON_TOKEN.finditer(text)]
    starts = [start for start, _end in contents]
    kept = []
    for hit in hits:
        at = bisect.bisect_right(starts, hit.start) - 1
        if at < 0 or hit.start >= contents[at][1]:
            kept.append(hit)
            continue
        first, last = contents[at]
        start = _whole(text, first, hit.start, forward=True)
        end = _whole(text, first, min(hit.end, last), forward=False)
        if start < end:
            kept.append(Hit(start, end, hit.kind, hit.secret))
    return kept


def _whole(text: str, first: int, position: int, *, forward: bool) -> int:
    """``position`` in a JSON string's raw content that starts at ``first``, moved off an
    escape it falls inside: to the escape's end (``forward``) or its start."""
    at = first
    while True:
        at = text.find("\\", at, position)
        if at < 0:
            return position
        end = at + (6 if text[at + 1 : at + 2] == "u" else 2)
        if end > position:
            return end if forward else at
        at = end


def _unescaped(token: str) -> str:
    """A JSON string token (quotes included) decoded; a lone surrogate escape, which orjson
    refuses, as Python's ``json`` reads it."""
    try:
        decoded = orjson.loads(token)
    except orjson.JSONDecodeError:
        import json

        decoded = json.loads(token)
    return str(decoded)


def _escape_marks(raw: str) -> tuple[list[int], list[int]]:
    """Where each escape of a JSON string's raw content ends, as (decoded offsets, raw
    offsets): between two marks the text is literal, one character for one."""
    decoded_at, raw_at = [0], [0]
    d = r = 0
    skip_to = -1
    for match in _ESCAPE.finditer(raw):
        if match.start() < skip_to:  # the low half of a surrogate pair already taken
            continue
        end = match.end()
        code = match.group(1)
        if code is not None and 0xD800 <= int(code, 16) <= 0xDBFF:
            low = _LOW_SURROGATE.match(raw, end)
            if low is not None:
                end = skip_to = low.end()
        d += match.start() - r + 1
        r = end
        decoded_at.append(d)
        raw_at.append(r)
    return decoded_at, raw_at


def _raw_offset(marks: tuple[list[int], list[int]], position: int) -> int:
    """An offset in a JSON string's decoded text as an offset in its raw content."""
    decoded_at, raw_at = marks
    at = bisect.bisect_right(decoded_at, position) - 1
    return raw_at[at] + position - decoded_at[at]
