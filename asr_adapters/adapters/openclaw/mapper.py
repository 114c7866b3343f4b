"""One OpenClaw transcript entry (pi ``FileEntry``) at a time, into ASR records.

The same entry grammar is read from JSONL lines (file era) and from ``transcript_events``
rows (SQLite era). The mapper holds only what later entries need: the record id of each
entry (for ``parent`` links of the entry tree), the declared participants and
conversations, and the open ``message`` tool sends waiting for their results. The per-entry
and per-call maps are ``SpillMap``s, so memory stays bounded however long the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.adapter import Adapter, Context, Emitter
from ...core.refs import session_ref
from ...core.spill import SpillMap
from ...model.order import canonical_part_order
from ..pi.tree import HARNESS, EntryTree, media_part, rest_meta
from . import assistant as am
from . import outbound
from .inbound import hoist, internal_event_facts, parse_user_text
from .index import obj
from .routing import CONTROL_UI, Routing

#: ``message`` tool actions that send a message (reactions, edits and reads do not).
SEND_ACTIONS = frozenset({"send", "reply", "thread-reply", "sendAttachment", "sendWithEffect", "broadcast"})
#: Tool result texts the harness writes in place of a missing or skipped result.
SYNTHETIC_RESULTS = (
    "[openclaw] missing tool result in session history",
    "Skipped due to queued user message.",
)


class Mapper(EntryTree):
    """Converts the entries of one session, in order, through one emitter."""

    def __init__(
        self,
        adapter: Adapter,
        context: Context,
        emit: Emitter,
        routing: Routing,
        resolve: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__(adapter, context, emit)
        self.routing = routing
        info = routing.info  # the session's channel and chat type, from the index or the store
        self.channel = info.channel if info else None
        chat_type = info.chat_type if info else None
        self.group = None if chat_type is None else chat_type != "direct"
        # ``message`` sends and ``sessions_spawn`` calls waiting for their result (call id ->
        # what the result needs); a call whose result never comes must not stay in memory
        self.sends = SpillMap()
        self.spawns = SpillMap()
        self.cron_job: str | None = None
        #: the trigger kind of the latest user entry (its turn's): a memory flush has no outbound path
        self.turn_trigger: str | None = None
        self.resolve = resolve

    def _declarations(self) -> list[dict[str, Any]]:
        routing = self.routing
        return list(routing.take_pending()) if routing.pending else []

    # -- messages ----------------------------------------------------------------------

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
        parts, calls = self._assistant_parts(message)
        placeholders = [part for part in parts if am.is_placeholder(part)] if not synthetic else []
        harness = synthetic or (bool(placeholders) and len(placeholders) == len(parts))
        if placeholders and not harness:  # beside model output: the placeholder part is the harness's
            for index, part in enumerate(parts):
                if am.is_placeholder(part):
                    parts[index] = canonical_part_order({**part, "author": HARNESS[0], "origin": HARNESS[1]})
        # a model response's token counts are normalized; not those of text OpenClaw wrote itself
        records, message_id = self._assistant_records(eid, derived, base, message, parts, calls, harness)
        for call_record in records:
            if call_record["type"] != "tool_call":
                continue
            name = call_record.get("name")
            data = call_record.get("input")
            action = data.get("action", "send") if isinstance(data, dict) else None
            if name == "message" and isinstance(action, str) and action in SEND_ACTIONS:
                self.sends[call_record["callId"]] = (message_id, data)
            elif name == "sessions_spawn" and isinstance(data, dict):
                self.spawns[call_record["callId"]] = data
        if synthetic or self.turn_trigger != "memory_flush":  # a memory flush's reply goes nowhere: none held back
            records.extend(outbound.reply_delivery(self.routing, base, message, parts, calls, synthetic, message_id))
        return records

    def _tool_result(self, base: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
        record = self._result_record(base, message, SYNTHETIC_RESULTS, am.SHELL_TOOLS)
        call_id = record["callId"]
        parts = record["content"]
        records = [record]
        send = self.sends.pop(call_id, None)
        if send is not None:
            records.extend(outbound.send_delivery(self.routing, base, message, parts, *send))
        spawn = self.spawns.pop(call_id, None)
        if spawn is not None:
            records.extend(outbound.subagent(self.resolve, base, call_id, message, spawn))
        return records


def _rest(block: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return rest_meta(block, known, am.REGISTRY)


def _media_part(block: Any, who: tuple[str | None, str | None]) -> dict[str, Any]:
    return media_part(block, who, am.REGISTRY)
