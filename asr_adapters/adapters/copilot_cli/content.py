"""Content parts of Copilot CLI events: prompts, reasoning, tool output.

``user.message`` keeps the text as displayed in the timeline (``content``) and, when the CLI
rewrote it for the model, the model-facing text (``transformedContent``): harness blocks
(``<current_datetime>…</current_datetime>``, ``<system_reminder>`` …) separated from the
typed text by blank lines. Where that structure places the typed text exactly, the
model-facing text is split into the harness's parts and the person's part (ASR-203/224).
"""

from __future__ import annotations

import re
from typing import Any


def text_part(text: str, author: str | None = None, origin: str | None = None) -> dict[str, Any]:
    """A text part with its author and origin when they are known (ASR-202: else absent)."""
    part: dict[str, Any] = {"type": "text", "text": text}
    if author is not None:
        part["author"] = author
    if origin is not None:
        part["origin"] = origin
    return part


#: one harness block of a model-facing prompt: ``<tag>…</tag>`` (``current_datetime``,
#: ``system_reminder``, ``reminder``, ``tagged_files`` …), the CLI's own markup
_BLOCK = re.compile(r"<([a-z][a-z0-9_]*)>.*?</\1>", re.DOTALL)


def _leading_blocks(text: str) -> list[int]:
    """The positions where the typed text may start: 0 and after each leading run of harness
    blocks, each followed by the blank line the CLI puts after it."""
    ends = [0]
    at = 0
    while (match := _BLOCK.match(text, at)) is not None and text.startswith("\n\n", match.end()):
        at = match.end() + 2
        ends.append(at)
    return ends


def _only_blocks(text: str) -> bool:
    """Whether ``text`` is nothing but harness blocks, each after a blank line."""
    at = 0
    while at < len(text):
        if not text.startswith("\n\n", at):
            return False
        match = _BLOCK.match(text, at + 2)
        if match is None:
            return False
        at = match.end()
    return True


def typed_span(typed: str, transformed: str) -> tuple[int, int] | None:
    """Where the typed text sits in the model-facing text, when the CLI's structure marks it:
    after the leading harness blocks (``<current_datetime>…</current_datetime>`` and a blank
    line) and followed only by harness blocks. None when no place, or more than one, fits:
    a short prompt ("1", "time") also occurs inside the datetime, so a search for it anywhere
    would cut the harness's text (ASR-203: split only where the source marks the boundary)."""
    fits = [
        at
        for at in _leading_blocks(transformed)
        if transformed.startswith(typed, at) and _only_blocks(transformed[at + len(typed) :])
    ]
    return (fits[0], fits[0] + len(typed)) if len(fits) == 1 else None


def prompt_parts(
    typed: str, transformed: Any, author: str | None, origin: str | None
) -> tuple[list[Any], list[Any] | None]:
    """(content, displayContent) of a user message.

    ``content`` is the text "as displayed in the timeline" (SDK); ``transformedContent`` the
    text sent to the model. Without ``transformedContent`` the source holds only the display
    text (ASR-207): the caller leaves ``content`` empty with ``capture.content`` absent.
    Equal to it, the source states the two are the same: one part, no display. Otherwise
    the model-facing text is split into harness prefix, typed text and harness suffix where
    the CLI's block structure marks the boundary (``typed_span``), else kept whole with no
    author (ASR-202/203); the typed text is the ``displayContent``.
    """
    display = [text_part(typed, author, origin)]
    if not isinstance(transformed, str):
        return [], display
    if transformed == typed:
        return [text_part(typed, author, origin)], None
    span = typed_span(typed, transformed)
    if span is None:
        return [text_part(transformed)], display
    at, end = span
    parts: list[Any] = []
    if at > 0:
        parts.append(text_part(transformed[:at], "harness", "injected"))
    if typed:
        parts.append(text_part(typed, author, origin))
    if end < len(transformed):
        parts.append(text_part(transformed[end:], "harness", "injected"))
    return parts, display


#: ``delivery`` (CLI >= 1.0.66) -> the origin of a typed prompt: injected into the running
#: turn, or enqueued while the agent was busy
_DELIVERY_ORIGIN = {"steering": "steer", "queued": "queued"}


def prompt_author(data: dict[str, Any], in_subagent: bool = False) -> tuple[str | None, str | None]:
    """(author, origin) of a ``user.message``, from what the CLI records: the SDK documents
    ``source`` values ``agent-<id>`` (another agent's prompt) and ``skill-<name>`` (a hidden
    skill injection; any other value is taken as the harness's too), and
    ``isAutopilotContinuation``. No value names a hook. In a subagent's stream a prompt with
    no ``source`` has no marker saying who wrote it: author and origin stay unstated
    (ASR-202), and no sender is inferred (ASR-226)."""
    source = data.get("source")
    if isinstance(source, str) and source:
        if source.startswith("agent-"):
            return "agent", "inter_session"
        return "harness", "injected"
    if data.get("isAutopilotContinuation") is True:
        return "harness", "injected"
    if in_subagent:
        return None, None
    delivery = data.get("delivery")
    return "human", _DELIVERY_ORIGIN.get(delivery, "prompt") if isinstance(delivery, str) else "prompt"


#: the formats of the two opaque reasoning fields (research/copilot-cli.md §4)
OPAQUE_FIELDS = (
    ("reasoningOpaque", "github.copilot.reasoning_opaque"),
    ("encryptedContent", "openai.encrypted_content"),
)


