# Whole, over 400 lines: the three eras of OpenClaw's rendered inbound text, read by one set of patterns.
"""What OpenClaw rendered into a user entry's text, split back into who wrote which part.

OpenClaw has no structured sender field on a user entry: it renders the chat metadata into
the text the model receives. Three eras are read here:

1. envelope lines (Jan - early Feb 2026): ``[Telegram Alice (@alice) id:123 +1m 2026-01-21T09:34Z] Ready``
   followed by ``\\n[message_id: 221]``;
2. JSON blocks (from 2026-02-10): ``Conversation info (untrusted metadata):`` + fenced JSON,
   ``Sender (untrusted metadata):`` …, then the body (often behind a ``[Sun 2026-04-12 21:19 GMT+1]``
   timestamp prefix);
3. 2026.5+ additions: ``chat_id`` / ``inbound_event_kind`` in the conversation block and a
   plain-text ``Conversation context (untrusted, …):`` list.

The harness-inserted pieces become their own text parts (author ``harness``, origin
``injected``); the rest keeps the sender's exact words. Concatenating the parts always gives
the stored text back, character for character (ASR-211).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from ...core import items

HARNESS = ("harness", "injected")
#: a chat message quoted inside a harness notice: the sender's words, but not a submitted prompt
QUOTED: tuple[str | None, str | None] = (None, "injected")
#: (channel, kind, id, account) of a chat a ``System:`` event line names
SystemChat = tuple[str, str, str, str | None]

_SYSTEM_LINE = re.compile(r"System(?: \(untrusted\))?: ")
#: A queued channel event naming a chat, as the channel plugins write it
#: (``<Channel>[<account>] DM from <sender id>`` / ``… message in group <chat id>``, then
#: ``: <preview>`` unless the event is the label alone), after ``System: [<time>] ``. Without
#: the ``[<account>]`` the channel must be one OpenClaw ships (WeCom writes none).
_SYSTEM_CHAT = re.compile(
    r"System(?: \(untrusted\))?: (?:\[[^\]\n]{1,64}\] )?([A-Za-z][A-Za-z0-9]{1,20})(?:\[([^\]\n]{0,64})\])?"
    r" (DM from|message in group) ([^\s:]{1,128})(?=: |\n|\Z)(: )?"
)
#: Conversation-block members naming the channel (platform), checked in this order.
_CHANNEL_FIELDS = ("provider", "surface", "channel")
_BLOCK_LABEL = re.compile(r"[A-Z][^\n]{0,100}? \(untrusted[^\n]{0,80}\):\n")
_TIME_PREFIX = re.compile(
    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?(?: [^\]\n]{1,40})?\] "
)
_CHANNELS = (
    "Telegram|WhatsApp|Discord|Signal|Slack|iMessage|Feishu|Lark|Zalo|ZaloUser|WebChat|Matrix|Teams|MSTeams"
    "|LINE|QQ|IRC|Mattermost|Nostr|Twitch|GoogleChat|BlueBubbles|Nextcloud|Tlon|Synology|DingTalk|WeCom"
)
_CHANNEL_NAMES = frozenset(_CHANNELS.split("|"))
_ENVELOPE = re.compile(rf"\[({_CHANNELS})((?: [^\]\n]*)?)\] ")
_ENVELOPE_ID = re.compile(r" id:(\S+)")
_ENVELOPE_ELAPSED = re.compile(r" \+\S+")
_MESSAGE_ID_TAIL = re.compile(r"\n\[message_id: ([^\]\n]+)\]\Z")
_FROM_TAIL = re.compile(r"\n\[from: ([^\]\n]+)\]\Z")
_EXTERNAL_OPEN = "<<<EXTERNAL_UNTRUSTED_CONTENT id="
_EXTERNAL_CLOSE = "\n<<<END_EXTERNAL_UNTRUSTED_CONTENT"
_HISTORY_HEAD = "[Chat messages since your last reply - for context]"
_CURRENT_MARK = "[Current message - respond to this]\n"
_E164 = re.compile(r"\((\+\d{6,15})\)\Z")
_SENDER_PREFIX = re.compile(r"([^\n:\[\]]{1,80}): ")
_CRON = re.compile(r"\[cron:(\S+)(?: ([^\]\n]*))?\]")
_SUBAGENT_TASK = "[Subagent Task]: "
_CHILD_OPEN = "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\n"
_CHILD_CLOSE = "\n<<<END_UNTRUSTED_CHILD_RESULT>>>"
_QUEUED_HEAD = "[Queued messages while agent was busy]"
_QUEUED_ITEM = re.compile(r"\n*---\nQueued #\d+\n")

#: Prefixes of user entries the harness wrote (after any timestamp prefix), with the
#: trigger they record (None when the entry records no trigger).
_HARNESS_PREFIXES: tuple[tuple[str, str | None], ...] = (
    ("[OpenClaw heartbeat poll]", "heartbeat"),
    ("Read HEARTBEAT.md if it exists", "heartbeat"),
    ("Run the following periodic tasks", "heartbeat"),
    ("Pre-compaction memory flush", "memory_flush"),
    ("[System] Your previous turn was interrupted by a gateway restart", "restart_recovery"),
    ("A new session was started via /new or /reset", "session_startup"),
    ("[Queue overflow]", None),
)


class Inbound:
    """The parts and the chat facts read from one user text."""

    __slots__ = (
        "channel",
        "conversation",
        "mentioned",
        "message_ids",
        "parts",
        "reply_to",
        "sender",
        "system_chat",
        "trigger",
    )

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.conversation: dict[str, Any] = {}
        self.sender: dict[str, Any] = {}
        self.message_ids: list[str] = []
        self.reply_to: str | None = None
        self.mentioned: bool | None = None
        self.channel: str | None = None
        self.trigger: dict[str, Any] | None = None
        #: the chat a ``System:`` event line names: (channel, kind, id, account), where kind
        #: is ``direct`` (the id is the sender's) or ``group`` (the id is the chat's)
        self.system_chat: SystemChat | None = None

    def add(self, text: str, who: tuple[str | None, str | None]) -> None:
        if not text:
            return
        part: dict[str, Any] = {"type": "text", "text": text}
        if who[0] is not None:
            part["author"] = who[0]
        if who[1] is not None:
            part["origin"] = who[1]
        self.parts.append(part)

    @property
    def sender_id(self) -> str | None:
        value = self.sender.get("id") or self.conversation.get("sender_id")
        return str(value) if value not in (None, "") else None


def _block_end(text: str, start: int) -> int:
    """End of a metadata block that starts at ``start`` (its label line), with the blank lines after it."""
    label = _BLOCK_LABEL.match(text, start)
    assert label is not None
    pos = label.end()
    if text.startswith("```json\n", pos):
        close = text.find("\n```", pos + 8)
        end = len(text) if close < 0 else close + 4
    else:
        close = text.find("\n\n", pos)
        end = len(text) if close < 0 else close
    while end < len(text) and text[end] == "\n":
        end += 1
    return end


def _parse_block(text: str) -> Any:
    start = text.find("```json\n")
    if start < 0:
        return None
    close = text.rfind("\n```")
    try:
        return items.parse(text[start + 8 : close if close > start else len(text)])
    except orjson.JSONDecodeError:
        return None


def parse_user_text(text: str, who_body: tuple[str | None, str | None], group: bool | None = None) -> Inbound:
    """Split one user text into parts; ``who_body`` is the (author, origin) of the sender's words.

    ``group`` is the chat type the index records (None when unknown): in a group the
    envelope names the group, and the body starts with the sender's label.
    """
    out = Inbound()
    pos = 0
    n = len(text)
    # queued system-event lines ("System: [...] ...") end at the first blank line
    if _SYSTEM_LINE.match(text):
        end = text.find("\n\n")
        end = n if end < 0 else end
        while end < n and text[end] == "\n":
            end += 1
        _system_lines(out, text, end)
        pos = end
    # envelope-era group history: everything up to "[Current message - respond to this]\n"
    if text.startswith(_HISTORY_HEAD, pos):
        marker = text.find(_CURRENT_MARK, pos)
        if marker >= 0:
            end = marker + len(_CURRENT_MARK)
            out.add(text[pos:end], HARNESS)
            pos = end
    # metadata blocks (JSON-block era and the 2026.5 plain-text context list)
    while pos < n and _BLOCK_LABEL.match(text, pos):
        end = _block_end(text, pos)
        block = text[pos:end]
        label = block[: block.find(" (untrusted")]
        data = _parse_block(block)
        if isinstance(data, dict):
            if label == "Conversation info":
                out.conversation = data
            elif label == "Sender":
                out.sender = data
        out.add(block, HARNESS)
        pos = end
    # envelope prefixes: "[Telegram Name id:1 ...] " or "[Sun 2026-04-12 21:19 GMT+1] "
    match = _ENVELOPE.match(text, pos) or _TIME_PREFIX.match(text, pos)
    in_group = False
    if match is not None:
        if match.re is _ENVELOPE:
            in_group = _envelope_facts(out, match.group(1), match.group(2), group)
        out.add(match.group(0), HARNESS)
        pos = match.end()
    # trailers: "\n[message_id: N]", WhatsApp groups' "\n[from: Name (+E164)]"
    tail_start = n
    tails: list[str] = []
    for pattern in (_MESSAGE_ID_TAIL, _FROM_TAIL, _MESSAGE_ID_TAIL):
        if tail_start <= pos or text[tail_start - 1] != "]":
            break  # trailers end in "]": most texts are done here without a scan
        start = text.rfind("\n[", pos, tail_start)
        found = pattern.match(text, start, tail_start) if start >= 0 else None
        if found is None:
            continue
        if pattern is _MESSAGE_ID_TAIL and not out.message_ids:
            out.message_ids.append(found.group(1))
        elif pattern is _FROM_TAIL and "label" not in out.sender:
            out.sender = {"label": found.group(1)}
            phone = _E164.search(found.group(1))
            if phone is not None:
                out.sender["e164"] = phone.group(1)
        tails.insert(0, text[found.start() : tail_start])
        tail_start = found.start()
    body = text[pos:tail_start]
    if in_group:  # "<sender label>: " before a group message's body
        prefix = _SENDER_PREFIX.match(body)
        if prefix is not None:
            out.add(prefix.group(0), HARNESS)
            out.sender.setdefault("label", prefix.group(1))
            body = body[prefix.end() :]
    while body.startswith("[media attached"):  # "[media attached: <path> (<mime>) …]" lines
        cut = body.find("\n")
        cut = len(body) if cut < 0 else cut + 1
        out.add(body[:cut], HARNESS)
        body = body[cut:]
    _body(out, body, who_body)
    for tail in tails:
        out.add(tail, HARNESS)
    _conversation_facts(out)
    return out


def _system_lines(out: Inbound, text: str, end: int) -> None:
    """The queued system-event lines ``text[:end]``: harness text, except the preview of a
    chat message a channel event quotes (``… DM from ou_1: <the sender's words>``), which is
    split off at the ``: `` the line marks so that the sender's words are not called harness
    text (ASR-203): author absent (OpenClaw does not record who the sender is, ASR-202), origin
    injected, because the harness quoted them into its notice: a preview, not the submitted
    prompt, which is its own entry when OpenClaw records it. The first line naming a chat gives
    ``system_chat``."""
    start = 0  # of the harness text not yet added
    line = 0
    while line < end:
        stop = text.find("\n", line, end)
        stop = end if stop < 0 else stop
        found = _SYSTEM_CHAT.match(text, line, stop)
        if found is not None and (found.group(2) is not None or found.group(1) in _CHANNEL_NAMES):
            if out.system_chat is None:
                kind = "direct" if found.group(3) == "DM from" else "group"
                out.system_chat = (found.group(1).lower(), kind, found.group(4), found.group(2) or None)
            if found.group(5) and found.end() < stop:
                out.add(text[start : found.end()], HARNESS)
                out.add(text[found.end() : stop], QUOTED)
                start = stop
        line = stop + 1
    out.add(text[start:end], HARNESS)


def _envelope_facts(out: Inbound, channel: str, rest: str, group: bool | None) -> bool:
    """The envelope's ``from``: the sender of a direct message, the group of a group message.

    Returns whether it named a group: as the index records the chat type, else when the id
    has a group's shape (WhatsApp ``…@g.us``, Telegram's negative chat ids).
    """
    out.channel = channel.lower()
    found = _ENVELOPE_ID.search(rest)
    label = rest.strip()
    native_id = None
    if found is not None:
        native_id = found.group(1)
        label = rest[: found.start()].strip()
    else:
        elapsed = _ENVELOPE_ELAPSED.search(rest)
        if elapsed is not None:
            label = rest[: elapsed.start()].strip()
    if group is None:
        group = native_id is not None and (native_id.endswith("@g.us") or native_id.startswith("-"))
    if group:
        conversation: dict[str, Any] = {"chat_type": "group", "is_group_chat": True}
        if native_id is not None:
            conversation["chat_id"] = f"{out.channel}:{native_id}"
        if label:
            conversation["conversation_label"] = label
        out.conversation = conversation
        return True
    if native_id is not None:
        out.sender = {"id": native_id}
    if label:
        out.sender["label"] = label
    return False


def _conversation_facts(out: Inbound) -> None:
    info = out.conversation
    message_id = info.get("message_id")
    if message_id not in (None, "") and not out.message_ids:
        out.message_ids.append(str(message_id))
    reply_to = info.get("reply_to_id")
    if reply_to not in (None, ""):
        out.reply_to = str(reply_to)
    if info.get("was_mentioned") is True:
        out.mentioned = True
    chat_id = info.get("chat_id")
    if isinstance(chat_id, str) and ":" in chat_id and out.channel is None:
        out.channel = chat_id.split(":", 1)[0]
    for field in _CHANNEL_FIELDS:
        value = info.get(field)
        if isinstance(value, str) and value and out.channel is None:
            out.channel = value.lower()


def _body(out: Inbound, body: str, who: tuple[str | None, str | None]) -> None:
    """The text after the metadata: the sender's words, or a prompt the harness or an agent wrote."""
    if not body:
        return
    if out.conversation.get("sender") == "system":  # a channel notice turn (Feishu permission errors)
        out.add(body, HARNESS)
        return
    cron = _CRON.match(body)
    if cron is not None:
        trigger: dict[str, Any] = {"kind": "cron", "jobId": cron.group(1)}
        if cron.group(2):
            trigger["name"] = cron.group(2)
        out.trigger = trigger
        out.add(body, HARNESS)
        return
    for prefix, kind in _HARNESS_PREFIXES:
        if body.startswith(prefix):
            if kind is not None:
                out.trigger = {"kind": kind}
            out.add(body, HARNESS)
            return
    if body.startswith("[Subagent Context]"):
        cut = body.find(_SUBAGENT_TASK)
        if cut < 0:
            out.add(body, HARNESS)
        else:
            cut += len(_SUBAGENT_TASK)
            out.add(body[:cut], HARNESS)
            out.add(body[cut:], ("agent", "inter_session"))
        return
    if body.startswith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"):
        _internal_context(out, body)
        return
    if body.startswith("[Inter-session message]"):
        cut = body.find("\n") + 1 or len(body)  # the prefix line is the harness's
        out.add(body[:cut], HARNESS)
        out.add(body[cut:], ("agent", "inter_session"))
        return
    start = body.find(_EXTERNAL_OPEN)
    if start >= 0 and body.startswith(("SECURITY NOTICE", "Job ID:", "Received:", _EXTERNAL_OPEN)):
        _external(out, body, start)
        return
    if body.startswith(_QUEUED_HEAD):
        _queued(out, body, who)
        return
    out.add(body, who)


