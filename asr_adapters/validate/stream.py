"""Stream-level validation: the JSON Lines framing, the envelope, the header, references across records.

One pass over plain dicts. ``StreamValidator.add`` checks one record as it arrives and
remembers what later records may name (ids, declared conversations and participants, plan
revisions); references that may point forward are resolved by ``finish``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..core.digest_pairs import DigestPair, IdTable
from ..core.digests import DigestMap
from ..core.usage import definition_problems
from ..model.order import DEFAULT_RANKS, KEY_RANKS, UNRANKED
from ..model.vocab import ASSEMBLY_MODES, CAPTURE_STATES
from .formats import RECORD_ID, actor_problem, is_record_ref, is_session_ref, is_str_list, show, valid_ts
from .limits import Findings, summarized
from .records import RECORD_CHECKS

#: Fields whose values ``field=value`` refs are resolved against; refs by other fields are not checked.
INDEXED = ("messageId", "callId", "planId", "requestId")
#: The native id each record type owns: a second record with the same value must revise the
#: first (``supersedes``, directly or through a chain) or say it is a copy (``copiedFrom``).
#: Plans are left to ASR-222, which asks the same of a plan's ``planId``, and more.
OWN_ID = {"message": "messageId", "tool_call": "callId", "input_request": "requestId"}
#: Lists of references that name records which left a history (removals, reverts): the field
#: their values are resolved against (None: record refs, ``rN`` or ``field=value``).
REF_LISTS: dict[str, str | None] = {"removedMessageIds": "messageId", "reverted": None}
#: The members of a normalized ``usage`` (issue 14.13), each present only where the source records it.
USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "totalTokens")
ERROR = "error"
WARNING = "warning"
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
    envelope = tuple(
        check for member, check in _ENVELOPE.items() if member in present and (member != "parent" or kind != "session")
    )
    return _Shape(
        misplaced,
        "ts" in present,
        tuple(member for member in ("turnId", "inferenceId") if member in present),
        "idSource" in present,
        envelope,
        tuple(f for f in INDEXED if f in present),
        OWN_ID[kind] if kind in OWN_ID and OWN_ID[kind] in present else None,
        tuple(f for f in REF_LISTS if f in present),
        RECORD_CHECKS.get(kind),
        _CROSS.get(kind),
    )


@dataclass(frozen=True)
class Finding:
    """One broken rule: which rule, which record (seq) and line, and what is wrong.

    ``seq`` is the record's own seq, or its position in the stream when its seq is not a
    usable integer; it is None for findings about the file as a whole. ``level`` is
    ``error`` (a rule is broken) or ``warning`` (something a reader should know that real
    logs do produce, such as a reference to a record the source never wrote).
    """

    rule: str
    seq: int | None
    line: int | None
    message: str
    file: str | None = None
    level: str = ERROR

    @property
    def is_error(self) -> bool:
        return self.level == ERROR

    def describe(self) -> str:
        where = f"{self.file or '<stream>'}:{self.line}" if self.line is not None else self.file or "<stream>"
        at = f" seq {self.seq}" if self.seq is not None else ""
        level = "" if self.level == ERROR else f" ({self.level})"
        return f"{where}:{at} {self.rule}{level}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "seq": self.seq,
            "level": self.level,
            "rule": self.rule,
            "message": self.message,
        }


class StreamValidator:
    """Feed records in order with ``add``; ``finish`` checks what needs the whole stream."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.findings: list[Finding] = Findings()  # capped (validate/limits.py)
        self.count = 0
        #: Set when the input could not be read as JSON Lines at all (one finding says why).
        self.unreadable = False
        # Position (1-based) -> type, for records whose id is "r" + position; None otherwise.
        self._kinds: list[str | None] = []
        self._odd_ids: dict[str, int] = {}  # ids that are not "r" + position -> position
        self._plan_of: dict[int, str] = {}  # position of a plan -> its planId
        # INDEXED field -> value -> the code of the type of the record it resolves to (a code
        # of _kind_names): 16 bytes an id in a DigestMap, not a string (issue 28)
        # (the ids a record type owns share one map with _owner below: a DigestPair, one entry an id)
        pairs = {field: DigestPair() for field in OWN_ID.values()}
        self._fields: dict[str, IdTable] = {
            field: pairs[field].code if field in pairs else DigestMap() for field in INDEXED
        }
        self._kind_names: list[str] = []
        self._kind_codes: dict[str, int] = {}
        self._conversations: set[str] = set()
        self._participants: set[str] = set()
        self._latest_plan: dict[str, int] = {}  # planId -> position of its latest revision
        # OWN_ID field -> value -> a position on the way to the latest record of that native
        # id (a DigestMap: 16 bytes an id). A revision (supersedes) moves every id whose latest
        # record was its target on to itself: _forward[target] = the revision, once per target
        # (a second revision of the same target finds nothing left to move), and the latest
        # record of an id is the end of the chain from the position its table holds.
        self._owner = {field: pair.position for field, pair in pairs.items()}
        self._forward = array("I")  # position (1-based, index position - 1) -> position, 0: none
        # references resolved at the end: (seq, line, rule, ref, wanted type, level)
        self._pending: list[tuple[int | None, int | None, str, str, str, str]] = []
        # tool results whose call was not seen before them: (seq, line, callId)
        self._results: list[tuple[int | None, int | None, str]] = []
        self._line: int | None = None
        self._seq: int | None = None
        self._shapes: dict[str, dict[tuple[str, ...], _Shape]] = {}  # type -> key sequence -> shape
        self._report = self.report

    def report(self, rule: str, message: str) -> None:
        self.findings.append(Finding(rule, self._seq, self._line, message, self.file))

    # -- one record -------------------------------------------------------------------------

    def add(self, record: Any, line: int | None = None) -> None:
        self._line = line
        self.count = count = self.count + 1
        if not isinstance(record, dict):
            self._seq = count
            self._kinds.append(None)
            self._forward.append(0)
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
        self._forward.append(0)
        if numbered:
            self._kinds.append(kind)
        else:
            self._kinds.append(None)
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
        for envelope in shape.envelope:
            envelope(self, record, kind)
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
                    code = self._kind_codes.get(kind)
                    if code is None:
                        code = self._kind_codes[kind] = len(self._kind_names)
                        self._kind_names.append(kind)
                    table[value] = code
        own = shape.own
        if own is not None:
            self._own_id(record, own)
        if shape.lists:
            for field in shape.lists:
                self._ref_list(record, field)
        if shape.cross is not None:
            shape.cross(self, record)

    # -- optional envelope members, each checked only when present (see _ENVELOPE) -----------

    def _ts_precision(self, record: dict, kind: str) -> None:
        precision = record["tsPrecision"]
        if precision != "s" or "ts" not in record:
            self.report("PROFILE-ts", f"tsPrecision is 's' and goes with a ts, not {show(precision)}")
        elif valid_ts(record["ts"]) and "." in record["ts"]:
            self.report("PROFILE-ts", "tsPrecision 's' means ts has no fraction")

    def _assembly(self, record: dict, kind: str) -> None:
        assembly = record["assembly"]
        if (
            not isinstance(assembly, dict)
            or not isinstance(assembly.get("mode"), str)
            or assembly["mode"] not in ASSEMBLY_MODES
            or not is_str_list(assembly.get("sourceIds"))
        ):
            self.report("PROFILE-assembly", "assembly must be {mode: 'folded', sourceIds: [string, ...]}")

    def _copied_from(self, record: dict, kind: str) -> None:
        if not is_session_ref(record["copiedFrom"], with_record=True):
            self.report(
                "PROFILE-ref", f"copiedFrom must be a session reference with a # part, not {show(record['copiedFrom'])}"
            )

    def _usage(self, record: dict, kind: str) -> None:
        """Normalized token usage: the six counts, each a non-negative integer, and ``partial``;
        the counts must keep the definition (parts within their whole, total = input + output)."""
        usage = record["usage"]
        if not isinstance(usage, dict):
            self.report("PROFILE-usage", f"usage must be an object of token counts, not {show(usage)}")
            return
        unknown = [key for key in usage if key not in USAGE_KEYS and key != "partial"]
        if unknown:  # one finding a record (a verbatim native object has many such keys)
            names = ", ".join(map(repr, unknown[:4])) + (" …" if len(unknown) > 4 else "")
            self.report("PROFILE-usage", f"usage has {names}: its members are {', '.join(USAGE_KEYS)}, partial")
        for key, value in usage.items():
            if key in USAGE_KEYS and (value.__class__ is not int or value < 0):
                self.report("PROFILE-usage", f"usage.{key} must be a non-negative integer, not {show(value)}")
        for problem in definition_problems(usage):
            self.report("PROFILE-usage", f"usage {problem}")

    def _native_usage(self, record: dict, kind: str) -> None:
        """The agent's own usage object, kept verbatim beside ``usage``: an object."""
        if not isinstance(record["nativeUsage"], dict):
            self.report("PROFILE-usage", f"nativeUsage must be an object, not {show(record['nativeUsage'])}")

    def _capture(self, record: dict, kind: str) -> None:
        capture = record["capture"]
        if not isinstance(capture, dict):
            self.report("PROFILE-capture", "capture must be an object {field: {state, reason?}}")
            return
        for field, entry in capture.items():
            state = entry.get("state") if isinstance(entry, dict) else None
            if not isinstance(state, str) or state not in CAPTURE_STATES:
                self.report(
                    "PROFILE-capture",
                    f"capture.{field} must be {{state: absent|truncated|masked|redacted, reason?}}, not {show(entry)}",
                )
            elif "reason" in entry and not isinstance(entry["reason"], str):
                self.report("PROFILE-capture", f"capture.{field}.reason must be a string")

    def _supersedes(self, record: dict, kind: str) -> None:
        target = record["supersedes"]
        if not isinstance(target, str) or RECORD_ID.match(target) is None:
            self.report("PROFILE-supersedes", f"supersedes must be the id of an earlier record, not {show(target)}")
            return
        index = int(target[1:])  # _position, without matching RECORD_ID again
        kinds = self._kinds
        position = index if index <= len(kinds) and kinds[index - 1] is not None else self._odd_ids.get(target)
        if position is None and index > self.count:  # a later record, or none at all
            self._pending.append((self._seq, self._line, "PROFILE-supersedes", target, "<earlier>", ERROR))
        elif position is None or position >= self.count:
            self.report("PROFILE-supersedes", f"supersedes {target!r} does not name an earlier record")
        else:
            if kind != "plan" and self._kinds[position - 1] != kind:  # plans: ASR-222
                named = self._kinds[position - 1]
                self.report(
                    "PROFILE-supersedes",
                    f"supersedes {target!r} names a {named} record; a revision keeps its type {kind}",
                )
            forward = self._forward
            if not forward[position - 1]:  # the native ids whose latest record was the target now end here
                forward[position - 1] = self.count

    def _parent(self, record: dict, kind: str) -> None:
        target = record["parent"]
        if not is_record_ref(target):
            self.report("PROFILE-ref", f"parent must be a record ref, not {show(target)}")
        elif RECORD_ID.match(target) is not None:
            position = self._position(target)
            if position is None and int(target[1:]) > self.count:  # a later record, or none at all
                self._pending.append((self._seq, self._line, "PROFILE-ref", target, "<earlier>", ERROR))
            elif position is None or position >= self.count:
                self.report("PROFILE-ref", f"parent {target!r} does not name an earlier record")
        else:
            self._pending.append((self._seq, self._line, "PROFILE-ref", target, "", WARNING))

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

    # -- across records ---------------------------------------------------------------------

    def _delivery_refs(self, record: dict) -> None:
        conversation = record.get("conversation")
        if isinstance(conversation, str) and conversation and conversation not in self._conversations:
            self.report("ASR-235", f"conversation {conversation!r} is not declared at a lower seq")
        message = record.get("message")
        if isinstance(message, str) and is_record_ref(message):
            self._pending.append((self._seq, self._line, "ASR-235", message, "message", ERROR))

    def _plan_refs(self, record: dict) -> None:
        plan_id = record.get("planId")
        if isinstance(plan_id, str):
            self._plan_revision(record, plan_id)

    def _declare_conversation(self, record: dict) -> None:
        if isinstance(record.get("conversationId"), str):
            self._conversations.add(record["conversationId"])

    def _declare_participant(self, record: dict) -> None:
        if isinstance(record.get("participantId"), str):
            self._participants.add(record["participantId"])

    def _message_refs(self, record: dict) -> None:
        conversation = record.get("conversation")
        if isinstance(conversation, str) and conversation and conversation not in self._conversations:
            self.report("ASR-227", f"conversation {conversation!r} is not declared in the header or at a lower seq")
        actors: list[tuple[str, Any]] = []
        if "from" in record:
            actors.append(("from", record["from"]))
        recipients = record.get("recipients")
        if isinstance(recipients, list):
            actors.extend(
                (f"recipients[{i}].actor", r.get("actor")) for i, r in enumerate(recipients) if isinstance(r, dict)
            )
        for where, actor in actors:
            if (
                actor_problem(actor) is None
                and "participant" in actor
                and actor["participant"] not in self._participants
            ):
                self.report("ASR-228", f"{where}: participant {actor['participant']!r} is not declared at a lower seq")
        derived = record.get("derivedFrom")
        if isinstance(derived, list):
            for target in derived:
                if is_record_ref(target):
                    if target == record.get("id"):
                        self.report("ASR-228", f"derivedFrom names the message itself ({target!r})")
                    else:
                        self._pending.append((self._seq, self._line, "ASR-228", target, "", ERROR))

    def _own_id(self, record: dict, field: str) -> None:
        """Issue 14.14: a native id written again must revise its latest record or be a copy."""
        value = record[field]
        if value.__class__ is not str:
            return
        table = self._owner[field]
        count = self.count
        latest = table.swap(value, count)
        if latest is None:  # the common case: a new id
            return
        latest = self._latest(latest)
        if latest == count:  # this record's supersedes already moved the id here
            return
        if "copiedFrom" not in record:
            self.report(
                "PROFILE-native-id",
                f"{field} {value!r} was written by r{latest}: a second record with it must name"
                " that record (or a revision of it) in supersedes, or carry copiedFrom",
            )

    def _latest(self, position: int) -> int:
        """The end of the chain of revisions from ``position`` (the chain is shortened on the way)."""
        forward = self._forward
        end = position
        while forward[end - 1]:
            end = forward[end - 1]
        while position != end:  # every position on the way points to the end now
            following = forward[position - 1]
            forward[position - 1] = end
            position = following
        return end

    def _tool_result_refs(self, record: dict) -> None:
        call_id = record.get("callId")
        if call_id.__class__ is str and call_id and call_id not in self._owner["callId"]:
            self._results.append((self._seq, self._line, call_id))

    def _ref_list(self, record: dict, field: str) -> None:
        """A removal or revert list: every entry should name a record of the stream (a warning)."""
        values = record[field]
        if not isinstance(values, list):
            self.report("PROFILE-ref", f"{field} must be an array of references")
            return
        target = REF_LISTS[field]
        for value in values:
            if not isinstance(value, str) or not value:
                self.report("PROFILE-ref", f"{field} holds {show(value)}, not a reference")
                continue
            ref = value if target is None else f"{target}={value}"
            if target is None and not is_record_ref(value):
                self.report("PROFILE-ref", f"{field} holds {value!r}, not a record ref")
            elif self._resolve(ref) is None:
                self._pending.append((self._seq, self._line, "PROFILE-ref", ref, "", WARNING))

    def _plan_revision(self, record: dict, plan_id: str) -> None:
        previous = self._latest_plan.get(plan_id)
        supersedes = record.get("supersedes")
        if not isinstance(supersedes, str):
            if previous is not None:
                self.report(
                    "ASR-222", f"plan {plan_id!r} was recorded at r{previous}: a revision must name it in supersedes"
                )
        else:
            position = self._position(supersedes)
            if position is None or position >= self.count or self._plan_of.get(position) != plan_id:
                self.report(
                    "ASR-222", f"supersedes {supersedes!r} must name an earlier plan record with planId {plan_id!r}"
                )
            elif position != previous:
                self.report("ASR-222", f"supersedes must name the latest revision of {plan_id!r}, r{previous}")
        self._latest_plan[plan_id] = self.count
        self._plan_of[self.count] = plan_id

    def _position(self, rid: str) -> int | None:
        """The position of the record whose id is ``rid``, or None."""
        if RECORD_ID.match(rid) is not None:
            position = int(rid[1:])
            if position <= len(self._kinds) and self._kinds[position - 1] is not None:
                return position
        return self._odd_ids.get(rid)

    def _resolve(self, ref: str) -> str | None:
        """The type of the record a ref names, ``"?"`` when the ref's field is not indexed, or None."""
        if RECORD_ID.match(ref) is not None:
            position = self._position(ref)
            return None if position is None else self._kinds[position - 1] or "?"
        field, _, value = ref.partition("=")
        table = self._fields.get(field)
        if table is None:
            return "?"
        code = table.get(value)
        return None if code is None else self._kind_names[code]

    def finish(self) -> list[Finding]:
        if self.count == 0 and not self.unreadable:
            self.findings.append(Finding("PROFILE-header", None, None, "an empty stream has no header", self.file))
        for seq, line, rule, ref, want, level in self._pending:
            kind = self._resolve(ref)
            if want == "<earlier>":  # an rN beyond the record that named it
                if kind is None:
                    message = f"{ref!r} names no record of this stream"
                    self.findings.append(Finding(rule, seq, line, message, self.file, WARNING))
                else:
                    message = f"{ref!r} names a later record, not an earlier one"
                    self.findings.append(Finding(rule, seq, line, message, self.file))
            elif kind is None:
                message = f"{ref!r} names no record of this stream"
                self.findings.append(Finding(rule, seq, line, message, self.file, level))
            elif want and kind not in (want, "?"):
                self.findings.append(
                    Finding(rule, seq, line, f"{ref!r} names a {kind} record, not a {want}", self.file)
                )
        self._pending.clear()
        calls = self._owner["callId"]
        for seq, line, call_id in self._results:
            if call_id not in calls:
                message = f"tool_result callId {call_id!r} names no tool_call of this stream"
                self.findings.append(Finding("PROFILE-ref", seq, line, message, self.file, WARNING))
        self._results.clear()
        return self.findings


_ENVELOPE: dict[str, _Check] = {
    "tsPrecision": StreamValidator._ts_precision,
    "capture": StreamValidator._capture,
    "supersedes": StreamValidator._supersedes,
    "parent": StreamValidator._parent,
    "copiedFrom": StreamValidator._copied_from,
    "assembly": StreamValidator._assembly,
    "usage": StreamValidator._usage,
    "nativeUsage": StreamValidator._native_usage,
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
