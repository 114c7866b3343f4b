"""A reply's ``tokens`` (TokensSummary) -> the normalized ``usage`` every adapter writes.

Gemini CLI's ``tokens`` are the API's usage metadata, renamed (``recordMessageTokens``):
``input`` = promptTokenCount (cached tokens included), ``output`` = candidatesTokenCount,
``cached`` = cachedContentTokenCount, ``thoughts`` = thoughtsTokenCount, ``tool`` =
toolUsePromptTokenCount, ``total`` = totalTokenCount. Each normalized key is written only
where the object holds that number; ``tool`` has no normalized key (it stays in
``nativeUsage``), and Gemini records no cache writes.

Upstream fills every count the API left out with ``?? 0`` (``recordMessageTokens``), so a
``tokens`` object of zeros only on a reply that produced output (text, thoughts or tool
calls) is no measurement: it gets no ``usage``, only ``nativeUsage``.
"""

from __future__ import annotations

from typing import Any

from ...core.usage import token_counts

_NORMALIZED = (
    ("input", "inputTokens"),
    ("output", "outputTokens"),
    ("cached", "cacheReadTokens"),
    ("thoughts", "reasoningTokens"),
    ("total", "totalTokens"),
)


def normalized_usage(tokens: Any, produced: bool = False) -> dict[str, int] | None:
    """The normalized usage of a ``tokens`` object, or None when it holds no count, or
    only zeros for a reply that ``produced`` output (counts the API did not report)."""
    if not isinstance(tokens, dict):
        return None
    if produced and not any(type(v) is int and v for v in tokens.values()):
        return None
    return token_counts(tokens, _NORMALIZED) or None


def put_usage(body: dict[str, Any], tokens: Any, produced: bool = False) -> None:
    """``usage`` (normalized) and ``nativeUsage`` (verbatim) on the body of a model response
    (``produced``: the response has output, so all-zero counts are no measurement)."""
    usage = normalized_usage(tokens, produced)
    if usage is not None:
        body["usage"] = usage
    body["nativeUsage"] = tokens
