"""``message``, ``reasoning`` and inter-agent items as ASR messages."""

from __future__ import annotations

from typing import Any

import orjson

from ...core import items
from ...core.refs import put_id, session_ref
from .content import ENCRYPTED, convert_parts
from .fragments import classify, is_media_label, split_ide_request
from .state import ConverterState, HeldUserMessage

PHASES = {"commentary": "commentary", "final_answer": "final"}
NATIVE_STATUS = {"completed": "complete", "incomplete": "partial", "in_progress": "partial"}


class MessageMapper(ConverterState):
    def close_turn(self) -> None:
        """Overridden by the event mapper: release unpaired mirror events."""

    def message_record(self, item: dict[str, Any], role: Any) -> dict[str, Any]:
        record = self.envelope("message")
        put_id(record, "messageId", item.get("id"), self.derived("message"))
        if isinstance(role, str):
            record["role"] = role
        else:
            record["capture"] = {"role": {"state": "absent"}}
        return record

    def on_message(self, item: dict[str, Any]) -> None:
        role = item.get("role")
        if role == "user":
            self.on_user_message(item)
            return
        record = self.message_record(item, role)
        parts = convert_parts(item.get("content"))
        if role == "assistant":
            self.assistant(record, item, parts)
        elif role == "developer":
            record["author"] = "harness"
            record["origin"] = "injected"
        self.finish_message(record, item, parts)
        self.acc.records += 1

    def assistant(self, record: dict[str, Any], item: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        envelope = inter_agent_envelope(parts)
        if envelope is not None:
            record["author"] = "agent"
            record["origin"] = "inter_session"
            self.route(record, envelope.get("author"), envelope.get("recipient"), envelope.get("other_recipients"))
            if isinstance(envelope.get("trigger_turn"), bool):
                record["triggersTurn"] = envelope["trigger_turn"]
            return
        first = parts[0].get("text", "") if parts else ""
        if isinstance(first, str) and first.startswith("Message Type: "):
            record["author"] = "agent"
            record["origin"] = "subagent_report" if first.startswith("Message Type: FINAL_ANSWER") else "inter_session"
            return
        record["author"] = "model"
        phase = item.get("phase")
        if isinstance(phase, str):
            record["phase"] = PHASES.get(phase, f"com.openai.codex/{phase}")
        if self.copied_from is None:  # a copy's events are counted duplicates as they come
            texts = [p["text"] for p in parts if p["type"] == "text"]
            self.acc.duplicates += self.messages.item(texts or [""])

    def finish_message(self, record: dict[str, Any], item: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        status = item.get("status")
        if isinstance(status, str):
            record["status"] = NATIVE_STATUS.get(status, f"com.openai.codex/{status}")
        record["content"] = parts
        if "idSource" in record:  # moved behind content, where canonical order has it: no reorder later
            record["idSource"] = record.pop("idSource")
        if isinstance(item.get("encrypted_content"), str):
            parts.append({"type": "opaque", "format": ENCRYPTED, "data": item["encrypted_content"]})
        if record.get("role") == "assistant" and record.get("author") == "model" and self.model:
            record["model"] = self.model
        if not item.keys() <= _MESSAGE_KEYS:  # members no field states: kept under ``codex``
            record["codex"] = {k: v for k, v in item.items() if k not in _MESSAGE_KEYS}
        self.put(record)

    # -- user-role items: per-part authorship ------------------------------------------

    def on_user_message(self, item: dict[str, Any]) -> None:
        # A user-role item ends the assistant's step: mirror events no item took are due.
        self.close_turn()
        record = self.message_record(item, "user")
        parts = convert_parts(item.get("content"))
        open_parts = mark_fragments(parts)
        record["content"] = parts
        if not item.keys() <= _MESSAGE_KEYS:  # members no field states: kept under ``codex``
            record["codex"] = {k: v for k, v in item.items() if k not in _MESSAGE_KEYS}
        self.acc.records += 1
        if self.copied_from is not None:
            record["copiedFrom"] = self.copy_ref(record)  # stamped now: the copy may end while held
        if open_parts and self.era == "envelope":
            self.held = HeldUserMessage(record, open_parts, self.line)  # wait for its user_message event
            return
        self.settle_user(record, open_parts, paired=True)
        self.put(record)

    def on_repeated_item(self, item: dict[str, Any]) -> None:
        """An item that repeats one already written in full (a line re-appended by a resume
        or a partial rewrite) is a counted duplicate, and so are the mirror events that come
        with it: a user item's pairing ``user_message``, an answer's or reasoning's events
        of equal text. Nothing is written for it."""
        self.acc.duplicates += 1
        kind = item.get("type")
        role = item.get("role")
        if kind == "message" and role == "user":
            self.close_turn()  # as the item itself would (its step has ended)
            open_parts = mark_fragments(convert_parts(item.get("content")))
            if open_parts and self.era == "envelope":
                self.held = HeldUserMessage(None, open_parts, self.line)
        elif self.copied_from is not None:
            return  # a copy's events are counted duplicates as they come
        elif kind == "message" and role == "assistant":
            texts = [p["text"] for p in convert_parts(item.get("content")) if p["type"] == "text"]
            self.acc.duplicates += self.messages.repeat(texts or [""])
        elif kind == "reasoning":
            part, summaries = reasoning_part(item)
            self.acc.duplicates += self.reasoning.repeat(summaries + ([part["text"]] if "text" in part else []) or [""])

    def settle_user(self, record: dict[str, Any], open_parts: list[int], paired: bool) -> None:
        """Give the unmarked parts their author, split IDE prefixes, lift shared values."""
        parts: list[dict[str, Any]] = record["content"]
        author: str | None = None
        origin: str | None = None
        # A subagent's user-role input comes from its parent agent; history copied from the
        # parent keeps what it was in the parent's thread (a person's prompt, unless the
        # parent is itself a subagent).
        from_agent = self.copied_subagent if "copiedFrom" in record else self.subagent
        if from_agent:
            author, origin = "agent", "inter_session"
        elif paired:
            author, origin = "human", "prompt"
        out: list[dict[str, Any]] = []
        open_set = set(open_parts)
        for index, part in enumerate(parts):
            if index not in open_set:
                out.append(part)
                continue
            split = split_ide_request(part["text"]) if author == "human" and part["type"] == "text" else None
            if split is not None:
                out.append({"type": "text", "text": split[0], "author": "harness", "origin": "injected"})
                out.append({"type": "text", "text": split[1], "author": author, "origin": origin})
                continue
            if author is not None:
                part["author"] = author
                part["origin"] = origin
            out.append(part)
        lift(record, out)
        record["content"] = out

    def release_held(self, paired: bool) -> None:
        held = self.held
        if held is None:
            return
        self.held = None
        if paired:
            self.close_turn()  # a person's new submission starts a new turn
        queued, self.queue = self.queue, []
        if held.record is not None:
            self.settle_user(held.record, held.open_parts, paired)
            self.put(held.record)
        for record in queued:
            self.deliver(record)

    # -- reasoning ----------------------------------------------------------------------

    def on_reasoning(self, item: dict[str, Any]) -> None:
        record = self.envelope("message")
        native_id = item.get("id")
        if isinstance(native_id, str) and native_id:
            record["messageId"] = native_id
        else:
            record["messageId"] = self.derived("reasoning")
        record["role"] = "assistant"
        record["author"] = "model"
        part, summaries = reasoning_part(item)
        record["content"] = [part]
        if record["messageId"] is not native_id:
            record["idSource"] = "derived"  # after content, in canonical order
        if self.model:
            record["model"] = self.model
        if not item.keys() <= _REASONING_KEYS:  # members no field states: kept under ``codex``
            record["codex"] = {k: v for k, v in item.items() if k not in _REASONING_KEYS}
        if self.copied_from is None:  # a copy's events are counted duplicates as they come
            texts = summaries + ([part["text"]] if "text" in part else [])
            self.acc.duplicates += self.reasoning.item(texts or [""])
        self.put(record)
        self.acc.records += 1

    # -- inter-agent delivery (MAv2) --------------------------------------------------------

    def on_agent_message(self, item: dict[str, Any], content: Any) -> None:
        record = self.message_record(item, "user")
        parts = convert_parts(content)
        first = parts[0].get("text", "") if parts else ""
        record["author"] = "agent"
        final = isinstance(first, str) and first.startswith("Message Type: FINAL_ANSWER")
        record["origin"] = "subagent_report" if final else "inter_session"
        self.route(record, item.get("author"), item.get("recipient"), item.get("other_recipients"))
        trigger = item.get("trigger_turn", self.trigger_turn)
        if isinstance(trigger, bool):
            record["triggersTurn"] = trigger
        self.trigger_turn = None
        if isinstance(item.get("encrypted_content"), str):
            parts.append({"type": "opaque", "format": ENCRYPTED, "data": item["encrypted_content"]})
        record["content"] = parts
        if not item.keys() <= _AGENT_MESSAGE_KEYS:  # members no field states: kept under ``codex``
            record["codex"] = {k: v for k, v in item.items() if k not in _AGENT_MESSAGE_KEYS}
        self.put(record)
        self.acc.records += 1

    def route(self, record: dict[str, Any], author: Any, recipient: Any, others: Any) -> None:
        """``from`` and ``recipients`` as agent addresses scoped to the tree's root (ASR-226)."""
        scope = session_ref("codex", self.tree_root or self.thread_id)
        if isinstance(author, str) and author:
            record["from"] = {"session": scope, "address": author}
        recipients = []
        if isinstance(recipient, str) and recipient:
            recipients.append({"actor": {"session": scope, "address": recipient}, "kind": "primary"})
        for other in others if isinstance(others, list) else ():
            if isinstance(other, str) and other:
                recipients.append({"actor": {"session": scope, "address": other}, "kind": "additional"})
        if recipients:
            record["recipients"] = recipients


def mark_fragments(parts: list[dict[str, Any]]) -> list[int]:
    """Give parts that are Codex's own fragments (or media labels) their author; returns
    the indices of the unmarked rest, whose author the pairing event decides."""
    open_parts: list[int] = []
    for index, part in enumerate(parts):
        text = part.get("text") if part["type"] == "text" else None
        fragment = classify(text) if text is not None else None
        if fragment is not None:
            part["author"] = fragment.author
            part["origin"] = fragment.origin
        elif text is not None and is_media_label(text):
            part["author"] = "harness"
            part["origin"] = "injected"
        else:
            open_parts.append(index)
    return open_parts


def reasoning_part(item: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One reasoning part keeping summary, raw text and ciphertext apart (ASR-214)."""
    summary_native = item.get("summary")
    summaries = (
        [s["text"] for s in summary_native or () if isinstance(s, dict) and isinstance(s.get("text"), str)]
        if isinstance(summary_native, list)
        else []
    )
    raw = item.get("content")
    texts = (
        [c["text"] for c in raw or () if isinstance(c, dict) and isinstance(c.get("text"), str)]
        if isinstance(raw, list)
        else []
    )
    encrypted = item.get("encrypted_content")
    if texts:
        visibility = "full"
    elif summaries:
        visibility = "summary"
    elif isinstance(encrypted, str):
        visibility = "encrypted"
    else:
        visibility = "omitted"
    part: dict[str, Any] = {"type": "reasoning", "visibility": visibility}
    if texts:
        part["text"] = "".join(texts)
    if isinstance(summary_native, list):
        part["summary"] = summaries
    if isinstance(encrypted, str):
        part["opaque"] = {"format": ENCRYPTED, "data": encrypted}
    return part, summaries


def inter_agent_envelope(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The pre-June-2026 MAv2 delivery: one output_text holding a JSON envelope."""
    if len(parts) != 1 or parts[0]["type"] != "text":
        return None
    text = parts[0]["text"]
    if not text.startswith("{") or '"recipient"' not in text:
        return None
    try:
        value = items.parse(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict) and "author" in value and "recipient" in value and "content" in value:
        return value
    return None


def lift(record: dict[str, Any], parts: list[dict[str, Any]]) -> None:
    """When every part has the same author and origin, say it once on the message (ASR-224)."""
    if not parts:
        return
    first = (parts[0].get("author"), parts[0].get("origin"))
    if first == (None, None) or any((p.get("author"), p.get("origin")) != first for p in parts):
        return
    for part in parts:
        part.pop("author", None)
        part.pop("origin", None)
    if first[0] is not None:
        record["author"] = first[0]
    if first[1] is not None:
        record["origin"] = first[1]


_MESSAGE_KEYS = frozenset({"type", "id", "role", "content", "phase", "status", "encrypted_content"})
_REASONING_KEYS = frozenset({"type", "id", "summary", "content", "encrypted_content"})
_AGENT_MESSAGE_KEYS = frozenset(
    {"type", "id", "author", "recipient", "other_recipients", "content", "encrypted_content", "trigger_turn"}
)
