"""``event_msg`` lines: mirrors of items are counted duplicates; facts no item has are kept."""

from __future__ import annotations

from typing import Any

from ...core.timestamps import from_epoch_seconds
from .content import data_url_image
from .messages import MessageMapper, reasoning_part
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
_TURN_START = frozenset({"task_started", "turn_started"})
_TURN_END = frozenset({"task_complete", "turn_complete"})
#: events that name a spawned child's thread id (by the spawn's call id)
_SPAWN_EVENTS = frozenset({"sub_agent_activity", "collab_agent_spawn_end"})
_PHASES = {"commentary": "commentary", "final_answer": "final"}


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
        # No item carries this submission: the event is the only record of it.
        record = self.envelope("message")
        record["messageId"] = self.derived("user_message")
        record["role"] = "user"
        parts: list[dict[str, Any]] = []
        if isinstance(event.get("message"), str):
            parts.append({"type": "text", "text": event["message"]})
        for url in event.get("images") or ():
            image = data_url_image(url) if isinstance(url, str) else None
            if image is not None:
                parts.append(image)
        record["content"] = parts
        record["idSource"] = "derived"
        if self.copied_from is not None:
            record["copiedFrom"] = self.copy_ref(record)
        # The same authorship as an item the event pairs: IDE context split off, a
        # subagent's input from its parent, copied history as the parent recorded it.
        self.settle_user(record, list(range(len(parts))), paired=True)
        rest = {k: v for k, v in event.items() if k not in ("type", "message", "images")}
        if rest:
            record["codex"] = rest
        self.put(record)
        self.acc.records += 1

    def _agent_message(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's event (its item may be filtered out)
            return
        text = event.get("message")
        if self.messages.event(text if isinstance(text, str) else "", self._pending(raw, event)):
            self.acc.duplicates += 1
        self._release_overflow()

    def _agent_reasoning(self, raw: dict[str, Any], event: dict[str, Any]) -> None:
        if self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's event (its item may be filtered out)
            return
        text = event.get("text")
        if self.reasoning.event(text if isinstance(text, str) else "", self._pending(raw, event)):
            self.acc.duplicates += 1
        self._release_overflow()

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
        for pending in self.messages.close() + self.reasoning.close():
            self.emit_unpaired(pending)

    def emit_unpaired(self, pending: dict[str, Any]) -> None:
        event = pending["event"]
        now = (self.timestamp, self.turn_id, self.line_extra)
        self.timestamp, self.turn_id, self.line_extra = pending["at"]  # the event's own line
        record = self.envelope("message")
        self.timestamp, self.turn_id, self.line_extra = now
        line = pending["line"]
        position = f"I{line}" if self.era == "json" else f"L{line}"
        record["messageId"] = f"{event['type']}@{position}"
        record["role"] = "assistant"
        record["author"] = "model"
        if event["type"] == "agent_message":
            phase = event.get("phase")
            if isinstance(phase, str):
                record["phase"] = _PHASES.get(phase, f"com.openai.codex/{phase}")
            text = event.get("message")
            record["content"] = [{"type": "text", "text": text}] if isinstance(text, str) else []
        else:
            text = event.get("text")
            key = "content" if event["type"] == "agent_reasoning_raw_content" else "summary"
            native = {"content": [{"text": text}]} if key == "content" else {"summary": [{"text": text}]}
            record["content"] = [reasoning_part(native)[0]] if isinstance(text, str) else []
        if "aborted" in pending:
            record["status"] = "interrupted"  # the turn was aborted before an item held it
        record["idSource"] = "derived"
        if not record["content"]:
            record["capture"] = {"content": {"state": "absent"}}
        rest = {k: v for k, v in event.items() if k not in ("type", "message", "text", "phase")}
        if "aborted" in pending:
            rest["abortReason"] = pending["aborted"]
        if rest:
            record["codex"] = rest
        self.put(record)
        self.acc.records += 1

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
        elif kind in ("AgentMessage", "Reasoning") and self.copied_from is not None:
            self.acc.duplicates += 1  # a copy of the parent's mirror, like the legacy events
        elif kind == "AgentMessage" and isinstance(item, dict):
            texts = [c.get("text") for c in item.get("content") or () if isinstance(c, dict)]
            text = "".join(t for t in texts if isinstance(t, str))
            if self.messages.event(text, self._pending(raw, {"type": "agent_message", "message": text})):
                self.acc.duplicates += 1
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
            if self.reasoning.event(text, self._pending(raw, {"type": "agent_reasoning", "text": text})):
                self.acc.duplicates += 1
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
    "item_completed": EventMapper._item_completed,
}
