"""The adapter registry: one entry per agent, found by name or by sniffing an input."""

from __future__ import annotations

import importlib
from types import ModuleType

from .core.adapter import Adapter
from .core.errors import InputError, UnknownAgentError
from .core.source import Source
from .stream.sniff import is_asr_stream

#: What ``detect`` says about our own output; ``Conversion`` says it too when an agent is named.
ASR_STREAM = (
    "is an ASR stream, not a native session log (asr show and asr export read it as it is; asr validate checks it)"
)

_ADAPTERS: dict[str, Adapter] = {}
#: a packaged agent's ``sniff`` module, once imported: ``import_module`` of a loaded module costs
#: more than the sniff of a small file's head, and a batch asks every agent of every file (its
#: ``detect`` is looked up at each call, so a replaced function is the one asked)
_SNIFFS: dict[str, ModuleType] = {}


def register(cls: type[Adapter]) -> type[Adapter]:
    """Class decorator: make an adapter known under its short name."""
    instance = cls()
    if instance.name in _ADAPTERS:
        raise ValueError(f"adapter {instance.name!r} registered twice")
    _ADAPTERS[instance.name] = instance
    return cls


def _packages() -> dict[str, str]:
    from .adapters import PACKAGES

    return PACKAGES


def _load(name: str | None = None) -> None:
    """Import the adapter module of ``name`` (registering it), or of every agent."""
    packages = _packages()
    for agent in packages if name is None else [name]:
        if agent in packages and agent not in _ADAPTERS:
            importlib.import_module(f"{__package__}.adapters.{packages[agent]}.adapter")


def names() -> list[str]:
    """Every agent's short name, without importing a converter (``--agent``'s choices, ``asr
    convert --help``): a packaged agent's name is its key in ``PACKAGES``, which its adapter
    registers under (tests/test_registry.py holds them equal)."""
    return sorted({*_packages(), *_ADAPTERS})


def get(name: str) -> Adapter:
    if name not in _ADAPTERS:
        _load(name)
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {name!r}; known agents: {', '.join(names())}") from None


def all_adapters() -> list[Adapter]:
    _load()
    return [_ADAPTERS[name] for name in sorted(_ADAPTERS)]


#: The least score that lets detection choose an agent by itself. Below it (but above 0) an
#: adapter has seen only part of what its agent writes: the error names it, ``--agent`` decides.
SURE = 50


def scores(source: Source) -> list[tuple[int, str]]:
    """Every agent's ``(score, name)`` for ``source``, best first. They sniff the same head,
    read once (``Source.head`` keeps it). A packaged agent is asked through its ``sniff``
    module, so no converter is imported to decide (``get`` imports the chosen one); an adapter
    registered from elsewhere is asked itself."""
    packages = _packages()
    found = [(score(source, agent), agent) for agent in packages]
    found.extend((adapter.detect(source), name) for name, adapter in _ADAPTERS.items() if name not in packages)
    return sorted(found, reverse=True)


def score(source: Source, agent: str) -> int:
    """One agent's detection score for ``source`` (``scores`` asks them all): a packaged agent
    through its ``sniff`` module, so no converter is imported; another registered one itself."""
    sniff = _SNIFFS.get(agent)
    if sniff is None:
        package = _packages().get(agent)
        if package is None:
            return get(agent).detect(source)
        sniff = _SNIFFS[agent] = importlib.import_module(f"{__package__}.adapters.{package}.sniff")
    return int(sniff.detect(source))


def detect(source: Source) -> Adapter:
    """The adapter that claims ``source`` most surely; an error naming the known agents if none
    does, naming the likeliest one if none is sure enough (score below ``SURE``), and an error
    saying so for an ASR stream (never converted as a native log) or an empty file (no bytes,
    or blank lines only, once decoded)."""
    if not source.is_sqlite and not source.head().strip():
        raise InputError(source.display, "the file is empty")
    if not source.is_sqlite and is_asr_stream(source.head()):
        raise UnknownAgentError(f"{source.display}: {ASR_STREAM}")
    scored = scores(source)
    if not scored or scored[0][0] <= 0:
        raise UnknownAgentError(
            f"{source.display}: cannot tell which agent wrote this file; "
            f"known agents: {', '.join(names())} (use --agent NAME)"
        )
    (best, name), runner_up = scored[0], scored[1] if len(scored) > 1 else (0, "")
    if runner_up[0] == best:
        raise UnknownAgentError(f"{source.display}: could be {name} or {runner_up[1]}; use --agent NAME")
    if best < SURE:
        raise UnknownAgentError(
            f"{source.display}: cannot tell which agent wrote this file; it looks most like {name} "
            f"(score {best} of 100, {SURE} needed): use --agent {name} if it is"
        )
    return get(name)
