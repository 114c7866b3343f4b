"""Formats of the profile's values: timestamps, record and session references, actors, BlobRef, PathRef.

Every predicate takes any JSON value and answers True or False; none raises.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson

#: RFC 3339 in UTC with a ``Z`` suffix and an optional fraction (profile §2), ASCII digits only.
#: ``valid_ts`` checks the date and the hour, once per distinct hour.
TS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?Z\Z")
_ts_match = TS.match
_fromisoformat = datetime.fromisoformat
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_hours: dict[str, bool] = {}


_REF = r"(?:r[1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*=.+)"
#: A record ref: a record id (``r40``) or ``field=value`` (profile §3).
RECORD_REF = re.compile(_REF + r"\Z", re.S)
#: A record id as the profile writes it.
RECORD_ID = re.compile(r"r[1-9][0-9]*\Z")
#: A session reference ``<agent>:<native id>``, optionally ``#<record ref>``.
SESSION_REF = re.compile(r"[a-z0-9][a-z0-9._-]*:[^#\s]+(#" + _REF + r")?\Z", re.S)
BLOB = re.compile(r"sha256:[0-9a-f]{64}\Z")


def valid_ts(value: Any) -> bool:
    """A real RFC 3339 UTC instant (``2026-10-26T14:02:12.031Z``).

    The usual case takes a fast path: the separators in place, ASCII only, and
    ``datetime.fromisoformat`` (which checks the digits and the ranges); anything else,
    leap seconds included, takes the regular expression.
    """
    if (
        value.__class__ is str
        and value[4:17:3] == "--T::"
        and value[-1:] == "Z"
        and (len(value) == 20 or (len(value) > 21 and value[19] == "."))
        and value.isascii()
    ):
        try:
            _fromisoformat(value)
            return True
        except ValueError:
            pass
    return _valid_ts_slow(value)


def _valid_ts_slow(value: Any) -> bool:
    if not isinstance(value, str) or _ts_match(value) is None:
        return False
    hour = value[:13]
    known = _hours.get(hour)
    if known is None:
        known = _real_hour(hour)
        if len(_hours) < 100_000:
            _hours[hour] = known
    return known


def _real_hour(text: str) -> bool:
    """``YYYY-MM-DDTHH`` names a real date and an hour 00-23."""
    year, month, day, hour = int(text[:4]), int(text[5:7]), int(text[8:10]), int(text[11:13])
    if not (1 <= month <= 12 and 1 <= day <= _DAYS[month - 1] and hour <= 23):
        return False
    return month != 2 or day != 29 or (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))


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
    """A short rendering of any value for a finding's message (never raises, even on deep nesting)."""
    if isinstance(value, list | dict):
        try:
            text = orjson.dumps(value).decode()
        except Exception:  # deeper than orjson writes, or not JSON at all
            text = "[…]" if isinstance(value, list) else "{…}"
    else:
        try:
            text = repr(value)
        except Exception:
            text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
