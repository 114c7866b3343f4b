"""The ``asr`` command: a thin layer over the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

import click
import orjson

from . import registry
from .convert import Conversion
from .core.adapter import Stream
from .core.errors import ASRError
from .stream.writer import StreamWriter
from .validate import validate as validate_file
from .version import __version__


def _fail(message: str, code: int = 1) -> None:
    """One line on stderr, whatever the message holds (a reason quoting input may hold newlines)."""
    message = " ".join(message.split()) if ("\n" in message or "\r" in message) else message
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)


@click.group()
@click.version_option(__version__, prog_name="asr")
def main() -> None:
    """Convert agent session logs to Agent Session Record (ASR) streams, and check them."""


def stream_file_name(key: str) -> str:
    """A file name for a stream key that cannot leave its folder."""
    safe = "".join(c if c.isalnum() or c in "-_.:" else "_" for c in key).replace(":", "_")
    safe = safe.lstrip(".") or "session"
    return f"{safe[:200]}.asr.jsonl"


@main.command()
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", type=click.Path(), help="A file for the main stream, or a folder for every stream.")
@click.option("--agent", "agent", help="The agent that wrote PATH (default: detect it).")
@click.option("--thread", "thread", help="Convert only the stream of this session or thread id (multi-thread inputs).")
@click.option("--stats", is_flag=True, help="Print what became of every native item to stderr.")
def convert(path: str, output: str | None, agent: str | None, thread: str | None, stats: bool) -> None:
    """Convert one native session file to ASR JSONL (stdout by default)."""
    try:
        source: Any = sys.stdin.buffer if path == "-" else path
        conversion = Conversion(source, agent, as_dicts=True, select=thread)
        if output is not None and (Path(output).is_dir() or output.endswith(("/", "\\"))):
            written = _convert_to_dir(conversion, Path(output))
        elif output is not None:
            with open(output, "wb") as handle:
                written = _convert_main(conversion, handle)
        else:
            written = _convert_main(conversion, sys.stdout.buffer)
    except ASRError as exc:
        _fail(str(exc))
        return
    except OSError as exc:
        _fail(f"{exc.filename or path}: {exc.strerror or exc}")
        return
    except KeyboardInterrupt:
        _fail("interrupted", 130)
        return
    except Exception as exc:  # never a traceback for bad input (docs/reliability.md)
        _fail(f"{path}: conversion stopped: {type(exc).__name__}: {exc}")
        return
    diagnostics = conversion.accounting.diagnostics
    for diagnostic in diagnostics:
        click.echo(f"asr: warning: {diagnostic.describe()}", err=True)
    if diagnostics.omitted:  # capped (core.accounting.MAX_DIAGNOSTICS): the rest only counted
        click.echo(
            f"asr: warning: {conversion.source.display}: {diagnostics.omitted} more warnings not shown"
            f" ({diagnostics.total} in all)",
            err=True,
        )
    if stats:
        counts = conversion.accounting.as_dict()
        counts["streams"] = written
        click.echo(orjson.dumps(counts).decode(), err=True)


def _convert_main(conversion: Conversion, dest: IO[bytes]) -> int:
    streams = 0
    for stream in conversion.streams():
        if stream.main:
            streams += 1
            StreamWriter(dest).write_all(stream.records)
        else:
            _drain(stream)
    dest.flush()
    if streams == 0:
        raise ASRError(f"{conversion.source.display}: holds several sessions; use -o DIR")
    return streams


def _drain(stream: Stream) -> None:
    for _ in stream.records:
        pass


def _convert_to_dir(conversion: Conversion, folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for stream in conversion.streams():
        target = folder / stream_file_name(stream.key)
        partial = target.with_name(target.name + ".part")
        with open(partial, "wb") as handle:
            StreamWriter(handle).write_all(stream.records)
        partial.replace(target)
        count += 1
    return count


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def validate(paths: tuple[str, ...], fmt: str) -> None:
    """Check ASR streams against the spec's rules; exit 1 when any rule is broken."""
    findings = []
    for path in paths:  # an unreadable file comes back as a finding, not an exception
        findings.extend(validate_file(sys.stdin.buffer if path == "-" else path))
    if fmt == "json":
        payload = {"files": len(paths), "findings": [f.as_dict() for f in findings], "ok": not findings}
        click.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
    else:
        for finding in findings:
            click.echo(finding.describe())
        if findings:
            click.echo(f"{len(findings)} finding(s) in {len(paths)} stream(s)", err=True)
        else:
            click.echo(f"ok: {len(paths)} stream(s), no findings", err=True)
    sys.exit(1 if findings else 0)


@main.command()
def agents() -> None:
    """List the agents this version reads."""
    for adapter in registry.all_adapters():
        click.echo(f"{adapter.name:12} {adapter.registry_name:28} {adapter.description}")


@main.command()
def schema() -> None:
    """Print the JSON Schema of every record type."""
    from .model.api import json_schema

    click.echo(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())


def _add_batch_commands() -> None:
    from .batch.commands import batch, discover

    main.add_command(batch)
    main.add_command(discover)


_add_batch_commands()