def reasoning_parts(text: Any, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The reasoning of an ``assistant.message`` as parts: none when it has none.

    ``reasoningText`` is kept as ``text`` with no ``visibility``: the CLI does not say whether
    it is the model's full reasoning or the provider's summary of it (Anthropic and OpenAI
    models both return summaries through some endpoints), so ASR-214 leaves it unknown. An
    opaque blob alone is ``visibility: encrypted``; the blob is never text (ASR-215).

    A part holds one ``opaque``; a message can store both opaque forms (``reasoningOpaque``
    and ``encryptedContent``), so the first goes with the text and each further one is a
    reasoning part of its own, ``visibility: encrypted``: every form the source stores is kept.
    """
    has_text = isinstance(text, str) and text != ""
    opaques = [(fmt, data[k]) for k, fmt in OPAQUE_FIELDS if isinstance(data.get(k), str) and data[k]]
    if not has_text and not opaques:
        return []
    part: dict[str, Any] = {"type": "reasoning"}
    if not has_text:
        part["visibility"] = "encrypted"
    else:
        part["text"] = text
    if opaques:
        part["opaque"] = {"format": opaques[0][0], "data": opaques[0][1]}
    more = [
        {"type": "reasoning", "visibility": "encrypted", "opaque": {"format": f, "data": d}} for f, d in opaques[1:]
    ]
    return [part, *more]


def opaque_key(data: dict[str, Any]) -> tuple[str, Any] | None:
    """What identifies a re-sent reasoning block: its opaque blob, within one interaction.
    Anthropic models re-send an earlier thinking block with the next response of a tool loop;
    Copilot then writes the same block, blob and all, on both messages. Equal text alone is
    not the same block (a model can think the same words in two responses)."""
    for key, _fmt in OPAQUE_FIELDS:
        if isinstance(data.get(key), str) and data[key]:
            return data[key], data.get("interactionId")
    return None


def result_parts(data: dict[str, Any]) -> tuple[list[Any], list[Any] | None, str | None]:
    """(content, displayContent, why the content is partial) of a ``tool.execution_complete``.

    ``result.content`` is the text the model got and ``result.binaryResultsForLlm`` the
    binaries it got with it (images inline as base64, or only described when the CLI left the
    bytes out or stored them in a ``session.binary_asset`` event): image and audio become
    parts, with their bytes when the result holds them; a binary the stream cannot carry
    whole is named in the returned reason. ``result.detailedContent`` is what the UI showed
    (a diff, full output) when it differs. A failure without a result keeps
    ``error.message``.
    """
    result = data.get("result")
    content: list[Any] = []
    display: list[Any] | None = None
    partial: list[str] = []
    if isinstance(result, dict):
        model_text = result.get("content")
        if isinstance(model_text, str):
            content.append(text_part(model_text))
        binaries = result.get("binaryResultsForLlm")
        for binary in binaries if isinstance(binaries, list) else ():
            part, why = _binary_part(binary)
            if part is not None:
                content.append(part)
            if why is not None:
                partial.append(why)
        detailed = result.get("detailedContent")
        if isinstance(detailed, str) and detailed != model_text:
            display = [text_part(detailed)]
    error = data.get("error")
    if not content and isinstance(error, dict) and isinstance(error.get("message"), str):
        content.append(text_part(error["message"]))
    elif not content and isinstance(error, str):
        content.append(text_part(error))
    return content, display, "; ".join(partial) or None


def attachment_parts(attachments: Any) -> tuple[list[Any], str | None]:
    """(parts, why they are partial) for the ``user.message`` attachments whose bytes the CLI
    sent to the model natively, outside the prompt text: ``blob`` entries, and ``file``
    entries with an ``assetId`` (SDK: "marks bytes sent natively") or an ``omittedReason``.
    Other attachments are rendered into the model-facing text (``<tagged_files>``, an
    ``<extension_context>`` block), which ``transformedContent`` already holds."""
    parts: list[Any] = []
    partial: list[str] = []
    for entry in attachments if isinstance(attachments, list) else ():
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "blob" or (kind == "file" and ("assetId" in entry or "omittedReason" in entry)):
            part, why = _binary_part(entry, "attachment")
            if part is not None:
                parts.append(part)
            if why is not None:
                partial.append(why)
    return parts, "; ".join(partial) or None


def _binary_part(binary: Any, what: str = "result") -> tuple[dict[str, Any] | None, str | None]:
    """One binary the model got (a ``binaryResultsForLlm`` entry, an attachment): (its part,
    why its bytes are not in it)."""
    if not isinstance(binary, dict) or not isinstance(binary.get("mimeType"), str):
        return None, f"a binary {what} without a media type is kept only under native"
    mime = binary["mimeType"]
    kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else None
    data = binary.get("data")
    if kind is None:
        return None, f"a {mime} binary {what} sent to the model is kept only under native (no part type for it)"
    part: dict[str, Any] = {"type": kind, "mimeType": mime}
    if isinstance(data, str):
        part["data"] = data
        return part, None
    if isinstance(binary.get("omittedReason"), str):
        return part, f"the CLI did not store the bytes of a {mime} {what} ({binary['omittedReason']})"
    return part, f"the bytes of a {mime} {what} are in another event ({binary.get('assetId')})"
