"""What a stream is (main session, subagent file, inline sidechain) and the shared helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...core.accounting import Accounting
from ...core.adapter import Emitter
from ...core.refs import schema_name, session_ref
from ...core.timestamps import from_iso, stamp

AGENT = "claude-code"
REGISTRY = "com.anthropic.claude-code"


class Refs(Protocol):
    """The parent session's line uuids (``uuid in refs``) and its session reference."""

    def __contains__(self, uuid: object) -> bool: ...

    def __getitem__(self, uuid: str) -> str: ...


@dataclass
class StreamInfo:
    """The facts a stream's header and derived ids are built from."""

    #: The native id after ``claude-code:``: the session uuid, ``<session>/agent-<id>``
    #: for a subagent file, ``<session>/sidechain-<root uuid>`` for an inline sidechain.
    session_id: str
    #: The session uuid the lines carry (subagents carry their parent's).
    root_session: str
    kind: str = "main"  # main | subagent | sidechain
    file: str = "<input>"
    path: Path | None = None
    parent_key: str | None = None
    agent_id: str | None = None
    version: str | None = None
    cwd: str | None = None
    ts: str | None = None
    title: str | None = None
    meta: dict[str, Any] | None = None
    derived_id: bool = False
    #: uuid -> record ref (``field=value``) of the parent's lines, for ``copiedFrom``.
    parent_refs: Refs | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return session_ref(AGENT, self.session_id)


def agent_key(root_session: str, agent_id: str) -> str:
    """The session reference of a subagent transcript (documented id recipe)."""
    return session_ref(AGENT, f"{root_session}/agent-{agent_id}")


class Out:
    """Emission plus accounting for one stream: every native item ends in one outcome.

    Records are built with ``seq``/``id`` placeholders after ``type`` (see ``core.adapter.start``)
    so the emitter numbers them in place instead of copying them."""

    def __init__(self, accounting: Accounting) -> None:
        self.acc = accounting
        self.emit = Emitter(accounting)
        self._number = self.emit.__call__  # a bound method call is cheaper than an instance call
        self.records: list[dict[str, Any]] = []
        #: While set, ``drain`` gives nothing: a written record may still change (the usage of
        #: a response whose later lines may come, held a bounded number of lines).
        self.holding = False

    def stamp(self, record: dict[str, Any], value: Any) -> None:
        """``ts`` / ``tsPrecision`` of a record from the native timestamp ``value``."""
        stamp(record, from_iso(value))

    def put(self, record: dict[str, Any]) -> str:
        """Emit a record; returns its id (the record's own ``id`` string, not a copy)."""
        record = self._number(record)
        self.records.append(record)
        return record["id"]

    def drain(self) -> list[dict[str, Any]]:
        if self.holding:
            return []
        records, self.records = self.records, []
        return records


def opened(kind: str, timestamp: Any) -> dict[str, Any]:
    """A record of ``kind`` with ``seq``/``id`` placeholders and the ``ts`` of the native
    ``timestamp`` (a line's own, never a neighbour's): one dict built in canonical order."""
    ts, precision = from_iso(timestamp)
    if ts is None:
        return {"type": kind, "seq": 0, "id": ""}
    if precision is None:
        return {"type": kind, "seq": 0, "id": "", "ts": ts}
    return {"type": kind, "seq": 0, "id": "", "ts": ts, "tsPrecision": precision}


def base(kind: str, obj: dict[str, Any] | None) -> dict[str, Any]:
    """A record of ``kind`` with the line's ``ts`` (never a neighbour's)."""
    return opened(kind, obj.get("timestamp") if obj is not None else None)


_SCHEMAS: dict[str, str] = {}  # native kind -> schema name (few kinds; bounded below)
_SCHEMA_LIMIT = 1024


def schema_of(kind: str) -> str:
    """``schema_name(REGISTRY, kind)``, remembered: vendor records and data parts of one
    kind repeat on many lines."""
    schema = _SCHEMAS.get(kind)
    if schema is None:
        schema = schema_name(REGISTRY, kind)
        if len(_SCHEMAS) < _SCHEMA_LIMIT:
            _SCHEMAS[kind] = schema
    return schema


def vendor(kind: str, obj: Any) -> dict[str, Any]:
    record = opened("vendor", obj.get("timestamp") if isinstance(obj, dict) else None)
    record["schema"] = schema_of(kind)
    record["data"] = obj
    return record
