"""What a stream is (main session, subagent file, inline sidechain) and the shared helpers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

from ...core.accounting import Accounting
from ...core.adapter import Emitter
from ...core.refs import schema_name, session_ref
from ...core.spool import RecordSpool
from ...core.timestamps import from_iso, stamp
from ...core.valueclass import field, valueclass

AGENT = "claude-code"
REGISTRY = "com.anthropic.claude-code"


class Refs(Protocol):
    """The parent session's line uuids (``uuid in refs``) and its session reference."""

    def __contains__(self, uuid: object) -> bool: ...

    def __getitem__(self, uuid: str) -> str: ...


@valueclass
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
    #: For a subagent: the usage its parent's spawn result records for the subagent's last
    #: response (``toolUseResult.usage``), verbatim.
    parent_usage: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return session_ref(AGENT, self.session_id)


def agent_key(root_session: str, agent_id: str) -> str:
    """The session reference of a subagent transcript (documented id recipe)."""
    return session_ref(AGENT, f"{root_session}/agent-{agent_id}")


#: Records kept in memory behind a held usage record; later ones wait in a temporary file.
HELD_IN_MEMORY = 64


class Out:
    """Emission plus accounting for one stream: every native item ends in one outcome.

    Records are built with ``seq``/``id`` placeholders after ``type`` (see ``core.adapter.start``)
    so the emitter numbers them in place instead of copying them.

    While a record carries the usage of a response that may still go on (``hold``), it and
    every record after it wait: a later line of the response can raise the count. The wait
    lasts until the response is over, however many lines that takes, so past
    ``HELD_IN_MEMORY`` the waiting records move to a temporary file (``RecordSpool``)."""

    def __init__(self, accounting: Accounting) -> None:
        self.acc = accounting
        self.emit = Emitter(accounting)
        self._number = self.emit.__call__  # a bound method call is cheaper than an instance call
        self.records: list[dict[str, Any]] = []
        #: While set, ``drain`` gives nothing: a written record may still change.
        self.holding = False
        #: While holding: the records up to the held one (the last), then the spooled ones,
        #: then ``records``.
        self._head: list[dict[str, Any]] = []
        self._spool = RecordSpool()
        #: Released records still to hand out when some came back from the spool.
        self._ready: Iterator[dict[str, Any]] | None = None

    def stamp(self, record: dict[str, Any], value: Any) -> None:
        """``ts`` / ``tsPrecision`` of a record from the native timestamp ``value``."""
        stamp(record, from_iso(value))

    def put(self, record: dict[str, Any]) -> str:
        """Emit a record; returns its id (the record's own ``id`` string, not a copy)."""
        record = self._number(record)
        records = self.records
        records.append(record)
        if self.holding and len(records) > HELD_IN_MEMORY:
            spool = self._spool
            for waiting in records[:-1]:  # the newest stays: its writer may still touch it
                spool.append(waiting)
            del records[:-1]
        return record["id"]

    def hold(self) -> None:
        """The record just put carries a usage that may still change: from now on nothing is
        handed out until ``release``."""
        if self._ready is not None:  # released but not handed out yet: it all comes first
            self.records = [*self._ready, *self.records]
            self._ready = None
        self._head, self.records = self.records, []
        self.holding = True

    @property
    def held(self) -> dict[str, Any]:
        return self._head[-1]

    @held.setter
    def held(self, record: dict[str, Any]) -> None:
        self._head[-1] = record

    def release(self) -> None:
        """The held record is final: the waiting records go out with the next ``drain``."""
        if not self.holding:
            return
        self.holding = False
        head, self._head = self._head, []
        if self._spool.count:
            self._ready = chain(head, self._spool.drain())
        else:
            self.records = [*head, *self.records]

    def drain(self) -> Iterable[dict[str, Any]]:
        """The records ready to hand out, in order: a list, or an iterator when some come
        back from the temporary file."""
        if self.holding:
            return []
        records, self.records = self.records, []
        ready = self._ready
        if ready is not None:
            self._ready = None
            return chain(ready, records)
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
