"""``core.digest_pairs``: two id tables in one ``DigestMap`` read and write like two maps."""

from __future__ import annotations

import random

import pytest

from asr_adapters.core.digest_pairs import DigestPair


def test_the_halves_are_independent_and_absent_until_set() -> None:
    pair = DigestPair()
    assert pair.code.get("m1") is None and "m1" not in pair.code and "m1" not in pair.position
    pair.code["m1"] = 0
    assert pair.code.get("m1") == 0 and "m1" in pair.code
    assert pair.position.get("m1") is None and "m1" not in pair.position
    assert pair.position.swap("m1", 7) is None
    assert pair.position.swap("m1", 9) == 7
    pair.code["m1"] = 3
    assert (pair.code.get("m1"), pair.position.get("m1")) == (3, 9)
    pair.position["m2"] = 1
    assert pair.code.get("m2", "none") == "none" and pair.position.get("m2") == 1
    assert 5 not in pair.code and None not in pair.position  # never raises for other keys


def test_values_out_of_range_are_refused() -> None:
    pair = DigestPair()
    for bad in (-1, 1 << 31):
        with pytest.raises(ValueError):
            pair.code["x"] = bad
    for bad in (0, 1 << 32):
        with pytest.raises(ValueError):
            pair.position.swap("x", bad)


@pytest.mark.parametrize("limit", [None, 3, 50])
def test_it_answers_as_two_dicts_would_in_memory_and_spilled(limit: int | None) -> None:
    """Random writes and look-ups against two plain dicts, with the map small enough (limit) that
    ids move to its table and to disk."""
    rng = random.Random(28)
    pair = DigestPair(limit)
    codes: dict[str, int] = {}
    positions: dict[str, int] = {}
    for step in range(1, 4000):
        key = f"id-{rng.randrange(600)}"
        action = rng.randrange(4)
        if action == 0:
            value = rng.randrange(20)
            pair.code[key] = value
            codes[key] = value
        elif action == 1:
            assert pair.position.swap(key, step) == positions.get(key)
            positions[key] = step
        elif action == 2:
            assert pair.code.get(key) == codes.get(key) and (key in pair.code) == (key in codes)
        else:
            assert pair.position.get(key) == positions.get(key)
            assert (key in pair.position) == (key in positions)
    if limit is not None:
        assert pair.map.spilled
