"""One OpenClaw transcript entry (pi ``FileEntry``) at a time, into ASR records.

The same entry grammar is read from JSONL lines (file era) and from ``transcript_events``
rows (SQLite era). The mapper holds only what later entries need: the record id of each
entry (for ``parent`` links of the entry tree), the declared participants and
conversations, and the open ``message`` tool sends waiting for their results. The per-entry
and per-call maps are ``SpillMap``s, so memory stays bounded however long the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...core.adapter import Adapter, Context, Emitter
from ...core.refs import schema_name, session_ref
from ...core.spill import SpillMap
from ...core.timestamps import from_iso, stamp
from ...model.order import canonical_part_order
from . import assistant as am
from . import outbound
from .inbound import HARNESS, hoist, internal_event_facts, parse_user_text
from .index import obj
from .routing import CONTROL_UI, Routing
from .summaries import SummaryMixin

#: ``message`` tool actions that send a message (reactions, edits and reads do not).
SEND_ACTIONS = frozenset({"send", "reply", "thread-reply", "sendAttachment", "sendWithEffect", "broadcast"})
#: Tool result texts the harness writes in place of a missing or skipped result.
SYNTHETIC_RESULTS = (
    "[openclaw] missing tool result in session history",
    "Skipped due to queued user message.",
)
_ENVELOPE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
_ASSISTANT_KNOWN = frozenset({"role", "content", "model", "usage", "stopReason", "errorMessage", "responseId"})
_RESULT_KNOWN = frozenset({"role", "toolCallId", "toolName", "isError", "content"})


class Mapper(SummaryMixin):
    """Converts the entries of one session, in order, through one emitter."""

    def __init__(
        self,
        adapter: Adapter,
        context: Context,
        emit: Emitter,
        routing: Routing,
        channel: str | None,
        chat_type: str | None = None,
        resolve: Callable[[str], str | None] | None = None,
    ) -> None:
        self.adapter = adapter
        self.accounting = context.accounting
        self.emit = emit
        self.routing = routing
        self.channel = channel
        self.group = None if chat_type is None else chat_type != "direct"
        # native entry id -> seq of its first record, for ``parent`` links: any entry may be a
        # parent, but almost always a recent one, so older entries wait on disk (core.spill)
        self.records_of = SpillMap()
        #: entry id -> seq of its parent entry's first record (a compaction's kept entry names
        #: the history before it: ``compaction.through``)
        self.parent_of = SpillMap()
        # ``message`` sends and ``sessions_spawn`` calls waiting for their result (call id ->
        # what the result needs); a call whose result never comes must not stay in memory
        self.sends = SpillMap()
        self.spawns = SpillMap()
        self.cron_job: str | None = None
        #: the trigger kind of the latest user entry (its turn's): a memory flush has no outbound path
        self.turn_trigger: str | None = None
        self.resolve = resolve
        self.previous: str | None = None
        self._derived = False
        self._parent: str | None = None

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
            # OpenClaw never writes one entry id twice: a repeat is a copied or replayed line.
            # Kept verbatim as vendor, so no native id is written twice (PROFILE-native-id)
            records = []
            kind = "repeated-entry"
        elif kind == "message" and isinstance(item.get("message"), dict):
            records = self._message(eid, derived, base, item)
        elif kind == "custom_message":
            records = [self._custom_message(eid, derived, base, item, item)]
        elif kind in ("compaction", "branch_summary"):
            records = [self._summary(eid, derived, base, item)]
        else:
            records = []
        if not records:
            schema = kind
            if kind == "message" and isinstance(item.get("message"), dict) and item.get("type") == "message":
                schema = f"message.{item['message'].get('role')}"
            record = {"type": "vendor", **base, "schema": schema_name(self.adapter.registry_name, schema), "data": item}
            self._tail(record)
            records = [record]
            self.accounting.vendor += 1
        else:
            self.accounting.records += 1
        routing = self.routing
        emit = self.emit
        if routing.pending:  # declarations come before the first record that names them
            for decl in routing.take_pending():
                yield emit(decl)
        if kind != "repeated-entry":
            self.records_of[eid] = emit.seq + 1
            if found is not None:
                self.parent_of[eid] = found
        for record in records:
            yield emit(record)

    # -- messages ----------------------------------------------------------------------

    def _message(self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
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
        return []

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

    def _user(self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["role"] = "user"
        provenance = obj(message.get("provenance"))
        who: tuple[str | None, str | None] = (None, "prompt")
        kind = provenance.get("kind")
        if kind == "inter_session":
            tool = provenance.get("sourceTool")
            who = ("agent", "subagent_report" if tool == "subagent_announce" else "inter_session")
        elif kind == "internal_system":
            who = HARNESS
        content = message.get("content")
        parts: list[dict[str, Any]] = []
        facts = None
        texts: list[str] = []
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or ():
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                parsed = parse_user_text(block["text"], who, self.group)
                texts.append(block["text"])
                if facts is None:
                    facts = parsed
                if len(block) > 2 and parsed.parts:
                    parsed.parts[0]["_meta"] = _rest(block, ("type", "text"))
                parts.extend(parsed.parts)
            else:
                parts.append(_media_part(block, who))
        hoist(parts, record)
        if facts is not None:
            self._route(record, facts, provenance, texts)
        record["content"] = parts
        if not parts:
            record["capture"] = {"content": {"state": "absent", "reason": "the source stored no content"}}
        self._tail(record)
        self.turn_trigger = facts.trigger.get("kind") if facts is not None and facts.trigger is not None else None
        if facts is not None and facts.trigger is not None:
            record["trigger"] = facts.trigger
            if facts.trigger.get("kind") == "cron":
                self.cron_job = facts.trigger.get("jobId")
        for key, value in message.items():
            if key not in ("role", "content"):
                record[key] = value
        return record

    def _route(self, record: dict[str, Any], facts: Any, provenance: dict[str, Any], texts: list[str]) -> None:
        """``from``, ``conversation``, ``platform``, ``addressed``, ``via``: only what the text records."""
        sender_id = facts.sender_id
        is_ui = CONTROL_UI in (sender_id, facts.sender.get("label"), facts.conversation.get("sender"))
        is_system = facts.conversation.get("sender") == "system"
        origin_session = provenance.get("originSessionId")
        if provenance.get("kind") == "inter_session":
            if not isinstance(origin_session, str) and provenance.get("sourceTool") == "subagent_announce":
                origin_session = internal_event_facts("".join(texts)).get("session_id")
            if isinstance(origin_session, str) and origin_session:
                record["from"] = {"session": session_ref("openclaw", origin_session)}
            return
        via = None
        if is_ui:
            via = "web"
        elif not is_system and (
            facts.channel or facts.sender or facts.conversation.get("sender_id") or facts.conversation.get("sender")
        ):
            via = "channel"
        elif facts.message_ids and self.channel == "webchat":
            via = "web"
        if via == "channel":
            pid = self.routing.participant(facts)
            if pid is not None:
                record["from"] = {"participant": pid}
            cid = self.routing.inbound_conversation(facts, facts.channel or self.channel)
            if cid is not None:
                record["conversation"] = cid
        elif via == "web" and self.routing.session_conversation and self.channel == "webchat":
            record["conversation"] = self.routing.session_conversation
        if via == "web":
            self.routing.web_prompt(record.get("conversation"))
        elif is_system and facts.system_chat is not None:  # a channel notice about a chat the System line names
            record["conversation"] = self.routing.system_chat(facts.system_chat)
        platform: dict[str, Any] = {}
        if facts.message_ids and is_system:
            # a notice OpenClaw raised about a platform message (``om_…:permission-error``): its
            # id is OpenClaw's event id, not a message on the platform (ASR-226), kept verbatim
            record["eventIds"] = facts.message_ids
        elif facts.message_ids:
            platform["messageIds"] = facts.message_ids
        if facts.reply_to is not None:
            platform["replyTo"] = facts.reply_to
        if platform:
            record["platform"] = platform
        info = self.routing.info
        direct = (
            info is not None
            and info.chat_type == "direct"
            and record.get("conversation") is not None
            and record.get("conversation") == self.routing.session_conversation
        )
        if facts.mentioned or (via == "channel" and direct):  # a mention, or the session's direct chat
            record["addressed"] = True
        if via is not None:
            record["via"] = via

    def _assistant(
        self, eid: str, derived: bool, base: dict[str, Any], message: dict[str, Any]
    ) -> list[dict[str, Any]]:
        synthetic = am.is_synthetic(message)
        stop = message.get("stopReason")
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        last = len(blocks) - 1
        for position, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                parts.append(am.text_part(block))
            elif kind == "thinking":
                parts.append(am.thinking_part(block))
            elif kind == "toolCall":
                calls.append(am.tool_call(block, stop_reason=stop, last=position == last))
            else:
                parts.append(_media_part(block, (None, None)))
        placeholders = [part for part in parts if am.is_placeholder(part)] if not synthetic else []
        harness = synthetic or (bool(placeholders) and len(placeholders) == len(parts))
        if placeholders and not harness:  # beside model output: the placeholder part is the harness's
            for index, part in enumerate(parts):
                if am.is_placeholder(part):
                    parts[index] = canonical_part_order({**part, "author": HARNESS[0], "origin": HARNESS[1]})
        facts: dict[str, Any] = {}
        if "model" in message:
            facts["model"] = message["model"]
        if "usage" in message:
            # a model response's token counts, normalized; not for text OpenClaw wrote itself
            usage = None if harness else am.normalized_usage(message["usage"], message.get("api"))
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
            record["author"] = "harness" if harness else "model"
            if harness:
                record["origin"] = "injected"
            status = am.status_of(stop)
            if status is not None:
                record["status"] = status
            record["content"] = parts
            if not parts:
                record["capture"] = {"content": {"state": "absent", "reason": "the source stored no content"}}
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
            name = call_record.get("name")
            data = call.get("input")
            action = data.get("action", "send") if isinstance(data, dict) else None
            if name == "message" and isinstance(action, str) and action in SEND_ACTIONS:
                self.sends[call_record["callId"]] = (message_id, data)
            elif name == "sessions_spawn" and isinstance(data, dict):
                self.spawns[call_record["callId"]] = data
        if synthetic or self.turn_trigger != "memory_flush":  # a memory flush's reply goes nowhere: none held back
            records.extend(outbound.reply_delivery(self.routing, base, message, parts, calls, synthetic, message_id))
        return records

    def _tool_result(self, base: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
        call_id = str(message.get("toolCallId", ""))
        record: dict[str, Any] = {"type": "tool_result", **base, "callId": call_id}
        if isinstance(message.get("toolName"), str):
            record["name"] = message["toolName"]
        if isinstance(message.get("isError"), bool):
            record["isError"] = message["isError"]
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        parts = []
        for block in blocks:
            part = _media_part(block, (None, None))
            text = part.get("text")
            if part.get("type") == "text" and isinstance(text, str) and text.startswith(SYNTHETIC_RESULTS):
                part["author"], part["origin"] = HARNESS
                part = canonical_part_order(part)
            parts.append(part)
        record["content"] = parts
        am.result_outcome(record, message, "".join(p["text"] for p in parts if isinstance(p.get("text"), str)))
        self._tail(record)
        for key, value in message.items():
            if key not in _RESULT_KNOWN:
                record[key] = value
        records = [record]
        send = self.sends.pop(call_id, None)
        if send is not None:
            records.extend(outbound.send_delivery(self.routing, base, message, parts, *send))
        spawn = self.spawns.pop(call_id, None)
        if spawn is not None:
            records.extend(outbound.subagent(self.resolve, base, call_id, message, spawn))
        return records

    # -- context entries ---------------------------------------------------------------

    def _custom_message(
        self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any], body: dict[str, Any]
    ) -> dict[str, Any]:
        """Injected context whose provider role is chosen per request: role absent (ASR-201)."""
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
        record["content"] = [_media_part(b, (None, None)) for b in blocks]
        record["capture"] = {"role": {"state": "absent", "reason": "the provider role is chosen per request"}}
        self._tail(record)
        skip = _ENVELOPE_KEYS | {"content", "display", "message"} if body is item else {"role", "content", "display"}
        for key, value in body.items():
            if key not in skip:
                record[key] = value
        return record


def _rest(block: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {"ai.openclaw/" + k: v for k, v in block.items() if k not in known}


def _media_part(block: Any, who: tuple[str | None, str | None]) -> dict[str, Any]:
    """A non-text content block: pi images become ASR image parts; anything else is kept as is."""
    if not isinstance(block, dict):
        return {"type": "ai.openclaw/value", "value": block}
    if block.get("type") == "image" and isinstance(block.get("mimeType"), str):
        part: dict[str, Any] = {"type": "image", "mimeType": block["mimeType"]}
        if isinstance(block.get("data"), str):
            part["data"] = block["data"]
        rest = _rest(block, ("type", "mimeType", "data"))
        if rest:
            part["_meta"] = rest
    elif block.get("type") == "text" and isinstance(block.get("text"), str):
        part = dict(block)
    else:
        if isinstance(block.get("type"), str) and block["type"] != "text":
            part = dict(block)
        else:  # a type that is not a string, or text that is not: kept, under a type readers skip (ASR-210, 218)
            part = {"type": "ai.openclaw/block", **{k: v for k, v in block.items() if k != "type"}}
            part["nativeType"] = block.get("type")
    if who[0] is not None:
        part["author"] = who[0]
    if who[1] is not None:
        part["origin"] = who[1]
    return canonical_part_order(part)
