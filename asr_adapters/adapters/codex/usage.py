"""Token usage: a ``token_count`` event's ``last_token_usage`` on the response it belongs to.

Codex records no response id. A model response is the run of model-output items (reasoning,
assistant messages, tool calls) between two other lines; Codex writes one ``token_count``
with a new ``total_token_usage`` per completed response. Current builds write it right after
the response's items; builds of 2025 (0.40) write it right before them. So the records of
an open response are held until its ``token_count`` or the line that ends it (bounded by one
response), and a new total seen while no response is open waits for the response that
starts next, unless the file has already shown the current order (a new total arriving
while a response is open always belongs to that response). A total that repeats (the
rate-limit refresh at the start of a request) carries no new usage, so no response is
counted twice.
"""

from __future__ import annotations

from typing import Any

from ...core.usage import normalized_usage as normalized
from .state import ConverterState

#: a response longer than this is written out without waiting for its usage
_GROUP_LIMIT = 1024


def normalized_usage(native: dict[str, Any]) -> dict[str, Any]:
    """Codex's ``TokenUsage`` already means what the normalized names mean (OpenAI's
    convention, docs/agents/codex.md "Usage"): ``input_tokens`` counts the cached input
    (``cached_input_tokens``, ``cache_write_input_tokens``) and ``output_tokens`` the
    reasoning (``reasoning_output_tokens``); the total is input + output."""
    return (
        normalized(
            input=native.get("input_tokens"),
            cache_read=native.get("cached_input_tokens"),
            cache_write=native.get("cache_write_input_tokens"),
            output=native.get("output_tokens"),
            reasoning=native.get("reasoning_output_tokens"),
            total=native.get("total_tokens"),
        )
        or {}
    )


def usage_target(records: list[Any]) -> dict[str, Any] | None:
    """The response's last assistant message with text (its answer when it has one); else
    its first reasoning-only (or empty) message; else its first tool call. Never a copy of
    the parent's records."""
    text: dict[str, Any] | None = None
    fallback: dict[str, Any] | None = None
    call: dict[str, Any] | None = None
    for record in records:
        if type(record) is not dict or "copiedFrom" in record:
            continue  # an event slot, or a copy
        kind = record["type"]
        if kind == "message" and record.get("role") == "assistant" and record.get("author") == "model":
            if any(part.get("type") == "text" for part in record.get("content") or ()):
                text = record
            elif fallback is None:
                fallback = record
        elif kind == "tool_call" and call is None:
            call = record
    return text or fallback or call


class UsageMapper(ConverterState):
    def open_response(self) -> None:
        """A model-output item: it joins the open response, or starts one."""
        if self.group is None:
            self.group = []
            self.group_usage, self.pending_usage = self.pending_usage, None
        elif len(self.group) > _GROUP_LIMIT:
            self.group_usage = None  # too long to hold: written without usage
            self.flush_group()
            self.group = []

    def close_response(self) -> None:
        """A line that is not part of a model response: the open one (if any) is complete."""
        self.pending_usage = None
        if self.group is not None:
            self.flush_group()

    def flush_group(self) -> None:
        group, usage = self.group, self.group_usage
        self.group = None
        self.group_usage = None
        if group is None:
            return
        if usage is not None:
            target = usage_target(group)
            if target is not None:
                normalized = normalized_usage(usage)
                if normalized:
                    target["usage"] = normalized
                target["nativeUsage"] = usage
        for record in group:
            self.deliver(record)

    def on_token_usage(self, event: dict[str, Any]) -> None:
        """A ``token_count`` that is not a full repeat: attach its usage if it is new."""
        info = event.get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        if not isinstance(total, dict) or total == self.last_token_total:
            return  # no response completed since the last one (a rate-limit refresh)
        self.last_token_total = total
        if not isinstance(last, dict) or self.copied_from is not None:
            self.close_response()  # a copy's usage belongs to the parent's stream
            return
        if self.group is not None:
            # A new total while a response is open follows that response's items (current
            # order; in the 2025 order a request never starts before its usage is written).
            # It replaces a usage the response took from before it, which then belonged to
            # no response, so one early oddity cannot shift every later response's usage.
            self.usage_follows = True
            self.group_usage = last
            self.flush_group()
            return
        if not self.usage_follows:
            self.pending_usage = last  # 2025 order: the response's items follow
