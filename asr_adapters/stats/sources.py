"""Reading one input of ``asr stats``: what it is (sniffed here, in the worker process, unless
the cache remembers), whether its cached summaries still hold (its fingerprint taken here), and
otherwise a ``SessionSummary`` per stream, with its warnings, or the error that made it
unreadable. One bad input costs that input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..core.errors import ASRError
from ..core.source import BadLine, Source
from .inputs import Input, Sniffed, claimed, sniff, sniff_as
from .prices import Prices
from .scanner import IDLE_SECONDS, SessionScanner
from .summary import SessionSummary

#: Warnings kept per input (the rest are only counted).
MAX_WARNINGS = 20


@dataclass
class Summarized:
    """What one input gave: a summary per stream, with whether the stream is a subagent or
    thread kept inside the same input (its parent's key in ``children``)."""

    input: Input
    summaries: list[SessionSummary] = field(default_factory=list)
    children: dict[str, str] = field(default_factory=dict)  # stream session -> parent session
    warnings: list[str] = field(default_factory=list)
    warning_count: int = 0
    error: str | None = None

    def warn(self, message: str) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)


@dataclass
class Outcome:
    """What became of one input in a worker: its resolved kind (``input``), a sniff to remember
    (``sniffed``, None when it came from the cache), why it is not read (``skipped``: not a
    session, or unreadable), its fingerprint, whether the cached summaries still hold (``hit``),
    or what it summed up to."""

    input: Input
    sniffed: Sniffed | None = None
    skipped: str | None = None
    stamp: str | None = None
    hit: bool = False
    summarized: Summarized | None = None
    packed: bytes | None = None  # ``summarized`` as the cache keeps it (``pack``): what a worker sends

    def unpacked(self) -> Summarized | None:
        """What the input summed up to, from ``packed`` when it came so."""
        if self.packed is None:
            return self.summarized
        from .cache import unpack

        return unpack(self.input, self.packed)


def process(
    item: Input,
    *,
    price: bool = True,
    idle_seconds: float = IDLE_SECONDS,
    prices: Prices | None = None,
    settings: str | None = None,
    pack: bool = False,
) -> Outcome:
    """Everything about one input that takes more than a stat: the sniff, the fingerprint
    (with ``settings``, the cache's; None: no cache), the reading. ``pack``: the summaries
    as the cache's JSON (``packed``), which a worker sends back in a tenth of the time pickling
    the summaries' objects takes, and which the cache stores as it is."""
    outcome = Outcome(item)
    if item.kind == "file":
        known = item.sniffed
        if known is None and item.home is not None:
            known = sniff_as(item.path, item.home)  # its home's agent alone; kept when it is content
            if known is not None and known[0] == "agent":
                outcome.sniffed = known
        if known is None:
            known = outcome.sniffed = sniff(item.path)
        kind, detail = known
        if kind == "agent" and detail is not None:
            kind, detail = claimed(item.path, detail, item.named)
        if kind == "unreadable":
            outcome.skipped = f"{item.path}: unreadable: {detail}"
            return outcome
        if kind not in ("asr", "native"):
            outcome.skipped = f"{item.path}: not a session log any agent here writes ({detail})"
            return outcome
        item = outcome.input = item.but(kind=kind, agent=detail if kind == "native" else None)
    if settings is not None:
        from .cache import stamp_of

        outcome.stamp = stamp_of(item, settings)
        if outcome.stamp is not None and outcome.stamp == item.cached_stamp:
            outcome.hit = True
            return outcome
    outcome.summarized = summarize(item, price=price, idle_seconds=idle_seconds, prices=prices)
    if pack and outcome.summarized.error is None:
        from .cache import pack as packed

        outcome.packed, outcome.summarized = packed(outcome.summarized), None
    return outcome


def summarize(
    item: Input, *, price: bool = True, idle_seconds: float = IDLE_SECONDS, prices: Prices | None = None
) -> Summarized:
    """Every stream of one input, summed up; an input that cannot be read gives its error."""
    out = Summarized(item)
    try:
        if item.kind == "asr":
            _asr(item, out, price, idle_seconds, prices)
        else:
            _native(item, out, price, idle_seconds, prices)
    except ASRError as exc:
        out.error = str(exc)
    except OSError as exc:
        out.error = f"{item.path}: {exc.strerror or exc}"
    except Exception as exc:  # one bad input must not stop the others
        out.error = f"{item.path}: not read: {type(exc).__name__}: {exc}"
    if out.error is not None:
        out.summaries.clear()
    return out


def _asr(item: Input, out: Summarized, price: bool, idle: float, prices: Prices | None) -> None:
    """An ASR stream, read line by line; a line that is not a JSON object is skipped and reported."""
    scanner = SessionScanner(prices, price=price, idle_seconds=idle)
    source = Source(item.path)
    first = True
    for number, raw in source.lines():
        try:
            record: Any = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reason = raw.reason if isinstance(raw, BadLine) else str(exc)
            if first:
                raise ASRError(f"{source.display}: not an ASR stream (line {number}: {reason})") from None
            out.warn(f"{source.display}:{number}: skipped, not JSON: {reason}")
            continue
        if not isinstance(record, dict):
            out.warn(f"{source.display}:{number}: skipped, not a record (a JSON object)")
            continue
        if first and record.get("type") != "session":
            raise ASRError(f"{source.display}: not an ASR stream (no session header on line {number})")
        first = False
        scanner.observe(record)
    if first:
        raise ASRError(f"{source.display}: empty stream")
    out.summaries.append(scanner.finish())


def _native(item: Input, out: Summarized, price: bool, idle: float, prices: Prices | None) -> None:
    from ..convert import Conversion

    conversion = Conversion(item.path, item.agent, as_dicts=True)
    keys: dict[str, str | None] = {}  # stream key -> its session
    for stream in conversion.streams():
        scanner = SessionScanner(prices, price=price, idle_seconds=idle)
        for record in stream.records:
            scanner.observe(record)
        summary = scanner.finish()
        out.summaries.append(summary)
        keys[stream.key] = summary.session
        parent = keys.get(stream.parent_key) if stream.parent_key is not None else None
        if parent is not None and summary.session is not None:
            out.children[summary.session] = parent
    for diagnostic in conversion.accounting.diagnostics:
        out.warn(diagnostic.describe())
    omitted = conversion.accounting.diagnostics.omitted
    if omitted:
        out.warning_count += omitted
