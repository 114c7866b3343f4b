"""Whether an input is a pi session file, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.items import first_value
from ...core.lazyre import LazyPattern
from ...core.source import Source
from . import discover

#: words only OpenClaw's files hold: a header without them and without pi's name is OpenClaw's
OPENCLAW_MARKS = (b"openclaw", b"clawd", b"moltbot", b"model-snapshot")
_MODEL_CHANGE = LazyPattern(rb'"type"\s*:\s*"model_change"')


def detect(source: Source) -> int:
    """A pi ``session`` header line; certain for pi's own file name or folder, and for a v2/v3
    file that starts with pi's model and thinking-level entries and holds nothing OpenClaw
    writes (a bare header is OpenClaw's, as it was before this adapter existed)."""
    if source.is_sqlite:
        return 0
    head = source.head()
    first = first_value(head)
    if not (isinstance(first, dict) and first.get("type") == "session" and isinstance(first.get("id"), str)):
        return 0
    if "cwd" not in first or "timestamp" not in first:
        return 0
    if any(mark in head.lower() for mark in OPENCLAW_MARKS):
        return 0
    if discover.is_pi_path(source.path, source.name):
        return 95
    if first.get("version") in (2, 3) and _MODEL_CHANGE.search(head):
        return 92
    return 0
