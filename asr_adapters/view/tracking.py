"""What one pass over a stream keeps: the facts the site index and the links between pages need
(``StreamFacts``), and the little state the reading order needs (``Tracker``: call names by
``callId``, plan revisions, participants, the last compaction, whether the session is named)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .titles import command_text, effective, title_text, typed_text


@dataclass
class StreamFacts:
    """What one pass over a stream learns for the index page and the links between pages."""

    session: str | None = None
    agent: str | None = None
    title: str | None = None
    first_ts: str | None = None
    parent: str | None = None
    first_prompt: str | None = None
    children: list[str] = field(default_factory=list)
    broken: int = 0  # lines and stream-level rules of the ASR format broken (a CheckedStream's)
    summary: Any = None  # the stream's ``stats.SessionSummary``, when the page was written whole
    authors: set[str] = field(default_factory=set)  # who wrote text in it (ASR-224), for the index's filter
    tools: set[str] = field(default_factory=set)  # the tools it called

    def _authors(self, record: dict[str, Any]) -> None:
        for member in ("content", "displayContent"):
            parts = record.get(member)
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, dict):
                    author = effective(part, record, "author")
                    if author is not None and len(self.authors) < 32:
                        self.authors.add(author)

    def observe(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.first_ts is None and isinstance(record.get("ts"), str):
            self.first_ts = record["ts"]
        if kind == "session":
            self.session = _str(record.get("session"))
            agent = record.get("agent")
            self.agent = _str(agent.get("name")) if isinstance(agent, dict) else None
            self.title = _str(record.get("title"))
            self.parent = _str(record.get("parent"))
        elif kind == "tool_call" and isinstance(record.get("name"), str) and len(self.tools) < 200:
            self.tools.add(record["name"])
        elif kind == "message":
            self._authors(record)
            if self.first_prompt is None and record.get("role") == "user":
                for member in ("content", "displayContent"):  # as the page's own heading does
                    parts = record.get(member)
                    if not isinstance(parts, list):
                        continue
                    prompt = command_text(parts, record) or typed_text(parts, record)
                    if title_text(prompt):
                        self.first_prompt = title_text(prompt, 300)
                        break
        elif kind == "subagent" and isinstance(record.get("session"), str):
            self.children.append(record["session"])
        if kind != "session" and isinstance(record.get("title"), str) and record["title"].strip():
            self.title = record["title"]  # a title the source gave later (docs/semantics.md, Titles)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class Tracker:
    """Per-stream state the reading order needs: bounded by the number of distinct ids."""

    call_names: dict[str, str] = field(default_factory=dict)
    plan_revisions: dict[str, int] = field(default_factory=dict)
    participants: dict[str, str] = field(default_factory=dict)
    turn: str | None = None
    compaction: str | None = None  # the id of the latest compaction summary seen
    titled: bool = False  # whether a message already named the untitled session

    def title_candidate(self, record: dict[str, Any]) -> str | None:
        """The first words the person typed, for the first message that has them: the page's
        heading when the session has no title."""
        if self.titled or record.get("role") != "user":
            return None
        for member in ("content", "displayContent"):
            parts = record.get(member)
            if not isinstance(parts, list):
                continue
            text = command_text(parts, record) or typed_text(parts, record)
            title = title_text(text)
            if title:
                self.titled = True
                return title
        return None

    def compacted(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """For a compaction summary (``summaryOf: "compaction"``, docs/format.md): what it
        replaced, as {"from", "through", "previous"} refs (None where the record says nothing);
        None for any other record."""
        if record.get("summaryOf") != "compaction":
            return None
        span = record.get("compaction")
        span = span if isinstance(span, dict) else {}
        found = {
            "from": span.get("from") if isinstance(span.get("from"), str) else None,
            "through": span.get("through") if isinstance(span.get("through"), str) else None,
            "previous": self.compaction,
        }
        if isinstance(record.get("id"), str):
            self.compaction = record["id"]
        return found

    def declare(self, declaration: Any) -> None:
        """Remember a participant's name (header list or a late ``participant`` record)."""
        if isinstance(declaration, dict) and isinstance(declaration.get("participantId"), str):
            labels = (declaration.get(key) for key in ("name", "label", "kind"))
            label = next((value for value in labels if isinstance(value, str) and value), None)
            self.participants[declaration["participantId"]] = label or declaration["participantId"]

    def declare_header(self, header: dict[str, Any]) -> None:
        """The participants a header declares (any other value there declares none)."""
        declared = header.get("participants")
        for declaration in declared if isinstance(declared, list) else ():
            self.declare(declaration)

    def sender(self, record: dict[str, Any]) -> str | None:
        """Who sent a message (``from``), named as the stream declares the participant."""
        actor = record.get("from")
        if not isinstance(actor, dict):
            return None
        participant = actor.get("participant")
        if isinstance(participant, str):
            return self.participants.get(participant, participant)
        session = actor.get("session")
        if isinstance(session, str):
            address = actor.get("address")
            return f"{session} {address}" if isinstance(address, str) else session
        return None

    def call_name(self, call_id: Any) -> str | None:
        return self.call_names.get(call_id) if isinstance(call_id, str) else None

    def plan_revision(self, plan_id: Any) -> int:
        if not isinstance(plan_id, str):
            return 1
        count = self.plan_revisions.get(plan_id, 0) + 1
        self.plan_revisions[plan_id] = count
        return count

    def see(self, record: dict[str, Any]) -> bool:
        """Remember what later records refer to; True when a new turn starts here."""
        if record.get("type") == "participant":
            self.declare(record)
        if record.get("type") == "tool_call" and isinstance(record.get("callId"), str):
            name = record.get("name")
            self.call_names[record["callId"]] = name if isinstance(name, str) else "?"
        turn = record.get("turnId")
        if isinstance(turn, str) and turn != self.turn:
            self.turn = turn
            return True
        return False
