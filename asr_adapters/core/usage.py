"""Token counts under ASR's normalized ``usage`` names: one definition for every agent.

The definition (docs/format.md "Usage", docs/semantics.md "Usage"; the one OpenAI, Harbor's
ATIF and the OpenTelemetry GenAI conventions use): ``inputTokens`` is every input token the
model processed, cached or not, and ``cacheReadTokens`` / ``cacheWriteTokens`` are the parts of
it read from and written to the cache; ``outputTokens`` is every generated token, reasoning
included, and ``reasoningTokens`` the reasoning part of it; ``totalTokens`` is input + output.
A source that reports the parts beside each other (Anthropic's ``input_tokens`` beside its
cache counts, Gemini's candidates beside its thoughts) gets them added up here, so that no
adapter does its own arithmetic and no exporter needs to know the agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The normalized members, in the order records carry them.
MEMBERS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "totalTokens")


def count(value: Any) -> int | None:
    """``value`` when it is a count (an int >= 0; bools and floats are not), else None."""
    return value if value.__class__ is int and value >= 0 else None


def _whole(base: Any, parts: Iterable[Any]) -> int | None:
    """``base`` plus every part that is a count; None when ``base`` is no count (the whole is
    then unknown: a part alone is not the whole)."""
    whole = count(base)
    if whole is None:
        return None
    for part in parts:
        value = count(part)
        if value is not None:
            whole += value
    return whole


def normalized_usage(
    *,
    input: Any = None,
    input_parts: Iterable[Any] = (),
    cache_read: Any = None,
    cache_write: Any = None,
    output: Any = None,
    output_parts: Iterable[Any] = (),
    reasoning: Any = None,
    total: Any = None,
    partial: bool = False,
) -> dict[str, Any] | None:
    """The normalized ``usage`` of one response from the source's own numbers.

    ``input`` / ``output``: the source's count of that side (for a source that counts the
    parts apart, the count without them); ``input_parts`` / ``output_parts``: the counts the
    source reports beside it that belong to that side (cache reads and writes, tool-use
    prompts; thoughts). ``cache_read``, ``cache_write``, ``reasoning``: the parts as members of
    their own. ``total``: the source's stated total, used only when one side is unknown.
    ``partial``: the counts are a running count, not the response's final one. Every member
    is written only where the source gives the numbers it needs; None when none is."""
    usage: dict[str, Any] = {}
    inputs = _whole(input, input_parts)
    outputs = _whole(output, output_parts)
    if inputs is not None:
        usage["inputTokens"] = inputs
    if outputs is not None:
        usage["outputTokens"] = outputs
    for name, value in (
        ("cacheReadTokens", cache_read),
        ("cacheWriteTokens", cache_write),
        ("reasoningTokens", reasoning),
    ):
        value = count(value)
        if value is not None:
            usage[name] = value
    if inputs is not None and outputs is not None:
        usage["totalTokens"] = inputs + outputs
    elif count(total) is not None:
        usage["totalTokens"] = total
    if not usage:
        return None
    if partial:
        usage["partial"] = True
    return usage


def token_counts(native: dict[str, Any], names: tuple[tuple[str, str], ...]) -> dict[str, int]:
    """Each ``(native member, usage name)`` pair whose native value is a count (an int ≥ 0):
    for sources whose members already mean what the normalized names mean."""
    counts: dict[str, int] = {}
    for member, name in names:
        value = native.get(member)
        if value.__class__ is int and value >= 0:
            counts[name] = value
    return counts


def definition_problems(usage: dict[str, Any]) -> list[str]:
    """How a normalized ``usage`` breaks the definition (empty when it does not): a part
    larger than its whole, or a total that is not input + output. Members that are not counts
    are reported by the shape check, not here."""
    problems: list[str] = []
    inputs = count(usage.get("inputTokens"))
    outputs = count(usage.get("outputTokens"))
    read = count(usage.get("cacheReadTokens")) or 0
    write = count(usage.get("cacheWriteTokens")) or 0
    if inputs is not None and read + write > inputs:
        problems.append(
            f"cacheReadTokens + cacheWriteTokens ({read} + {write}) exceed inputTokens ({inputs}): "
            "the cache counts are parts of inputTokens"
        )
    reasoning = count(usage.get("reasoningTokens"))
    if outputs is not None and reasoning is not None and reasoning > outputs:
        problems.append(
            f"reasoningTokens ({reasoning}) exceed outputTokens ({outputs}): reasoning is a part of outputTokens"
        )
    total = count(usage.get("totalTokens"))
    if total is not None:
        if inputs is not None and outputs is not None:
            if total != inputs + outputs:
                problems.append(f"totalTokens ({total}) is not inputTokens + outputTokens ({inputs} + {outputs})")
        elif (inputs is not None and total < inputs) or (outputs is not None and total < outputs):
            problems.append(f"totalTokens ({total}) is smaller than a part of it")
    if "partial" in usage and usage["partial"] is not True:
        problems.append(f"partial is true or absent, not {usage['partial']!r}")
    return problems
