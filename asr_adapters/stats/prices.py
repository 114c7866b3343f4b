"""What a model response cost, from genai-prices (pydantic's offline price data).

``genai_prices.calc_price`` takes about half a millisecond a call, too slow for a home of a
million responses. A price is linear in the token counts within one price table (the
``ModelPrice`` the model had on the day the response ran) and one tier of it (tiered prices
switch on the request's input tokens), so for each (table, tier) this module asks the library
for five probe prices, solves them for a per-request constant and a rate per token kind, and
prices every response of that table and tier with those coefficients. The figures and the
choice of table and tier stay the library's; ``tests/stats/test_prices.py`` checks the result
against ``calc_price`` itself on every kind of table.

Prices come from the data bundled with the installed genai-prices (offline). A pipeline that
wants newer data runs ``genai_prices.UpdatePrices`` (the library's own updater); this module
reads whichever snapshot the library holds at the time, keyed by its identity.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

#: A probe's output count: large enough that the output rate is exact in Decimal arithmetic.
_MILLION = 1_000_000


@dataclass(slots=True)
class Tokens:
    """Token counts in the normalized ``usage`` definition: ``input`` is every input token
    (cached or not), ``cache_read``/``cache_write`` are parts of it, ``output`` every generated
    token, ``reasoning`` the reasoning part of output. ``cache_write_1h`` is the part of
    ``cache_write`` cached for an hour (Anthropic's ``ephemeral_1h_input_tokens``, priced higher
    than the five-minute writes; only in ``nativeUsage``: ``stats.recorded``)."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0
    cache_write_1h: int = 0

    def __bool__(self) -> bool:
        return bool(self.input or self.output or self.cache_read or self.cache_write or self.reasoning)

    def add(self, other: Tokens) -> None:
        """Add another count to this one, in place."""
        self.input += other.input
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.output += other.output
        self.reasoning += other.reasoning
        self.cache_write_1h += other.cache_write_1h

    @property
    def total(self) -> int:
        return self.input + self.output

    def as_dict(self) -> dict[str, int]:
        return {
            "inputTokens": self.input,
            "cacheReadTokens": self.cache_read,
            "cacheWriteTokens": self.cache_write,
            "outputTokens": self.output,
            "reasoningTokens": self.reasoning,
            "totalTokens": self.total,
        }


@dataclass(slots=True)
class Price:
    """A response's price in USD, with the provider and model genai-prices matched."""

    usd: float
    provider: str
    model: str


@dataclass(frozen=True, slots=True)
class _Linear:
    """cost = per_request + uncached * input + cache_read * read + cache_write * write + output * out,
    in floats (solved in Decimal from the library's prices; float error is about 1e-16 of a cost)."""

    per_request: float
    uncached: float
    read: float
    write: float
    out: float
    write_1h: float

    def cost(self, tokens: Tokens) -> float:
        uncached = tokens.input - tokens.cache_read - tokens.cache_write
        return (
            self.per_request
            + self.uncached * uncached
            + self.read * tokens.cache_read
            + self.write * (tokens.cache_write - tokens.cache_write_1h)
            + self.write_1h * tokens.cache_write_1h
            + self.out * tokens.output
        )


