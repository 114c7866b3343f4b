"""Timestamps in the profile's form: RFC 3339, UTC, ``Z``, the source's own precision.

Each helper returns ``(ts, tsPrecision)``; ``tsPrecision`` is ``"s"`` when the source has
whole seconds only, else ``None``. Unparseable values give ``(None, None)``: a record
without a time is better than one with an invented time; so do zero values (an epoch of 0,
``1970-01-01T00:00:00Z``, Go's ``0001-01-01T00:00:00Z``), which stores write for "no time".
"""

from __future__ import annotations

from datetime import UTC, datetime

from .lazyre import LazyPattern

_CANONICAL = LazyPattern(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3,9})?Z\Z")
_GENERAL = LazyPattern(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|z|[+-]\d\d:?\d\d)?\Z")

TsPair = tuple[str | None, str | None]


# The last value from_iso read and its answer, as one tuple replaced whole: two threads (Dask's
# threaded workers) can then never pair one value with the other's answer.
_last_iso: tuple[object, TsPair] = (None, (None, None))


def from_iso(value: object) -> TsPair:
    """Normalize an ISO 8601 / RFC 3339 string to UTC with a ``Z`` suffix.

    The records of one native line share its timestamp, so the last answer is kept: adapters
    call this per record without keeping a cache of their own."""
    global _last_iso
    last_value, last_pair = _last_iso
    if value is last_value:
        return last_pair
    pair = _from_iso(value)
    ts = pair[0]
    if ts is not None and ts[:4] in _ZERO_YEARS and _ZERO_TIME.match(ts):
        pair = (None, None)  # a zero value (the epoch, Go's zero time): the source has no time
    _last_iso = (value, pair)
    return pair


_ZERO_YEARS = ("1970", "0001")
_ZERO_TIME = LazyPattern(r"(?:1970|0001)-01-01T00:00:00(?:\.0+)?Z\Z")


def _from_iso(value: object) -> TsPair:
    if type(value) is not str:
        return None, None
    if (  # the common case, checked cheaply
        len(value) == 24
        and value[23] == "Z"
        and value[19] == "."
        and value[10] == "T"
        and value[20:23].isdigit()
        and value[17:19].isdigit()
    ):
        return value, None
    if _CANONICAL.match(value):
        return value, (None if "." in value else "s")
    match = _GENERAL.match(value.strip())
    if not match:
        return None, None
    date, clock, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(f"{date}T{clock}{_zone(zone)}")
    except ValueError:
        return None, None
    moment = moment.astimezone(UTC)
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        digits = fraction if len(fraction) >= 3 else fraction.ljust(3, "0")
        return f"{base}.{digits}Z", None
    return f"{base}Z", "s"


def _zone(zone: str | None) -> str:
    if zone is None or zone in ("Z", "z"):
        return "+00:00"
    return zone if ":" in zone else f"{zone[:3]}:{zone[3:]}"


def from_epoch_seconds(value: object) -> TsPair:
    """Unix seconds (int: whole seconds; float: kept to the millisecond). Zero or less is a
    store's placeholder for "no time" (docs/semantics.md, Missing timestamps): no time."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None, None
    try:
        moment = datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None, None
    if isinstance(value, int):
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ"), "s"
    return _millis(moment), None


def from_epoch_millis(value: object) -> TsPair:
    """Unix milliseconds; zero or less gives no time (as ``from_epoch_seconds``)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None, None
    try:
        moment = datetime.fromtimestamp(int(value) / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None, None
    return _millis(moment), None


def _millis(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def stamp(record: dict, pair: TsPair) -> dict:
    """Set ``ts`` / ``tsPrecision`` on a record being built (only when known)."""
    ts, precision = pair
    if ts is not None:
        record["ts"] = ts
        if precision is not None:
            record["tsPrecision"] = precision
    return record
