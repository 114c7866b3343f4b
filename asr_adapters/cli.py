"""The ``asr`` command: a thin layer over the library.

Bare ``asr`` prints this help. Shell completion (bash, zsh, fish): see the README.
"""

# ruff: noqa: E402 - the imports follow gc.disable() on purpose (below)
from __future__ import annotations

import gc

# Start-up makes tens of thousands of objects that live until exit (modules, classes, click's
# commands): the cyclic collector walked them again and again while importing and once more at
# exit, about a tenth of a small ``asr convert``. It is off while this module imports, and what
# exists then is frozen (never walked again) before it is back on: issue 28.
gc.disable()

import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import click
import orjson

from . import registry
from .cli_convert import Report, UsageProblem, copy_note, to_file, to_folder, to_stdout
from .cli_params import (
    CONVERT_EXITS,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    SIMPLE_EXITS,
    VALIDATE_EXITS,
    AgentChoice,
    InputPath,
)
from .convert import Conversion
from .core.errors import ASRError
from .outputs import OutputError, PipeClosed, SameFileError, UnusableOutput, pipe_closed
from .redact.options import finish as finish_redaction
from .redact.options import redact_options
from .version import __version__

if TYPE_CHECKING:
    from .redact import Redactor


def _fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """One line on stderr, whatever the message holds (a reason quoting input may hold newlines)."""
    message = " ".join(message.split()) if ("\n" in message or "\r" in message) else message
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)


class _Commands(click.Group):
    """The ``asr`` group. Commands defined in other packages are imported when named (or when
    the help lists them), so ``asr convert`` does not load the batch machinery, the viewer
    (jinja2, markdown-it) or the exporters."""

    #: command name -> (module, the command's name in it)
    elsewhere: ClassVar[dict[str, tuple[str, str]]] = {
        "batch": (".batch.commands", "batch"),
        "discover": (".batch.commands", "discover"),
        "export": (".export.command", "export"),
        "index": (".index.command", "index_command"),
        "redact": (".redact.command", "redact_command"),
        "search": (".index.command", "search_command"),
        "show": (".view.command", "show"),
        "stats": (".stats.command", "stats"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.elsewhere})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        where = self.elsewhere.get(cmd_name)
        if command is None and where is not None:
            module, name = where
            command = getattr(importlib.import_module(module, __package__), name)
            self.add_command(command, cmd_name)
        return command


@click.group(
    cls=_Commands,
    invoke_without_command=True,
    epilog="Run asr COMMAND --help for a command's options and exit status.",
)
@click.version_option(__version__, prog_name="asr")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Convert agent session logs to Agent Session Record (ASR) streams, and check them."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(0)


def stream_file_name(key: str) -> str:
    """A file name for a stream key that cannot leave its folder (the golden cases' names)."""
    safe = "".join(c if c.isalnum() or c in "-_.:" else "_" for c in key).replace(":", "_")
    safe = safe.lstrip(".") or "session"
    return f"{safe[:200]}.asr.jsonl"


@main.command(epilog=CONVERT_EXITS)
@click.argument("path", type=InputPath(dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    help="A file for the main stream (- for stdout), or a folder (an existing one, or ending in /) for every "
    "stream, named as asr batch names them: DIR/<agent>/<session id>.asr.jsonl.",
)
@click.option("--agent", "agent", type=AgentChoice(), help="The agent that wrote PATH (default: detect it).")
@click.option("--thread", "thread", help="Convert only the stream of this session or thread id (multi-thread inputs).")
@click.option("--stats", is_flag=True, help="Print what was written and what became of every native item (stderr).")
@click.option(
    "--no-check",
    is_flag=True,
    help="Do not validate the streams as they are written (about a quarter less CPU and no index of ids held; "
    "exit 0 then does not promise that asr validate accepts the output).",
)
@redact_options
def convert(
    path: str,
    output: str | None,
    agent: str | None,
    thread: str | None,
    stats: bool,
    no_check: bool,
    redactor: Redactor | None,
    redact_report: str | None,
) -> None:
    """Convert one native session file to ASR JSONL (stdout by default; PATH - reads stdin).

    A file output appears only once complete (written beside it, then renamed). On stdout or
    in a file, the main stream is written and stderr says how many other streams (subagents,
    threads) the input holds; -o DIR/ writes them all, --thread ID picks one. Every stream is
    validated as it is written: one that asr validate would reject is an error (exit 1), not
    written under its name.
    """
    source_path = None if path == "-" else Path(path)
    output = None if output == "-" else output  # -o - is stdout
    report = Report(check=not no_check)
    conversion: Conversion | None = None
    try:
        source: Any = sys.stdin.buffer if path == "-" else path
        conversion = Conversion(source, agent, as_dicts=True, select=thread, redactor=redactor)
        if output is not None and (Path(output).is_dir() or output.endswith(("/", os.sep))):
            to_folder(conversion, Path(output), source_path, report)
        elif output is not None:
            to_file(conversion, Path(output), source_path, report)
        else:
            to_stdout(conversion, report)
    except PipeClosed:
        pipe_closed()
    except (UsageProblem, SameFileError, UnusableOutput) as exc:
        _fail(str(exc), EXIT_USAGE)
    except OutputError as exc:
        _fail(str(exc), EXIT_OUTPUT)
    except ASRError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or path}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # never a traceback for bad input (docs/reliability.md)
        _fail(f"{path}: conversion stopped: {type(exc).__name__}: {exc}")
    assert conversion is not None
    diagnostics = conversion.accounting.diagnostics
    for diagnostic in diagnostics:
        click.echo(f"asr: warning: {diagnostic.describe()}", err=True)
    if diagnostics.omitted:  # capped (core.accounting.MAX_DIAGNOSTICS): the rest only counted
        click.echo(
            f"asr: warning: {conversion.source.display}: {diagnostics.omitted} more warnings not shown"
            f" ({diagnostics.total} in all)",
            err=True,
        )
    note = copy_note(report, conversion.source.display)
    if note is not None:
        click.echo(f"asr: note: {note}", err=True)
    if stats:
        click.echo(orjson.dumps(stats_of(conversion, report)).decode(), err=True)
    finish_redaction(redactor, redact_report, path)


