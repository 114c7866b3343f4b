"""Parameter types, exit statuses and error lines shared by the ``asr`` commands."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ..core.lazyre import LazyPattern

if TYPE_CHECKING:  # imported when a shell asks for completions, not by every command
    from click.shell_completion import CompletionItem

from .. import registry

#: Exit statuses of ``asr convert`` (``asr validate`` and ``asr batch`` list their own).
EXIT_OK = 0
EXIT_INPUT = 1  # the input cannot be converted
EXIT_USAGE = 2  # click's own status for a usage error
EXIT_OUTPUT = 3  # the output cannot be written
EXIT_INTERRUPTED = 130

CONVERT_EXITS = """\b
Exit status:
  0    converted
  1    the input cannot be converted (not a session log, an ASR stream, broken, or a wrong --agent),
       or it converts to a stream asr validate rejects (a converter bug; not with --no-check)
  2    usage error: unknown option or agent, missing file, a URL, unknown --thread, output is the input,
       output is a block device
  3    the output cannot be written (read-only place, full disk, file-size limit, a planted link or FIFO)
  130  interrupted
  141  the reader of standard output went away (asr convert X | head): nothing printed
"""
VALIDATE_EXITS = """\b
Exit status:
  0    every stream is valid
  1    some rule is broken, or a file is not an ASR stream (one finding per file says so)
  2    usage error: unknown option, missing file or folder, a URL, a folder with no streams
"""
SIMPLE_EXITS = """\b
Exit status: 0 done, 2 usage error.
"""


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """One line on stderr, whatever the message holds (a reason quoting input may hold newlines)."""
    message = " ".join(message.split()) if ("\n" in message or "\r" in message) else message
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)


@contextlib.contextmanager
def one_line_errors(path: str) -> Iterator[None]:
    """``asr show`` / ``asr export``: a failure is one ``asr: error:`` line and its exit status
    (the output is the input or cannot be one: usage, 2; unreadable or unconvertible input: 1;
    the output cannot be written: 3, as for ``asr convert``), never a traceback."""
    from ..core.errors import ASRError
    from ..outputs import EXIT_PIPE_CLOSED, OutputError, PipeClosed, SameFileError, UnusableOutput

    try:
        yield
    except (SameFileError, UnusableOutput) as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OutputError as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_OUTPUT)
    except PipeClosed:  # the reader of a FIFO or socket output went away
        sys.exit(EXIT_PIPE_CLOSED)
    except ASRError as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except OSError as exc:
        click.echo(f"asr: error: {exc.filename or path}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_INPUT)


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class InputPath(click.ParamType):
    """A local file (or folder) that exists, or ``-`` for standard input; a URL is refused
    with a message saying what is supported."""

    name = "path"

    def __init__(self, *, dir_okay: bool) -> None:
        self.dir_okay = dir_okay

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = os.fspath(value)
        if text == "-":
            return text
        what = "a local file or folder" if self.dir_okay else "a local file"
        if _URL.match(text):
            self.fail(f"{text}: URLs are not supported; give {what} path, or - for standard input", param, ctx)
        if not os.path.lexists(text):
            self.fail(f"{text}: no such file", param, ctx)
        if not self.dir_okay and os.path.isdir(text):
            self.fail(f"{text}: is a folder; give a file (asr batch converts folders)", param, ctx)
        return text

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem

        return [CompletionItem(incomplete, type="dir" if self.dir_okay else "file")]


class AgentChoice(click.Choice):
    """``--agent``: one of the registered agents' names (listed in ``--help``), read from the
    registry when first needed."""

    def __init__(self) -> None:
        super().__init__([])

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(registry.names())

    @choices.setter
    def choices(self, _value: Any) -> None:
        pass


_RELATIVE = LazyPattern(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> float:
    """``--since``: an ISO date or date-time (local time when it has no offset), or ``7d``/``12h``/``30m``."""
    text = text.strip()
    match = _RELATIVE.match(text)
    try:
        if match:
            now = now or datetime.now(UTC)
            return (now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})).timestamp()
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):  # not a date, or one no clock can hold (99999999999d, 0001-01-01)
        raise click.BadParameter(
            f"{text!r} is not a usable date (2026-01-31, 2026-01-31T12:00, 7d, 12h)", param_hint="--since"
        ) from None


def check_agents(agents: tuple[str, ...]) -> list[str]:
    """Repeated ``--agent`` values (``asr batch``, ``asr discover``), each a registered agent."""
    known = registry.names()
    for agent in agents:
        if agent not in known:
            raise click.BadParameter(f"unknown agent {agent!r}; known agents: {', '.join(known)}", param_hint="--agent")
    return list(agents)
