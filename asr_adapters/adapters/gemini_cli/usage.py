"""A reply's ``tokens`` (TokensSummary) -> the normalized ``usage`` every adapter writes.

Gemini CLI's ``tokens`` are the API's usage metadata, renamed (``recordMessageTokens``):
``input`` = promptTokenCount (cached tokens included), ``output`` = candidatesTokenCount,
``cached`` = cachedContentTokenCount, ``thoughts`` = thoughtsTokenCount, ``tool`` =
toolUsePromptTokenCount, ``total`` = totalTokenCount. The API counts thoughts apart from the
candidates and the tool-use prompt (what server-side tools such as search grounding added
to the prompt) apart from the prompt, and its total is all four. Under the one definition
(core.usage): ``inputTokens`` = input + tool, ``outputTokens`` = output + thoughts,
``reasoningTokens`` = thoughts, ``cacheReadTokens`` = cached; Gemini records no cache writes.

Upstream fills every count the API left out with ``?? 0`` (``recordMessageTokens``), so a
``tokens`` object of zeros only on a reply that produced output (text, thoughts or tool
calls) is no measurement: it gets no ``usage``, only ``nativeUsage``.
"""

from __future__ import annotations

from typing import Any

from ...core.usage import normalized_usage as normalized


def normalized_usage(tokens: Any, produced: bool = False) -> dict[str, Any] | None:
    """The normalized usage of a ``tokens`` object, or None when it holds no count, or
    only zeros for a reply that ``produced`` output (counts the API did not report)."""
    if not isinstance(tokens, dict):
        return None
    if produced and not any(type(v) is int and v for v in tokens.values()):
        return None
    thoughts = tokens.get("thoughts")
    return normalized(
        input=tokens.get("input"),
        input_parts=(tokens.get("tool"),),
        cache_read=tokens.get("cached"),
        output=tokens.get("output"),
        output_parts=(thoughts,),
        reasoning=thoughts,
        total=tokens.get("total"),
    )


def put_usage(body: dict[str, Any], tokens: Any, produced: bool = False) -> None:
    """``usage`` (normalized) and ``nativeUsage`` (verbatim) on the body of a model response
    (``produced``: the response has output, so all-zero counts are no measurement)."""
    usage = normalized_usage(tokens, produced)
    if usage is not None:
        body["usage"] = usage
    body["nativeUsage"] = tokens
