"""Content parts of Copilot CLI events: prompts, reasoning, tool output.

``user.message`` keeps what the person typed (``content``) and, when the CLI rewrote it for
the model, the model-facing text (``transformedContent``): a ``<current_datetime>`` prefix
and ``<system_reminder>``/``<reminder>`` blocks around the typed text. The typed text is
found verbatim inside the model-facing text, which marks the boundary (ASR-203), so the
model-facing text is split into the harness's parts and the person's part (ASR-224).
"""

from __future__ import annotations

from typing import Any


def text_part(text: str, author: str | None = None, origin: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": text}
    if author is not None:
        part["author"] = author
    if origin is not None:
        part["origin"] = origin
    return part


def prompt_parts(typed: str, transformed: Any, author: str, origin: str) -> tuple[list[Any], list[Any] | None]:
    """(content, displayContent) of a user message.

    Without ``transformedContent`` the typed text is what the model got: one part. With it,
    the model-facing text becomes up to three parts (harness prefix, the typed text, harness
    suffix) and the typed text is also the ``displayContent``. When the typed text is not
    inside the model-facing text the boundary is unknown: the model-facing text stays whole,
    with no author (ASR-202), and the typed text is still the display.
    """
    if not isinstance(transformed, str) or transformed == typed:
        return [text_part(typed, author, origin)], None
    display = [text_part(typed, author)]
    at = transformed.find(typed) if typed else -1
    if at < 0:
        return [text_part(transformed)], display
    parts: list[Any] = []
    if at > 0:
        parts.append(text_part(transformed[:at], "harness", "injected"))
    parts.append(text_part(typed, author, origin))
    end = at + len(typed)
    if end < len(transformed):
        parts.append(text_part(transformed[end:], "harness", "injected"))
    return parts, display


def prompt_author(data: dict[str, Any]) -> tuple[str, str]:
    """(author, origin) of a ``user.message``: a person's prompt unless the CLI says another
    agent (``source: agent-<id>``), a skill or autopilot put it there."""
    source = data.get("source")
    if isinstance(source, str) and source:
        if source.startswith("agent-"):
            return "agent", "inter_session"
        return "harness", "injected"
    if data.get("isAutopilotContinuation") is True:
        return "harness", "injected"
    return "human", "prompt"


#: the formats of the two opaque reasoning fields (research/copilot-cli.md §4)
OPAQUE_FIELDS = (
    ("reasoningOpaque", "github.copilot.reasoning_opaque"),
    ("encryptedContent", "openai.encrypted_content"),
)


def reasoning_part(text: Any, data: dict[str, Any]) -> dict[str, Any] | None:
    """The reasoning of an ``assistant.message`` as one part, or None when it has none.

    ``reasoningText`` is kept as ``text`` with no ``visibility``: the CLI does not say whether
    it is the model's full reasoning or the provider's summary of it (Anthropic and OpenAI
    models both return summaries through some endpoints), so ASR-214 leaves it unknown. An
    opaque blob alone is ``visibility: encrypted``; the blob is never text (ASR-215).
    """
    part: dict[str, Any] = {"type": "reasoning"}
    has_text = isinstance(text, str) and text != ""
    opaque = next(((fmt, data[k]) for k, fmt in OPAQUE_FIELDS if isinstance(data.get(k), str) and data[k]), None)
    if not has_text and opaque is None:
        return None
    if not has_text:
        part["visibility"] = "encrypted"
    else:
        part["text"] = text
    if opaque is not None:
        part["opaque"] = {"format": opaque[0], "data": opaque[1]}
    return part


def opaque_key(data: dict[str, Any]) -> str | None:
    """What identifies a reasoning block across messages: its opaque blob, else its text.
    Anthropic models re-send an earlier thinking block with the next response of a tool loop;
    Copilot then writes the same block on both messages."""
    for key, _fmt in OPAQUE_FIELDS:
        if isinstance(data.get(key), str) and data[key]:
            return data[key]
    text = data.get("reasoningText")
    return text if isinstance(text, str) and text else None


def result_parts(data: dict[str, Any]) -> tuple[list[Any], list[Any] | None]:
    """(content, displayContent) of a ``tool.execution_complete``: ``result.content`` is what
    the model got, ``result.detailedContent`` what the UI showed (a diff, full output) when it
    differs; a failure without a result keeps ``error.message``."""
    result = data.get("result")
    content: list[Any] = []
    display: list[Any] | None = None
    if isinstance(result, dict):
        model_text = result.get("content")
        if isinstance(model_text, str):
            content.append(text_part(model_text))
        detailed = result.get("detailedContent")
        if isinstance(detailed, str) and detailed != model_text:
            display = [text_part(detailed)]
    error = data.get("error")
    if not content and isinstance(error, dict) and isinstance(error.get("message"), str):
        content.append(text_part(error["message"]))
    elif not content and isinstance(error, str):
        content.append(text_part(error))
    return content, display
