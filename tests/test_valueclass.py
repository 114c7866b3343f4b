"""``core.valueclass`` behaves as the ``@dataclass`` it replaces on the start-up path (issue 28).

Each case builds the same class twice, once with ``dataclasses.dataclass`` and once with
``valueclass``, and asks both the same questions: construction, defaults, errors, repr,
equality, hashing, immutability and pickling.
"""

from __future__ import annotations

import dataclasses
import pickle
import typing
from collections import Counter
from typing import Any, ClassVar

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


@pytest.mark.parametrize("method", ["__init__", "__repr__", "__eq__", "__hash__", "__post_init__"])
def test_a_class_with_its_own_generated_method_or_post_init_is_refused(method: str) -> None:
    """A dataclass would keep the class's own method (or call ``__post_init__``); a valueclass
    would silently replace it, so it refuses the class instead."""
    body: dict[str, Any] = {"__annotations__": {"a": "int"}, method: lambda self, *args: None}
    with pytest.raises(TypeError, match=method):
        vc.valueclass(type("Own", (), body))


def test_class_variables_are_not_fields_however_they_are_spelled() -> None:
    @vc.valueclass
    class Counted:
        a: int
        plain: ClassVar[int] = 1
        dotted: typing.ClassVar[str] = "x"

    assert [name for name, _, _ in Counted.__value_fields__] == ["a"]  # type: ignore[attr-defined]
    assert Counted(5).plain == 1 and Counted.__match_args__ == ("a",)  # type: ignore[misc]


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    @vc.valueclass
    class Base:
        a: int = 0

    with pytest.raises(TypeError, match="'b' without a default"):
        vc.valueclass(type("Child", (Base,), {"__annotations__": {"b": "int"}}))


def test_a_mutable_class_on_a_frozen_base_is_refused() -> None:
    @vc.valueclass(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="not frozen"):
        vc.valueclass(type("Child", (Base,), {"__annotations__": {"b": "int"}}))


def test_a_value_that_holds_itself_has_a_repr() -> None:
    @vc.valueclass
    class Box:
        inner: list[Any] = vc.field(default_factory=list)

    box = Box()
    box.inner.append(box)
    assert repr(box).endswith("Box(inner=[...])")


def test_positional_patterns_match_as_for_a_dataclass() -> None:
    match _KeptFrozen("n", ("p",)):
        case _KeptFrozen(name, parts):
            assert (name, parts) == ("n", ("p",))
        case _:
            pytest.fail("no match")


def test_the_public_classes_of_the_library_api_are_dataclasses() -> None:
    """``asr_adapters.Accounting``, ``Diagnostic`` and ``Finding`` stay dataclasses: users call
    ``dataclasses.asdict`` and ``replace`` on them."""
    import asr_adapters

    for name in ("Accounting", "Diagnostic", "Finding"):
        assert dataclasses.is_dataclass(getattr(asr_adapters, name)), name
    finding = asr_adapters.Finding("ASR-200", 1, 2, "message")
    assert dataclasses.replace(finding, seq=3).seq == 3 and dataclasses.asdict(finding)["rule"] == "ASR-200"
