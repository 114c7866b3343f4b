"""Output names: session ids made safe for a file name, and the stable layout under OUTDIR.

Layout: ``OUTDIR/<agent>/<safe session id>.asr.jsonl``; a stream whose header (or whose
adapter) names a parent session goes beside its parent, in a folder named after it:
``OUTDIR/<agent>/<safe parent id>/<safe session id>.asr.jsonl``.

A safe name uses only ``A-Z a-z 0-9 . _ -``, never starts with a dot, is never empty, never a
Windows device name and at most 120 characters. Any id that had to be changed gets a short
hash of the original id appended, so two ids that differ only in unsafe characters still get
different names. No session id can make a path leave its folder.

Names are unique under case folding (macOS and Windows fold case: ``Abc`` and ``abc`` would be
one file there): an id with an upper-case letter also gets the hash of the exact id appended
(``Abc~<hash>``). Of ids equal under folding at most one is all lower case and keeps its plain
name; the others carry different hashes (lower-case hex after a ``~``, which no plain name
holds).
"""

from __future__ import annotations

import hashlib
from typing import Any

SUFFIX = ".asr.jsonl"
MAX_NAME = 120
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL"} | {f"COM{i}" for i in range(10)} | {f"LPT{i}" for i in range(10)})


def short_hash(text: str, length: int = 10) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def safe_name(session_id: str) -> str:
    """A file-name stem for ``session_id`` that cannot leave its folder (see the module doc)."""
    cleaned = "".join(c if c in _SAFE else "_" for c in session_id).lstrip(".")
    if not cleaned.strip("_"):
        cleaned = "session"
    changed = cleaned != session_id or cleaned != cleaned.lower()  # an upper-case letter: see the module doc
    if cleaned.split(".")[0].upper() in _RESERVED:
        changed = True
        cleaned = "_" + cleaned
    if changed or len(cleaned) > MAX_NAME:
        cleaned = f"{cleaned[: MAX_NAME - 11]}~{short_hash(session_id)}"
    return cleaned


def native_id(reference: str, agent: str | None = None) -> str:
    """The native session id of a session reference ``agent:id#record`` (or a bare id)."""
    reference = reference.split("#", 1)[0]
    if agent is not None and reference.startswith(agent + ":"):
        return reference[len(agent) + 1 :]
    head, sep, rest = reference.partition(":")
    if sep and rest and head and all(c.isalnum() or c == "-" for c in head):
        return rest
    return reference


def header_facts(record: Any, agent: str, fallback_key: str) -> tuple[str, str | None]:
    """(session id, parent session id) from a stream's first record."""
    session_id = fallback_key
    parent: str | None = None
    if isinstance(record, dict) and record.get("type") == "session":
        value = record.get("session")
        if isinstance(value, str) and value:
            session_id = value
        parent_ref = record.get("parent")
        if isinstance(parent_ref, str) and parent_ref:
            parent = native_id(parent_ref)
        elif isinstance(parent_ref, dict) and isinstance(parent_ref.get("session"), str):
            parent = native_id(parent_ref["session"])
    return native_id(session_id, agent), parent


def _below(session_id: str, parent_id: str) -> str:
    """A child id that repeats its parent's (``<parent>/agent-x``) without the repeated part:
    the child's file is in the parent's folder already."""
    rest = session_id[len(parent_id) :] if session_id.startswith(parent_id) else ""
    if len(rest) > 1 and rest[0] in "/:#" and rest[1:].strip("/:#"):
        return rest[1:]
    return session_id


def output_path(agent: str, session_id: str, parent_id: str | None = None, tag: str | None = None) -> str:
    """The path of a stream's output relative to OUTDIR, with ``/`` separators.

    ``tag`` disambiguates two sources that hold the same session id (see ``docs/batch.md``).
    """
    if parent_id is not None:
        session_id = _below(session_id, parent_id)
    stem = safe_name(session_id)
    if tag:
        stem = f"{stem}~{tag}"
    folder = safe_name(agent)
    if parent_id is not None:
        return f"{folder}/{safe_name(parent_id)}/{stem}{SUFFIX}"
    return f"{folder}/{stem}{SUFFIX}"


def unique_under_folding(names: dict[Any, str], suffix: str) -> dict[Any, str]:
    """Relative output names made unique under case folding (macOS and Windows fold case, so
    ``A.html`` and ``a.html`` are one file there), in the order given: a name equal under
    folding to an earlier one gets ``~`` and a hash of itself before ``suffix``."""
    seen: set[str] = set()
    unique: dict[Any, str] = {}
    for key, name in names.items():
        stem = name[: -len(suffix)] if suffix and name.endswith(suffix) else name
        candidate, attempt = name, 0
        while candidate.casefold() in seen:
            digest = short_hash(f"{name}\0{attempt}", 8)
            candidate, attempt = f"{stem}~{digest}{suffix}", attempt + 1
        seen.add(candidate.casefold())
        unique[key] = candidate
    return unique


def stream_file_name(key: str) -> str:
    """A file name for a stream key that cannot leave its folder (the golden cases' names)."""
    safe = "".join(c if c.isalnum() or c in "-_.:" else "_" for c in key).replace(":", "_")
    safe = safe.lstrip(".") or "session"
    return f"{safe[:200]}.asr.jsonl"
