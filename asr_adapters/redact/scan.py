"""One string in, the same string with its secrets replaced by placeholders out.

Besides the secrets written as they are, a string is searched for the three disguises a
session gives them: a token a terminal or an editor wrapped across a line break, a secret
inside a base64 run (a Kubernetes secret, a ``base64 .env`` the agent printed), and a secret
inside JSON held in a string (raw tool arguments), where its quotes and newlines are escaped.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections import Counter
from collections.abc import Callable

import orjson

from .detectors import Detector, Hit
from .placeholder import HASH_CHARS as _HASH_CHARS

_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}")
_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*")
_JSON_START = ("{", "[")
#: a decoded base64 run is scanned only when it reads as text
_PRINTABLE = re.compile(rb"[\t\n\r\x20-\x7e]*")


class Scanner:
    """Replaces secrets in strings, counting what it replaced by kind (``counts``, reset by the
    caller for each record). ``key`` keys the placeholders' hash: one run, one key, so the same
    secret gives the same placeholder everywhere in the run and nowhere else."""

    def __init__(self, detector: Detector, key: bytes) -> None:
        self.detector = detector
        self.key = key
        self.counts: Counter[str] = Counter()
        self._placeholders: dict[tuple[str, str], str] = {}

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
        if text[:1] in _JSON_START or text[:2].lstrip()[:1] in _JSON_START:
            text = self._json_string(text)
        hits = self.detector.find(text)
        hits += self._split_hits(text, hits)
        hits += self._base64_hits(text, hits)
        if not hits:
            return text
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
        """Tokens broken by a line break (and the indentation around it): searched in the text
        with its breaks taken out, kept when they span a break, mapped back to the original."""
        if "\n" not in text:
            return []
        pieces: list[str] = []
        starts: list[int] = []  # for each piece: its offset in text and in the joined text
        joined_at: list[int] = []
        at = 0
        length = 0
        for match in _BREAK.finditer(text):
            pieces.append(text[at : match.start()])
            starts.append(at)
            joined_at.append(length)
            length += match.start() - at
            at = match.end()
        pieces.append(text[at:])
        starts.append(at)
        joined_at.append(length)
        joined = "".join(pieces)
        hits = []
        for hit in self.detector.find(joined, joinable_only=True):
            first = _piece(joined_at, hit.start)
            last = _piece(joined_at, hit.end - 1)
            if first == last:
                continue  # inside one line: found (or not) by the direct search
            start = starts[first] + hit.start - joined_at[first]
            end = starts[last] + hit.end - joined_at[last]
            if not _overlaps(found, start, end):
                hits.append(Hit(start, end, hit.kind, hit.secret))
        return hits

    def _base64_hits(self, text: str, found: list[Hit]) -> list[Hit]:
        """A base64 run whose decoded text holds a secret: the whole run is replaced (keyed on
        the secret, so it reads as the same placeholder as the secret written plainly)."""
        hits = []
        for match in _BASE64_RUN.finditer(text):
            run = match.group()
            decoded = _decoded(run)
            if decoded is None:
                continue
            inner = self.detector.find(decoded)
            if inner and not _overlaps(found, match.start(), match.end()):
                hits.append(Hit(match.start(), match.end(), inner[0].kind, inner[0].secret))
                self.counts.update(h.kind for h in inner[1:])
        return hits

    def _json_string(self, text: str) -> str:
        """JSON held in a string (raw tool arguments): secrets found in its decoded strings
        are replaced where they stand in the raw text, in their escaped spelling."""
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
        if not isinstance(value, (dict, list)):
            return text
        secrets: list[tuple[str, str]] = []
        _strings(value, lambda s: secrets.extend((h.kind, h.secret) for h in self._inner_hits(s)))
        for kind, secret in secrets:
            placeholder = self.placeholder(kind, secret)
            for spelling in {orjson.dumps(secret).decode()[1:-1], _ascii_json(secret)}:
                if spelling and spelling in text:
                    self.counts[kind] += text.count(spelling)
                    text = text.replace(spelling, placeholder)
        return text

    def _inner_hits(self, value: str) -> list[Hit]:
        hits = self.detector.find(value)
        return hits + self._split_hits(value, hits) + self._base64_hits_as_secrets(value, hits)

    def _base64_hits_as_secrets(self, value: str, found: list[Hit]) -> list[Hit]:
        hits = []
        for match in _BASE64_RUN.finditer(value):
            decoded = _decoded(match.group())
            if decoded is not None and self.detector.find(decoded) and not _overlaps(found, *match.span()):
                inner = self.detector.find(decoded)[0]
                hits.append(Hit(match.start(), match.end(), inner.kind, match.group()))
        # a joined or base64 secret is replaced by its spelling in the raw text
        return [Hit(h.start, h.end, h.kind, value[h.start : h.end]) for h in hits]


def _piece(offsets: list[int], position: int) -> int:
    low, high = 0, len(offsets) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if offsets[middle] <= position:
            low = middle
        else:
            high = middle - 1
    return low


def _overlaps(hits: list[Hit], start: int, end: int) -> bool:
    return any(h.start < end and start < h.end for h in hits)


def _decoded(run: str) -> str | None:
    stripped = run.rstrip("=")
    if len(stripped) % 4 == 1:
        return None
    padded = stripped + "=" * (-len(stripped) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_" if ("-" in run or "_" in run) else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 12 or _PRINTABLE.fullmatch(raw) is None:
        return None
    return raw.decode("ascii")


def _ascii_json(value: str) -> str:
    import json

    return json.dumps(value)[1:-1]


def _strings(value: object, visit: Callable[[str], None]) -> None:
    if isinstance(value, str):
        visit(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, visit)
    elif isinstance(value, list):
        for item in value:
            _strings(item, visit)
