"""The ``asr batch`` command (thin over the batch library).

Exit status of ``asr batch``: 0 when every source converted (or was up to date), 1 when some
failed (listed in ``OUTDIR/_errors.jsonl``), 2 on a usage error, 3 when OUTDIR cannot be
written (read-only, full disk).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import orjson

from ..batch.merge import merge_manifests
from ..batch.plan import Shard
from ..batch.progress import Progress
from ..batch.remote import is_url
from ..batch.runner import BatchOptions, BatchOutputError, BatchUsageError, run_batch
from ..batch.scan import Filters
from ..batch.summary import print_json
from ..redact.options import finish, redact_options, write_report
from .params import AgentChoice, check_agents, parse_since

EXIT_OUTPUT = 3  # OUTDIR cannot be written: read-only, full disk


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
        agents=check_agents(agents),
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
