"""A stream read the way ``asr validate`` reads it, for the commands that show or export streams
someone else wrote (issue 25.11): wrong types, non-object lines and deep values must never end
in a traceback.

- ``asr show`` reads a ``CheckedStream``: every line comes with the rules it breaks, so the page
  shows each record (a line that is not JSON, or not an object, as what it is) with its findings
  marked, and lists the stream's other findings at the end.
- ``asr export`` calls ``require_valid`` first: a stream ``asr validate`` rejects is not exported
  (a document in another format made from broken records would be wrong in ways no loss report
  says); its first finding is the error, one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..core.errors import InputError
from ..core.source import Source
from .limits import Findings, summarized
from .reading import Unreadable, read_lines, validate
from .stream import Finding, StreamValidator

__all__ = ["Checked", "CheckedStream", "InvalidStream", "Unreadable", "require_valid"]


@dataclass
class Checked:
    """One line of a stream: its JSON value (an ``Unreadable`` when it is not JSON) and the rules
    it breaks (errors only; warnings are for ``asr validate``)."""

    line: int
    record: Any
    errors: list[Finding] = field(default_factory=list)


class CheckedStream:
    """The lines of a stream, each validated as it is read (``StreamValidator``, the same reading
    loop as ``asr validate``); after the last one, ``stream_errors`` holds what only the whole
    stream shows (references that name nothing, the framing) and ``broken`` counts the lines
    that broke a rule."""

    def __init__(
        self, src: str | os.PathLike[str] | IO[bytes] | bytes, transform: Callable[[Any], Any] | None = None
    ) -> None:
        #: applied to each record before it is checked and shown (``asr show --redact``)
        self.transform = transform
        self.source = Source(src)
        self.display = self.source.display
        self.validator = StreamValidator(self.display)
        self.broken = 0
        self.stream_errors: list[Finding] = []
        self._elsewhere: list[Finding] = []  # met while reading one line, about another

    def __iter__(self) -> Iterator[Checked]:
        validator = self.validator
        lines = read_lines(self.source, validator)
        while True:
            found: list[Finding] = []
            validator.findings = found  # this line's findings, and only them
            step = next(lines, None)
            if step is None:
                break
            number, value = step
            if value.__class__ is not Unreadable:
                if self.transform is not None:
                    value = self.transform(value)
                validator.add(value, number)
            errors = [f for f in found if f.is_error and f.line == number]
            self._elsewhere += [f for f in found if f.is_error and f.line != number]
            self.broken += bool(errors)
            yield Checked(number, value, errors)
        rest = [*self._elsewhere, *(f for f in found if f.is_error)]  # the framing, found after the last line
        validator.findings = Findings()
        self.stream_errors = rest + [f for f in summarized(validator.finish(), self.display) if f.is_error]


class InvalidStream(InputError):
    """A stream that ``asr validate`` rejects, refused by a command that exports streams."""

    def __init__(self, file: str, errors: list[Finding]) -> None:
        self.errors = errors
        first = errors[0]
        where = f"seq {first.seq} " if first.seq is not None else ""
        count = f"{len(errors)} errors" if len(errors) > 1 else "1 error"
        if errors[-1].rule == "PROFILE-findings":
            count = f"more than {len(errors) - 1} errors"
        listed = f"{count}; asr validate {file} lists every finding"
        reason = f"not a valid ASR stream: {where}{first.rule}: {first.message} ({listed})"
        super().__init__(file, reason, line=first.line)


def require_valid(path: str | os.PathLike[str]) -> None:
    """Raise ``InvalidStream`` (one line: the first finding, and how many there are) when ``asr
    validate`` would reject the stream at ``path``."""
    errors = [f for f in validate(path) if f.is_error]
    if errors:
        raise InvalidStream(str(path), errors)
