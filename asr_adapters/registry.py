"""The adapter registry: one entry per agent, found by name or by sniffing an input."""

from __future__ import annotations

from .core.adapter import Adapter
from .core.errors import UnknownAgentError
from .core.source import Source
from .stream.sniff import is_asr_stream

#: What ``detect`` says about our own output; ``Conversion`` says it too when an agent is named.
ASR_STREAM = (
    "is an ASR stream, not a native session log (asr show and asr export read it as it is; asr validate checks it)"
)

_ADAPTERS: dict[str, Adapter] = {}


def register(cls: type[Adapter]) -> type[Adapter]:
    """Class decorator: make an adapter known under its short name."""
    instance = cls()
    if instance.name in _ADAPTERS:
        raise ValueError(f"adapter {instance.name!r} registered twice")
    _ADAPTERS[instance.name] = instance
    return cls


def _load() -> None:
    from . import adapters  # noqa: F401 - importing registers every adapter


def names() -> list[str]:
    _load()
    return sorted(_ADAPTERS)


def get(name: str) -> Adapter:
    _load()
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {name!r}; known agents: {', '.join(names())}") from None


def all_adapters() -> list[Adapter]:
    _load()
    return [_ADAPTERS[name] for name in sorted(_ADAPTERS)]


def detect(source: Source) -> Adapter:
    """The adapter that claims ``source`` most surely; an error naming the known agents if none
    does, and an error saying so for an ASR stream (never converted as a native log)."""
    if not source.is_sqlite and is_asr_stream(source.head()):
        raise UnknownAgentError(f"{source.display}: {ASR_STREAM}")
    scored = sorted(((a.detect(source), a.name) for a in all_adapters()), reverse=True)
    if not scored or scored[0][0] <= 0:
        raise UnknownAgentError(
            f"{source.display}: cannot tell which agent wrote this file; "
            f"known agents: {', '.join(names())} (use --agent NAME)"
        )
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        raise UnknownAgentError(f"{source.display}: could be {scored[0][1]} or {scored[1][1]}; use --agent NAME")
    return get(scored[0][1])
