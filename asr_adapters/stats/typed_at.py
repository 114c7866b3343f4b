"""When the person typed a prompt, where an adapter keeps that time apart from the record's.

Cline: a user message's ``ts`` is its api message's, or its request row's: when the request
was sent, after the person typed (0.6 to 17.6 s later on the shared 2026-02 sample). The
person's own ui rows folded into the message (``say: task``, ``user_feedback``, ``text``)
keep their ``ts`` (epoch milliseconds) under ``displayRows`` (docs/agents/cline.md), and a
prompt is placed by the earliest of them. This table, ``stats.recorded`` and
``stats.providers`` are the only agent knowledge in ``asr_adapters.stats``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Cline's ui rows the person wrote, as folded into a user message.
_CLINE_PERSON_ROWS = frozenset({"task", "user_feedback", "text"})


def _cline(record: dict[str, Any]) -> float | None:
    rows = record.get("displayRows")
    earliest: float | None = None
    for row in rows if isinstance(rows, list) else ():
        if not isinstance(row, dict) or row.get("say") not in _CLINE_PERSON_ROWS:
            continue
        ts = row.get("ts")
        if isinstance(ts, int | float) and not isinstance(ts, bool) and ts > 0:
            seconds = ts / 1000
            earliest = seconds if earliest is None else min(earliest, seconds)
    return earliest


#: agent short name -> where its records keep the time a prompt was typed.
TYPED_AT: dict[str, Callable[[dict[str, Any]], float | None]] = {"cline": _cline}


def typed_at(agent: str | None, record: dict[str, Any]) -> float | None:
    """Epoch seconds at which the person typed the prompt ``record`` holds, where the agent's
    records keep it apart from ``ts``; None elsewhere (the record's own time is the prompt's)."""
    reader = TYPED_AT.get(agent or "")
    return reader(record) if reader is not None else None
