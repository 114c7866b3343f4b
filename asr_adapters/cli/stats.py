"""The ``asr stats`` command: thin over ``asr_adapters.stats.report``."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..outputs import pipe_closed
from ..stats.group import GROUPINGS
from ..stats.when import TimeSpecError
from .params import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_USAGE, AgentChoice

STATS_EXITS = """\b
Exit status:
  0    the report was printed (inputs that could not be read are named on stderr and skipped)
  1    the price data could not be updated (--update-prices), or the report stopped
  141  the reader of standard output went away (asr stats | head)
  2    usage error: unknown option or agent, a bad --since/--until/--timezone, a missing PATH
  130  interrupted
"""


def _seconds(value: str) -> float:
    from ..stats.when import _SPAN, _UNITS

    match = _SPAN.fullmatch(value.strip())
    if match is None:
        raise click.BadParameter(f"{value!r}: a duration such as 10m, 90s or 1h")
    return float(int(match.group(1)) * _UNITS[match.group(2).lower()])


@click.command(epilog=STATS_EXITS)
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=True, allow_dash=False))
@click.option("--by", "by", type=click.Choice(GROUPINGS), default="day", show_default=True, help="One row per …")
@click.option("--since", help="Only what happened from then on: 2026-01-05, 2026-01-05T14:00, 7d, 12h, today.")
@click.option("--until", help="Only what happened before then (a date: through that day).")
@click.option("--agent", "agents", multiple=True, type=AgentChoice(), help="Only this agent's sessions (repeatable).")
@click.option(
    "--project",
    "projects",
    multiple=True,
    help="Only sessions whose folder (cwd) has this in it, or matches this glob.",
)
@click.option(
    "--model", "models", multiple=True, help="Only responses of models with this in their name, or matching this glob."
)
@click.option("--breakdown", is_flag=True, help="A line per model under each row.")
@click.option("--json", "as_json", is_flag=True, help="The report as JSON (docs/stats.md lists the members).")
@click.option("--csv", "as_csv", is_flag=True, help="The rows as CSV, a line per model too with --breakdown.")
@click.option(
    "--timezone", "tz", metavar="ZONE", help="Days, weeks and months in this IANA zone (default: this machine's)."
)
@click.option(
    "--idle",
    "idle",
    default="10m",
    show_default=True,
    help="A gap between records counts as active time up to this long.",
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), help="Worker processes for many inputs (default: the CPU count)."
)
@click.option(
    "--offline/--update-prices",
    "offline",
    default=True,
    show_default=True,
    help="Price with the genai-prices data installed (default), or fetch its newest data first (network).",
)
@click.option("--prices-url", metavar="URL", help="--update-prices: fetch the price data from here instead.")
@click.option(
    "--no-cost", is_flag=True, help="Price nothing with genai-prices (costs the agents recorded still count)."
)
@click.option("--no-progress", is_flag=True, help="No progress bar, even on a terminal.")
@click.option(
    "--no-cache", is_flag=True, help="Read every input again, and keep nothing for the next run (docs/stats.md)."
)
def stats(
    paths: tuple[str, ...],
    by: str,
    since: str | None,
    until: str | None,
    agents: tuple[str, ...],
    projects: tuple[str, ...],
    models: tuple[str, ...],
    breakdown: bool,
    as_json: bool,
    as_csv: bool,
    tz: str | None,
    idle: str,
    jobs: int | None,
    offline: bool,
    prices_url: str | None,
    no_cost: bool,
    no_progress: bool,
    no_cache: bool,
) -> None:
    """Tokens, cost and activity of every agent's sessions, grouped by day (or --by ...).

    With no PATH, every agent's home (as asr discover finds them). A PATH is a native session
    file or folder, an ASR stream, or a batch archive (its streams are read, never converted
    again). Each response is priced with the model it names at the date it ran (genai-prices,
    offline), or with the cost the agent recorded itself (OpenClaw, Cline, OpenCode); a model
    with no known price is counted as unpriced, never as $0. See docs/stats.md.
    """
    from ..stats.render import table, to_csv, to_json
    from ..stats.report import report

    if as_json and as_csv:
        _fail("--json and --csv cannot be used together", EXIT_USAGE)
    idle_seconds = _seconds(idle)
    if not offline or prices_url:
        _update(prices_url)
    progress, close = _progress_bar(not (no_progress or as_json or as_csv))
    try:
        result = report(
            list(paths) or None,
            by=by,
            since=since,
            until=until,
            agents=agents or None,
            projects=projects or None,
            models=models or None,
            breakdown=breakdown,
            timezone=tz,
            jobs=jobs,
            price=not no_cost,
            idle_seconds=idle_seconds,
            progress=progress,
            cache=None if no_cache else True,
        )
    except TimeSpecError as exc:
        close()
        _fail(str(exc), EXIT_USAGE)
    except KeyboardInterrupt:
        close()
        _fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # never a traceback (docs/reliability.md): one line saying what stopped
        close()
        _fail(f"stats stopped: {type(exc).__name__}: {exc}", EXIT_INPUT)
    close()
    for problem in result.skipped:
        click.echo(f"asr: warning: {problem} (skipped)", err=True)
    for warning in result.warnings:
        click.echo(f"asr: warning: {warning}", err=True)
    if result.warning_count > len(result.warnings):
        click.echo(f"asr: warning: {result.warning_count - len(result.warnings)} more warnings not shown", err=True)
    try:
        if as_json:
            sys.stdout.buffer.write(to_json(result))
        elif as_csv:
            sys.stdout.write(to_csv(result))
        else:
            table(result, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # asr stats | head
        pipe_closed()


def _update(url: str | None) -> None:
    from ..stats.prices import PriceUpdateError, update_prices

    try:
        update_prices(url)
    except PriceUpdateError as exc:
        _fail(str(exc), EXIT_INPUT)


def _progress_bar(wanted: bool) -> tuple[Any, Any]:
    """A progress bar on stderr when it is a terminal (and the run has many inputs)."""
    if not wanted or not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("reading sessions"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=True
    )
    state: dict[str, Any] = {}

    def step(done: int, total: int) -> None:
        if total < 50:
            return
        if "task" not in state:
            bar.start()
            state["task"] = bar.add_task("read", total=total)
        bar.update(state["task"], completed=done)

    def close() -> None:
        if "task" in state:
            bar.stop()

    return step, close


def _fail(message: str, code: int) -> None:
    click.echo(f"asr: error: {message}", err=True)
    sys.exit(code)
