"""Limits of the validator's reading side: findings per stream and the line length.

A hostile or broken stream must give a clear finding in bounded memory: a line longer than
convert's limit (``core.source.MAX_LINE_BYTES``) is not held, and past ``MAX_FINDINGS`` findings
only a count is kept (docs/reliability.md, "asr validate").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .finding import Finding

#: Findings kept per stream; the rest are counted and reported by one last finding.
MAX_FINDINGS = 1000


class Findings(list["Finding"]):
    """The first ``MAX_FINDINGS`` findings of a stream; ``omitted`` counts the rest."""

    def __init__(self, items: Iterable[Finding] = ()) -> None:
        super().__init__()
        self.omitted = 0
        self.omitted_errors = 0
        self.extend(items)

    def append(self, item: Finding) -> None:
        if len(self) < MAX_FINDINGS:
            super().append(item)
        else:
            self.omitted += 1
            self.omitted_errors += item.is_error

    def extend(self, items: Iterable[Finding]) -> None:
        for item in items:
            self.append(item)

    def __iadd__(self, items: Iterable[Finding]) -> Findings:  # type: ignore[override,misc]
        self.extend(items)
        return self


def summarized(findings: list[Finding], file: str | None) -> list[Finding]:
    """The findings as a plain list, with one last finding counting those not kept."""
    from .finding import ERROR, WARNING, Finding

    omitted = getattr(findings, "omitted", 0)
    if not omitted:
        return list(findings)
    total = len(findings) + omitted
    errors = getattr(findings, "omitted_errors", omitted)
    note = f"{omitted} more findings not shown ({total} in all; the first {len(findings)} are listed)"
    # an error when a finding not shown is one: a stream of many warnings is still valid
    level = ERROR if errors else WARNING
    return [*findings, Finding("PROFILE-findings", None, None, note, file, level)]
