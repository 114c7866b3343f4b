"""SpillMap/SpillSet: a dict whose older entries move to a temporary SQLite file, same answers."""

from __future__ import annotations

import tracemalloc

import pytest

from asr_adapters.core import spill
from asr_adapters.core.spill import SpillMap, SpillSet


def test_answers_like_a_dict_across_the_spill() -> None:
    spilled = SpillMap(limit=8)
    reference: dict[str | int | bytes, object] = {}
    for number in range(200):
        key: str | int | bytes = (f"id-{number}", number, f"b{number}".encode())[number % 3]
        value: object = {"record": number, "parts": [number, str(number)]} if number % 2 else (number, None)
        spilled[key] = value
        reference[key] = value
    assert spilled.spilled
    for stored, value in reference.items():
        assert stored in spilled
        assert spilled[stored] == value
        assert spilled.get(stored) == value
    assert "id-1" not in spilled and 3 not in spilled  # 3 % 3 == 0 is a str key ("id-3")
    assert spilled.get("missing", "default") == "default"
    with pytest.raises(KeyError):
        spilled["missing"]


def test_overwrite_delete_and_pop_reach_the_disk() -> None:
    spilled = SpillMap(limit=4)
    for number in range(20):
        spilled[f"k{number}"] = number
    assert spilled.spilled
    spilled["k0"] = "new"  # k0 was on disk: the dict copy wins
    assert spilled["k0"] == "new"
    del spilled["k1"]
    assert "k1" not in spilled
    with pytest.raises(KeyError):
        del spilled["k1"]
    assert spilled.pop("k2") == 2 and "k2" not in spilled
    assert spilled.pop("k2", "gone") == "gone"
    for number in range(20, 40):  # spill the new k0 too; the old disk row must be replaced
        spilled[f"k{number}"] = number
    assert spilled["k0"] == "new"
    assert spilled.setdefault("k3", "other") == 3
    assert spilled.setdefault("fresh", "made") == "made" and spilled["fresh"] == "made"


def test_a_written_entry_becomes_the_newest() -> None:
    spilled = SpillMap(limit=4)
    for number in range(4):
        spilled[number] = number
    spilled[0] = "again"  # 0 is now the newest, 1 the oldest
    spilled[4] = 4  # over the limit: the older half (1, 2, 3) moves to disk
    assert list(spilled._recent) == [0, 4]


def test_set_and_unsupported_key_types() -> None:
    seen = SpillSet(limit=2)
    for number in range(10):
        seen.add(f"u{number}")
    assert seen.spilled
    assert all(f"u{number}" in seen for number in range(10))
    seen.discard("u0")
    seen.discard("never")
    assert "u0" not in seen
    assert 1.5 not in seen and ("a", "b") not in seen  # not a key type: never stored
    seen.close()
    assert "u1" not in seen


def test_memory_stays_bounded_by_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spill, "DEFAULT_LIMIT", 1000)

    def peak(count: int) -> int:
        tracemalloc.start()
        try:
            spilled = SpillMap()
            for number in range(count):
                spilled[f"{number:032x}"] = f"record-{number}"
            assert spilled[f"{0:032x}"] == "record-0"
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(5_000), peak(50_000)
    assert large < small + 256 * 1024, (small, large)
