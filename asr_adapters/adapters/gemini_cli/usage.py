"""A reply's ``tokens`` (TokensSummary) -> the normalized ``usage`` every adapter writes.

Gemini CLI's ``tokens`` are the API's usage metadata, renamed (``recordMessageTokens``):
``input`` = promptTokenCount (cached tokens included), ``output`` = candidatesTokenCount,
``cached`` = cachedContentTokenCount, ``thoughts`` = thoughtsTokenCount, ``tool`` =
toolUsePromptTokenCount, ``total`` = totalTokenCount. Each normalized key is written only
where the object holds that number; ``tool`` has no normalized key (it stays in
``nativeUsage``), and Gemini records no cache writes.
"""

from __future__ import annotations

from typing import Any

_NORMALIZED = (
    ("input", "inputTokens"),
    ("output", "outputTokens"),
    ("cached", "cacheReadTokens"),
    ("thoughts", "reasoningTokens"),
    ("total", "totalTokens"),
)


def normalized_usage(tokens: Any) -> dict[str, int] | None:
    """The normalized usage of a ``tokens`` object, or None when it holds no count."""
    if not isinstance(tokens, dict):
        return None
    usage = {}
    for native, name in _NORMALIZED:
        value = tokens.get(native)
        if type(value) is int and value >= 0:
            usage[name] = value
    return usage or None


def put_usage(body: dict[str, Any], tokens: Any) -> None:
    """``usage`` (normalized) and ``nativeUsage`` (verbatim) on the body of a model response."""
    usage = normalized_usage(tokens)
    if usage is not None:
        body["usage"] = usage
    body["nativeUsage"] = tokens
