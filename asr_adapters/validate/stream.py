"""Stream-level validation: the envelope, the header, references across records."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from ..core.source import Source
from ..model.order import DEFAULT_RANKS, KEY_RANKS, UNRANKED
from ..model.vocab import ASSEMBLY_MODES, CAPTURE_STATES, ID_SOURCES
from .records import RECORD_CHECKS, is_record_ref, is_session_ref

TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z")
_INDEXED = ("messageId", "callId", "planId", "requestId")


@dataclass(frozen=True)
class Finding:
    """One broken rule: which rule, which record (seq) and line, and what is wrong."""

    rule: str
    seq: int | None
    line: int | None
    message: str
    file: str | None = None

    def describe(self) -> str:
        where = f"{self.file or '<stream>'}:{self.line}" if self.line is not None else self.file or "<stream>"
        at = f" seq {self.seq}" if self.seq is not None else ""
        return f"{where}:{at} {self.rule}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "seq": self.seq,
            "rule": self.rule,
            "message": self.message,
        }


class StreamValidator:
    """Feed records in order with ``add``; ``finish`` checks what needs the whole stream."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.findings: list[Finding] = []
        self.count = 0
        self._ids: dict[str, tuple[str, str | None]] = {}  # id -> (type, planId)
        self._fields: dict[str, dict[str, str]] = {k: {} for k in _INDEXED}  # field -> value -> type
        self._conversations: set[str] = set()
        self._participants: set[str] = set()
        self._latest_plan: dict[str, str] = {}
        self._pending: list[tuple[int | None, int | None, str, str, str]] = []
        self._line: int | None = None
        self._seq: int | None = None

    def report(self, rule: str, message: str) -> None:
        self.findings.append(Finding(rule, self._seq, self._line, message, self.file))

    def add(self, record: Any, line: int | None = None) -> None:
        self._line = line
        self.count += 1
        if not isinstance(record, dict):
            self._seq = None
            self.report("PROFILE-record", "a record must be a JSON object")
            return
        seq = record.get("seq")
        self._seq = seq if isinstance(seq, int) else None
        kind = record.get("type")
        if not isinstance(kind, str):
            self.report("PROFILE-type", "a record must have a string type")
            return
        self._envelope(record, kind)
        if self.count == 1:
            self._header(record, kind)
        elif kind == "session":
            self.report("PROFILE-header", "a session header may only be the first record")
        check = RECORD_CHECKS.get(kind)
        if check is not None:
            check(record, self.report)
        self._cross(record, kind)

    def _envelope(self, record: dict, kind: str) -> None:
        seq = record.get("seq")
        if seq != self.count or isinstance(seq, bool):
            self.report("PROFILE-seq", f"seq must be {self.count} (1, then +1 per record), not {seq!r}")
        rid = record.get("id")
        if rid != f"r{self.count}":
            self.report("PROFILE-id", f"id must be 'r{self.count}', not {rid!r}")
        if "ts" in record:
            ts = record["ts"]
            if not isinstance(ts, str) or not TS.match(ts):
                self.report("PROFILE-ts", f"ts must be RFC 3339 UTC with a Z suffix, not {ts!r}")
            elif record.get("tsPrecision") == "s" and "." in ts:
                self.report("PROFILE-ts", "tsPrecision 's' means ts has no fraction")
        if "tsPrecision" in record and (record["tsPrecision"] != "s" or "ts" not in record):
            self.report("PROFILE-ts", "tsPrecision is 's' and goes with ts")
        ranks = KEY_RANKS.get(kind, DEFAULT_RANKS)
        last = -1
        for key in record:
            rank = ranks.get(key, UNRANKED)
            if rank < last:
                self.report("PROFILE-key-order", f"key {key!r} is out of canonical order")
                break
            last = rank
        self._optional_envelope(record)

    def _optional_envelope(self, record: dict) -> None:
        capture = record.get("capture")
        if capture is not None:
            if not isinstance(capture, dict):
                self.report("PROFILE-capture", "capture must be an object of {state, reason?}")
            else:
                for field, state in capture.items():
                    if not isinstance(state, dict) or state.get("state") not in CAPTURE_STATES:
                        self.report(
                            "PROFILE-capture",
                            f"capture.{field} must be {{state: absent|truncated|masked|redacted, reason?}}",
                        )
        if "idSource" in record and record["idSource"] not in ID_SOURCES:
            self.report("PROFILE-idSource", "idSource is 'derived' or absent")
        assembly = record.get("assembly")
        if assembly is not None and (
            not isinstance(assembly, dict)
            or assembly.get("mode") not in ASSEMBLY_MODES
            or not isinstance(assembly.get("sourceIds"), list)
        ):
            self.report("PROFILE-assembly", "assembly must be {mode: 'folded', sourceIds: [...]}")
        if "copiedFrom" in record and not is_session_ref(record["copiedFrom"], with_record=True):
            self.report("PROFILE-ref", "copiedFrom must be a session reference with a # part")
        for key in ("supersedes", "parent"):
            if key in record:
                target = record[key]
                if not is_record_ref(target):
                    self.report("PROFILE-ref", f"{key} must be a record ref")
                elif target.startswith("r") and target[1:].isdigit() and target not in self._ids:
                    self.report("PROFILE-ref", f"{key} {target!r} does not name an earlier record")

    def _header(self, record: dict, kind: str) -> None:
        if kind != "session":
            self.report("PROFILE-header", "the first record must be the session header")
            return
        if not is_session_ref(record.get("session")):
            self.report("PROFILE-header", "session must be a session reference '<agent>:<id>'")
        for key in ("agent", "producer"):
            if not isinstance(record.get(key), dict) or not isinstance(record[key].get("name"), str):
                self.report("PROFILE-header", f"the header needs {key}.name")
        source = record.get("source")
        if isinstance(source, dict) and "/" in str(source.get("file", "")):
            self.report("PROFILE-header", "source.file is a base name, never a path")
        for decl in record.get("participants") or ():
            if isinstance(decl, dict) and isinstance(decl.get("participantId"), str):
                self._participants.add(decl["participantId"])
            else:
                self.report("ASR-227", "each header participant needs participantId")
        for decl in record.get("conversations") or ():
            if isinstance(decl, dict) and isinstance(decl.get("conversationId"), str):
                self._conversations.add(decl["conversationId"])
            else:
                self.report("ASR-227", "each header conversation needs conversationId")

    def _cross(self, record: dict, kind: str) -> None:
        rid = record.get("id")
        for field in _INDEXED:
            value = record.get(field)
            if isinstance(value, str):
                self._fields[field].setdefault(value, kind)
        if kind == "conversation" and isinstance(record.get("conversationId"), str):
            self._conversations.add(record["conversationId"])
        elif kind == "participant" and isinstance(record.get("participantId"), str):
            self._participants.add(record["participantId"])
        conversation = record.get("conversation")
        if conversation is not None and conversation not in self._conversations:
            rule = "ASR-235" if kind == "delivery" else "ASR-227"
            self.report(rule, f"conversation {conversation!r} is not declared at a lower seq")
        sender = record.get("from")
        participant = sender.get("participant") if isinstance(sender, dict) else None
        if isinstance(participant, str) and participant not in self._participants:
            self.report("ASR-228", f"participant {participant!r} is not declared at a lower seq")
        if kind == "plan" and isinstance(record.get("planId"), str):
            self._plan_revision(record)
        if kind == "delivery" and is_record_ref(record.get("message")):
            self._pending.append((self._seq, self._line, "ASR-235", record["message"], "message"))
        for target in record.get("derivedFrom") or ():
            if is_record_ref(target):
                self._pending.append((self._seq, self._line, "ASR-228", target, ""))
        if isinstance(rid, str):
            self._ids[rid] = (kind, record.get("planId") if kind == "plan" else None)

    def _plan_revision(self, record: dict) -> None:
        plan_id = record["planId"]
        previous = self._latest_plan.get(plan_id)
        supersedes = record.get("supersedes")
        if previous is not None and supersedes is None:
            self.report("ASR-222", f"plan {plan_id!r} was recorded before: a revision must name it in supersedes")
        elif supersedes is not None:
            target = self._ids.get(supersedes)
            if target is None or target != ("plan", plan_id):
                self.report("ASR-222", f"supersedes {supersedes!r} must name an earlier plan with planId {plan_id!r}")
            elif supersedes != previous:
                self.report("ASR-222", f"supersedes must name the previous revision {previous!r}")
        if isinstance(record.get("id"), str):
            self._latest_plan[plan_id] = record["id"]

    def _resolve(self, ref: str) -> str | None:
        """The type of the record a ref names, or None."""
        if ref in self._ids:
            return self._ids[ref][0]
        field, _, value = ref.partition("=")
        table = self._fields.get(field)
        return table.get(value) if table is not None else "unchecked"

    def finish(self) -> list[Finding]:
        if self.count == 0:
            self.findings.append(Finding("PROFILE-header", None, None, "an empty stream has no header", self.file))
        for seq, line, rule, ref, want in self._pending:
            kind = self._resolve(ref)
            if kind is None or (want and kind not in (want, "unchecked")):
                self.findings.append(
                    Finding(rule, seq, line, f"{ref!r} does not resolve to a {want or 'record'} record", self.file)
                )
        return self.findings


def validate_records(records: Any, file: str | None = None) -> list[Finding]:
    """Validate records already in memory (dicts, in stream order)."""
    validator = StreamValidator(file)
    for record in records:
        validator.add(record)
    return validator.finish()


def validate(src: str | os.PathLike[str] | IO[bytes] | bytes) -> list[Finding]:
    """Validate one ASR stream file; a file that is not JSON Lines gives one finding, not a traceback."""
    source = Source(src)
    validator = StreamValidator(source.display)
    for number, value in _lines(source, validator):
        validator.add(value, number)
    return validator.finish()


def _lines(source: Source, validator: StreamValidator) -> Iterator[tuple[int, Any]]:
    loads = orjson.loads
    try:
        for number, raw in source.lines():
            try:
                value = loads(raw)
            except orjson.JSONDecodeError as exc:
                validator.findings.append(
                    Finding("PROFILE-jsonl", None, number, f"not a JSON line: {exc}", source.display)
                )
                if validator.count == 0:
                    return
                continue
            yield number, value
    except OSError as exc:
        validator.findings.append(Finding("PROFILE-jsonl", None, None, f"cannot read: {exc}", source.display))
