"""The provider a response was served by, where an agent's records name it, as genai-prices
names it (docs/stats.md, "Cost").

The same model name costs different amounts at different providers (GLM-5 at Z.AI or at Zhipu
AI; GPT-4o through the GitHub Copilot subscription or OpenAI's API), so a response is priced
at the provider its record names. No normalized record member names a provider; four agents
keep it in their own members, verbatim:

- OpenClaw and pi: the assistant message's ``provider`` (pi's provider id);
- Cline: ``cline.modelInfo.providerId`` (Cline's API provider setting);
- OpenCode: ``opencode.info.providerID`` (a models.dev provider id);
- Codex: the header's ``meta.model_provider`` (the ``model_provider`` of the session's config).

Each agent's ids are mapped to genai-prices' where they differ; an id genai-prices does not
know (a proxy, a local server, a name the user chose) is passed on as it is, and the price is
then looked up by the model's name alone (``Prices.price``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Provider ids several agents share (pi's, models.dev's) that genai-prices spells otherwise.
_COMMON = {
    "amazon-bedrock": "aws",
    "bedrock": "aws",
    "google-vertex": "google",
    "google-gemini-cli": "google",
    "google-antigravity": "google",
    "gemini": "google",
    "vertex": "google",
    "xai": "x-ai",
    "azure-openai-responses": "azure",
    "azure-openai": "azure",
    "moonshot": "moonshotai",
    "kimi-coding": "moonshotai",
    "fireworks-ai": "fireworks",
    "togetherai": "together",
    "zai-coding-plan": "zai",
    "openai-codex": "openai",  # pi's ChatGPT-plan login: OpenAI's models, priced at OpenAI's rates
}

#: Agent -> its own ids that mean something else than the common spelling.
_BY_AGENT: dict[str, dict[str, str | None]] = {
    # Cline's "openai" is its "OpenAI Compatible" setting (any server with OpenAI's API, a
    # base URL the record does not keep); "openai-native" is OpenAI itself
    "cline": {"openai": None, "openai-native": "openai"},
}


def _member(record: dict[str, Any], *path: str) -> str | None:
    value: Any = record
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value if isinstance(value, str) and value else None


#: agent -> where a response record names its provider
_ON_RECORD: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "openclaw": lambda record: _member(record, "provider"),
    "pi": lambda record: _member(record, "provider"),
    "cline": lambda record: _member(record, "cline", "modelInfo", "providerId"),
    "opencode": lambda record: _member(record, "opencode", "info", "providerID"),
}

#: agent -> where the session header names the provider of every response
_ON_HEADER: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "codex": lambda header: _member(header, "meta", "model_provider"),
}


def genai_provider(agent: str | None, provider: str | None) -> str | None:
    """An agent's provider id as genai-prices spells it; None for one that names no provider
    in particular (Cline's OpenAI-compatible setting)."""
    if provider is None:
        return None
    key = provider.strip().lower()
    own = _BY_AGENT.get(agent or "", {})
    if key in own:
        return own[key]
    return _COMMON.get(key, key)


def record_provider(agent: str | None, record: dict[str, Any]) -> str | None:
    """The provider (genai-prices' id) a response record names, or None."""
    read = _ON_RECORD.get(agent or "")
    return genai_provider(agent, read(record)) if read is not None else None


def header_provider(agent: str | None, header: dict[str, Any]) -> str | None:
    """The provider (genai-prices' id) the session header names for all its responses, or None."""
    read = _ON_HEADER.get(agent or "")
    return genai_provider(agent, read(header)) if read is not None else None
