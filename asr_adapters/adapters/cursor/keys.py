"""Key material a Cursor row carries, kept out of every output.

Cursor's composers hold the keys it encrypts their blobs and speculative summaries with
(``blobEncryptionKey``, ``speculativeSummarizationEncryptionKey``: research/cursor.md §2.2, a
real 2026 global database's survey lists both as secrets). A stream that copied them would hand
whoever reads it the means to decrypt what the keys protect, so the adapter drops every member
whose name says it is a key of that kind, at any depth, and records that it did (capture state
``redacted`` on the field, with the member paths and never a value).
"""

from __future__ import annotations

import re
from typing import Any

#: member names that hold key material (case-insensitive): ``…EncryptionKey``, ``…SigningKey``,
#: ``…PrivateKey``, ``…SecretKey``
KEY_NAME = re.compile(r"(encryption|signing|private|secret)key$", re.IGNORECASE)


def scrub(value: Any, path: str = "") -> tuple[Any, list[str]]:
    """``value`` without key-material members (a copy where any was dropped), and their paths."""
    if isinstance(value, dict):
        dropped: list[str] = []
        out: dict[str, Any] = {}
        for key, member in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and KEY_NAME.search(key):
                dropped.append(where)
                continue
            out[key], inner = scrub(member, where)
            dropped += inner
        return (out, dropped) if dropped else (value, [])
    if isinstance(value, list):
        dropped = []
        items = []
        for number, member in enumerate(value):
            clean, inner = scrub(member, f"{path}[{number}]")
            items.append(clean)
            dropped += inner
        return (items, dropped) if dropped else (value, [])
    return value, []


def scrub_member(record: dict[str, Any], field: str) -> None:
    """Drop key material from ``record[field]``; say so in ``record["capture"][field]``."""
    if field not in record:
        return
    record[field], dropped = scrub(record[field])
    if dropped:
        capture = record.setdefault("capture", {})
        capture[field] = {
            "state": "redacted",
            "reason": "encryption keys dropped by the converter: " + ", ".join(dropped),
        }
