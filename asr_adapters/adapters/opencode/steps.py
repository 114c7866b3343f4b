"""An assistant message's parts, in stored order, cut into the records they become.

OpenCode keeps one assistant message as an ordered list of parts: ``step-start`` … parts …
``step-finish`` for each model call, with text, reasoning and tool parts in the order the model
produced them. So that records follow that order (text written after a tool call comes after
the ``tool_call`` record) and each model call's usage lands on a record of its own call, the
parts are cut into items: a run of content parts of one step (one ``message`` record), a
reasoning part (a reasoning-only ``message`` with the part's own id, ASR-219), a tool part
(``tool_call`` + ``tool_result``), or another part (``vendor``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .parts import CONTENT_TYPES, STEP_TYPES


@dataclass
class Item:
    """One record-producing unit: ``kind`` is ``content`` (``parts`` a run of content parts
    other than reasoning), ``reasoning``, ``tool`` or ``other`` (``parts`` one part); ``step``
    the model call it belongs to."""

    kind: str
    step: int
    parts: list[dict[str, Any]] = field(default_factory=list)
    #: step parts (their leftovers) that ride on this item's first record
    steps_kept: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Layout:
    items: list[Item]
    #: step index -> its ``step-finish`` part
    finishes: dict[int, dict[str, Any]]
    #: whether the message has step parts at all (OpenCode before mid-2025 wrote none)
    has_steps: bool
    #: step index -> index (in ``items``) of the step's first item: it carries the step parts
    holders: dict[int, int]
    #: step index -> index of the item carrying the step's usage: its first content run or tool
    #: call (the record naming the message by ``messageId`` or ``inferenceId``), else its first
    #: reasoning-only message
    usage_holders: dict[int, int]
    #: step parts of steps with no item of their own
    orphan_steps: list[dict[str, Any]]


def layout(parts: list[dict[str, Any]]) -> Layout:
    items: list[Item] = []
    finishes: dict[int, dict[str, Any]] = {}
    step_parts: dict[int, list[dict[str, Any]]] = {}
    step, started, has_steps = 0, False, False
    for part in parts:
        kind = part.get("type")
        if kind in STEP_TYPES:
            has_steps = True
            if kind == "step-start":
                if started:
                    step += 1
                started = True
            else:
                finishes[step] = part
            step_parts.setdefault(step, []).append(part)
        elif kind == "reasoning":  # its own id: its own record, never folded (ASR-219)
            items.append(Item("reasoning", step, [part]))
        elif kind in CONTENT_TYPES:
            last = items[-1] if items else None
            if last is not None and last.kind == "content" and last.step == step:
                last.parts.append(part)
            else:
                items.append(Item("content", step, [part]))
        else:
            items.append(Item("tool" if kind == "tool" else "other", step, [part]))
    holders: dict[int, int] = {}
    for index, item in enumerate(items):
        if item.kind != "other":
            holders.setdefault(item.step, index)
    usage_holders: dict[int, int] = {}
    for kinds in (("content", "tool"), ("reasoning",)):
        for index, item in enumerate(items):
            if item.kind in kinds:
                usage_holders.setdefault(item.step, index)
    orphans: list[dict[str, Any]] = []
    for number, kept in sorted(step_parts.items()):
        if number in holders:
            items[holders[number]].steps_kept.extend(kept)
        else:
            orphans.extend(kept)
    return Layout(items, finishes, has_steps, holders, usage_holders, orphans)
