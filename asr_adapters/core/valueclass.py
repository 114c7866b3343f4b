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
Type checkers read it as a dataclass (``dataclass_transform``), but it is not one to
``dataclasses.asdict``/``replace``/``fields``, orjson or ``inspect.signature`` (``(*args,
**kwargs)``): public classes of the library API stay dataclasses. A class that defines its own
``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__`` or
``__post_init__``, a non-frozen class on a frozen base, and a field without a default after one
with a default are refused with a ``TypeError`` when the class is made.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from reprlib import recursive_repr
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


@recursive_repr()  # a value that holds itself shows "...", as in a dataclass's repr
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


#: what a class of its own may not define: ``@valueclass`` writes these, and does not call
#: ``__post_init__`` (a dataclass would keep the class's own methods, and call it)
_WRITTEN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__post_init__")
_CLASSVAR = re.compile(r"(?:^|[\s.\[])ClassVar\b")


def _fields_of(cls: type, frozen: bool) -> _Spec:
    """The fields, a base's first; a ``TypeError`` for what ``@dataclass`` would do otherwise."""
    own = [name for name in _WRITTEN if name in cls.__dict__]
    if own:
        raise TypeError(f"@valueclass {cls.__name__} defines {', '.join(own)}: use @dataclass for such a class")
    inherited: dict[str, tuple[str, Any, Callable[[], Any] | None]] = {}
    for base in reversed(cls.__mro__[1:]):
        if hasattr(base, "__value_fields__") and base.__dict__.get("__setattr__") is _refuse_set and not frozen:
            raise TypeError(f"@valueclass {cls.__name__} is not frozen but its base {base.__name__} is")
        for entry in getattr(base, "__value_fields__", ()):
            inherited[entry[0]] = entry
    for name, annotation in inspect.get_annotations(cls).items():
        if _CLASSVAR.search(str(annotation)):
            continue
        default = cls.__dict__.get(name, _MISSING)
        if isinstance(default, _Factory):
            inherited[name] = (name, _MISSING, default.make)
            delattr(cls, name)  # as a dataclass does: the factory is not a class attribute
        else:
            inherited[name] = (name, default, None)
    seen_default = False
    for name, default, make in inherited.values():
        if default is _MISSING and make is None and seen_default:
            raise TypeError(f"@valueclass {cls.__name__}: field {name!r} without a default follows one with a default")
        seen_default = seen_default or default is not _MISSING or make is not None
    return tuple(inherited.values())


@overload
def valueclass(cls: C, /) -> C: ...
@overload
def valueclass(*, frozen: bool = False) -> Callable[[C], C]: ...


@dataclass_transform(field_specifiers=(field,))
def valueclass(cls: C | None = None, /, *, frozen: bool = False) -> C | Callable[[C], C]:
    """Make ``cls`` a value class: ``@valueclass`` or ``@valueclass(frozen=True)``."""

    def build(target: C) -> C:
        fields = _fields_of(target, frozen)
        methods: dict[str, Any] = {"__value_fields__": fields, "__init__": _init}
        methods.update(__repr__=_repr, __eq__=_eq, __hash__=None)  # mutable: unhashable, as a dataclass
        methods["__match_args__"] = tuple(name for name, _, _ in fields)
        if frozen:
            methods.update(__hash__=_hash, __setattr__=_refuse_set, __delattr__=_refuse_delete)
        for name, method in methods.items():
            setattr(target, name, method)
        return target

    return build if cls is None else build(cls)
