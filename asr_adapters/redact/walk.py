"""Which members of a record are scanned, which are left alone, and what a redacted record says.

Every string a record holds is scanned except its structure (ids, references, record and part
types, authors, origins, times, usage: docs/redaction.md lists them) and its opaque values
(ciphertext, signatures, binary data), which are never read as text (ASR-215, ASR-232) and
are kept, or dropped with ``drop_opaque``. A top-level field that had something replaced gets
``capture.<field> = {state: redacted, reason, count, kinds}``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..model.order import canonical_order
from .scan import Scanner

#: Top-level members never scanned: the record's structure, never a person's words
#: (``nativeUsage`` is scanned: it is the source's object verbatim; its numbers never change).
STRUCTURE = frozenset(
    {
        "type",
        "seq",
        "id",
        "ts",
        "tsPrecision",
        "turnId",
        "inferenceId",
        "capture",
        "idSource",
        "supersedes",
        "assembly",
        "usage",
        "opaqueInput",
        "compaction",
        "isError",
        "exitCode",
        "agent",
        "producer",
    }
)
#: Top-level members that are structure when they are a string (an id, a reference, a value
#: of a closed or namespaced vocabulary); an object under one of these names (a source's own
#: member of that name) is scanned like any other.
STRUCTURE_STRINGS = frozenset(
    {
        "session",
        "parent",
        "copiedFrom",
        "messageId",
        "callId",
        "planId",
        "requestId",
        "author",
        "origin",
        "role",
        "status",
        "phase",
        "audience",
        "model",
        "schema",
        "visibility",
        "planType",
        "summaryOf",
        "displayCorrespondence",
        "address",
    }
)
#: Members inside a value never scanned (a part's type and provenance, an entry's id, an actor's ids).
NESTED_STRUCTURE = frozenset(
    {
        "type",
        "author",
        "origin",
        "phase",
        "derivation",
        "mimeType",
        "visibility",
        "format",
        "entryId",
        "blockedBy",
        # the ids and references of actors (participants, conversations, senders, recipients):
        # their labels and names are scanned
        "participantId",
        "conversationId",
        "platformId",
        "participant",
        "conversation",
        "session",
        "address",
    }
)
#: Members that hold ciphertext, signatures or provider state, wherever they are (a vendor
#: record keeps the native item verbatim: Anthropic's ``signature``, OpenAI's
#: ``encrypted_content``, Gemini's ``thoughtSignature``).
OPAQUE_MEMBERS = frozenset(
    {"opaque", "signature", "encrypted_content", "encryptedContent", "thoughtSignature", "thought_signature"}
)
#: Part (or native block) types whose ``data`` is opaque or binary, never text.
_OPAQUE_TYPES = frozenset({"opaque", "redacted_thinking"})
_BINARY_TYPES = frozenset({"image", "audio", "base64"})


class RecordRedactor:
    """Redacts one record at a time, in place (the records of a conversion are fresh dicts)."""

    def __init__(self, scanner: Scanner, drop_opaque: bool = False) -> None:
        self.scanner = scanner
        self.drop_opaque = drop_opaque
        #: per record type, per kind: what was replaced
        self.by_type: dict[str, Counter[str]] = {}
        self.opaque_dropped = 0
        self.records = 0
        self.redacted_records = 0

    def redact(self, record: Any) -> Any:
        if record.__class__ is not dict:
            return record
        self.records += 1
        scanner = self.scanner
        changed: dict[str, Counter[str]] = {}
        dropped: dict[str, int] = {}
        counts: Counter[str] = Counter()  # a field's counts; a new one only after a field that had some
        for key in list(record):
            if key in STRUCTURE or (key in STRUCTURE_STRINGS and record[key].__class__ is str):
                continue
            scanner.counts = counts
            self._dropped = 0
            record[key] = self._value(record[key])
            if counts:
                changed[key] = counts
                counts = Counter()
            if self._dropped:
                dropped[key] = self._dropped
        if not changed and not dropped:
            return record
        kind = str(record.get("type", "?"))
        totals = self.by_type.setdefault(kind, Counter())
        for counts in changed.values():
            totals.update(counts)
        if changed:
            self.redacted_records += 1
        for field in sorted({*changed, *dropped}):
            _capture(record, field, changed.get(field, Counter()), dropped.get(field, 0))
        self.opaque_dropped += sum(dropped.values())
        return canonical_order(record)

    _dropped = 0

    def _value(self, value: Any) -> Any:
        cls = value.__class__
        if cls is str:
            return self.scanner.text(value)
        if cls is list:
            out = []
            for item in value:
                if self.drop_opaque and _is_opaque(item):
                    self._dropped += 1
                    continue
                out.append(self._value(item))
            return out
        if cls is dict:
            return self._object(value)
        return value

    def _object(self, value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type")
        if kind in _OPAQUE_TYPES:
            if self.drop_opaque and "data" in value:
                del value["data"]
                self._dropped += 1
            return value
        binary = kind in _BINARY_TYPES
        for key in list(value):
            if key in NESTED_STRUCTURE:
                continue
            if key in OPAQUE_MEMBERS or (binary and key == "data") or key == "blob":
                if self.drop_opaque and key in OPAQUE_MEMBERS:
                    del value[key]
                    self._dropped += 1
                continue
            value[key] = self._value(value[key])
        return value


def _is_opaque(item: Any) -> bool:
    return item.__class__ is dict and item.get("type") in _OPAQUE_TYPES


def _capture(record: dict[str, Any], field: str, counts: Counter[str], dropped: int) -> None:
    capture = record.get("capture")
    if not isinstance(capture, dict):
        capture = record["capture"] = {}
    count = sum(counts.values())
    kinds = sorted(counts)
    said = []
    if count:
        said.append(f"{count} secret(s) replaced by asr redact ({', '.join(kinds)})")
    if dropped:
        said.append(f"{dropped} opaque value(s) dropped by asr redact")
    reason = "; ".join(said)
    earlier = capture.get(field)
    entry: dict[str, Any] = {"state": "redacted", "reason": reason}
    if isinstance(earlier, dict):
        if earlier.get("state") == "redacted" and isinstance(earlier.get("count"), int):
            count += earlier["count"]
            kinds = sorted({*kinds, *(earlier.get("kinds") or [])})
            entry["reason"] = reason
        elif earlier.get("state"):
            before = earlier.get("reason")
            entry["reason"] = f"{reason}; before: {earlier['state']}" + (f" ({before})" if before else "")
    entry["count"] = count
    entry["kinds"] = kinds
    if dropped:
        entry["opaqueDropped"] = dropped
    capture[field] = entry
