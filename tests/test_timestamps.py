"""Timestamps keep the source's precision and never invent one."""

from __future__ import annotations

import pytest

from asr_adapters.core import timestamps as t
from asr_adapters.core.timestamps import from_epoch_millis, from_epoch_seconds, from_iso


def test_canonical_passes_through() -> None:
    assert t.from_iso("2026-05-11T08:27:17.493Z") == ("2026-05-11T08:27:17.493Z", None)
    assert t.from_iso("2026-05-11T08:27:17Z") == ("2026-05-11T08:27:17Z", "s")


def test_offsets_become_utc_and_keep_fraction_digits() -> None:
    assert t.from_iso("2026-05-11T10:27:17.123456+02:00") == ("2026-05-11T08:27:17.123456Z", None)
    assert t.from_iso("2026-05-11 10:27:17+0200") == ("2026-05-11T08:27:17Z", "s")
    assert t.from_iso("2026-05-11T08:27:17.5Z") == ("2026-05-11T08:27:17.500Z", None)


def test_garbage_gives_no_time() -> None:
    assert t.from_iso("yesterday") == (None, None)
    assert t.from_iso(12) == (None, None)
    assert t.from_epoch_seconds("x") == (None, None)
    assert t.from_epoch_seconds(10**30) == (None, None)


def test_epochs() -> None:
    assert t.from_epoch_seconds(1789723873) == ("2026-09-18T09:31:13Z", "s")
    assert t.from_epoch_seconds(1789723873.124257) == ("2026-09-18T09:31:13.124Z", None)
    assert t.from_epoch_millis(1789723873124) == ("2026-09-18T09:31:13.124Z", None)


@pytest.mark.parametrize(
    "helper, value",
    [
        (from_epoch_millis, 0),
        (from_epoch_millis, 0.0),
        (from_epoch_millis, -1),
        (from_epoch_seconds, 0),
        (from_epoch_seconds, -5),
        (from_iso, "1970-01-01T00:00:00Z"),
        (from_iso, "1970-01-01T00:00:00.000Z"),
        (from_iso, "0001-01-01T00:00:00Z"),
        (from_iso, "0001-01-01T00:00:00.000Z"),
    ],
)
def test_a_zero_or_epoch_time_is_no_time(helper, value) -> None:
    """issue 26: a store's 0 (OpenCode part rows' ``time_created``), an epoch or a Go zero time is
    the source saying it has no time; it must give no ``ts``, not 1970-01-01 (docs/semantics.md)."""
    assert helper(value) == (None, None)


def test_the_first_real_millisecond_is_kept() -> None:
    assert from_epoch_millis(1) == ("1970-01-01T00:00:00.001Z", None)
