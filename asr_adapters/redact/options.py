"""The ``--redact`` option family, the same on every command that writes what it reads
(``convert``, ``batch``, ``show``, ``export``, ``index``, ``redact``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import orjson

from . import Policy, PolicyError, Redactor

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
        try:
            policy = (
                Policy.make(
                    paths=kwargs["redact_paths"],
                    emails=kwargs["redact_emails"],
                    patterns=kwargs["redact_patterns"],
                    drop_opaque=kwargs["drop_opaque"],
                )
                if asked
                else None
            )
        except PolicyError as exc:
            raise click.BadParameter(str(exc)) from None
        for name in _NAMES:
            kwargs.pop(name, None)
        kwargs["redactor"] = Redactor(policy) if policy is not None else None
        kwargs["redact_report"] = report
        return command(*args, **kwargs)

    for option in options:
        wrapper = option(wrapper)
    return wrapper


def finish(redactor: Redactor | None, report: str | None) -> None:
    """After a command: the one summary line on stderr, and the report file when asked."""
    if redactor is None:
        return
    click.echo(f"asr: {redactor.summary()}", err=True)
    if report is not None:
        write_report(redactor, Path(report))


def write_report(redactor: Redactor, target: Path) -> None:
    from ..outputs import write_whole

    data = orjson.dumps(redactor.report(), option=orjson.OPT_INDENT_2) + b"\n"
    write_whole(target, data, direct=True)
