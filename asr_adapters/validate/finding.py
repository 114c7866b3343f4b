"""What the validator reports: a broken rule (or a warning), at a record and a line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"


# A dataclass, not a core.valueclass: it is public API (asr_adapters.Finding), and users' code may
# call dataclasses.asdict/replace/fields on it or match it by position.
@dataclass(frozen=True)
class Finding:
    """One broken rule: which rule, which record (seq) and line, and what is wrong.

    ``seq`` is the record's own seq, or its position in the stream when its seq is not a
    usable integer; it is None for findings about the file as a whole. ``level`` is
    ``error`` (a rule is broken) or ``warning`` (something a reader should know that real
    logs do produce, such as a reference to a record the source never wrote).
    """

    rule: str
    seq: int | None
    line: int | None
    message: str
    file: str | None = None
    level: str = ERROR

    @property
    def is_error(self) -> bool:
        return self.level == ERROR

    def describe(self) -> str:
        where = f"{self.file or '<stream>'}:{self.line}" if self.line is not None else self.file or "<stream>"
        at = f" seq {self.seq}" if self.seq is not None else ""
        level = "" if self.level == ERROR else f" ({self.level})"
        return f"{where}:{at} {self.rule}{level}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "seq": self.seq,
            "level": self.level,
            "rule": self.rule,
            "message": self.message,
        }
