"""``core.valueclass`` behaves as the ``@dataclass`` it replaces on the start-up path (issue 28).

Each case builds the same class twice, once with ``dataclasses.dataclass`` and once with
``valueclass``, and asks both the same questions: construction, defaults, errors, repr,
equality, hashing, immutability and pickling.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections import Counter
from typing import Any

import pytest

from asr_adapters.core import valueclass as vc


def _twins(frozen: bool) -> tuple[type, type]:
    @dataclasses.dataclass(frozen=frozen)
    class Point:
        x: int
        label: str = "p"
        seen: Counter[str] = dataclasses.field(default_factory=Counter)

    @vc.valueclass(frozen=frozen)
    class Point2:
        x: int
        label: str = "p"
        seen: Counter[str] = vc.field(default_factory=Counter)

    Point2.__qualname__ = Point.__qualname__
    return Point, Point2


@pytest.mark.parametrize("frozen", [False, True])
def test_construction_repr_and_equality_match_a_dataclass(frozen: bool) -> None:
    plain, value = _twins(frozen)
    for args, kwargs in [((1,), {}), ((1, "q"), {}), ((), {"x": 2, "label": "r"}), ((3,), {"seen": Counter("ab")})]:
        expected, got = plain(*args, **kwargs), value(*args, **kwargs)
        assert repr(got) == repr(expected)
        assert got == value(*args, **kwargs)
        assert got != value(99)
    assert value(1) != plain(1)  # another class is never equal, as between two dataclasses


@pytest.mark.parametrize("frozen", [False, True])
def test_a_factory_default_is_made_for_each_instance(frozen: bool) -> None:
    _, value = _twins(frozen)
    first, second = value(1), value(1)
    first.seen["a"] += 1
    assert second.seen == Counter()
    assert "seen" not in vars(value)  # the factory is not left as a class attribute


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        ((), {}, "missing required argument: 'x'"),
        ((1, "a", Counter(), 4), {}, "takes 3 positional arguments but 4 were given"),
        ((1,), {"x": 2}, "multiple values for argument 'x'"),
        ((1,), {"colour": "red"}, "unexpected keyword argument 'colour'"),
    ],
)
def test_wrong_arguments_are_refused_as_a_dataclass_refuses_them(
    args: tuple[Any, ...], kwargs: dict[str, Any], words: str
) -> None:
    plain, value = _twins(False)
    with pytest.raises(TypeError):
        plain(*args, **kwargs)
    with pytest.raises(TypeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        value(*args, **kwargs)


def test_a_mutable_class_is_unhashable_and_a_frozen_one_hashes_by_value() -> None:
    _, mutable = _twins(False)
    _, frozen = _twins(True)
    with pytest.raises(TypeError):
        hash(mutable(1))
    with pytest.raises(TypeError):  # hashed by value: an unhashable field makes it unhashable
        hash(frozen(1, "a", Counter()))
    point = frozen(1, "a", ())  # a hashable value in the last field
    assert hash(point) == hash(frozen(1, "a", ()))
    assert {point, frozen(1, "a", ())} == {point}


def test_a_frozen_instance_cannot_be_changed() -> None:
    _, frozen = _twins(True)
    point = frozen(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.label
    assert point.x == 1


@vc.valueclass
class _Kept:
    name: str
    counts: Counter[str] = vc.field(default_factory=Counter)


@vc.valueclass(frozen=True)
class _KeptFrozen:
    name: str
    parts: tuple[str, ...] = ()


def test_instances_survive_pickling() -> None:
    """Batch workers send accounting back to the parent: both kinds must pickle."""
    kept = _Kept("a", Counter("abba"))
    assert pickle.loads(pickle.dumps(kept)) == kept
    frozen = _KeptFrozen("b", ("x", "y"))
    assert pickle.loads(pickle.dumps(frozen)) == frozen


def test_fields_of_a_base_come_first() -> None:
    @vc.valueclass
    class Base:
        a: int
        b: int = 0

    @vc.valueclass
    class Child(Base):
        c: str = "c"

    assert repr(Child(1, 2, "z")).endswith("Child(a=1, b=2, c='z')")
    assert Child(1) == Child(1, 0, "c")
