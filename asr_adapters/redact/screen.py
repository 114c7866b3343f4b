"""Which records can hold no secret, from one search over the record's JSON text.

Most records of a session hold no secret, and walking them string by string costs more than
the searches themselves (Python work per string). ``Screen.clear`` serializes the record once
(orjson) and asks, of that one text, every question the per-string scan would ask first: does
a kind's telltale substring occur (``Detector.may_hold``), also once line breaks and the
indentation after them are taken out (where a wrapped token is joined), does a base64 run
decode to text holding a secret, is a string JSON (decoded and searched inside), is there a
pattern with no telltale at all. Only a record with a yes to one of them is walked.

The JSON text holds every string the walk scans, escaped: ``"`` and ``\\`` get a backslash,
control characters become ``\\n``, ``\\t``, ``\\u001f`` and the like, and nothing else changes
(orjson writes UTF-8 as it is). No telltale substring or probe regex holds a ``"``, a ``\\``
or a control character, so each one found in a string is found in its escaped spelling, and
the structure and opaque members the walk passes over only add searches. Where escaping
matters (an escape's letters run into a base64 run, a line break is spelled ``\\n``) the
screen reads the escaped spelling as the scan would read the string.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from .detectors import Detector
from .scan import decoded_text
from .walk import OPAQUE_MEMBERS, OPAQUE_TYPES

#: A line break and the indentation after it, escaped (``\r\n`` is ``\\r\\n``, a tab ``\\t``):
#: what the scan leaves out where it joins a wrapped token's lines.
_ESCAPED_BREAK = re.compile(r"\\(?:r\\)?n(?: |\\t)*")
#: A string that may be JSON: its first character, or the one after a first white-space
#: character (raw or escaped), is ``{`` or ``[`` (the scan then decodes it). A string opens
#: with a quote after ``:``, ``,``, ``[`` or ``{`` (a quote inside a string is ``\"``).
_JSON_STRING = re.compile(r'"(?<=[:,\[{]")(?:[^"\\]|\\[a-z]|\\u[0-9a-f]{4})?[\[{]')
_STRING_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
#: a string value of a member the walk never reads below the top level (signatures, ciphertext)
_OPAQUE_VALUE = re.compile(r'([{,])"(?:' + "|".join(sorted(OPAQUE_MEMBERS)) + r')":"[^"\\]*(?:\\.[^"\\]*)*"')
#: what every opaque member's key, followed by a string, ends with
_OPAQUE_TELLTALES = ('ignature":"', 'ncrypted_content":"', 'ncryptedContent":"', 'opaque":"')
#: Where a base64 run (scan._BASE64_RUN) that may decode to text begins: after a character
#: that is in no run, or after an escape's backslash (then the run may start past its letters:
#: group "tail"). Only a run with both cases is decoded by the scan (a run with no letter
#: decodes to bytes over 0xd0), and printable bytes (under 0x80) make the first two
#: characters of every group of four fall in these classes; the first six groups are tested.
_BASE64_START = re.compile(
    r"(?:\\(?P<tail>[bfnrt]|u[0-9a-f]{4})|[^A-Za-z0-9+/_-])"
    r"(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])"
    r"(?:[A-Za-f][A-HQ-Xg-nw-z0-3][A-Za-z0-9+/_-]{2}){6}"
)
_BASE64_REST = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")


class Screen:
    """``clear(value)``: True when the scan of every string in ``value`` (a record's member)
    would find nothing, so it can be passed on as it is."""

    def __init__(self, detector: Detector, drop_opaque: bool = False) -> None:
        self.detector = detector
        self._everything = detector.scans_everything
        self._opaque_names = tuple(f'"{name}"' for name in (*OPAQUE_MEMBERS, *OPAQUE_TYPES)) if drop_opaque else ()

    def clear_record(self, record: dict[str, Any]) -> bool:
        """``clear`` for a whole record (one search for the many that hold nothing)."""
        return self.clear(record, skip_opaque=not record.keys() & OPAQUE_MEMBERS)

    def clear(self, value: Any, *, skip_opaque: bool = True) -> bool:
        """``skip_opaque``: opaque members' strings are left out of the search (the walk never
        reads them in a value, but reads a record's own members of those names)."""
        if self._everything:
            return False
        try:  # in a list: a string's opening quote then follows "[", as every other's does
            text = orjson.dumps([value]).decode()
        except (TypeError, orjson.JSONEncodeError):  # a value JSON cannot hold: walk it
            return False
        if any(name in text for name in self._opaque_names):
            return False  # something may be dropped
        if skip_opaque and any(name in text for name in _OPAQUE_TELLTALES):
            text = _OPAQUE_VALUE.sub(r"\1", text)  # a member's: the walk never reads them
        if _JSON_STRING.search(text) and self._holds_json(text):
            return False
        joined = _ESCAPED_BREAK.sub("", text) if "\\n" in text else text
        if self.detector.may_hold(joined):
            return False
        return not self._base64_holds(text)

    @staticmethod
    def _holds_json(text: str) -> bool:
        """Whether a string that opens like JSON is JSON (an object or an array: the scan
        decodes it and searches inside; anything else it reads as plain text)."""
        for match in _JSON_STRING.finditer(text):
            literal = _STRING_LITERAL.match(text, match.start())
            if literal is None:
                return True
            try:
                value = orjson.loads(orjson.loads(literal.group()))
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, (dict, list)):
                return True
        return False

    def _base64_holds(self, text: str) -> bool:
        """Whether a base64 run, as the scan would cut it from its string, decodes to text
        that holds a secret."""
        find = self.detector.find
        rest = _BASE64_REST.match
        for match in _BASE64_START.finditer(text):
            tail_of_run = rest(text, match.end())  # always matches (empty text too)
            end = tail_of_run.end() if tail_of_run is not None else match.end()
            tail = match.start("tail")
            runs = [text[tail:end], text[match.end("tail") : end]] if tail >= 0 else [text[match.start() + 1 : end]]
            for candidate in runs:
                if len(candidate) < 24 or candidate.islower() or candidate.isupper():
                    continue
                decoded = decoded_text(candidate)
                if decoded is not None and find(decoded):
                    return True
        return False
