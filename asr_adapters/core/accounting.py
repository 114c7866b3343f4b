"""What became of every native item, and what went wrong where."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("records", "vendor", "folded", "duplicates", "unreadable")


@dataclass
class Diagnostic:
    """One problem in the input: file, line (when known) and reason."""

    file: str | None
    line: int | None
    reason: str
    severity: str = "warning"

    def describe(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "reason": self.reason, "severity": self.severity}


@dataclass
class Accounting:
    """Counts of native items by outcome; the outcomes always sum to ``native_items``.

    ``records``: became (or contributed the main part of) an ASR record of its own type;
    ``vendor``: kept verbatim as a ``vendor`` record; ``folded``: merged into another record
    (a fold, a header fact, a status); ``duplicates``: a copy of something already written;
    ``unreadable``: a line that could not be parsed, reported with its line number.
    """

    native_items: int = 0
    records: int = 0
    vendor: int = 0
    folded: int = 0
    duplicates: int = 0
    unreadable: int = 0
    #: Streams the input produced (the main one, subagents, threads), written or not.
    streams: int = 0
    record_types: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def outcome_total(self) -> int:
        return self.records + self.vendor + self.folded + self.duplicates + self.unreadable

    def balanced(self) -> bool:
        return self.outcome_total() == self.native_items

    def as_dict(self) -> dict[str, Any]:
        return {
            "native_items": self.native_items,
            **{name: getattr(self, name) for name in OUTCOMES},
            "record_types": dict(sorted(self.record_types.items())),
            "diagnostics": len(self.diagnostics),
            "streams": self.streams,
        }

    def merge(self, other: Accounting) -> None:
        self.native_items += other.native_items
        for name in OUTCOMES:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.streams += other.streams
        self.record_types.update(other.record_types)
        self.diagnostics.extend(other.diagnostics)
