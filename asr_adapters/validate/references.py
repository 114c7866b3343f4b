"""References across records: what a record declares or names that another record must hold.

The ids each record owns (``rN``, and the native ids of ``INDEXED`` and ``OWN_ID``), declared
conversations and participants, plan revisions and revision chains (``supersedes``) are
remembered as records arrive; a reference that may point forward is resolved at the end of the
stream (``_resolve_pending``). ``StreamValidator`` is a ``References``: one object, one pass.
"""

from __future__ import annotations

from typing import Any

from ..core.digest_pairs import DigestPair, IdTable
from ..core.digests import DigestMap
from .finding import ERROR, WARNING, Finding
from .formats import RECORD_ID, actor_problem, is_record_ref, show

#: Fields whose values ``field=value`` refs are resolved against; refs by other fields are not checked.
INDEXED = ("messageId", "callId", "planId", "requestId")
#: The native id each record type owns: a second record with the same value must revise the
#: first (``supersedes``, directly or through a chain) or say it is a copy (``copiedFrom``).
#: Plans are left to ASR-222, which asks the same of a plan's ``planId``, and more.
OWN_ID = {"message": "messageId", "tool_call": "callId", "input_request": "requestId"}
#: The validator's id tables (``DigestMap``, see ``_id_map``), small and fixed so that the
#: check's memory stays flat (issue 28; docs/performance.md, "Target 2"): 24,576 ids in memory
#: (a 512 KiB table) before they move to disk, 1,024 in the dict in front, and a 256 KiB
#: filter (about 5 % false positives at 100,000 ids on disk, 23 % at 500,000; a map's
#: default, 1 MiB with a 4 MiB table, was made for the adapters' maps, which rarely spill).
ID_LIMIT: int | None = 24_576
ID_RECENT: int | None = 1024
ID_FILTER_BITS: int | None = 1 << 21
#: Lists of references that name records which left a history (removals, reverts): the field
#: their values are resolved against (None: record refs, ``rN`` or ``field=value``).
REF_LISTS: dict[str, str | None] = {"removedMessageIds": "messageId", "reverted": None}


def _id_map() -> DigestMap:
    """One of the validator's id tables, sized by ``ID_LIMIT``, ``ID_RECENT``, ``ID_FILTER_BITS``."""
    return DigestMap(ID_LIMIT, ID_RECENT, ID_FILTER_BITS)


