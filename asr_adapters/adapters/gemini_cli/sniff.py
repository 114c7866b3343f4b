"""Whether an input is a Gemini CLI chat recording, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.source import Source


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    head = source.head()
    if b'"sessionId"' in head and b'"projectHash"' in head:
        return 95
    if source.name.startswith("session-") and (b'"$set"' in head or b'"$rewindTo"' in head):
        return 60
    return 0
