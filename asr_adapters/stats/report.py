"""``report()`` and ``stats()``: read the inputs, sum each session up, group the summaries.

Inputs are read in worker processes when there are many (each one converted or read once,
its summary sent back, nothing else kept), in the order they were found, so two runs over the
same files give the same report.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..batch.scan import NOT_SESSION
from .group import GROUPINGS, Aggregator, Selection
from .inputs import Input, Plan, planned
from .prices import Prices
from .rows import Row
from .scanner import IDLE_SECONDS, default_prices
from .sources import Outcome, Summarized, process, summarize
from .summary import SessionSummary
from .when import moment, zone

if TYPE_CHECKING:
    from .cache import SummaryCache

#: Warnings kept to be shown (the rest are counted).
MAX_WARNINGS = 100
#: Fewer inputs than this are read in this process (a worker pool costs more than it saves).
PARALLEL_FROM = 16
#: The most inputs a worker is handed at once (fewer when there are few: each worker gets eight).
MAX_CHUNK = 32

TimeLike = str | datetime | float | int | None


@dataclass
class Report:
    """A grouped report: its rows, the total, and what could not be read."""

    by: str
    rows: list[Row]
    total: Row
    tz: tzinfo
    inputs: int = 0
    sessions: int = 0  # session streams read (subagents included)
    skipped: list[str] = field(default_factory=list)  # inputs not read, each with its reason
    warnings: list[str] = field(default_factory=list)
    warning_count: int = 0
    unpriced_models: dict[str, int] = field(default_factory=dict)  # model -> its unpriced tokens
    price_data: str | None = None
    homes: list[str] = field(default_factory=list)
    cached: int = 0  # inputs whose summaries came from the cache
    parts_left_out: int = 0  # files of a named folder an agent reads with another input

    def warn(self, message: str) -> None:
        """Count a warning; the first ``MAX_WARNINGS`` are kept to be shown."""
        self.warning_count += 1
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)

    def as_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "timezone": str(self.tz),
            "rows": [row.as_dict(self.tz) for row in self.rows],
            "totals": self.total.as_dict(self.tz),
            "unpricedModels": dict(sorted(self.unpriced_models.items())),
            "priceData": self.price_data,
            "inputs": self.inputs,
            "sessionStreams": self.sessions,
            "fromCache": self.cached,
            "skipped": self.skipped,
            "warnings": self.warning_count,
        }


def _time(value: TimeLike, tz: tzinfo, *, end: bool) -> float | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo is not None else value.replace(tzinfo=tz)).timestamp()
    if isinstance(value, int | float):
        return float(value)
    return moment(value, tz, end=end)


def _names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def report(
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str] | None = None,
    *,
    by: str = "day",
    since: TimeLike = None,
    until: TimeLike = None,
    agents: str | Iterable[str] | None = None,
    projects: str | Iterable[str] | None = None,
    models: str | Iterable[str] | None = None,
    breakdown: bool = False,
    timezone: str | tzinfo | None = None,
    env: Mapping[str, str] | None = None,
    jobs: int | None = None,
    price: bool = True,
    idle_seconds: float = IDLE_SECONDS,
    now: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    cache: str | os.PathLike[str] | bool | None = None,
) -> Report:
    """Read ``paths`` (native files or folders, ASR streams, batch archives; every agent's home
    when None) and group what they hold ``by`` one of ``GROUPINGS``. ``since``/``until``: an
    ISO date or date-time, ``7d``/``12h``, ``today``/``yesterday``, a datetime or epoch seconds
    (``until`` exclusive; a bare date means through that day). ``agents`` are agent names;
    ``projects`` and ``models`` globs or parts of the folder or model name. ``progress(done,
    total)`` is called as inputs are read. ``cache`` (a file, or True for the default one,
    docs/stats.md "Cache") keeps each input's summaries between runs: unchanged inputs are not
    read again."""
    if by not in GROUPINGS:
        raise ValueError(f"cannot group by {by!r}: one of {', '.join(GROUPINGS)}")
    tz = timezone if isinstance(timezone, tzinfo) else zone(timezone)
    wanted = _names(agents)
    selection = Selection(
        since=_time(since, tz, end=False),
        until=_time(until, tz, end=True),
        agents=frozenset(wanted),
        projects=_names(projects),
        models=_names(models),
    )
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    prices = default_prices() if price else None  # made before any worker starts: they inherit it
    store = _open_cache(cache, prices, price, idle_seconds)
    found = Plan()
    inputs: Iterable[Input] = planned(None if paths is None else list(paths), found, env=env, agents=wanted)
    if progress is not None:
        inputs = list(inputs)  # a progress bar needs the count first; else workers start as the walk goes
    aggregator = Aggregator(by, tz, selection, breakdown=breakdown)
    result = Report(by, [], aggregator.total, tz)
    if store is not None and store.problem:
        result.warn(store.problem)
    parents: dict[str, str] = {}
    read_from: dict[str, str] = {}  # session -> the input it was counted from
    try:
        for done, summarized in enumerate(_read(inputs, jobs, price, idle_seconds, prices, store, result), 1):
            if progress is not None:
                progress(done, len(inputs))  # type: ignore[arg-type]
            if summarized is None:  # not a session, or not readable: said in the report
                continue
            result.inputs += 1
            if summarized.error is not None:
                result.skipped.append(summarized.error)
                continue
            for warning in summarized.warnings:
                result.warn(warning)
            result.warning_count += summarized.warning_count - len(summarized.warnings)
            parents.update(summarized.children)
            for summary in summarized.summaries:
                _count(summary, summarized, result, aggregator, selection, parents, read_from)
    finally:
        if store is not None:
            store.close()  # what was read so far is kept, even when the run is interrupted
            result.cached = store.hits
    if paths is not None and result.inputs == 0 and result.parts_left_out:
        result.warn(
            f"no session read in {', '.join(map(str, paths))}: {result.parts_left_out} agent file(s) there are, by"
            " their place, parts of other sessions (subagent transcripts under subagents/, sidecars), read with"
            " their parent session's file: name that file or the folder holding it, or name the file itself"
            " to read it as a session"
        )
    result.skipped[:0] = found.problems  # what the walk could not read first, as it came first
    result.homes = [str(home) for home in found.homes]
    result.rows = aggregator.finish(parents, now=now)
    if prices is not None:
        result.price_data = prices.data_version
    return result


def _count(
    summary: SessionSummary,
    summarized: Summarized,
    result: Report,
    aggregator: Aggregator,
    selection: Selection,
    parents: dict[str, str],
    read_from: dict[str, str],
) -> None:
    """One session stream into the report, once: a session already counted from another input
    (a copy, or an archive and its source) is left out with a warning."""
    where = str(summarized.input.path)
    if summary.session is not None:
        first = read_from.setdefault(summary.session, where)
        if first != where:
            result.warn(f"{where}: {summary.session} was already counted from {first}: counted once")
            return
    result.sessions += 1
    own = summary.session
    if own is not None:  # docs/stats.md, "Rows and columns": which streams are a session's subagents
        for subagent in summary.subagents:
            if subagent.session is not None:
                parents.setdefault(subagent.session, own)
        for child in summary.reports_from:
            parents.setdefault(child, own)
        if summary.parent is not None and summary.opened_by == "agent":
            parents.setdefault(own, summary.parent)  # started by its parent agent's task: a subagent
    if aggregator.add(summary):
        for response in summary.responses:
            if response.unpriced and selection.when(response.time) and selection.model(response.model):
                name = response.model or "unknown"
                result.unpriced_models[name] = result.unpriced_models.get(name, 0) + response.tokens.total


def _open_cache(
    cache: str | os.PathLike[str] | bool | None, prices: Prices | None, price: bool, idle: float
) -> SummaryCache | None:
    if cache is None or cache is False:
        return None
    from .cache import code_fingerprint, default_path

    path = default_path() if cache is True else Path(cache)
    data = prices.data_version if prices is not None else "no prices"
    from .cache import SummaryCache

    return SummaryCache(path, f"{code_fingerprint()}|{data}|{idle}|{price}")


def _read(
    inputs: Iterable[Input],
    jobs: int | None,
    price: bool,
    idle: float,
    prices: Prices | None,
    store: SummaryCache | None,
    result: Report,
) -> Iterator[Summarized | None]:
    """Each input's summaries, in input order (None for a file that is not a session): from
    the cache when the worker finds the input unchanged, else read there."""
    if store is not None:
        inputs = store.annotate(inputs)
    settings = store.settings if store is not None else None
    for outcome in _process_all(inputs, jobs, price, idle, prices, settings):
        item = outcome.input
        if store is not None and outcome.sniffed is not None and outcome.sniffed[0] != "unreadable":
            store.keep(item, *outcome.sniffed)
        if outcome.skipped is not None:
            if item.named or "unreadable" in outcome.skipped:
                result.skipped.append(outcome.skipped)
            elif NOT_SESSION in outcome.skipped:
                result.parts_left_out += 1  # an agent's file read with another (a subagent transcript)
            yield None
            continue
        summarized = store.load(item) if store is not None and outcome.hit else outcome.unpacked()
        if summarized is None:  # a cache entry that went missing or broke: read it here
            summarized = summarize(item, price=price, idle_seconds=idle, prices=prices)
        elif store is not None and not outcome.hit:
            store.put(item, outcome.stamp, summarized, outcome.packed)
        yield summarized


def _process_all(
    inputs: Iterable[Input], jobs: int | None, price: bool, idle: float, prices: Prices | None, settings: str | None
) -> Iterator[Outcome]:
    from ..batch.pool import cpu_count

    wanted = jobs or cpu_count()
    items = iter(inputs)
    # enough inputs to choose the pool as the whole list would: the chunk is then its largest
    head = list(itertools.islice(items, max(PARALLEL_FROM, 8 * MAX_CHUNK * wanted)))
    workers = min(wanted, len(head))
    if workers <= 1 or len(head) < PARALLEL_FROM:
        for item in itertools.chain(head, items):
            yield process(item, price=price, idle_seconds=idle, prices=prices, settings=settings)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    from ..batch.pool import init_worker

    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    work = partial(process, price=price, idle_seconds=idle, settings=settings, pack=True)
    chunk = max(1, min(MAX_CHUNK, len(head) // (workers * 8)))
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker, initargs=(os.getpid(), ())) as pool:
        # map() submits each chunk as the walk gives it: the workers read while the walk goes on
        yield from pool.map(work, itertools.chain(head, items), chunksize=chunk)


def stats(
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str] | None = None,
    *,
    as_dicts: bool = False,
    **options: Any,
) -> list[Row] | list[dict[str, Any]]:
    """The rows of ``report(paths, **options)``: ``Row`` dataclasses, or with ``as_dicts`` the
    dicts ``asr stats --json`` prints (docs/stats.md)."""
    result = report(paths, **options)
    if as_dicts:
        return [row.as_dict(result.tz) for row in result.rows]
    return result.rows


__all__ = ["Report", "report", "stats"]
