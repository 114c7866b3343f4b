# Whole, over 400 lines: every event_msg kind judged against the response items it mirrors, from one table.
"""``event_msg`` lines: mirrors of items are counted duplicates; facts no item has are kept."""

from __future__ import annotations

from typing import Any

from ...core.timestamps import from_epoch_seconds
from .content import data_url_image
from .matching import MirrorMatcher
from .messages import MessageMapper, reasoning_part
from .state import EventSlot
from .tools import ToolMapper
from .usage import UsageMapper

_GOAL_STATUS = {
    "active": "active",
    "paused": "paused",
    "blocked": "blocked",
    "usageLimited": "usage_limited",
    "usage_limited": "usage_limited",
    "budgetLimited": "budget_limited",
    "budget_limited": "budget_limited",
    "complete": "complete",
}
_USER_INPUT = "com.openai.codex/user_input"
_TURN_START = frozenset({"task_started", "turn_started"})
_TURN_END = frozenset({"task_complete", "turn_complete"})
#: events that name a spawned child's thread id (by the spawn's call id)
_SPAWN_EVENTS = frozenset({"sub_agent_activity", "collab_agent_spawn_end"})
_PHASES = {"commentary": "commentary", "final_answer": "final"}
#: why an event-only prompt has no ``content`` (ASR-207)
_UI_ONLY = "the rollout keeps only the UI event of this prompt, not the item the model was sent"
#: event members the unpaired record states in its own words
_EVENT_TEXT_KEYS = frozenset({"type", "message", "text", "phase"})


def _native_reasoning(members: list[dict[str, Any]]) -> dict[str, Any]:
    """The reasoning item a run of events mirrors: summary segments, then raw text."""
    texts = [(m["event"]["type"], m["event"].get("text")) for m in members]
    summary = [{"text": text} for kind, text in texts if kind == "agent_reasoning" and isinstance(text, str)]
    content = [{"text": text} for kind, text in texts if kind != "agent_reasoning" and isinstance(text, str)]
    native: dict[str, Any] = {}
    if summary:
        native["summary"] = summary
    if content:
        native["content"] = content
    return native


def user_input_parts(content: Any) -> list[dict[str, Any]]:
    """A ``UserMessage`` TurnItem's ``content`` (``UserInput``: text, image by URL, local
    image by path) as parts; text elements and unknown inputs stay with the part verbatim."""
    parts: list[dict[str, Any]] = []
    for entry in content if isinstance(content, list) else ():
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "text" and isinstance(entry.get("text"), str):
            part: dict[str, Any] = {"type": "text", "text": entry["text"]}
        elif kind == "image" and isinstance(entry.get("image_url"), str):
            part = data_url_image(entry["image_url"]) or {"type": "data", "data": entry, "schema": _USER_INPUT}
            parts.append(part)
            continue
        else:
            parts.append({"type": "data", "data": entry, "schema": _USER_INPUT})
            continue
        extra = {k: v for k, v in entry.items() if k not in ("type", "text")}
        if extra:
            part["_meta"] = {_USER_INPUT: extra}
        parts.append(part)
    return parts


