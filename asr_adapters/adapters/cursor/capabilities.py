"""A composer's ToolFormer capability data: the tool calls of composers older than ``toolFormerData``.

Before bubbles carried ``toolFormerData`` (2024 builds), Cursor kept each tool bubble's call in
the composer's capability list: ``capabilities[{type: 15 (TOOL_FORMER), data: {bubbleDataMap}}]``,
``bubbleDataMap`` a JSON text of ``{<bubbleId>: {tool, toolCallId, status, rawArgs, name, params,
result, error, additionalData, …}}`` whose ``params``, ``result`` and ``error`` are themselves JSON
texts (Cursor's toolFormer.js ``parseBubbleDataMap`` / ``onWillSaveState`` and
serializeToolformerBubbleData.js, in the public workbench dump depressedX/cursor-hack @ 81e671e1).
That is the shape of a bubble's ``toolFormerData``, so each entry is read as the call of the
bubble it names.
"""

from __future__ import annotations

import copy
from typing import Any

from ...core import items

TOOL_FORMER = 15


def take_tool_data(composer: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The composer's ``bubbleDataMap`` entries by bubble id, and the composer without the maps
    that parsed (their entries become records, so the header does not repeat them)."""
    capabilities = composer.get("capabilities")
    if not isinstance(capabilities, list):
        return {}, composer
    found: dict[str, dict[str, Any]] = {}
    kept = None
    for number, capability in enumerate(capabilities):
        if not isinstance(capability, dict) or capability.get("type") != TOOL_FORMER:
            continue
        data = capability.get("data")
        raw = data.get("bubbleDataMap") if isinstance(data, dict) else None
        if not isinstance(raw, str):
            continue
        try:
            value = items.parse(raw)
        except ValueError:
            continue  # not JSON: stays in the header as stored
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            continue
        found.update({str(k): v for k, v in value.items()})
        if kept is None:
            kept = copy.copy(composer)
            kept["capabilities"] = list(capabilities)
        entry = dict(capability)
        entry["data"] = {k: v for k, v in data.items() if k != "bubbleDataMap"}  # type: ignore[union-attr]
        kept["capabilities"][number] = entry
    return found, (kept if kept is not None else composer)
