"""What became of every native item, and what went wrong where."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("records", "vendor", "folded", "duplicates", "unreadable")


# A dataclass, not a core.valueclass: it is public API (asr_adapters.Diagnostic), and users' code may
# call dataclasses.asdict/replace/fields on it or match it by position.
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


#: Diagnostics kept whole (file, line, reason); past this many per input they are only counted,
#: so four million bad lines cost a counter, not a gigabyte (docs/reliability.md).
MAX_DIAGNOSTICS = 1000


class Diagnostics(list[Diagnostic]):
    """The first ``MAX_DIAGNOSTICS`` diagnostics of an input; ``omitted`` counts the rest."""

    def __init__(self, items: Iterable[Diagnostic] = ()) -> None:
        super().__init__()
        self.omitted = 0
        self.extend(items)

    def append(self, item: Diagnostic) -> None:
        if len(self) < MAX_DIAGNOSTICS:
            super().append(item)
        else:
            self.omitted += 1

    def extend(self, items: Iterable[Diagnostic]) -> None:
        for item in items:
            self.append(item)
        self.omitted += getattr(items, "omitted", 0)

    def __iadd__(self, items: Iterable[Diagnostic]) -> Diagnostics:  # type: ignore[override,misc]
        self.extend(items)
        return self

    @property
    def total(self) -> int:
        """Every diagnostic, kept or only counted."""
        return len(self) + self.omitted


# A dataclass, not a core.valueclass: it is public API (asr_adapters.Accounting), and users' code may
# call dataclasses.asdict/replace/fields on it or match it by position.
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
    diagnostics: Diagnostics = field(default_factory=Diagnostics)

    def outcome_total(self) -> int:
        return self.records + self.vendor + self.folded + self.duplicates + self.unreadable

    def balanced(self) -> bool:
        return self.outcome_total() == self.native_items

    def as_dict(self) -> dict[str, Any]:
        return {
            "native_items": self.native_items,
            **{name: getattr(self, name) for name in OUTCOMES},
            "record_types": dict(sorted(self.record_types.items())),
            "diagnostics": self.diagnostics.total,
            "streams": self.streams,
        }

    def merge(self, other: Accounting) -> None:
        self.native_items += other.native_items
        for name in OUTCOMES:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.streams += other.streams
        self.record_types.update(other.record_types)
        self.diagnostics.extend(other.diagnostics)