def stats_of(conversion: Conversion, report: Report) -> dict[str, Any]:
    """``--stats``: what was written, per stream, and what became of every native item
    (docs/library.md lists the names)."""
    counts = conversion.accounting
    written = [entry for entry in report.streams if entry.written_to is not None]
    return {
        "input": conversion.source.display,
        "agent": conversion.adapter.name,
        "streams_found": counts.streams,
        "streams_written": len(written),
        "records_written": sum(entry.records for entry in written),
        "streams": [{"stream": e.key, "records": e.records, "written_to": e.written_to} for e in report.streams],
        "native_items": {
            "total": counts.native_items,
            "converted": counts.records,
            "kept_as_vendor": counts.vendor,
            "folded": counts.folded,
            "duplicates": counts.duplicates,
            "unreadable": counts.unreadable,
        },
        "records_by_type": dict(sorted(report.types.items())),
        "warnings": counts.diagnostics.total,
    }


@main.command(epilog=VALIDATE_EXITS)
@click.argument("paths", nargs=-1, required=True, type=InputPath(dir_okay=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1), not only errors.")
def validate(paths: tuple[str, ...], fmt: str, strict: bool) -> None:
    """Check ASR streams against the spec's rules; exit 1 when any rule is broken.

    PATHS are stream files, folders (every *.asr.jsonl under them, as asr batch writes them,
    .zst and .gz too) or - for stdin. A native session log gets one finding saying so.
    Warnings (references to records the stream does not hold) are printed but fail only
    with --strict.
    """
    from .cli_validate import validate_paths

    try:
        files, findings = validate_paths(paths)
    except UsageProblem as exc:
        _fail(str(exc), EXIT_USAGE)
        return
    errors = sum(1 for f in findings if f.is_error)
    failed = bool(findings) if strict else errors > 0
    if fmt == "json":
        payload = {"files": len(files), "findings": [f.as_dict() for f in findings], "ok": not failed}
        click.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
    else:
        for finding in findings:
            click.echo(finding.describe())
        if findings:
            warnings = len(findings) - errors
            click.echo(
                f"{len(findings)} finding(s) in {len(files)} stream(s): {errors} error(s), {warnings} warning(s)",
                err=True,
            )
        else:
            click.echo(f"ok: {len(files)} stream(s), no findings", err=True)
    sys.exit(1 if failed else 0)


@main.command(epilog=SIMPLE_EXITS)
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line: name, registry name, description.")
def agents(as_json: bool) -> None:
    """List the agents this version reads (the names --agent takes)."""
    for adapter in registry.all_adapters():
        if as_json:
            row = {"name": adapter.name, "registryName": adapter.registry_name, "description": adapter.description}
            click.echo(orjson.dumps(row).decode())
        else:
            click.echo(f"{adapter.name:12} {adapter.registry_name:28} {adapter.description}")


@main.command(epilog=SIMPLE_EXITS)
def schema() -> None:
    """Print the JSON Schema (2020-12) of an ASR record, for standard validators."""
    from .model.api import json_schema

    click.echo(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())


gc.freeze()  # what start-up made (above): the collector leaves it alone from now on
gc.enable()
