"""Where each OpenCode model call's usage goes, so a consumer summing ``usage`` counts it once.

OpenCode's processor ends each model call (``finish-step``) by writing a ``step-finish`` part
with that call's ``tokens`` and ``cost``, assigning the same ``tokens`` to the message and adding
the cost to the message's ``cost``: a ``step-finish`` is one response, and the message's
``tokens`` repeats its last one (docs/agents/opencode.md, "Usage").
"""

from __future__ import annotations

from typing import Any

#: (normalized usage, native usage) of one model call
Usage = tuple[dict[str, int], dict[str, Any]]


def place_usage(
    usages: list[Usage], step_of_tool: dict[int, int], message_written: bool
) -> tuple[Usage | None, dict[int, Usage]]:
    """Where each model call's usage goes, once: the message record for the last call (or
    the only one); each earlier call on its first tool call; when the message has no record of
    its own, every call on its first tool call. Returns (message usage, {tool part index: usage})."""
    first_tool_of_step: dict[int, int] = {}
    for index, step in sorted(step_of_tool.items()):
        first_tool_of_step.setdefault(step, index)
    message_usage = None
    on_tools: dict[int, Usage] = {}
    last = len(usages) - 1
    for step, usage in enumerate(usages):
        if message_written and (step == last or step not in first_tool_of_step) and message_usage is None:
            message_usage = usage
        elif step in first_tool_of_step:
            on_tools[first_tool_of_step[step]] = usage
    return message_usage, on_tools
