"""Assistant content blocks (pi's ``text`` / ``thinking`` / ``toolCall``) as ASR parts and calls.

The block grammar is pi's and is mapped by ``adapters.pi.blocks`` for both agents; what is
OpenClaw's own lives here: the synthetic assistant entries OpenClaw writes itself, its
failed-turn placeholder, its silent reply tokens, and which of its tools run shell commands.
"""

from __future__ import annotations

from typing import Any

from ..pi import blocks
from ..pi.blocks import normalized_usage, status_of

__all__ = ["normalized_usage", "status_of"]

REGISTRY = "ai.openclaw"
#: Synthetic assistant messages written by OpenClaw itself, never by a model.
SYNTHETIC_PROVIDERS = frozenset({"openclaw", "clawdbot", "moltbot", "clawdis"})
SYNTHETIC_MODELS = frozenset({"delivery-mirror", "gateway-injected"})
#: Text OpenClaw itself writes into a model's assistant entry when the call failed before any
#: content came (upstream ``STREAM_ERROR_FALLBACK_TEXT``, with ``stopReason: "error"``, zero usage
#: and the provider's ``errorMessage``). OpenClaw compares it trimmed; so do we.
HARNESS_PLACEHOLDERS = frozenset({"[assistant turn failed before producing content]"})
#: Whole-payload reply tokens that OpenClaw holds back instead of sending.
SILENT_TOKENS = ("NO_REPLY", "HEARTBEAT_OK", "ANNOUNCE_SKIP", "REPLY_SKIP")


def is_synthetic(message: dict[str, Any]) -> bool:
    return message.get("provider") in SYNTHETIC_PROVIDERS or message.get("model") in SYNTHETIC_MODELS


def is_placeholder(part: dict[str, Any]) -> bool:
    """A text part that OpenClaw wrote in place of model output (a failed turn's placeholder)."""
    text = part.get("text")
    return part.get("type") == "text" and isinstance(text, str) and text.strip() in HARNESS_PLACEHOLDERS


def silent_token(parts: list[dict[str, Any]]) -> str | None:
    """The silent token when a reply's whole visible text is one (``NO_REPLY`` in any case)."""
    texts = [p["text"] for p in parts if p.get("type") == "text"]
    if not texts or sum(len(t) for t in texts) > 64:  # a token is a whole, short payload
        return None
    whole = "".join(texts).strip()
    if whole.upper() == "NO_REPLY":
        return "NO_REPLY"
    return whole if whole in SILENT_TOKENS else None


def thinking_part(block: dict[str, Any]) -> dict[str, Any]:
    return blocks.thinking_part(block, REGISTRY)


def text_part(block: dict[str, Any]) -> dict[str, Any]:
    return blocks.text_part(block, REGISTRY)


tool_call = blocks.tool_call

#: tools whose output is a shell command's (the exit code line is theirs, not the command's text)
SHELL_TOOLS = frozenset({"exec", "bash", "process"})
