"""Stream-level validation: one pass over plain dicts, the envelope and the header of each record.

``StreamValidator.add`` checks one record as it arrives: its ``seq`` and ``id``, its keys'
order and the envelope members it holds (decided once per distinct key sequence, ``_Shape``),
the session header, and the record type's own check (``records``). What it declares or names
across records is ``references``' (``References``, which ``StreamValidator`` is); optional
envelope members are checked by ``envelope``; a finding is ``finding.Finding``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..model.order import DEFAULT_RANKS, KEY_RANKS, UNRANKED
from . import envelope
from .finding import ERROR, WARNING, Finding
from .formats import is_session_ref, show, valid_ts
from .limits import Findings, summarized
from .records import RECORD_CHECKS
from .references import INDEXED, OWN_ID, REF_LISTS, References

__all__ = ["ERROR", "WARNING", "Finding", "StreamValidator", "validate_records"]

_BOM = b"\xef\xbb\xbf"
_KINDS = {kind: kind for kind in (*RECORD_CHECKS, "session")}


_SHAPES = 4096  # key shapes remembered per record type, and record types per stream
_NO_CACHE: dict = {}  # never written: the shapes of types past the limit are not remembered
_Check = Callable[["StreamValidator", dict, str], None]


class _Shape(NamedTuple):
    """What a record's type and key sequence alone decide, computed once per distinct shape."""

    misplaced: str | None  # the first key out of canonical order
    has_ts: bool
    ids: tuple[str, ...]  # the envelope's id members it holds (turnId, inferenceId): non-empty strings
    derived: bool  # holds idSource
    envelope: tuple[_Check, ...]  # checks of the other optional envelope members it holds
    indexed: tuple[str, ...]  # the INDEXED fields it holds
    own: str | None  # the native id field the record type owns (OWN_ID), when it holds it
    lists: tuple[str, ...]  # the REF_LISTS members it holds
    check: Callable[[dict, Callable[[str, str], None]], None] | None  # the record type's own check
    cross: Callable[[StreamValidator, dict], None] | None  # what it declares or names across records


def _shape(kind: str, keys: Iterable[str]) -> _Shape:
    ranks = KEY_RANKS.get(kind, DEFAULT_RANKS)
    misplaced = None
    last = -1
    present = []
    for key in keys:
        present.append(key)
        rank = ranks.get(key, UNRANKED)
        if rank < last and misplaced is None:
            misplaced = key
        last = max(last, rank)
    checks = tuple(
        check for member, check in _ENVELOPE.items() if member in present and (member != "parent" or kind != "session")
    )
    return _Shape(
        misplaced,
        "ts" in present,
        tuple(member for member in ("turnId", "inferenceId") if member in present),
        "idSource" in present,
        checks,
        tuple(f for f in INDEXED if f in present),
        OWN_ID[kind] if kind in OWN_ID and OWN_ID[kind] in present else None,
        tuple(f for f in REF_LISTS if f in present),
        RECORD_CHECKS.get(kind),
        _CROSS.get(kind),
    )