class Prices:
    """Prices responses with genai-prices; one instance caches model look-ups and coefficients.

    ``price(model, tokens, when, provider)`` (``when`` in epoch seconds, None for now;
    ``provider`` genai-prices' id of the provider the record names, ``stats.providers``) gives a
    ``Price``, or None when genai-prices knows no such model or the counts break the usage
    definition (cache parts larger than the input, reasoning larger than the output). The model
    is looked up at the provider named; where that provider is not one genai-prices knows, or
    it lists no such model, by the model's name alone. A model named with a path
    (``openrouter/deepseek/deepseek-v3.2``) is looked up as given, then without its leading
    segments, one at a time.
    """

    def __init__(self) -> None:
        import genai_prices  # imported here: a run that prices nothing never pays for it
        from genai_prices import data_snapshot
        from genai_prices.types import TieredPrices

        self._genai = genai_prices
        self._snapshots = data_snapshot
        self._tiered = TieredPrices
        self._snapshot: Any = None
        self._models: dict[tuple[str | None, str], tuple[Any, Any] | None] = {}
        # (id(ModelInfo), epoch minute) -> (table, tier starts): a table changes by date, or by
        # time of day for off-peak prices, never within a minute
        self._tables: dict[tuple[int, int], tuple[Any, tuple[int, ...]]] = {}
        self._linear: dict[tuple[int, int], _Linear | None] = {}
        self._kept: list[Any] = []  # every table keyed by id() stays alive, so no id is reused
        self._steps: dict[int, int] = {}  # id(ModelInfo) -> seconds its price table stays the same for
        self._starts: dict[int, tuple[int, ...]] = {}  # id(table) -> its tiers' starts

    @property
    def data_version(self) -> str:
        """Which price data is in use: the genai-prices version, and whether it was updated."""
        snapshot = self._snapshots.get_snapshot()
        if snapshot.from_auto_update:
            return (
                f"genai-prices {self._genai.__version__} (updated {snapshot.timestamp.isoformat(timespec='seconds')})"
            )
        return f"genai-prices {self._genai.__version__} (bundled)"

    def price(self, model: str, tokens: Tokens, when: float | None, provider: str | None = None) -> Price | None:
        if (
            tokens.cache_read + tokens.cache_write > tokens.input
            or tokens.reasoning > tokens.output
            or tokens.cache_write_1h > tokens.cache_write
        ):
            return None  # not the usage definition: no price rather than a wrong one
        found = self._match(model, provider)
        if found is None:
            return None
        seller, info = found
        seconds = when if when is not None else datetime.now(tz=UTC).timestamp()
        step = self._steps.get(id(info))
        if step is None:
            step = self._steps[id(info)] = self._step(info)
        at = (id(info), int(seconds // step))
        known = self._tables.get(at)
        if known is None:
            table = info.get_prices(datetime.fromtimestamp(seconds, tz=UTC))
            starts = self._starts.get(id(table))
            if starts is None:
                starts = self._starts[id(table)] = tuple(
                    sorted({t.start for v in vars(table).values() if isinstance(v, self._tiered) for t in v.tiers})
                )
            self._kept.append(table)
            known = self._tables[at] = (table, starts)
        table, starts = known
        tier = 0
        for start in starts:
            if tokens.input > start:
                tier += 1
        key = (id(table), tier)
        linear = self._linear.get(key, _UNSOLVED)
        if linear is _UNSOLVED:
            linear = self._linear[key] = self._solve(seller, info, seconds, starts, tier)
        if linear is None:  # a tier too narrow to probe: the library prices this one itself
            return Price(float(self._exact(seller, info, seconds, tokens)), seller.id, info.id)
        return Price(linear.cost(tokens), seller.id, info.id)

    def _step(self, info: Any) -> int:
        """How long one look-up of ``info``'s table holds: a UTC day (prices change by date),
        or a minute for a model with off-peak prices by time of day."""
        from genai_prices.types import TimeOfDateConstraint

        prices = info.prices if isinstance(info.prices, list) else []
        variants = getattr(info, "price_variants", None) or []
        constraints = [getattr(c, "constraint", None) for c in [*prices, *variants]]
        return 60 if any(isinstance(c, TimeOfDateConstraint) for c in constraints) else 86_400

    def _match(self, model: str, provider: str | None = None) -> tuple[Any, Any] | None:
        snapshot = self._snapshots.get_snapshot()
        if snapshot is not self._snapshot:  # prices were updated: every cached answer is stale
            self._snapshot = snapshot
            self._models.clear()
            self._tables.clear()
            self._linear.clear()
            self._kept.clear()
            self._steps.clear()
            self._starts.clear()
        key = (provider, model)
        if key in self._models:
            return self._models[key]
        found = None
        parts = model.split("/")
        for named in (provider, None) if provider is not None else (None,):
            for start in range(len(parts)):
                ref = "/".join(parts[start:]).strip()
                if not ref:
                    continue
                try:
                    found = snapshot.find_provider_model(ref, None, named, None)
                    break
                except LookupError:
                    continue
            if found is not None:
                break
        self._models[key] = found
        return found

    def _exact(self, provider: Any, info: Any, seconds: float, tokens: Tokens) -> Decimal:
        usage = self._genai.Usage(
            input_tokens=tokens.input,
            cache_read_tokens=tokens.cache_read,
            cache_write_tokens=tokens.cache_write,
            cache_write_1h_tokens=tokens.cache_write_1h,
            output_tokens=tokens.output,
        )
        moment = datetime.fromtimestamp(seconds, tz=UTC)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Decimal(info.calc_price(usage, provider, genai_request_timestamp=moment).total_price)

    def _solve(self, provider: Any, info: Any, seconds: float, starts: tuple[int, ...], tier: int) -> _Linear | None:
        """The coefficients of one table and tier, from six prices the library computes."""
        low = starts[tier - 1] + 1 if tier > 0 else 1  # a tier holds inputs above its start
        high = starts[tier] if tier < len(starts) else None
        if high is not None and high < low + 1:
            return None
        a, b = low, low + 1

        def at(input_tokens: int, read: int = 0, write: int = 0, output: int = 0, write_1h: int = 0) -> Decimal:
            tokens = Tokens(input_tokens, read, write, output, cache_write_1h=write_1h)
            return self._exact(provider, info, seconds, tokens)

        base_a, base_b = at(a), at(b)
        uncached = base_b - base_a
        per_request = base_a - uncached * a
        try:
            return _Linear(
                per_request=float(per_request),
                uncached=float(uncached),
                read=float((at(a, read=a) - per_request) / a),
                write=float((at(a, write=a) - per_request) / a),
                out=float((at(a, output=_MILLION) - base_a) / _MILLION),
                write_1h=float((at(a, write=a, write_1h=a) - per_request) / a),
            )
        except (ArithmeticError, ValueError):
            return None


_UNSOLVED: Any = object()


class PriceUpdateError(Exception):
    """The newest price data could not be fetched (``update_prices``)."""


def update_prices(url: str | None = None, timeout: float = 30.0) -> str:
    """Fetch genai-prices' newest price data once, with the library's own updater
    (``genai_prices.UpdatePrices``, from its GitHub data unless ``url`` names another copy),
    and use it for the rest of this process. Returns the data's description."""
    import genai_prices
    from genai_prices import data_snapshot
    from genai_prices.update_prices import DEFAULT_UPDATE_URL

    updater = genai_prices.UpdatePrices(url=url or DEFAULT_UPDATE_URL, update_interval=3600)
    updater.start()
    try:
        if not updater.wait(timeout):
            raise PriceUpdateError(f"no price data from {updater.url} within {timeout:g} s")
    except PriceUpdateError:
        raise
    except Exception as exc:  # the library re-raises the fetch's own error (HTTP, JSON, schema)
        raise PriceUpdateError(f"price data from {updater.url} could not be used: {type(exc).__name__}: {exc}") from exc
    finally:
        updater.stop()
    if not data_snapshot.get_snapshot().from_auto_update:
        raise PriceUpdateError(f"price data from {updater.url} was not installed")
    return f"genai-prices {genai_prices.__version__} (updated from {updater.url})"