def _internal_context(out: Inbound, body: str) -> None:
    """An internal event (a subagent's completion): the child's result is the agent's words."""
    start = body.find(_CHILD_OPEN)
    end = body.find(_CHILD_CLOSE, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        out.add(body, HARNESS)
        return
    start += len(_CHILD_OPEN)
    out.add(body[:start], HARNESS)
    out.add(body[start:end], ("agent", "subagent_report"))
    out.add(body[end:], HARNESS)


def _external(out: Inbound, body: str, start: int) -> None:
    """Webhook / email content in OpenClaw's untrusted-content wrapper: the wrapper, notice and
    metadata lines are the harness's; the wrapped content is the external sender's (unknown
    author), entered by the harness."""
    head_end = body.find("\n---\n", start)
    end = body.find(_EXTERNAL_CLOSE, head_end + 1) if head_end >= 0 else -1
    if head_end < 0 or end < 0:
        out.add(body, HARNESS)
        return
    head_end += len("\n---\n")
    source = re.search(r"\nSource: ([^\n]+)", body[start:head_end])
    out.trigger = {"kind": "external", "source": source.group(1)} if source else {"kind": "external"}
    out.add(body[:head_end], HARNESS)
    out.add(body[head_end:end], (None, "injected"))
    out.add(body[end:], HARNESS)


def internal_event_facts(text: str) -> dict[str, str]:
    """``key: value`` lines of an ``[Internal task completion event]`` block (source, session_id …)."""
    facts: dict[str, str] = {}
    start = text.find("[Internal task completion event]\n")
    if start < 0:
        return facts
    for line in text[start:].split("\n")[1:]:
        if not line:
            break
        key, sep, value = line.partition(": ")
        if sep and key.replace("_", "").isalpha():
            facts[key] = value
    return facts


def _queued(out: Inbound, body: str, who: tuple[str | None, str | None]) -> None:
    """A collect-mode batch: the harness's header and separators, each queued prompt parsed as sent.

    Every queued prompt keeps its own metadata parts; the batch records all their platform
    message ids, and a sender only when every prompt came from the same one.
    """
    pos = len(_QUEUED_HEAD)
    out.add(body[:pos], HARNESS)
    senders: set[str | None] = set()
    first: Inbound | None = None
    while pos < len(body):
        sep = _QUEUED_ITEM.search(body, pos)
        end = len(body) if sep is None else sep.start()
        if end > pos:
            item = parse_user_text(body[pos:end], (who[0], "queued"))
            out.parts.extend(item.parts)
            out.message_ids.extend(i for i in item.message_ids if i not in out.message_ids)
            senders.add(item.sender_id)
            first = first or item
        if sep is None:
            break
        out.add(body[sep.start() : sep.end()], HARNESS)
        pos = sep.end()
    if first is not None and len(senders) == 1 and None not in senders:
        out.sender, out.conversation, out.channel = first.sender, first.conversation, first.channel


def hoist(parts: list[dict[str, Any]], record: dict[str, Any]) -> None:
    """Move a shared part-level author/origin up to the message (ASR-224)."""
    if not parts:
        return
    authors = {p.get("author") for p in parts}
    origins = {p.get("origin") for p in parts}
    if len(authors) == 1 and len(origins) == 1:
        author, origin = authors.pop(), origins.pop()
        for part in parts:
            part.pop("author", None)
            part.pop("origin", None)
        if author is not None:
            record["author"] = author
        if origin is not None:
            record["origin"] = origin