class References:
    """The state and checks of references across records (set up by ``_start_references``)."""

    file: str | None
    findings: list[Finding]
    count: int
    _seq: int | None
    _line: int | None

    def _start_references(self) -> None:
        # Position (1-based, index position - 1) -> the byte code of its type, for records whose
        # id is "r" + position; 0 otherwise (one byte a record, issue 28: a list of str was 8).
        # A code is 1 + the type's index in _kind_names, up to 254; 255: in _rare_kinds.
        self._kinds = bytearray()
        self._rare_kinds: dict[int, str] = {}  # position -> type, for the 255th type on
        self._kind_bytes: dict[str, int] = {}  # type -> its code in _kinds, up to 254
        self._kind_names: list[str] = []  # code - 1 -> type, for _kinds and the _fields tables
        self._kind_codes: dict[str, int] = {}  # type -> its index in _kind_names
        self._odd_ids: dict[str, int] = {}  # ids that are not "r" + position -> position
        self._plan_of: dict[int, str] = {}  # position of a plan -> its planId
        # INDEXED field -> value -> the index in _kind_names of the type of the record it
        # resolves to: 16 bytes an id in a DigestMap, not a string (issue 28)
        # (the ids a record type owns share one map with _owner below: a DigestPair, one entry an id)
        pairs = {field: DigestPair(packed=_id_map()) for field in OWN_ID.values()}
        self._fields: dict[str, IdTable] = {
            field: pairs[field].code if field in pairs else _id_map() for field in INDEXED
        }
        self._conversations: set[str] = set()
        self._participants: set[str] = set()
        self._latest_plan: dict[str, int] = {}  # planId -> position of its latest revision
        # OWN_ID field -> value -> a position on the way to the latest record of that native
        # id (a DigestMap: 16 bytes an id). A revision (supersedes) moves every id whose latest
        # record was its target on to itself: _forward[target] = the revision, once per target
        # (a second revision of the same target finds nothing left to move), and the latest
        # record of an id is the end of the chain from the position its table holds.
        self._owner = {field: pair.position for field, pair in pairs.items()}
        # position -> position, only for the targets of a revision (few: a DigestMap, not 4
        # bytes for every record)
        self._forward = _id_map()
        # references resolved at the end: (seq, line, rule, ref, wanted type, level)
        self._pending: list[tuple[int | None, int | None, str, str, str, str]] = []
        # tool results whose call was not seen before them: (seq, line, callId)
        self._results: list[tuple[int | None, int | None, str]] = []

    def _kind_code(self, kind: str) -> int:
        """The index of ``kind`` in ``_kind_names``, given one at its first record."""
        code = self._kind_codes.get(kind)
        if code is None:
            code = self._kind_codes[kind] = len(self._kind_names)
            self._kind_names.append(kind)
        return code

    def _numbered(self, kind: str) -> None:
        """The record just added has the id "r" + its position: remember its type (``add``
        appends the byte itself for a type already in ``_kind_bytes``)."""
        code = self._kind_code(kind)
        if code < 254:
            self._kind_bytes[kind] = code + 1
            self._kinds.append(code + 1)
        else:
            self._kinds.append(255)
            self._rare_kinds[self.count] = kind

    def _kind_at(self, position: int) -> str | None:
        """The type of the record at ``position`` (1 to count) if its id is "r" + position, else None."""
        code = self._kinds[position - 1]
        if code == 0:
            return None
        if code == 255:
            return self._rare_kinds[position]
        return self._kind_names[code - 1]

    def report(self, rule: str, message: str) -> None:
        self.findings.append(Finding(rule, self._seq, self._line, message, self.file))

    def _supersedes(self, record: dict, kind: str) -> None:
        target = record["supersedes"]
        if not isinstance(target, str) or RECORD_ID.match(target) is None:
            self.report("PROFILE-supersedes", f"supersedes must be the id of an earlier record, not {show(target)}")
            return
        index = int(target[1:])  # _position, without matching RECORD_ID again
        kinds = self._kinds
        position = index if index <= len(kinds) and kinds[index - 1] else self._odd_ids.get(target)
        if position is None and index > self.count:  # a later record, or none at all
            self._pending.append((self._seq, self._line, "PROFILE-supersedes", target, "<earlier>", ERROR))
        elif position is None or position >= self.count:
            self.report("PROFILE-supersedes", f"supersedes {target!r} does not name an earlier record")
        else:
            named = self._kind_at(position)
            if kind != "plan" and named != kind:  # plans: ASR-222
                self.report(
                    "PROFILE-supersedes",
                    f"supersedes {target!r} names a {named} record; a revision keeps its type {kind}",
                )
            forward = self._forward
            if position not in forward:  # the native ids whose latest record was the target now end here
                forward[position] = self.count

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
        following = forward.get(end)
        while following is not None:
            end = following
            following = forward.get(end)
        while position != end:  # every position on the way points to the end now
            following = forward.get(position)
            forward[position] = end
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
            if position <= len(self._kinds) and self._kinds[position - 1]:
                return position
        return self._odd_ids.get(rid)

    def _resolve(self, ref: str) -> str | None:
        """The type of the record a ref names, ``"?"`` when the ref's field is not indexed, or None."""
        if RECORD_ID.match(ref) is not None:
            position = self._position(ref)
            return None if position is None else self._kind_at(position) or "?"
        field, _, value = ref.partition("=")
        table = self._fields.get(field)
        if table is None:
            return "?"
        code = table.get(value)
        return None if code is None else self._kind_names[code]

    def _resolve_pending(self) -> None:
        """The references that could point forward, now that the stream has ended."""
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
