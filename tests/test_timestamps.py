"""Timestamps keep the source's precision and never invent one."""

from __future__ import annotations

from asr_adapters.core import timestamps as t


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
