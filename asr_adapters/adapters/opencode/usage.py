"""The usage of one OpenCode model call, as the records carry it.

OpenCode's processor ends each model call (``finish-step``) by writing a ``step-finish`` part
with that call's ``tokens`` and ``cost``, assigning the same ``tokens`` to the message and adding
the cost to the message's ``cost``: a ``step-finish`` is one response, and the message's
``tokens`` repeats its last one (docs/agents/opencode.md, "Usage"). Where each call's usage goes
is decided in ``assistant.AssistantMapping`` (on the first record of that call).
"""

from __future__ import annotations

from typing import Any

#: (normalized usage, native usage) of one model call
Usage = tuple[dict[str, int], dict[str, Any]]
