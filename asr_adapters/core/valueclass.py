"""Small value classes without the start-up cost of ``dataclasses``.

``@dataclass`` writes a class's ``__init__``, ``__repr__`` and ``__eq__`` (and, frozen, its
``__setattr__``, ``__delattr__`` and ``__hash__``) as source text and compiles each with ``exec``
when the module is imported: about 2.5 M instructions a class. The twelve such classes that
``asr convert`` of a small session imports were a tenth of its whole process (issue 28, target
3). ``@valueclass`` gives a class the same constructor (the annotated fields in order, defaults,
``field(default_factory=...)`` for a fresh mutable default), repr, equality and, with
``frozen=True``, immutability and a hash, from functions shared by every such class: nothing is
compiled. Making an instance costs a loop over the fields, a few times a dataclass's, so it is
for classes made a few times an input (a stream's facts, a report, a finding), not once a line.
Type checkers read it as a dataclass (``dataclass_transform``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import Any, TypeVar, cast, dataclass_transform, overload

T = TypeVar("T")
C = TypeVar("C", bound=type)

_MISSING: Any = object()


class _Factory:
    """What ``field(default_factory=...)`` leaves in the class body until ``@valueclass`` reads it."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made afresh for each instance (a list, a Counter)."""
    return cast(T, _Factory(default_factory))


#: per class: (name, default or _MISSING, factory or None) for each field, in order
_Spec = tuple[tuple[str, Any, Callable[[], Any] | None], ...]


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    spec: _Spec = cls.__value_fields__
    if len(args) > len(spec):
        raise TypeError(f"{cls.__name__}() takes {len(spec)} positional arguments but {len(args)} were given")
    assign = object.__setattr__
    for index, (name, default, make) in enumerate(spec):
        if index < len(args):
            if name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            given = args[index]
        elif name in kwargs:
            given = kwargs.pop(name)
        elif make is not None:
            given = make()
        elif default is not _MISSING:
            given = default
        else:
            raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
        assign(self, name, given)
    if kwargs:
        raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name, _, _ in type(self).__value_fields__)


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name, _, _ in type(self).__value_fields__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _refuse_set(self: Any, name: str, given: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _fields_of(cls: type) -> _Spec:
    inherited: dict[str, tuple[str, Any, Callable[[], Any] | None]] = {}
    for base in reversed(cls.__mro__[1:]):
        for entry in getattr(base, "__value_fields__", ()):
            inherited[entry[0]] = entry
    for name, annotation in inspect.get_annotations(cls).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        default = cls.__dict__.get(name, _MISSING)
        if isinstance(default, _Factory):
            inherited[name] = (name, _MISSING, default.make)
            delattr(cls, name)  # as a dataclass does: the factory is not a class attribute
        else:
            inherited[name] = (name, default, None)
    return tuple(inherited.values())


@overload
def valueclass(cls: C, /) -> C: ...
@overload
def valueclass(*, frozen: bool = False) -> Callable[[C], C]: ...


@dataclass_transform(field_specifiers=(field,))
def valueclass(cls: C | None = None, /, *, frozen: bool = False) -> C | Callable[[C], C]:
    """Make ``cls`` a value class: ``@valueclass`` or ``@valueclass(frozen=True)``."""

    def build(target: C) -> C:
        methods: dict[str, Any] = {"__value_fields__": _fields_of(target), "__init__": _init}
        methods.update(__repr__=_repr, __eq__=_eq, __hash__=None)  # mutable: unhashable, as a dataclass
        if frozen:
            methods.update(__hash__=_hash, __setattr__=_refuse_set, __delattr__=_refuse_delete)
        for name, method in methods.items():
            setattr(target, name, method)
        return target

    return build if cls is None else build(cls)
