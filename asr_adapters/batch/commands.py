"""The ``asr batch`` and ``asr discover`` commands (thin over the batch library).

Exit status of ``asr batch``: 0 when every source converted (or was up to date), 1 when some
failed (listed in ``OUTDIR/_errors.jsonl``), 2 on a usage error, 3 when OUTDIR cannot be
written (read-only, full disk).
"""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import orjson

from .. import registry
from ..cli_params import AgentChoice
from ..redact.options import finish, redact_options, write_report
from .discover import discover as discover_sessions
from .homes import agent_homes
from .merge import merge_manifests
from .plan import Shard
from .progress import Progress
from .remote import is_url
from .runner import BatchOptions, BatchOutputError, BatchUsageError, run_batch
from .scan import Filters
from .summary import print_json

EXIT_OUTPUT = 3  # OUTDIR cannot be written: read-only, full disk
_RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$")
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


def _check_agents(agents: tuple[str, ...]) -> list[str]:
    known = registry.names()
    for agent in agents:
        if agent not in known:
            raise click.BadParameter(f"unknown agent {agent!r}; known agents: {', '.join(known)}", param_hint="--agent")
    return list(agents)


@click.command()
@click.argument("sources", nargs=-1, type=click.Path())
@click.option(
    "-o",
    "--output",
    "outdir",
    required=True,
    metavar="OUTDIR",
    type=click.Path(),
    help="The output folder, or an object-store URL (s3://bucket/asr/; the s3, gcs or azure extra).",
)
@click.option("--discover", "use_homes", is_flag=True, help="Also walk every agent's default home.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: the CPU count).")
@click.option("--force", is_flag=True, help="Convert every source again, even the unchanged ones.")
@click.option("--agent", "agents", type=AgentChoice(), multiple=True, help="Only this agent's sessions (repeatable).")
@click.option("--since", help="Only sources modified since DATE (ISO date or time, or 7d, 12h).")
@click.option("--include", multiple=True, help="Only files matching this glob (name or path; repeatable).")
@click.option("--exclude", multiple=True, help="Skip files matching this glob (name or path; repeatable).")
@click.option(
    "--follow-symlinks", is_flag=True, help="Follow links that lead out of a source folder (not followed by default)."
)
@click.option(
    "--shard",
    metavar="K/N",
    help="Convert only the K-th of N stable slices of the sources (N machines, one OUTDIR; see --merge-manifests).",
)
@click.option(
    "--merge-manifests",
    "merge",
    is_flag=True,
    help="Fold the shards' manifests in OUTDIR into its main manifest, then stop (no SOURCES).",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where the tasks run: the local process pool, or a Dask cluster (the dask extra).",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    help="--engine dask: the scheduler's address (tcp://host:8786); without it a local cluster of --jobs processes.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress and no summary on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary on stdout.")
@click.option("-v", "--verbose", is_flag=True, help="List each file not converted and why (stderr).")
@redact_options
def batch(
    sources: tuple[str, ...],
    outdir: str,
    use_homes: bool,
    jobs: int | None,
    force: bool,
    agents: tuple[str, ...],
    since: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    follow_symlinks: bool,
    shard: str | None,
    merge: bool,
    engine: str,
    scheduler: str | None,
    quiet: bool,
    as_json: bool,
    verbose: bool,
    redactor: Any,
    redact_report: str | None,
) -> None:
    """Convert every session under SOURCES (folders, files, store URLs) into OUTDIR/<agent>/<session>.asr.jsonl.

    A re-run converts only new or changed sources (OUTDIR/_manifest.json); see docs/batch.md.

    Exit status: 0 all converted or up to date, 1 some sources failed (see OUTDIR/_errors.jsonl),
    2 usage error, 3 OUTDIR cannot be written (read-only, full disk), 130 interrupted.
    """
    if merge:
        _merge(outdir, sources, shard, quiet, as_json)
        return
    if not sources and not use_homes:
        raise click.UsageError("give folders to convert, or --discover to walk every agent's home")
    try:
        slice_ = Shard.parse(shard) if shard is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from None
    filters = Filters(
        agents=_check_agents(agents),
        since=parse_since(since) if since else None,
        include=list(include),
        exclude=list(exclude),
    )
    options = BatchOptions(
        sources=list(sources),
        outdir=outdir,
        discover=use_homes,
        jobs=jobs,
        force=force,
        filters=filters,
        progress=None if quiet else Progress(),
        follow_symlinks=follow_symlinks,
        shard=slice_,
        engine=engine,
        scheduler=scheduler,
        redactor=redactor,
    )
    try:
        summary = run_batch(options)
    except BatchUsageError as exc:
        raise click.UsageError(str(exc)) from None
    except BatchOutputError as exc:
        click.echo(f"asr batch: error: {exc}", err=True)
        sys.exit(EXIT_OUTPUT)
    except KeyboardInterrupt:
        click.echo("asr batch: interrupted; what was converted is kept, a re-run finishes the rest", err=True)
        sys.exit(130)
    if not quiet:
        for home in summary.homes:
            if home.fallback and home.exists:
                click.echo(f"asr batch: {home.agent}: no home from its adapter; used {home.path}", err=True)
        if use_homes and not any(home.exists for home in summary.homes):
            click.echo(
                "asr batch: no agent home found here (asr discover --homes lists where they are looked for)", err=True
            )
        if verbose:
            for row in summary.unclaimed_files:
                click.echo(f"asr batch: not converted: {row['path']}: {row['reason']}", err=True)
            if summary.unclaimed > len(summary.unclaimed_files):
                click.echo(
                    f"asr batch: not converted: {summary.unclaimed - len(summary.unclaimed_files)} more", err=True
                )
        click.echo(f"asr batch: {summary.describe()}", err=True)
        finish(redactor, redact_report)
    elif redactor is not None and redact_report is not None:
        write_report(redactor, Path(redact_report))
    if as_json:
        print_json(summary, sys.stdout.buffer)
    sys.exit(summary.exit_code)


def _merge(outdir: str, sources: tuple[str, ...], shard: str | None, quiet: bool, as_json: bool) -> None:
    if sources or shard:
        raise click.UsageError("--merge-manifests takes only -o OUTDIR")
    if is_url(outdir):
        raise click.UsageError("--merge-manifests works on a local OUTDIR only (for now)")
    try:
        merged = merge_manifests(outdir)
    except BatchUsageError as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:
        click.echo(f"asr batch: error: cannot write {outdir}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_OUTPUT)
    if not quiet:
        click.echo(f"asr batch: {merged.describe()}", err=True)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(vars(merged), option=orjson.OPT_APPEND_NEWLINE))
        sys.stdout.buffer.flush()


@click.command(epilog="\b\nExit status: 0 listed (none found is said on stderr), 2 usage error.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--agent", "agents", type=AgentChoice(), multiple=True, help="Only this agent's sessions (repeatable).")
@click.option("--streams", is_flag=True, help="List every stream (subagents, threads); reads each input whole.")
@click.option("--homes", "show_homes", is_flag=True, help="Print every agent's home folders and stop.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
def discover(paths: tuple[Path, ...], agents: tuple[str, ...], streams: bool, show_homes: bool, as_json: bool) -> None:
    """List the sessions under PATHS, or in every agent's home, without converting them."""
    wanted = _check_agents(agents)
    out = sys.stdout.buffer
    if show_homes:
        for home in agent_homes(None, wanted or None):
            row = {"agent": home.agent, "path": str(home.path), "exists": home.exists, "fallback": home.fallback}
            if as_json:
                out.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
            else:
                mark = "" if home.exists else "  (missing)"
                out.write(f"{home.agent:12} {home.path}{mark}\n".encode())
        out.flush()
        return
    found = discover_sessions(list(paths) if paths else None, agents=wanted or None, streams=streams)
    listed = 0
    for descriptor in found:
        listed += 1
        if as_json:
            out.write(orjson.dumps(descriptor.as_dict(), option=orjson.OPT_APPEND_NEWLINE))
        else:
            out.write(f"{descriptor.line()}\n".encode())
    out.flush()
    if listed == 0:
        where = [str(p) for p in paths] or [str(h.path) for h in agent_homes(None, wanted or None) if h.exists]
        if where:
            click.echo(f"asr discover: no sessions found under {', '.join(where)}", err=True)
        else:
            click.echo("asr discover: no sessions found: no agent home exists here (asr discover --homes)", err=True)
