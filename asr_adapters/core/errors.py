"""Errors that name the file, the line and the reason."""

from __future__ import annotations


class ASRError(Exception):
    """Base of the errors this package raises on bad input or usage."""


class InputError(ASRError):
    """A native input that cannot be converted at all (as opposed to a bad line, which is skipped)."""

    def __init__(self, file: str | None, reason: str, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(self.describe())

    def describe(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.reason}"


class UnknownAgentError(ASRError):
    """No registered adapter claims the input."""


class StreamFormatError(InputError):
    """An ASR stream that is not JSON Lines."""


class UsageProblem(ASRError):
    """The command asked for something the input does not have (an unknown ``--thread``, a
    folder with no streams to validate): a usage error, exit 2."""
