"""User lines: the person's prompts (queued, steering, commands), tool results, and the first
prompt of a subagent; which of them start a turn (for Queued input)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .host import BuilderHost
from .parts import HARNESS, INTERRUPT, compaction_parts, user_parts
from .queue import QUEUED
from .side import ORIGIN_KINDS, origin_kind

_HUMAN = ("human", "prompt")
_QUEUED = QUEUED


class UserLinesMixin(BuilderHost):
    """Needs the builder's state and writers (host.py), ``first_prompt_seen`` and the handlers
    below."""

    first_prompt_seen: bool
    result_run: str | None

    if TYPE_CHECKING:

        def _flush_dequeues(self) -> None: ...

        def _release_removed(self, continued: Any = None) -> None: ...

        def _flush_orphans(self) -> None: ...

        def _tool_results(self, obj: dict[str, Any], blocks: list[Any]) -> None: ...

        def _is_copy(self, obj: dict[str, Any]) -> bool: ...

    def _user(self, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        acc = self.out.acc
        if type(content) is list:
            results = 0
            for block in content:
                if type(block) is dict and block.get("type") == "tool_result":
                    results += 1
            if results:
                queue = self.queue
                if queue.dequeues:
                    self._flush_dequeues()
                self.busy = True  # the model will answer the results
                if queue.pending:
                    queue.mark_busy()
                self._tool_results(obj, content)
                if results < len(content):
                    rest = [b for b in content if not (type(b) is dict and b.get("type") == "tool_result")]
                    who = HARNESS if obj.get("isMeta") else _HUMAN
                    self._message(obj, user_parts(rest, who), message_id=f"{obj.get('uuid')}")
                acc.records += 1
                return
        self.result_run = None  # a prompt ends a run of parallel results (tools.py)
        capture = None
        sender = None
        queued = None
        summary = None
        if self.queue.removed:
            self._release_removed(obj.get("parentUuid"))
        if content is None:  # a truncated line: the record says the content was not kept
            parts: list[dict[str, Any]] = []
            capture = {"content": {"state": "absent", "reason": "the line holds no message content"}}
        elif obj.get("isCompactSummary") is True:
            parts = compaction_parts(content)  # the compaction agent's summary in the harness's frame
            summary = self._compaction(obj)
        elif obj.get("isCompactSummary") or obj.get("isMeta"):
            parts = user_parts(content, HARNESS, split=False)
        elif not self.first_prompt_seen and not self._is_copy(obj):
            self.first_prompt_seen = True
            if content == "Warmup" or (self.info.agent_id or "").startswith("acompact"):
                parts = user_parts(content, HARNESS)  # the harness's own agents: cache warm-up, compaction
            else:
                parts = user_parts(content, ("agent", "inter_session"))
                if self.info.parent_key:
                    sender = {"session": self.info.parent_key}
        else:
            default = _HUMAN
            origin = obj.get("origin")
            if isinstance(origin, dict) and origin_kind(origin) in ORIGIN_KINDS:
                default = ORIGIN_KINDS[origin["kind"]]
            queue = self.queue
            if queue.pending or queue.dequeues:
                queued = queue.take_for_line(content)
            if queued is not None:
                if default == _HUMAN and queued.busy:
                    default = _QUEUED  # typed while the agent worked; idle input is a prompt
                acc.folded += 1 + len(queued.moves)
            parts = user_parts(content, default)
            if default == _HUMAN and not _is_notice_only(parts):
                if queued is None and queue.pending:
                    self._flush_orphans()  # typed past them: the queue was cleared
                self.busy = _starts_turn(parts, self.busy)
            elif _is_interrupt(content):
                self.busy = False
        if self.queue.dequeues:
            self._flush_dequeues()
        self._message(obj, parts, sender=sender, capture=capture, queued=queued, members=summary)
        acc.records += 1

    def _compaction(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The compaction summary replaces the history before it (docs/format.md, Compaction):
        the path ending at the leaf its compact_boundary names (``logicalParentUuid``)."""
        parent = obj.get("parentUuid")
        through = self.compacted_leaf.get(parent) if type(parent) is str else None
        return {"summaryOf": "compaction", "compaction": {"through": through} if through else {}}


def _starts_turn(parts: list[dict[str, Any]], busy: bool) -> bool:
    """Whether a user line holding the person's text starts a turn: a prompt does; a local
    slash command (only command markup) leaves the agent as it was."""
    for part in parts:
        if part.get("author", "human") == "human" and part.get("origin", "prompt") != "command":
            return True
    return busy


def _is_interrupt(content: Any) -> bool:
    if isinstance(content, str):
        return content.startswith(INTERRUPT)
    if isinstance(content, list) and content:
        block = content[0]
        return isinstance(block, dict) and isinstance(block.get("text"), str) and block["text"].startswith(INTERRUPT)
    return False


def _is_notice_only(parts: list[dict[str, Any]]) -> bool:
    return all(p.get("author", "human") != "human" for p in parts)
