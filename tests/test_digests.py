"""DigestMap: what a duplicate check remembers per id, compact in memory, the same answers as a dict."""

from __future__ import annotations

import tracemalloc

import pytest

from asr_adapters.core.digests import DigestMap, key_digest, value_digest


@pytest.mark.parametrize("limit", [None, 1, 7, 100])
def test_answers_like_a_dict_across_growth_and_the_move_to_disk(limit: int | None) -> None:
    digests = DigestMap(limit)
    reference: dict[str | bytes | int, int] = {}
    for number in range(3000):
        name = f"id-{number % 1700}"
        key: str | bytes | int = (name, name.encode(), number % 1700)[number % 3]
        value = (number * 2654435761) % (1 << 64)
        assert digests.swap(key, value) == reference.get(key)
        reference[key] = value
    assert digests.spilled == (limit is not None)
    for key, value in reference.items():
        assert digests.get(key) == value and key in digests
    assert digests.get("never-set") is None and digests.get("never-set", -1) == -1
    assert "never-set" not in digests and 5000 not in digests and 1.5 not in digests
    digests.close()
    assert digests.get("id-1") is None


def test_values_are_unsigned_64_bit() -> None:
    digests = DigestMap()
    digests["max"] = (1 << 64) - 1
    digests["zero"] = 0
    assert digests.get("max") == (1 << 64) - 1 and digests.get("zero") == 0 and "zero" in digests
    for bad in (-1, 1 << 64):
        with pytest.raises(ValueError):
            digests["bad"] = bad


def test_extreme_values_survive_the_move_to_disk() -> None:
    digests = DigestMap(limit=2)
    for number, value in enumerate((0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1)):
        digests[f"k{number}"] = value
    assert digests.spilled
    assert [digests.get(f"k{n}") for n in range(5)] == [0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1]


def test_digests_are_the_same_in_every_process() -> None:
    """blake2b, not ``hash()``: a collision (about 10**-9 at 200,000 ids) would give the same
    output in every run, never a run-dependent one."""
    assert key_digest("call_1") == 0xB7F78D52D5BB4915  # blake2b-64 of the UTF-8 bytes, little-endian
    assert len({key_digest("call_1"), key_digest(b"call_1"), key_digest("call_2")}) == 3
    assert len({key_digest("1"), key_digest(b"1"), key_digest(1)}) == 3  # each key type apart
    assert value_digest(b"{}") == value_digest(b"{}") != value_digest(b"[]")
    assert key_digest("\ud83d") != 0  # a lone surrogate in an id is an id too


@pytest.mark.heavy  # hundreds of thousands of ids (.ci/run runs -m heavy)
def test_two_hundred_thousand_ids_cost_a_few_megabytes() -> None:
    """A dict of these strings to ints holds about 150 bytes an id; this holds the table (16
    bytes a slot, at most 3/4 full), a 1 MiB filter and the newest 4096 ids in a dict."""
    keys = [f"call_{number:024x}" for number in range(150_000)]
    tracemalloc.start()
    try:
        digests = DigestMap()
        for number, key in enumerate(keys):
            digests[key] = number
        size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not digests.spilled
    assert size < 6 * 2**20 and peak < 8 * 2**20, (size, peak)  # 5.4 and 7.4 MB when written


@pytest.mark.heavy  # hundreds of thousands of ids (.ci/run runs -m heavy)
def test_moving_to_disk_keeps_memory_bounded_by_the_limit() -> None:
    keys = [f"call_{number:024x}" for number in range(120_000)]
    tracemalloc.start()
    try:
        digests = DigestMap(limit=20_000)
        for number, key in enumerate(keys):
            digests[key] = number
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digests.spilled
    assert peak < 3.5 * 2**20, peak  # a 32,768-slot table (512 KiB), the filter (1 MiB), one sort: 2.9 MB
    assert digests.get(keys[0]) == 0 and digests.get(keys[-1]) == len(keys) - 1


def test_number_keys_behave_as_dict_keys_before_and_after_the_move() -> None:
    """Hostile ids can be numbers: equal numbers are one key (as in the dict in front), other
    types are refused with a clear error, never a crash at the move."""
    digests = DigestMap(limit=1)
    digests[1] = 10
    digests[2.5] = 25
    for filler in range(20):
        digests[f"f{filler}"] = filler
    assert digests.spilled
    assert digests.get(1.0) == 10 and digests.get(True) == 10 and digests.get(2.5) == 25
    with pytest.raises(TypeError):
        for filler in range(20):
            digests[(filler,)] = 1  # type: ignore[index]


def test_a_map_with_a_low_limit_has_a_fixed_cost_in_proportion() -> None:
    """The filter and first table made at the first move out of the dict are sized by the
    limit (the default keeps its 1 MiB filter and 16,384 slots): a map limited to 100 ids costs
    kilobytes, not the 1.25 MiB that made tests/test_memory see growth where there was none."""
    from asr_adapters.core import spill

    small = DigestMap(100)
    for n in range(1000):
        small[f"id-{n}"] = n
    assert small.get("id-0") == 0 and small.get("id-999") == 999 and small.get("id-1000") is None
    fixed = len(small._filter) + 2 * small._keys.itemsize * len(small._keys)
    assert fixed < 16 * 1024, fixed
    default = DigestMap()
    for n in range(5000):  # past the 4,096 kept in the dict
        default[n] = n
    assert len(default._filter) == 1 << 20 and len(default._keys) == 1 << 14
    spilled = spill.SpillMap(100)
    for n in range(1000):
        spilled[n] = n
    assert spilled.get(5) == 5 and len(spilled._filter) <= 8 * 1024
    assert spill.SpillMap()._filter_mask + 1 == 1 << 22
