"""Whether an input is a Cline task file, from its head only (no converter imported)."""

from __future__ import annotations

from ...core.lazyre import LazyPattern
from ...core.source import Source
from .discover import API_FILE

_ARRAY = LazyPattern(rb"\A(?:\xef\xbb\xbf)?\s*\[\s*\{")
_UI_TYPE = LazyPattern(rb'"type"\s*:\s*"(?:say|ask)"')
_UI_SUBTYPE = LazyPattern(rb'"(?:say|ask)"\s*:\s*"')
_UI_TS = LazyPattern(rb'"ts"\s*:\s*\d')
#: a Cline CLI 3.x messages file, session manifest or compaction state (cline/sdk.py)
_HEAD = LazyPattern(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"updated_at"\s*:')
_MANIFEST_HEAD = LazyPattern(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"session_id"\s*:')
_API_MESSAGE = LazyPattern(rb'\{\s*"role"\s*:\s*"(?:user|assistant)"\s*,\s*"content"\s*:')


def detect(source: Source) -> int:
    """How sure detection is that ``source`` is this agent's (0 to 100), from its head."""
    if source.is_sqlite:
        return 0
    head = source.head()
    if _ARRAY.match(head) is None:
        return sdk_detect(head)  # a Cline CLI 3.x session file (an object, not an array)
    if _UI_TYPE.search(head) and _UI_SUBTYPE.search(head) and _UI_TS.search(head):
        return 90
    if _API_MESSAGE.search(head):
        if source.name == API_FILE:
            return 90
        if b"<task>" in head:
            return 70
    return 0


#: a Cline CLI 3.x manifest or compaction state: claimed (so convert names the transcript to
#: convert instead), never a session of its own in batch (``discover.is_session_file``)
SIDE_FILE_SCORE = 60


def sdk_detect(head: bytes) -> int:
    """90 for a messages file; 60 for a session manifest or a compaction state (refused with a
    pointer to the messages file); else 0. The contract's members come first, in the writer's
    order."""
    if _HEAD.match(head) and b'"source_message_count"' in head:
        return SIDE_FILE_SCORE
    if _HEAD.match(head) and b'"sessionId"' in head and b'"messages"' in head:
        return 90
    if _MANIFEST_HEAD.match(head) and b'"messages_path"' in head:
        return SIDE_FILE_SCORE
    return 0
