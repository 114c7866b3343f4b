"""pi's session entries (``FileEntry``: an ``id`` / ``parentId`` tree) one at a time, into ASR
records: the part of reading a session that pi and OpenClaw share.

``EntryTree`` keeps only what later entries need: the record id of each entry (for the
``parent`` links of the tree) and of each entry's parent (a compaction's ``through``). Both
maps are ``DigestMap``s (16 bytes an id, core.digests), so memory stays bounded however long
the session. A v1 entry has
no id: it gets ``L<line>`` and the previous entry as parent, as pi's own migration does
(``migrateV1ToV2``). The agent's own mapper says what each message role becomes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.adapter import Adapter, Context, Emitter
from ...core.digests import DigestMap
from ...core.refs import schema_name
from ...core.timestamps import from_iso, stamp
from ...model.order import canonical_part_order
from . import blocks as pb

HARNESS = ("harness", "injected")
_ENVELOPE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
_ASSISTANT_KNOWN = frozenset({"role", "content", "model", "usage", "stopReason", "errorMessage", "responseId"})
_RESULT_KNOWN = frozenset({"role", "toolCallId", "toolName", "isError", "content"})
NO_CONTENT = {"state": "absent", "reason": "the source stored no content"}


class EntryTree:
    """Converts the entries of one session, in order, through one emitter."""

    def __init__(self, adapter: Adapter, context: Context, emit: Emitter) -> None:
        self.adapter = adapter
        self.accounting = context.accounting
        self.emit = emit
        # native entry id -> seq of its first record, for ``parent`` links and repeated entries:
        # any entry may be a parent, almost always a recent one (core.digests: 16 bytes an id)
        self.records_of = DigestMap()
        #: entry id -> seq of its parent entry's first record (a compaction's kept entry names
        #: the history before it: ``compaction.through``)
        self.parent_of = DigestMap()
        self.previous: str | None = None
        self._derived = False
        self._parent: str | None = None

    # -- what the agent's mapper provides -----------------------------------------------

    def _message(self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
        """The records of a ``message`` entry, by its message's role (empty: kept as a vendor
        record); the roles are the format's, what each becomes the agent's."""
        message = item["message"]
        role = message.get("role")
        if role == "user":
            return [self._user(eid, derived, base, message)]
        if role == "assistant":
            return self._assistant(eid, derived, base, message)
        if role == "toolResult":
            return self._tool_result(base, message)
        if role in ("hookMessage", "custom"):
            return [self._custom_message(eid, derived, base, item, message)]
        return self._other_role(eid, derived, base, message)

    def _user(self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _assistant(
        self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]
    ) -> list[dict[str, Any]]:
        parts, calls = self._assistant_parts(message)
        return self._assistant_records(eid, derived, base, message, parts, calls)[0]

    def _tool_result(self, base: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _other_role(
        self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """The records of a message of a role the format does not share (empty: vendor)."""
        return []

    def _other(self, eid: str, base: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
        """Records of an entry type the tree does not map itself (empty: a vendor record)."""
        return []

    def _declarations(self) -> list[dict[str, Any]]:
        """Records that must come before this entry's records (late declarations)."""
        return []

    # -- entry dispatch ----------------------------------------------------------------

    def entry(self, number: int, item: Any) -> Iterator[dict[str, Any]]:
        """The records of one native entry; accounts it as records or vendor."""
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            self.accounting.vendor += 1
            yield self.emit(self.adapter.vendor("unknown", item))
            return
        kind = item["type"]
        derived = not isinstance(item.get("id"), str)
        eid = f"L{number}" if derived else item["id"]
        base: dict[str, Any] = {}
        stamp(base, from_iso(item.get("timestamp")))
        parent_id = item.get("parentId") if not derived else self.previous
        found = self.records_of.get(parent_id) if isinstance(parent_id, str) else None
        parent = None if found is None else f"r{found}"
        self.previous = eid
        self._derived = derived
        self._parent = parent
        records: list[dict[str, Any]]
        if not derived and eid in self.records_of:
            # pi never writes one entry id twice (``generateId`` checks): a repeat is a copied
            # or replayed line, kept verbatim as vendor so no native id is written twice
            records = []
            kind = "repeated-entry"
        elif kind == "message" and isinstance(item.get("message"), dict):
            records = self._message(eid, derived, base, item)
        elif kind == "custom_message":
            records = [self._custom_message(eid, derived, base, item, item)]
        elif kind in ("compaction", "branch_summary"):
            records = [self._summary(eid, derived, base, item)]
        else:
            records = self._other(eid, base, item)
        if not records:
            schema = kind
            if kind == "message" and isinstance(item.get("message"), dict):
                schema = f"message.{item['message'].get('role')}"
            record = {"type": "vendor", **base, "schema": schema_name(self.adapter.registry_name, schema), "data": item}
            self._tail(record)
            records = [record]
            self.accounting.vendor += 1
        elif all(record["type"] == "vendor" for record in records):
            self.accounting.vendor += 1
        else:
            self.accounting.records += 1
        emit = self.emit
        for decl in self._declarations():  # declarations come before the first record naming them
            yield emit(decl)
        if kind != "repeated-entry":
            self.records_of[eid] = emit.seq + 1
            if found is not None:
                self.parent_of[eid] = found
        for record in records:
            yield emit(record)

    def _ids(self, record: dict[str, Any], eid: str, derived: bool) -> dict[str, Any]:
        record["messageId"] = eid
        return record

    def _tail(self, record: dict[str, Any]) -> None:
        """``idSource`` and the entry's ``parent`` link, placed where the canonical order wants
        them (after ``capture``, before the native extras) so the emitter need not re-sort."""
        if self._derived and "messageId" in record:
            record["idSource"] = "derived"
        if self._parent is not None:
            record["parent"] = self._parent
            self._parent = None

    # -- summaries ---------------------------------------------------------------------

    def _summary(self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
        """A compaction or branch summary: harness text that replaces history in the context
        (docs/format.md, Compaction). pi renders it into a user-role message when it builds a
        request (``convertToLlm``), so the stored entry has no role (ASR-201)."""
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["author"], record["origin"] = HARNESS
        # no audience: the entry does not say who saw the summary (ASR-204; issue 27.16)
        summary = item.get("summary")
        record["content"] = [{"type": "text", "text": summary}] if isinstance(summary, str) else []
        capture: dict[str, Any] = {}
        if not isinstance(summary, str):
            capture["content"] = {"state": "absent", "reason": "no summary stored"}
        capture["role"] = {"state": "absent", "reason": "the provider role is chosen per request"}
        record["capture"] = capture
        self._tail(record)
        if item["type"] == "compaction":
            record["summaryOf"] = "compaction"
            record["compaction"] = self._replaced(item)
        else:  # a summary of the branch left behind: not a spec or profile kind
            record["summaryOf"] = f"{self.adapter.registry_name}/{item['type']}"
        for key, value in item.items():
            if key not in _ENVELOPE_KEYS and key != "summary":
                record[key] = value
        return record

    def _replaced(self, item: dict[str, Any]) -> dict[str, Any]:
        """``compaction.through``: pi keeps the entries from ``firstKeptEntryId`` (v1:
        ``firstKeptEntryIndex``, an index into the file's entries) to the compaction in context,
        so the summary replaces the path ending at the entry before the first kept one; with
        no kept entry, the path ending at the compaction's parent."""
        first = item.get("firstKeptEntryId")
        index = item.get("firstKeptEntryIndex")
        if not isinstance(first, str) and type(index) is int and index >= 0:
            first = f"L{index + 1}"  # v1 ids are derived from line numbers (the header is line 1)
        if isinstance(first, str) and first in self.records_of:
            before = self.parent_of.get(first)
            return {"through": f"r{before}"} if before is not None else {}
        return {"through": self._parent} if self._parent is not None else {}

    # -- messages ----------------------------------------------------------------------

    def _assistant_parts(self, message: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """An assistant message's content parts and its ``toolCall`` blocks as call bodies."""
        namespace = self.adapter.registry_name
        stop = message.get("stopReason")
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        last = len(blocks) - 1
        for position, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                parts.append(pb.text_part(block, namespace))
            elif kind == "thinking":
                parts.append(pb.thinking_part(block, namespace))
            elif kind == "toolCall":
                calls.append(pb.tool_call(block, stop_reason=stop, last=position == last))
            else:
                parts.append(media_part(block, (None, None), namespace))
        return parts, calls

    def _assistant_records(
        self,
        eid: str,
        derived: bool,
        base: dict[str, Any],
        message: dict[str, Any],
        parts: list[dict[str, Any]],
        calls: list[dict[str, Any]],
        harness: bool = False,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The message (when it has content, or no calls) and its ``tool_call`` records, and
        the message's id. The response's facts (model, usage, stop reason, error, every other
        member verbatim) go on the message, else on its first call (profile §5). ``harness``:
        text the agent software wrote itself, which is no model response (no ``usage``)."""
        stop = message.get("stopReason")
        facts: dict[str, Any] = {}
        if "model" in message:
            facts["model"] = message["model"]
        if "usage" in message:
            usage = None if harness else pb.normalized_usage(message["usage"], message.get("api"))
            if usage is not None:
                facts["usage"] = usage
            facts["nativeUsage"] = message["usage"]
        if "stopReason" in message:
            facts["stopReason"] = message["stopReason"]
        if "errorMessage" in message:
            facts["error"] = message["errorMessage"]
        for key, value in message.items():
            if key not in _ASSISTANT_KNOWN:
                facts[key] = value
        head: dict[str, Any] = {"type": "message", **base}
        if isinstance(message.get("responseId"), str):
            head["inferenceId"] = message["responseId"]
        records: list[dict[str, Any]] = []
        message_id: str | None = None
        if parts or not calls:
            record = self._ids(dict(head), eid, derived)
            message_id = eid
            record["role"] = "assistant"
            if message.get("model") != "delivery-mirror":
                # an OpenClaw mirror is the harness's copy of text it sent (another run's reply, a
                # message-tool send): who wrote those words is not recorded (ASR-202)
                record["author"] = "harness" if harness else "model"
            if harness:
                record["origin"] = "injected"
            status = pb.status_of(stop)
            if status is not None:
                record["status"] = status
            record["content"] = parts
            if not parts:
                record["capture"] = {"content": dict(NO_CONTENT)}
            self._tail(record)
            record.update(facts)
            records.append(record)
        for index, call in enumerate(calls):
            call_record = {"type": "tool_call", **base}
            if "inferenceId" in head:
                call_record["inferenceId"] = head["inferenceId"]
            call_record["callId"] = call.pop("callId")
            if "name" in call:
                call_record["name"] = call.pop("name")
            if message_id is not None:
                call_record["messageId"] = message_id
            call_record.update(call)
            if message_id is None and index == 0:
                self._tail(call_record)
                call_record.update(facts)
            records.append(call_record)
        return records, message_id

    def _result_record(
        self, base: dict[str, Any], message: dict[str, Any], harness_texts: tuple[str, ...], shell_tools: frozenset[str]
    ) -> dict[str, Any]:
        """A ``toolResult`` message as a ``tool_result``: parts whose text starts with one of
        ``harness_texts`` are the harness's (a result it wrote for a call it did not run)."""
        call_id = str(message.get("toolCallId", ""))
        record: dict[str, Any] = {"type": "tool_result", **base, "callId": call_id}
        if isinstance(message.get("toolName"), str):
            record["name"] = message["toolName"]
        if isinstance(message.get("isError"), bool):
            record["isError"] = message["isError"]
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        namespace = self.adapter.registry_name
        parts = []
        for block in blocks:
            part = media_part(block, (None, None), namespace)
            text = part.get("text")
            if part.get("type") == "text" and isinstance(text, str) and text.startswith(harness_texts):
                part["author"], part["origin"] = HARNESS
                part = canonical_part_order(part)
            parts.append(part)
        record["content"] = parts
        text = "".join(p["text"] for p in parts if isinstance(p.get("text"), str))
        pb.result_outcome(record, message, text, namespace, shell_tools)
        self._tail(record)
        for key, value in message.items():
            if key not in _RESULT_KNOWN:
                record[key] = value
        return record

    def _custom_message(
        self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any], body: dict[str, Any]
    ) -> dict[str, Any]:
        """Injected context whose provider role is chosen per request: role absent (ASR-201).
        ``body`` is the ``custom_message`` entry itself, or a pre-v3 ``hookMessage`` / ``custom``
        message; ``display`` says whether the person saw it too."""
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["author"], record["origin"] = HARNESS
        display = body.get("display")
        if display is False:
            record["audience"] = "model"
        elif display is True:
            record["audience"] = "both"
        content = body.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        namespace = self.adapter.registry_name
        record["content"] = [media_part(b, (None, None), namespace) for b in blocks]
        record["capture"] = {"role": {"state": "absent", "reason": "the provider role is chosen per request"}}
        self._tail(record)
        skip = _ENVELOPE_KEYS | {"content", "display", "message"} if body is item else {"role", "content", "display"}
        for key, value in body.items():
            if key not in skip:
                record[key] = value
        return record


def rest_meta(block: dict[str, Any], known: tuple[str, ...], namespace: str) -> dict[str, Any]:
    return {f"{namespace}/{k}": v for k, v in block.items() if k not in known}


def media_part(block: Any, who: tuple[str | None, str | None], namespace: str) -> dict[str, Any]:
    """A non-text content block: pi images become ASR image parts; anything else is kept as is."""
    if not isinstance(block, dict):
        return {"type": f"{namespace}/value", "value": block}
    if block.get("type") == "image" and isinstance(block.get("mimeType"), str):
        part: dict[str, Any] = {"type": "image", "mimeType": block["mimeType"]}
        if isinstance(block.get("data"), str):
            part["data"] = block["data"]
        rest = rest_meta(block, ("type", "mimeType", "data"), namespace)
        if rest:
            part["_meta"] = rest
    elif block.get("type") == "text" and isinstance(block.get("text"), str):
        part = dict(block)
    else:
        if isinstance(block.get("type"), str) and block["type"] not in ("text", "image"):
            part = dict(block)
        else:  # a type that is not a string, text that is not, an image with no media type:
            # kept, under a type readers skip (ASR-210, 212, 218)
            part = {"type": f"{namespace}/block", **{k: v for k, v in block.items() if k != "type"}}
            part["nativeType"] = block.get("type")
    if who[0] is not None:
        part["author"] = who[0]
    if who[1] is not None:
        part["origin"] = who[1]
    return canonical_part_order(part)
