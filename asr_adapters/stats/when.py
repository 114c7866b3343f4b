"""Times as ``asr stats`` reads and shows them: ``--since``/``--until`` values, time zones, and
the day, ISO week, month and hour a moment falls in."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_SPAN = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class TimeSpecError(ValueError):
    """A ``--since``/``--until`` value or a time zone that cannot be read."""


def zone(name: str | None) -> tzinfo:
    """The named IANA zone (``UTC``, ``Europe/Paris``), or this machine's local zone for None."""
    if name is None or name.lower() == "local":
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TimeSpecError(f"unknown time zone {name!r} (an IANA name such as UTC or Europe/Paris)") from exc


def moment(value: str, tz: tzinfo, *, end: bool = False, now: datetime | None = None) -> float:
    """Epoch seconds of a ``--since``/``--until`` value: an ISO date or date-time (in ``tz``
    unless it names its own offset), ``7d``/``12h``/``30m``/``2w`` ago, ``today``, ``yesterday``.
    ``end`` (``--until``): a bare date or ``today``/``yesterday`` means the end of that day, so
    ``--until 2026-01-05`` includes the 5th."""
    text = value.strip()
    current = (now or datetime.now(tz)).astimezone(tz)
    lowered = text.lower()
    if lowered in ("today", "yesterday"):
        day = current.date() - timedelta(days=1 if lowered == "yesterday" else 0)
        return _day_edge(day, tz, end)
    if lowered == "now":
        return current.timestamp()
    span = _SPAN.fullmatch(text)
    if span is not None:
        return current.timestamp() - int(span.group(1)) * _UNITS[span.group(2).lower()]
    try:
        if len(text) == 10:
            return _day_edge(date.fromisoformat(text), tz, end)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise TimeSpecError(
            f"cannot read {value!r} as a time: use an ISO date (2026-01-05) or date-time"
            " (2026-01-05T14:00), 7d, 12h, 30m, 2w, today or yesterday"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tz)
    return parsed.timestamp()


def _day_edge(day: date, tz: tzinfo, end: bool) -> float:
    if end:
        day += timedelta(days=1)
    return datetime(day.year, day.month, day.day, tzinfo=tz).timestamp()


def local(seconds: float, tz: tzinfo) -> datetime:
    return datetime.fromtimestamp(seconds, tz)


def day_key(seconds: float, tz: tzinfo) -> str:
    return local(seconds, tz).date().isoformat()


def week_key(seconds: float, tz: tzinfo) -> str:
    """The ISO week (Monday to Sunday) as ``2026-W02``."""
    year, week, _ = local(seconds, tz).date().isocalendar()
    return f"{year}-W{week:02d}"


def month_key(seconds: float, tz: tzinfo) -> str:
    return local(seconds, tz).strftime("%Y-%m")


def show(seconds: float | None, tz: tzinfo) -> str | None:
    """A moment as ISO 8601 in ``tz`` to the second (what rows and tables show)."""
    if seconds is None:
        return None
    return local(seconds, tz).isoformat(timespec="seconds")
