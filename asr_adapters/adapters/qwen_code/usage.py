"""A Qwen Code record's ``usageMetadata`` -> the normalized ``usage`` every adapter writes.

The names are the Gemini API's (``promptTokenCount``, ``candidatesTokenCount``,
``thoughtsTokenCount``, ``cachedContentTokenCount``, ``toolUsePromptTokenCount``,
``totalTokenCount``), but Qwen Code fills them from whichever backend answered, and the
conventions differ from Gemini CLI's (``usage.py`` there):

* ``promptTokenCount`` counts the cached tokens for every backend (OpenAI-compatible:
  ``prompt_tokens``; Anthropic: ``input_tokens`` + ``cache_read_input_tokens``;
  ``openaiContentGenerator/converter.ts``, ``anthropicContentGenerator.ts``, 0.14): it is
  ``inputTokens``, ``cachedContentTokenCount`` the cache read. Anthropic's cache writes are
  counted nowhere in 0.14, so there is no ``cacheWriteTokens``.
* OpenAI-compatible backends (Qwen OAuth, DashScope, OpenRouter: every real file) put the
  reasoning **inside** ``candidatesTokenCount`` (``completion_tokens``) and report it again in
  ``thoughtsTokenCount``: prompt + candidates = total. The Gemini API counts thoughts
  **beside** the candidates: prompt + candidates + thoughts = total. The record does not name
  its backend, so the stated total decides: thoughts are added to the output only when the
  total says they are beside it.
"""

from __future__ import annotations

from typing import Any

from ...core.usage import count
from ...core.usage import normalized_usage as normalized


def thoughts_beside(metadata: dict[str, Any]) -> bool:
    prompt = count(metadata.get("promptTokenCount"))
    candidates = count(metadata.get("candidatesTokenCount"))
    thoughts = count(metadata.get("thoughtsTokenCount"))
    total = count(metadata.get("totalTokenCount"))
    if None in (prompt, candidates, thoughts, total) or not thoughts:
        return False
    tool = count(metadata.get("toolUsePromptTokenCount")) or 0
    assert prompt is not None and candidates is not None and thoughts is not None
    return total == prompt + tool + candidates + thoughts


def normalized_usage(metadata: Any) -> dict[str, Any] | None:
    """The normalized usage of a ``usageMetadata`` object, or None when it holds no count."""
    if not isinstance(metadata, dict):
        return None
    thoughts = metadata.get("thoughtsTokenCount")
    out = normalized(
        input=metadata.get("promptTokenCount"),
        input_parts=(metadata.get("toolUsePromptTokenCount"),),
        cache_read=metadata.get("cachedContentTokenCount"),
        output=metadata.get("candidatesTokenCount"),
        output_parts=(thoughts,) if thoughts_beside(metadata) else (),
        reasoning=thoughts,
        total=metadata.get("totalTokenCount"),
    )
    return out if out is not None and any(out.values()) else None
