"""JSON that JavaScript writes but strict decoders refuse: lone UTF-16 surrogate escapes.

``JSON.stringify`` writes a string holding half of a surrogate pair (a cut emoji) as ``"\\ud83d"``;
orjson refuses the whole line. Such a line is decoded by the standard library (which accepts the
escape) and each lone surrogate replaced by U+FFFD, so the line converts with one counted warning
instead of being lost (docs/reliability.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .lazyre import LazyPattern

#: orjson's messages for a lone surrogate escape.
_SURROGATE_ERROR = LazyPattern(r"surrogate", re.I)
_LONE = LazyPattern("[\ud800-\udfff]")
REPLACED = "lone UTF-16 surrogate escape(s) replaced by U+FFFD"


def surrogate_problem(message: str) -> bool:
    return _SURROGATE_ERROR.search(message) is not None


def loads_with_lone_surrogates(raw: bytes | str) -> Any:
    """``raw`` decoded with every lone surrogate replaced by U+FFFD; raises ``ValueError`` when it
    is not JSON for another reason."""
    value = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    return _clean(value)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value
