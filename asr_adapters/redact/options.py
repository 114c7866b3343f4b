"""The ``--redact`` option family, the same on every command that writes what it reads
(``convert``, ``batch``, ``show``, ``export``, ``index``, ``redact``)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson

from ..cli.params import EXIT_OUTPUT, EXIT_USAGE

if TYPE_CHECKING:
    from .policy import Redactor

_NAMES = ("redact", "redact_paths", "redact_emails", "redact_patterns", "drop_opaque", "redact_report")


def redact_options(command: Callable[..., Any], *, always: bool = False) -> Callable[..., Any]:
    """Add the family to a click command; it receives ``redactor`` (None without ``--redact``,
    unless ``always``) and ``redact_report`` (a path or None)."""
    options = [
        click.option(
            "--redact-report",
            "redact_report",
            type=click.Path(dir_okay=False),
            help="Write what was redacted (counts per kind and per record type, never a secret) here as JSON.",
        ),
        click.option(
            "--drop-opaque",
            is_flag=True,
            help="Leave out ciphertext, signatures and opaque parts (never scanned: kept unless this is given).",
        ),
        click.option(
            "--redact-pattern",
            "redact_patterns",
            multiple=True,
            metavar="REGEX",
            help="Also redact what this regular expression matches (repeatable; kind pattern-1, pattern-2 …).",
        ),
        click.option("--redact-emails", is_flag=True, help="Also redact e-mail addresses."),
        click.option(
            "--redact-paths", is_flag=True, help="Also redact user names in home folders, and this account's name."
        ),
    ]
    if not always:
        options.append(
            click.option(
                "--redact",
                is_flag=True,
                help="Replace secrets (keys, tokens, private keys, passwords) by [REDACTED:kind:hash] before "
                "anything is written; any other --redact-* option or --drop-opaque implies it (docs/redaction.md).",
            )
        )

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        asked = always or any(kwargs.get(name) for name in _NAMES if name != "redact_report")
        report = kwargs.pop("redact_report")
        if report is not None:
            asked = True
            usable(Path(report))
        redactor = None
        if asked:  # the policy's module only then: a command that does not redact never loads it
            from .policy import Policy, PolicyError, Redactor

            try:
                policy = Policy.make(
                    paths=kwargs["redact_paths"],
                    emails=kwargs["redact_emails"],
                    patterns=kwargs["redact_patterns"],
                    drop_opaque=kwargs["drop_opaque"],
                )
            except PolicyError as exc:
                raise click.BadParameter(str(exc)) from None
            redactor = Redactor(policy)
        for name in _NAMES:
            kwargs.pop(name, None)
        kwargs["redactor"] = redactor
        kwargs["redact_report"] = report
        return command(*args, **kwargs)

    for option in options:
        wrapper = option(wrapper)
    return wrapper


def usable(target: Path) -> None:
    """A report PATH that can never be written (a block device) is refused before any work,
    as every output is (exit 2, one line)."""
    from ..outputs import UnusableOutput, writes_directly

    try:
        writes_directly(target)
    except UnusableOutput as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)


def finish(redactor: Redactor | None, report: str | None, source: str | None = None) -> None:
    """After a command: the one summary line on stderr, and the report file when asked
    (never over ``source``, the input)."""
    if redactor is None:
        return
    if report is not None:  # first: a report that cannot be written is the one line said
        write_report(redactor, Path(report), source)
    click.echo(f"asr: {redactor.summary()}", err=True)


def write_report(redactor: Redactor, target: Path, source: str | None = None) -> None:
    """The report, whole or not at all (or into the FIFO or device named); a report that
    cannot be written is one error line, exit 3 (the outputs are written by then)."""
    from ..outputs import PipeClosed, SameFileError, UnusableOutput, describe_os_error, refuse_same_file, write_whole

    try:
        refuse_same_file(Path(source) if source not in (None, "-") else None, target)
    except SameFileError as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    data = orjson.dumps(redactor.report(), option=orjson.OPT_INDENT_2) + b"\n"
    try:
        write_whole(target, data, direct=True)
    except UnusableOutput as exc:
        click.echo(f"asr: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except (OSError, PipeClosed) as exc:
        reason = describe_os_error(exc, str(target)) if isinstance(exc, OSError) else f"{target}: closed"
        click.echo(f"asr: error: {reason}", err=True)
        sys.exit(EXIT_OUTPUT)
