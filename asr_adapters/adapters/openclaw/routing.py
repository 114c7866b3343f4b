"""Participants and conversations of one stream, declared once and before first use (ASR-227).

Ids are derived by order of first appearance (``p1``, ``p2`` …, ``c1``, ``c2`` …): stable
for a given file, and unchanged for earlier records when the file grows. The header declares
what the index (``sessions.json``) already knows; anyone first seen later in the transcript
gets a ``participant`` / ``conversation`` record just before the first record naming them.
"""

from __future__ import annotations

from typing import Any

from .inbound import Inbound
from .index import SessionInfo

CONTROL_UI = "openclaw-control-ui"


def _bare(platform_id: str) -> str:
    """``telegram:1061`` and ``1061`` name the same sender."""
    return platform_id.split(":", 1)[1] if ":" in platform_id else platform_id


class Routing:
    """The registry of participants and conversations, and what is still to be declared."""

    def __init__(self, info: SessionInfo | None) -> None:
        self.participants: dict[str, str] = {}
        self.conversations: dict[str, str] = {}
        self.pending: list[dict[str, Any]] = []
        self.header_participants: list[dict[str, Any]] = []
        self.header_conversations: list[dict[str, Any]] = []
        self.session_conversation: str | None = None
        self.last_conversation: str | None = None
        self.info = info
        if info is None:
            return
        if info.channel:
            decl: dict[str, Any] = {"conversationId": "c1", "platform": info.channel}
            if info.chat_type:
                decl["kind"] = info.chat_type
            if info.label:
                decl["name"] = info.label
            for key, value in (("platformId", info.to), ("accountId", info.account_id), ("threadId", info.thread_id)):
                if value:
                    decl[key] = value
            self.header_conversations.append(decl)
            self.conversations[info.conversation_key or "c1"] = "c1"
            self.session_conversation = "c1"
        if info.peer:
            decl = {"participantId": "p1"}
            decl["platformId"] = info.peer
            if info.peer_label:
                decl["label"] = info.peer_label
            self.header_participants.append(decl)
            self.participants[_bare(info.peer)] = "p1"

    @property
    def current_conversation(self) -> str | None:
        """The conversation this session replies into: its own, else the last one written to."""
        return self.session_conversation or self.last_conversation

    # -- participants ------------------------------------------------------------------

    def participant(self, inbound: Inbound) -> str | None:
        """The participant id of an inbound message's sender, declaring it when new."""
        sender = inbound.sender
        sender_id = inbound.sender_id
        label = sender.get("label") or inbound.conversation.get("sender")
        phone = sender.get("e164")
        if sender_id:
            key: str | None = _bare(sender_id)
        elif isinstance(phone, str) and phone:
            key = phone
        else:
            key = f"label:{label}" if isinstance(label, str) and label else None
        if key is None:
            return None
        found = self.participants.get(key)
        if found is not None:
            return found
        pid = f"p{len(set(self.participants.values())) + 1}"
        self.participants[key] = pid
        decl: dict[str, Any] = {"type": "participant", "participantId": pid}
        name = sender.get("name")
        if isinstance(name, str) and name:
            decl["name"] = name
        if sender_id:
            decl["platformId"] = sender_id
        for field in ("label", "username", "tag", "e164"):
            value = sender.get(field)
            if isinstance(value, str) and value:
                decl[field] = value
        if "label" not in decl and isinstance(label, str) and label and label != sender_id:
            decl["label"] = label
        self.pending.append(decl)
        return pid

    # -- conversations -----------------------------------------------------------------

    def inbound_conversation(self, inbound: Inbound, channel: str | None) -> str | None:
        """The conversation of an inbound chat message, declared when first seen."""
        info = inbound.conversation
        if self.session_conversation is not None and self.info is not None and self.info.chat_type != "direct":
            # a group or channel session is one conversation; a direct (main) session may mix chats
            self.last_conversation = self.session_conversation
            return self.session_conversation
        key = None
        for field, prefix in (("chat_id", ""), ("conversation_label", "label:"), ("group_channel", "group:")):
            value = info.get(field)
            if isinstance(value, str) and value:
                key = prefix + value
                break
        web = self.info is not None and self.info.channel == "webchat"
        by_label = "chat_id" not in info  # a label or a group name, not an id
        if key is None or (by_label and self.session_conversation is not None and not web):
            # the session's own conversation, unless that is the web UI's (a main session
            # also collects direct messages from channels)
            cid = None if web else self.session_conversation
        else:
            kind = "group" if info.get("is_group_chat") is True else None
            name = info.get("conversation_label") or info.get("group_subject")
            cid = self._conversation(key, channel, kind, name if isinstance(name, str) else None, None)
        if cid is not None:
            self.last_conversation = cid
        return cid

    def target_conversation(self, channel: Any, target: Any) -> str | None:
        """The conversation an outbound send went to (the ``message`` tool's channel and target)."""
        if not isinstance(target, str) or not target:
            return self.current_conversation
        channel = channel if isinstance(channel, str) and channel else None
        key = target if ":" in target or channel is None else f"{channel}:{target}"
        if self.info is not None and self.info.to in (key, target):
            return self.session_conversation
        return self._conversation(key, channel, None, None, target)

    def _conversation(
        self, key: str, channel: str | None, kind: str | None, name: str | None, platform_id: str | None
    ) -> str:
        found = self.conversations.get(key)
        if found is not None:
            return found
        cid = f"c{len(set(self.conversations.values())) + 1}"
        self.conversations[key] = cid
        decl: dict[str, Any] = {"type": "conversation", "conversationId": cid}
        if channel:
            decl["platform"] = channel
        if kind:
            decl["kind"] = kind
        if name:
            decl["name"] = name
        if key.startswith(("label:", "group:")):
            pass
        else:
            decl["platformId"] = platform_id or key
        self.pending.append(decl)
        return cid

    def take_pending(self) -> list[dict[str, Any]]:
        pending, self.pending = self.pending, []
        return pending
