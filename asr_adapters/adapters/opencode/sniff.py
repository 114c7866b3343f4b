"""Whether an input is an OpenCode store or export, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.lazyre import LazyPattern
from ...core.source import Source

_SESSION_ID = LazyPattern(rb'"id"\s*:\s*"ses_')
_SESSION_FACT = LazyPattern(rb'"(?:projectID|slug|directory|version)"\s*:')
_MESSAGE = LazyPattern(rb'"id"\s*:\s*"msg_')
_PART = LazyPattern(rb'"id"\s*:\s*"prt_')
_ROLE = LazyPattern(rb'"role"\s*:\s*"(?:user|assistant)"')
_EXPORT = LazyPattern(rb'^\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"ses_')
_EXPORT_SHAPE = LazyPattern(rb'^\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"')
_EXPORT_MESSAGES = LazyPattern(rb'"messages"\s*:\s*\[\s*\{\s*"info"\s*:\s*\{')
_OTHER_DATABASES = ("orchestration_events", "transcript_events")


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if source.is_sqlite:
        head = source.head()
        if any(name.encode() in head for name in _OTHER_DATABASES):
            return 0
        from ...core.sqlite_snapshot import table_names  # only for SQLite files
        from .db import REQUIRED

        # views too: a view where OpenCode keeps a table is claimed, then refused with its reason
        tables = table_names(source.path, timeout=1.0, views=True) if source.path is not None else set()
        if set(REQUIRED) <= tables and not tables & set(_OTHER_DATABASES):
            return 90
        return 0
    head = source.head().lstrip()
    if not head.startswith(b"{"):
        return 0
    if _EXPORT.match(head):
        return 85  # ``opencode export``: the session info, then its messages
    if _EXPORT_SHAPE.match(head) and _EXPORT_MESSAGES.search(head) and _ROLE.search(head):
        return 75  # the same shape with ids not shaped ``ses_…`` (a fixture, a rewritten export)
    if _SESSION_ID.search(head) and _SESSION_FACT.search(head) and not _ROLE.search(head):
        return 90
    message = _MESSAGE.search(head) and _ROLE.search(head) and b'"sessionID"' in head
    if message or (_PART.search(head) and b'"messageID"' in head):
        return 60  # a message or part file: ours, but read with its session (not on its own)
    return 0
