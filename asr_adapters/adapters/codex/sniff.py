"""Whether an input is a Codex rollout, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.source import Source
from .containers import era_of


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if source.is_sqlite:
        return 0
    return era_of(source)[1]
