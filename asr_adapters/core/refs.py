"""Session references (profile §3) built one way for every adapter.

A native id may hold characters a reference cannot carry as they are: white space and ``#``
(which starts the record part of a reference). They are percent-encoded as UTF-8 bytes, and
so is ``%`` itself, so the encoding can be undone and two ids never meet in one reference.
"""

from __future__ import annotations

import re
from typing import Any

_UNSAFE = re.compile(r"[%#\s\x00-\x1f\x7f]")


def _escape(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def session_ref(agent: str, native_id: object) -> str:
    """``<agent>:<native id>``, the id escaped where it must be; ``unknown`` for no id."""
    text = str(native_id) if native_id is not None else ""
    if not text:
        text = "unknown"
    elif _UNSAFE.search(text):
        text = _UNSAFE.sub(_escape, text)
    return f"{agent}:{text}"


def schema_name(registry_name: str, kind: object) -> str:
    """``<registry name>/<native kind>`` for vendor records and data parts; a native kind that
    is missing or empty (or a path ending in ``/``) is named ``unknown``, never left blank."""
    text = str(kind) if kind is not None else ""
    if not text or text.endswith("/"):
        text += "unknown"
    return f"{registry_name}/{text}"


def put_id(record: dict[str, Any], key: str, native: Any, derived: str) -> None:
    """``record[key]``: the id the source wrote (a non-empty string), else ``derived`` (built
    from stable source facts, marked ``idSource: derived``)."""
    if isinstance(native, str) and native:
        record[key] = native
    else:
        record[key] = derived
        record["idSource"] = "derived"
