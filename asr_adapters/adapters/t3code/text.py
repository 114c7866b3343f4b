"""Splitting a stored user text into what the person typed and what T3 Code added.

T3 Code's web client builds one text from the composer (``ChatView``): it may prefix
``Ultrathink:\\n``, append a ``<terminal_context>`` block, replace an image-only send by a
placeholder sentence, wrap a plan as ``PLEASE IMPLEMENT THIS PLAN:\\n<plan>`` (the prefix and the
plan are separate parts: the plan is the model's when the turn names it), render composer
chips as ``[label](t3-context://…)`` links, and (server side) merge messages queued during a
usage-limit wait under a fixed preamble with ``Message N:`` headers. Each added piece becomes its
own part with author ``harness``; the rest stays ``human``. Every character is kept: the parts
concatenate back to the stored text exactly (ASR-211).
"""

from __future__ import annotations

import re
from typing import Any

ULTRATHINK = "Ultrathink:\n"
IMAGE_ONLY = (
    "[User attached one or more images without additional text. "
    "Respond using the conversation context and the attached image(s).]"
)
IMPLEMENT_PLAN = "PLEASE IMPLEMENT THIS PLAN:\n"
USAGE_LIMIT = (
    "Continue the interrupted task and address each message the user sent while waiting "
    "for the usage limit to reset, in order."
)
_TERMINAL = re.compile(r"\n*<terminal_context>\n[\s\S]*?\n</terminal_context>\s*\Z")
_CONTEXT_LINK = re.compile(r"\[[^\]\n]*\]\(t3-context://[^)\s]*\)")
_MESSAGE_HEADER = re.compile(r"\n*Message \d+:\n")


def _part(text: str, author: str, origin: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "author": author, "origin": origin}


def split_user_text(
    text: str, *, author: str = "human", origin: str = "prompt", plan_from_model: bool = False
) -> list[dict[str, Any]]:
    """Text parts of one stored user text; harness parts carry origin ``injected``.

    ``author``/``origin`` are those of the person's own words (V2 records who created the
    message and how it entered; V1 messages from the composer are the person's).
    ``plan_from_model``: the turn records the proposed plan this text implements
    (``sourceProposedPlan``), so the plan after T3's ``PLEASE IMPLEMENT THIS PLAN:`` prefix is
    the model's proposed plan (author ``model``) rather than text of unknown origin.
    """
    if not text:
        return []
    if text == IMAGE_ONLY:
        return [_part(text, "harness", "injected")]
    head: list[dict[str, Any]] = []
    tail: list[dict[str, Any]] = []
    if text.startswith(ULTRATHINK):
        head.append(_part(ULTRATHINK, "harness", "injected"))
        text = text[len(ULTRATHINK) :]
    if text.startswith(IMPLEMENT_PLAN):
        # T3's prefix, then the plan it inserted: neither is words the person typed.
        plan = text[len(IMPLEMENT_PLAN) :]
        parts = [*head, _part(IMPLEMENT_PLAN, "harness", "injected")]
        if plan:
            parts.append(_part(plan, "model" if plan_from_model else "harness", "injected"))
        return parts
    match = _TERMINAL.search(text)
    if match is not None:
        tail.append(_part(match.group(0), "harness", "injected"))
        text = text[: match.start()]
    body = _usage_limit(text) if text.startswith(USAGE_LIMIT) else _links(text, author, origin)
    return [*head, *body, *tail]


def _usage_limit(text: str) -> list[dict[str, Any]]:
    """The merge preamble and ``Message N:`` headers are harness; each queued message is human."""
    parts: list[dict[str, Any]] = []
    harness_start = 0
    position = len(USAGE_LIMIT)
    for match in _MESSAGE_HEADER.finditer(text, position):
        if match.start() > position:
            parts.append(_part(text[harness_start:position], "harness", "injected"))
            parts.extend(_links(text[position : match.start()], "human", "queued"))
            harness_start = match.start()
        position = match.end()
    parts.append(_part(text[harness_start:position], "harness", "injected"))
    if position < len(text):
        parts.extend(_links(text[position:], "human", "queued"))
    return parts


def _links(text: str, author: str, origin: str) -> list[dict[str, Any]]:
    """Person's text with ``t3-context://`` chip links split out as harness parts."""
    if not text:
        return []
    if "t3-context://" not in text:
        return [_part(text, author, origin)]
    parts: list[dict[str, Any]] = []
    position = 0
    for match in _CONTEXT_LINK.finditer(text):
        if match.start() > position:
            parts.append(_part(text[position : match.start()], author, origin))
        parts.append(_part(match.group(0), "harness", "injected"))
        position = match.end()
    if position < len(text):
        parts.append(_part(text[position:], author, origin))
    return parts
