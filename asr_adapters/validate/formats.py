"""Formats of the profile's values: timestamps, record and session references, actors, BlobRef, PathRef.

Every predicate takes any JSON value and answers True or False; none raises.
"""

from __future__ import annotations

import re
from typing import Any

#: RFC 3339 in UTC with a ``Z`` suffix and an optional fraction (profile §2). ASCII digits only.
TS = re.compile(
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?Z\Z"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_dates: dict[str, bool] = {}

_REF = r"(?:r[1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*=.+)"
#: A record ref: a record id (``r40``) or ``field=value`` (profile §3).
RECORD_REF = re.compile(_REF + r"\Z", re.S)
#: A record id as the profile writes it.
RECORD_ID = re.compile(r"r[1-9][0-9]*\Z")
#: A session reference ``<agent>:<native id>``, optionally ``#<record ref>``.
SESSION_REF = re.compile(r"[a-z0-9][a-z0-9._-]*:[^#\s]+(#" + _REF + r")?\Z", re.S)
BLOB = re.compile(r"sha256:[0-9a-f]{64}\Z")


def valid_ts(value: Any) -> bool:
    """A real RFC 3339 UTC instant (``2026-10-26T14:02:12.031Z``)."""
    if not isinstance(value, str) or TS.match(value) is None:
        return False
    date = value[:10]
    known = _dates.get(date)
    if known is None:
        year, month, day = int(date[:4]), int(date[5:7]), int(date[8:10])
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        known = day <= (28 if month == 2 and not leap else _DAYS[month - 1])
        if len(_dates) < 100_000:
            _dates[date] = known
    return known


def is_record_ref(value: Any) -> bool:
    return isinstance(value, str) and RECORD_REF.match(value) is not None


def is_session_ref(value: Any, *, with_record: bool = False) -> bool:
    if not isinstance(value, str):
        return False
    match = SESSION_REF.match(value)
    return match is not None and (not with_record or match.group(1) is not None)


def actor_problem(value: Any) -> str | None:
    """What is wrong with an actor reference ``{session, address?}`` or ``{participant}``, or None."""
    if not isinstance(value, dict):
        return "must be an object {session, address?} or {participant}"
    if "session" not in value and "participant" not in value:
        return "must have session or participant"
    if "session" in value and not is_session_ref(value["session"]):
        return "session must be a session reference '<agent>:<id>'"
    if "address" in value:
        if "session" not in value:
            return "address is scoped by a session, and there is none"
        if not isinstance(value["address"], str) or not value["address"]:
            return "address must be a non-empty string"
    if "participant" in value and (not isinstance(value["participant"], str) or not value["participant"]):
        return "participant must be a non-empty string"
    return None


def blob_problem(value: Any) -> str | None:
    """What is wrong with a BlobRef ``{blob: "sha256:<hex>", size?, mimeType?}``, or None."""
    if not isinstance(value, dict):
        return "must be a BlobRef object {blob, size, mimeType}"
    blob = value.get("blob")
    if not isinstance(blob, str) or BLOB.match(blob) is None:
        return "blob must be 'sha256:' and 64 lowercase hex digits"
    if "size" in value:
        size = value["size"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            return "size must be a non-negative integer"
    if "mimeType" in value and not isinstance(value["mimeType"], str):
        return "mimeType must be a string"
    return None


def path_problem(value: Any) -> str | None:
    """What is wrong with a PathRef ``{root: string|null, path}``, or None."""
    if not isinstance(value, dict):
        return "must be a PathRef object {root, path}"
    if "root" not in value or (value["root"] is not None and not isinstance(value["root"], str)):
        return "root must be a string or null"
    if not isinstance(value.get("path"), str) or not value["path"]:
        return "path must be a non-empty string"
    return None


def is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def show(value: Any, limit: int = 60) -> str:
    """A short repr of any value for a finding's message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
