"""Participants and conversations of one stream, declared once and before first use (ASR-227).

Ids are derived by order of first appearance (``p1``, ``p2`` …, ``c1``, ``c2`` …): stable
for a given file, and unchanged for earlier records when the file grows. The header declares
what the index (``sessions.json``) already knows; anyone first seen later in the transcript
gets a ``participant`` / ``conversation`` record just before the first record naming them.
"""

from __future__ import annotations

import re
from typing import Any

from .inbound import Inbound, SystemChat
from .index import SessionInfo

CONTROL_UI = "openclaw-control-ui"
_CHAT_TYPES = frozenset({"direct", "group", "channel", "room"})


#: Discord's conversation label of a guild channel (``<guild> #<channel> channel id:<id>``) and of
#: a group DM (``Group DM #<name> channel id:<id>``), as its plugin writes them
_DISCORD_LABEL = re.compile(r"(Group DM )?#[^\n]* channel id:\d+")


def chat_kind(info: dict[str, Any]) -> str | None:
    """The kind of chat a conversation block records, only as the source types it (issue 27.14):
    its ``chat_type``; else a Discord label that names a guild channel (``channel``) or a group
    DM (``group``); else ``is_group_chat: false`` (direct). ``is_group_chat: true`` alone gives
    none: OpenClaw writes it for every chat that is not direct, groups and channels alike."""
    chat_type = info.get("chat_type")
    if isinstance(chat_type, str) and chat_type in _CHAT_TYPES:
        return chat_type
    label = info.get("conversation_label")
    if isinstance(label, str):
        found = _DISCORD_LABEL.search(label)
        if found is not None and found.end() == len(label):
            return "group" if found.group(1) and found.start() == 0 else "channel"
    return "direct" if info.get("is_group_chat") is False else None


def _bare(platform_id: str) -> str:
    """``telegram:1061`` and ``1061`` name the same sender."""
    return platform_id.split(":", 1)[1] if ":" in platform_id else platform_id


def _numbered(ids: dict[str, str], key: str, prefix: str) -> tuple[str, bool]:
    """``key``'s id in ``ids``, else the next one (``p1``, ``p2``, …; several keys may name one
    id) given to it now; and whether it is new, so that the caller declares it once."""
    found = ids.get(key)
    if found is not None:
        return found, False
    ids[key] = number = f"{prefix}{len(set(ids.values())) + 1}"
    return number, True


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
        self.direct_chats: dict[str, str] = {}  # "<channel>:<sender id>" of a DM a System line named -> cid
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
        pid, new = _numbered(self.participants, key, "p")
        if not new:
            return pid
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
        known = self._known_direct(inbound, channel) if key is None else None
        cid: str | None
        if key is None and inbound.system_chat is not None:
            cid = self.system_chat(inbound.system_chat)
        elif known is not None:
            cid = known
        elif key is None or (by_label and self.session_conversation is not None and not web):
            # the session's own conversation, unless that is the web UI's (a main session
            # also collects direct messages from channels)
            cid = None if web else self.session_conversation
        else:
            kind = chat_kind(info)
            name = info.get("conversation_label") or info.get("group_subject")
            cid = self._conversation(key, channel, kind, name if isinstance(name, str) else None, None)
        if cid is not None:
            self.last_conversation = cid
        return cid

    def web_prompt(self, conversation: str | None) -> None:
        """A prompt from the web UI: a reply to it goes to the UI (its conversation, if the
        session has one), not to the chat written to last."""
        self.last_conversation = conversation

    def system_chat(self, chat: SystemChat) -> str:
        """The chat a ``System:`` event line names: ``<Channel>[<account>] DM from <sender>``
        or ``… message in group <chat id>`` (issue 27.13).

        A DM line records the channel, the account and that it was a direct message from that
        sender, not the chat's own id: the conversation has platform, kind direct, accountId
        and no ``platformId``. A group line records the chat's id: platform, kind group,
        accountId, ``platformId`` the chat id (keyed ``<channel>:<id>``, as a ``chat_id`` naming
        it later). When the index says this session is that chat, it is the session's own
        conversation."""
        channel, kind, native_id, account = chat
        info = self.info
        if self.session_conversation is not None and info is not None and info.channel == channel:
            own = (
                info.chat_type == "direct" and (info.peer is None or _bare(info.peer) == _bare(native_id))
                if kind == "direct"
                else info.chat_type != "direct" and info.to is not None and info.to.rsplit(":", 1)[-1] == native_id
            )
            if own:
                self.last_conversation = self.session_conversation
                return self.session_conversation
        if kind == "direct":
            key = f"{channel}:{_bare(native_id)}"
            cid = self.direct_chats.get(key)
            if cid is None:
                cid = self._conversation(f"dm:{key}", channel, "direct", None, None, account)
                self.direct_chats[key] = cid
        else:
            cid = self._conversation(f"{channel}:{native_id}", channel, "group", None, native_id, account)
        self.last_conversation = cid
        return cid

    def _known_direct(self, inbound: Inbound, channel: str | None) -> str | None:
        """The direct chat a System line declared for this sender, when the message names no chat."""
        if not self.direct_chats:
            return None
        sender = inbound.sender_id or inbound.conversation.get("sender")
        if not isinstance(sender, str) or not sender:
            return None
        for key, cid in self.direct_chats.items():
            dm_channel, _, dm_sender = key.partition(":")
            if dm_sender == _bare(sender) and channel in (None, dm_channel):
                return cid
        return None

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
        self,
        key: str,
        channel: str | None,
        kind: str | None,
        name: str | None,
        platform_id: str | None,
        account: str | None = None,
    ) -> str:
        cid, new = _numbered(self.conversations, key, "c")
        if not new:
            return cid
        decl: dict[str, Any] = {"type": "conversation", "conversationId": cid}
        if channel:
            decl["platform"] = channel
        if kind:
            decl["kind"] = kind
        if name:
            decl["name"] = name
        if key.startswith(("label:", "group:", "dm:")):
            pass
        else:
            decl["platformId"] = platform_id or key
        if account:
            decl["accountId"] = account
        self.pending.append(decl)
        return cid

    def take_pending(self) -> list[dict[str, Any]]:
        pending, self.pending = self.pending, []
        return pending
