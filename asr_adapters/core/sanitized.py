"""Content a sanitizer replaced before we read the file (docs/semantics.md, Redacted or
sanitized content).

Tools that publish session logs replace text, arguments, outputs and ciphertext by markers
such as ``[REDACTED_TEXT len=3642 sha=c1f3a045]`` (the shared Codex samples were cleaned this
way). A marker is not what the person, the model or the tool wrote, so a record never presents
it as content: a part, a reasoning summary segment, opaque data or raw arguments that is
nothing but a marker is taken out, and the field's capture state becomes ``redacted`` with
every marker kept in its reason (a marker's length and hash are all that is left of the
text, so none is dropped). A marker inside longer text stays where it is (the text around it
is real) and the field is ``redacted`` too. Every adapter's records pass through ``scrub``
(``Conversion``), so the rule holds whatever agent wrote the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model.order import canonical_order

PROBE = "[REDACTED"
MARKER = re.compile(r"\[REDACTED(?:_[A-Z0-9]+)+(?: len=\d+ sha=[0-9a-f]+)?\]")
_FIELDS = {
    "message": ("content", "displayContent"),
    "tool_result": ("content",),
    "plan": ("content",),
    "input_request": ("content", "answer"),
}


def scrub(records: Iterator[Any]) -> Iterator[Any]:
    """The records, each with any sanitizer marker turned into a ``redacted`` capture state
    (its keys put back in canonical order when ``capture`` was added)."""
    fields = _FIELDS
    for record in records:
        if record.__class__ is dict:
            kind = record.get("type")
            if (kind in fields or kind == "tool_call") and mark(record):
                record = canonical_order(record)
        yield record


def mark(record: dict[str, Any]) -> bool:
    """Take whole markers out of ``record``'s content (and a call's raw arguments) and say so
    in ``capture``; True when the record had a marker. A record with none is left as it is."""
    kind = record.get("type")
    if kind == "tool_call":
        found: list[str] = []
        arguments = record.get("arguments")
        if isinstance(arguments, str) and PROBE in arguments:
            found += MARKER.findall(arguments)
            if MARKER.fullmatch(arguments.strip()):
                del record["arguments"]
        value = record.get("input")
        if isinstance(value, dict):
            for item in value.values():
                if isinstance(item, str) and PROBE in item:
                    found += MARKER.findall(item)
        if found:
            _redacted(record, "input", found)
        return bool(found)
    changed = False
    for field in _FIELDS.get(kind, ()):  # type: ignore[arg-type]
        parts = record.get(field)
        if parts.__class__ is list and parts and _suspect(parts):
            found = []
            kept = [part for part in parts if not _marker_only(part, found)]
            if found:
                record[field] = kept
                _redacted(record, field, found)
                changed = True
    return changed


def _suspect(parts: list[Any]) -> bool:
    """Whether a part may hold a marker: text with the probe in it, or a part whose other
    members can (reasoning, opaque, image, audio). The common text-only record costs one
    substring search per part."""
    for part in parts:
        if part.__class__ is not dict:
            continue
        text = part.get("text")
        if text.__class__ is str and PROBE in text:
            return True
        kind = part.get("type")
        if kind != "text" and kind in _OTHER_HOLDERS:
            return True
    return False


_OTHER_HOLDERS = frozenset({"reasoning", "opaque", "image", "audio"})


def _marker_only(part: Any, found: list[str]) -> bool:
    """Whether ``part`` is nothing but a marker (then it is dropped); markers found in it, whole
    or inside other text, are added to ``found`` and whole ones taken out of a reasoning part."""
    if not isinstance(part, dict):
        return False
    text = part.get("text")
    if isinstance(text, str) and PROBE in text:
        found += MARKER.findall(text)
        if MARKER.fullmatch(text.strip()):
            if part.get("type") == "text":
                return True
            del part["text"]
    if part.get("type") == "reasoning":
        summary = part.get("summary")
        if isinstance(summary, list) and any(isinstance(s, str) and PROBE in s for s in summary):
            for segment in summary:
                if isinstance(segment, str):
                    found += MARKER.findall(segment)
            part["summary"] = [s for s in summary if not (isinstance(s, str) and MARKER.fullmatch(s.strip()))]
        opaque = part.get("opaque")
        if isinstance(opaque, dict) and isinstance(opaque.get("data"), str) and MARKER.fullmatch(opaque["data"]):
            found.append(opaque["data"])
            del part["opaque"]
    elif part.get("type") in ("opaque", "image", "audio"):
        data = part.get("data")
        if isinstance(data, str) and MARKER.fullmatch(data):
            found.append(data)
            if part["type"] == "opaque":
                return True
            del part["data"]  # an image keeps its media type; the capture state says why no bytes
    return False


def _redacted(record: dict[str, Any], field: str, markers: list[str]) -> None:
    reason = f"replaced by a sanitizer before conversion: {' '.join(markers)}"
    capture = record.get("capture")
    if not isinstance(capture, dict):
        capture = record["capture"] = {}
    earlier = capture.get(field)
    if isinstance(earlier, dict) and isinstance(earlier.get("reason"), str):
        reason = f"{reason}; {earlier['reason']}"
    capture[field] = {"state": "redacted", "reason": reason}