class EventMapper(MessageMapper, UsageMapper, ToolMapper):
    def on_event(self, raw: dict[str, Any], event: Any) -> None:
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str):
            self.keep("event_msg", raw)
            return
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, raw, event)
            return
        if kind == "thread_settings_applied" and self.copied_from is not None:
            self.copy_depth -= 1
            if self.copy_depth <= 0:  # the parent's copied history ends here; the fork's own follows
                self.copy_depth = 0
                self.copied_from = None
                # The copy may end inside the parent's open turn (a subagent spawned mid-turn):
                # that turn and its model are the parent's. The fork's own records take theirs
                # from its own turn_context / task_started.
                self.turn_id = None
                self.model = None
        if kind in _TURN_START:
            self.close_turn()
            if isinstance(event.get("turn_id"), str):
                self.turn_id = event["turn_id"]
        if kind == "turn_aborted":
            # Its partial output is written after it (if at all); what stays unpaired
            # until the next turn was cut off by this abort.
            reason = event.get("reason")
            for matcher in (self.messages, self.reasoning):
                for _, pending in matcher.pending:
                    pending["aborted"] = reason if isinstance(reason, str) else "unknown"
            self.aborted = reason if isinstance(reason, str) else "unknown"
        if kind in _SPAWN_EVENTS:
            self.on_spawn_event(event)
        if kind == "web_search_end":
            self.on_web_search_end(event)
        ends = kind in _TURN_END or (kind == "turn_aborted" and self.turn_id and event.get("turn_id") == self.turn_id)
        if ends:
            self.close_turn()  # mirror events no item took are due before the turn's end
            self.flush_waiting_spawns()
        self.keep(f"event_msg/{kind}", raw)
        if ends:
            # The turn has ended: what follows until the next turn starts is in no turn the
            # source names (context re-injected before a turn, a goal change between turns).
            self.turn_id = None

    # -- mirrors of response items --------------------------------------------------------

    def _user_message(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if self.held is not None:
            self.release_held(paired=True)
            self.acc.duplicates += 1
            return
        parts: list[dict[str, Any]] = []
        if isinstance(event.get("message"), str):
            parts.append({"type": "text", "text": event["message"]})
        for url in event.get("images") or ():
            image = data_url_image(url) if isinstance(url, str) else None
            if image is not None:
                parts.append(image)
        rest = {k: v for k, v in event.items() if k not in ("type", "message", "images")}
        self.display_only_prompt(None, parts, rest)

    def display_only_prompt(self, native_id: Any, parts: list[dict[str, Any]], rest: dict[str, Any]) -> None:
        """A submission no user item carries: the UI event is the only record of it.

        The event holds what the person saw, not what the model was sent (ASR-207): its
        parts are ``displayContent``, ``content`` stays empty and ``capture.content`` is
        absent. A person's new submission ends the step before it (its events are due here).
        """
        self.close_turn()
        record = self.envelope("message")
        derived = not (isinstance(native_id, str) and native_id)
        record["messageId"] = self.derived("user_message") if derived else native_id
        record["role"] = "user"
        record["content"] = parts
        if derived:
            record["idSource"] = "derived"
        if self.copied_from is not None:
            record["copiedFrom"] = self.copy_ref(record)
        # The same authorship as an item the event pairs: IDE context split off, a
        # subagent's input from its parent, copied history as the parent recorded it.
        self.settle_user(record, list(range(len(parts))), paired=True)
        record["displayContent"] = record["content"]
        record["content"] = []
        record["capture"] = {"content": {"state": "absent", "reason": _UI_ONLY}}
        if rest:
            record["codex"] = rest
        self.put(record)
        self.acc.records += 1

    def _agent_message(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's event (its item may be filtered out)
            return
        text = event.get("message")
        self.mirror(self.messages, text if isinstance(text, str) else "", raw, event, None)

    def _agent_reasoning(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's event (its item may be filtered out)
            return
        text = event.get("text")
        run = "raw" if event["type"] == "agent_reasoning_raw_content" else "summary"
        self.mirror(self.reasoning, text if isinstance(text, str) else "", raw, event, run)

    def mirror(self, matcher: MirrorMatcher, text: str, raw: Any, event: dict[str, Any], run: str | None) -> None:
        """A mirror event: a counted duplicate of an item already written, or a wait for
        its item in an ``EventSlot`` at the event's place in the stream."""
        pending = self._pending(raw, event)
        if matcher.event(text, pending):
            self.acc.duplicates += 1
            self.run_slot = None
            return
        slot = self._slot_for(run)
        slot.waiting += 1
        pending["slot"] = slot
        self._release_overflow()

    def _slot_for(self, run: str | None) -> EventSlot:
        """Codex writes one ``agent_reasoning`` per summary segment of a reasoning item, then
        one ``agent_reasoning_raw_content`` per raw text part, on consecutive lines: such a
        run shares one slot (one item). Every other event has a slot of its own."""
        slot = self.run_slot
        joins = (
            run is not None
            and slot is not None
            and slot.records is None
            and self.line is not None
            and self.line == self.run_line + 1
            and not (run == "summary" and self.run_kind == "raw")  # summaries open an item
        )
        if not joins or slot is None:
            slot = EventSlot()
            self.deliver(slot)
        if run is not None and self.line is not None:
            self.run_slot, self.run_line, self.run_kind = slot, self.line, run
        else:
            self.run_slot = None
        return slot

    def _pending(self, raw: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        # what the record's envelope needs, built only if no item takes the event (most do)
        at = (self.timestamp, self.turn_id, self.line_extra)
        pending: dict[str, Any] = {"raw": raw, "event": event, "at": at, "line": self.line}
        if self.aborted is not None:
            pending["aborted"] = self.aborted
        return pending

    def _release_overflow(self) -> None:
        for pending in self.messages.overflow() + self.reasoning.overflow():
            self.emit_unpaired(pending)

    def close_turn(self) -> None:
        """A new turn starts: mirror events no item took become records of their own."""
        self.aborted = None
        self.run_slot = None
        self.web_searches.clear()
        for pending in self.messages.close() + self.reasoning.close():
            self.emit_unpaired(pending)

    def mirror_paired(self, pending: dict[str, Any]) -> None:
        """An item took this event (called by the matcher)."""
        slot: EventSlot = pending["slot"]
        slot.waiting -= 1
        if slot.waiting == 0:
            self._resolve(slot)

    def emit_unpaired(self, pending: dict[str, Any]) -> None:
        """No item took this event: it is the only record of what it says."""
        slot: EventSlot = pending["slot"]
        slot.released.append(pending)
        slot.waiting -= 1
        if slot.waiting == 0:
            self._resolve(slot)

    def _resolve(self, slot: EventSlot) -> None:
        records = [self._unpaired_record(slot.released)] if slot.released else []
        slot.released = []
        slot.records = records
        if slot.detached:  # the stream went on past its place: written now
            for record in records:
                self.deliver(record)

    def _unpaired_record(self, members: list[dict[str, Any]]) -> dict[str, Any]:
        """The message that unpaired events say: one event, or one reasoning item's run."""
        first = members[0]
        event = first["event"]
        now = (self.timestamp, self.turn_id, self.line_extra)
        self.timestamp, self.turn_id, self.line_extra = first["at"]  # the event's own line
        record = self.envelope("message")
        self.timestamp, self.turn_id, self.line_extra = now
        ids = [f"{m['event']['type']}@{'I' if self.era == 'json' else 'L'}{m['line']}" for m in members]
        record["messageId"] = ids[0]
        record["role"] = "assistant"
        record["author"] = "model"
        if event["type"] == "agent_message":
            phase = event.get("phase")
            if isinstance(phase, str):
                record["phase"] = _PHASES.get(phase, f"com.openai.codex/{phase}")
            text = event.get("message")
            record["content"] = [{"type": "text", "text": text}] if isinstance(text, str) else []
        else:
            native = _native_reasoning(members)
            record["content"] = [reasoning_part(native)[0]] if native else []
        aborted = next((m["aborted"] for m in members if "aborted" in m), None)
        if aborted is not None:
            record["status"] = "interrupted"  # the turn was aborted before an item held it
        record["idSource"] = "derived"
        if not record["content"]:
            record["capture"] = {"content": {"state": "absent"}}
        rests = [{k: v for k, v in m["event"].items() if k not in _EVENT_TEXT_KEYS} for m in members]
        rest: dict[str, Any] = rests[0] if len(members) == 1 else ({"events": rests} if any(rests) else {})
        if aborted is not None:
            rest["abortReason"] = aborted
        if rest:
            record["codex"] = rest
        if len(members) > 1:
            record["assembly"] = {"mode": "folded", "sourceIds": ids}
        self.acc.records += 1
        self.acc.folded += len(members) - 1
        return record

    # -- facts no item has --------------------------------------------------------------------

    def _token_count(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if event == self.last_token_event:
            self.acc.duplicates += 1  # the same payload again: totals, rate limits and all
            return
        self.last_token_event = event
        self.on_token_usage(event)
        self.keep("event_msg/token_count", raw)

    def _context_compacted(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        self.acc.folded += 1  # the marker of the ``compacted`` line already written

    def _thread_name(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        """A name given to the thread after its header was written: its vendor record carries
        ``title``, the session title's revision (docs/semantics.md, Titles)."""
        if self.copied_from is not None:  # the parent's own line: a copy
            self.acc.duplicates += 1
            return
        record = self.vendor("event_msg/thread_name_updated", raw)
        name = event.get("thread_name")
        if isinstance(name, str) and name and event.get("thread_id") in (None, self.thread_id):
            record["title"] = name
        self.put(record)
        self.acc.vendor += 1

    def _goal(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        goal = event.get("goal")
        if not isinstance(goal, dict):
            self.keep("event_msg/thread_goal_updated", raw)
            return
        plan = self.envelope("plan")
        if isinstance(event.get("turnId"), str):
            plan["turnId"] = event["turnId"]
        thread = goal.get("threadId") or event.get("threadId") or self.thread_id
        plan["planId"] = f"goal:{thread}:{goal.get('createdAt')}"
        plan["planType"] = "goal"
        status = goal.get("status")
        if isinstance(status, str):
            plan["status"] = _GOAL_STATUS.get(status, f"com.openai.codex/{status}")
        objective = goal.get("objective")
        if isinstance(objective, str):
            plan["content"] = [{"type": "text", "text": objective}]
        else:
            plan["capture"] = {"content": {"state": "absent"}}
        if isinstance(goal.get("tokenBudget"), int):
            plan["budget"] = {"tokens": goal["tokenBudget"]}
        used: dict[str, Any] = {}
        if isinstance(goal.get("tokensUsed"), int):
            used["tokens"] = goal["tokensUsed"]
        if isinstance(goal.get("timeUsedSeconds"), int | float):
            used["seconds"] = goal["timeUsedSeconds"]
        if used:
            plan["used"] = used
        plan["idSource"] = "derived"
        for key, native in (("createdAt", "createdAt"), ("updatedAt", "updatedAt")):
            ts, _ = from_epoch_seconds(goal.get(native))
            if ts is not None:
                plan[key] = ts
        self.put(plan)
        self.acc.records += 1

    def _item_completed(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        item = event.get("item")
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(event.get("turn_id"), str):
            self.turn_id = event["turn_id"]
        if kind == "UserMessage" and self.held is not None:
            self.release_held(paired=True)
            self.acc.duplicates += 1
        elif kind == "UserMessage" and isinstance(item, dict) and self.copied_from is None:
            parts = user_input_parts(item.get("content"))
            rest = {k: v for k, v in event.items() if k not in ("type", "item")}
            extra = {k: v for k, v in item.items() if k not in ("type", "id", "content")}
            if extra:
                rest["item"] = extra
            self.display_only_prompt(item.get("id"), parts, rest)
        elif kind in ("AgentMessage", "Reasoning") and self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's mirror, like the legacy events
        elif kind == "AgentMessage" and isinstance(item, dict):
            texts = [c.get("text") for c in item.get("content") or () if isinstance(c, dict)]
            text = "".join(t for t in texts if isinstance(t, str))
            self.mirror(self.messages, text, raw, {"type": "agent_message", "message": text}, None)
        elif kind == "Plan" and isinstance(item, dict) and isinstance(item.get("text"), str):
            plan = self.envelope("plan")
            native_id = item.get("id")
            plan["planId"] = native_id if isinstance(native_id, str) else self.derived("plan")
            plan["planType"] = "document"
            plan["content"] = [{"type": "text", "text": item["text"]}]
            if not isinstance(native_id, str):
                plan["idSource"] = "derived"
            self.put(plan)
            self.acc.records += 1
        elif kind == "SubAgentActivity" and isinstance(item, dict):
            self.on_spawn_event({"event_id": item.get("id"), **item})
            self.keep(f"event_msg/item_completed/{kind}", raw)
        elif kind == "CollabAgentToolCall" and isinstance(item, dict) and item.get("tool") == "spawn_agent":
            receivers = item.get("receiver_thread_ids")
            if isinstance(receivers, list) and receivers:
                self.on_spawn_event({"call_id": item.get("id"), "new_thread_id": receivers[0]})
            self.keep(f"event_msg/item_completed/{kind}", raw)
        elif kind == "Reasoning" and isinstance(item, dict):
            summary = item.get("summary_text")
            text = "".join(t for t in summary if isinstance(t, str)) if isinstance(summary, list) else ""
            self.mirror(self.reasoning, text, raw, {"type": "agent_reasoning", "text": text}, None)
        else:
            self.keep(f"event_msg/item_completed/{kind}", raw)


_HANDLERS = {
    "user_message": EventMapper._user_message,
    "agent_message": EventMapper._agent_message,
    "agent_reasoning": EventMapper._agent_reasoning,
    "agent_reasoning_raw_content": EventMapper._agent_reasoning,
    "token_count": EventMapper._token_count,
    "context_compacted": EventMapper._context_compacted,
    "thread_goal_updated": EventMapper._goal,
    "thread_name_updated": EventMapper._thread_name,
    "item_completed": EventMapper._item_completed,
}