class StreamValidator(References):
    """Feed records in order with ``add``; ``finish`` checks what needs the whole stream."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.findings: list[Finding] = Findings()  # capped (validate/limits.py)
        self.count = 0
        #: Set when the input could not be read as JSON Lines at all (one finding says why).
        self.unreadable = False
        self._start_references()
        self._line: int | None = None
        self._seq: int | None = None
        self._shapes: dict[str, dict[tuple[str, ...], _Shape]] = {}  # type -> key sequence -> shape
        self._report = self.report

    # -- one record -------------------------------------------------------------------------

    def add(self, record: Any, line: int | None = None) -> None:
        self._line = line
        self.count = count = self.count + 1
        if not isinstance(record, dict):
            self._seq = count
            self._kinds.append(0)
            self.report("PROFILE-record", f"a record must be a JSON object, not {show(record)}")
            if count == 1:
                self.report("PROFILE-header", "the first record must be the session header")
            return
        seq = record.get("seq")
        usable = seq.__class__ is int
        self._seq = seq if usable else count
        if not usable or seq != count:
            self.report("PROFILE-seq", f"seq must be {count} (1, then +1 per record), not {show(seq)}")
        kind = record.get("type")
        if kind.__class__ is not str and isinstance(kind, str):
            kind = str(kind)  # a str subclass from a caller of validate_records
        if kind.__class__ is str:
            shapes = self._shapes.get(kind)
            if shapes is None:
                kind = _KINDS.get(kind, kind)
                shapes = self._shapes[kind] = {} if len(self._shapes) < _SHAPES else _NO_CACHE
            key = tuple(record)
            shape = shapes.get(key)
            if shape is None:
                shape = _shape(kind, key)
                if len(shapes) < _SHAPES and shapes is not _NO_CACHE:
                    shapes[key] = shape
            kind = _KINDS.get(kind, kind)
        else:
            self.report("PROFILE-type", f"a record must have a string type, not {show(kind)}")
            kind = ""
            shape = _shape(kind, record)
        rid = record.get("id")
        numbered = rid == f"r{count}"
        if numbered:
            byte = self._kind_bytes.get(kind)
            if byte is None:
                self._numbered(kind)
            else:
                self._kinds.append(byte)
        else:
            self._kinds.append(0)
            self.report("PROFILE-id", f"id must be 'r{count}', not {show(rid)}")
            if isinstance(rid, str):
                self._odd_ids.setdefault(rid, count)
        if shape.misplaced is not None:
            self.report("PROFILE-key-order", f"key {shape.misplaced!r} is out of canonical order")
        if shape.has_ts and not valid_ts(record["ts"]):
            self.report("PROFILE-ts", f"ts must be an RFC 3339 UTC time with a Z suffix, not {show(record['ts'])}")
        for member in shape.ids:
            value = record[member]
            if value.__class__ is not str or not value:
                self.report("PROFILE-envelope", f"{member} must be a non-empty string, not {show(value)}")
        if shape.derived and record["idSource"] != "derived":
            self.report("PROFILE-idSource", f"idSource is 'derived' or absent, not {show(record['idSource'])}")
        for member_check in shape.envelope:
            member_check(self, record, kind)
        if count == 1:
            self._header(record, kind)
        elif kind == "session":
            self.report("PROFILE-header", "a session header may only be the first record")
        if shape.check is not None:
            shape.check(record, self._report)
        for field in shape.indexed:
            value = record[field]
            if value.__class__ is str:
                table = self._fields[field]
                if kind == "message" or value not in table:
                    table[value] = self._kind_code(kind)
        own = shape.own
        if own is not None:
            self._own_id(record, own)
        if shape.lists:
            for field in shape.lists:
                self._ref_list(record, field)
        if shape.cross is not None:
            shape.cross(self, record)

    # -- the session header --------------------------------------------------------------------

    def _header(self, record: dict, kind: str) -> None:
        report = self.report
        if kind != "session":
            report("PROFILE-header", "the first record must be the session header")
            return
        session = record.get("session")
        if not isinstance(session, str) or not is_session_ref(session) or "#" in session:
            report("PROFILE-header", f"session must be a session reference '<agent>:<id>', not {show(session)}")
        for key in ("agent", "producer"):
            value = record.get(key)
            if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value["name"]:
                report("PROFILE-header", f"the header needs {key}.name")
            elif "version" in value and not isinstance(value["version"], str):
                report("PROFILE-header", f"{key}.version must be a string")
        agent = record.get("agent")
        if (
            isinstance(session, str)
            and isinstance(agent, dict)
            and isinstance(agent.get("name"), str)
            and session.partition(":")[0] != agent["name"]
        ):
            report("PROFILE-header", f"session {session!r} does not start with the agent's name {agent['name']!r}")
        if "source" in record:
            source = record["source"]
            if not isinstance(source, dict):
                report("PROFILE-header", "source must be an object {format, variant, file}")
            elif "file" in source and (
                not isinstance(source["file"], str) or "/" in source["file"] or "\\" in source["file"]
            ):
                report("PROFILE-header", f"source.file is a base name, never a path: {show(source['file'])}")
        if "parent" in record and not is_session_ref(record["parent"]):
            report("PROFILE-header", f"parent must be a session reference, not {show(record['parent'])}")
        for key, id_key, declared in (
            ("participants", "participantId", self._participants),
            ("conversations", "conversationId", self._conversations),
        ):
            if key not in record:
                continue
            decls = record[key]
            if not isinstance(decls, list):
                report("PROFILE-declaration", f"{key} must be an array")
                continue
            for index, decl in enumerate(decls):
                if isinstance(decl, dict) and isinstance(decl.get(id_key), str) and decl[id_key]:
                    declared.add(decl[id_key])
                else:
                    report("PROFILE-declaration", f"{key}[{index}] needs {id_key} (a non-empty string)")

    def finish(self) -> list[Finding]:
        if self.count == 0 and not self.unreadable:
            self.findings.append(Finding("PROFILE-header", None, None, "an empty stream has no header", self.file))
        self._resolve_pending()
        return self.findings


_ENVELOPE: dict[str, _Check] = {
    "tsPrecision": envelope.ts_precision,
    "capture": envelope.capture,
    "supersedes": StreamValidator._supersedes,
    "parent": StreamValidator._parent,
    "copiedFrom": envelope.copied_from,
    "assembly": envelope.assembly,
    "usage": envelope.usage,
    "nativeUsage": envelope.native_usage,
}
_CROSS: dict[str, Callable[[StreamValidator, dict], None]] = {
    "message": StreamValidator._message_refs,
    "delivery": StreamValidator._delivery_refs,
    "plan": StreamValidator._plan_refs,
    "conversation": StreamValidator._declare_conversation,
    "participant": StreamValidator._declare_participant,
    "tool_result": StreamValidator._tool_result_refs,
}


def validate_records(records: Iterable[Any], file: str | None = None) -> list[Finding]:
    """Validate records already in memory (dicts, in stream order)."""
    validator = StreamValidator(file)
    add = validator.add
    for record in records:
        add(record)
    return summarized(validator.finish(), file)
