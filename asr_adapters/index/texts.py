"""What text of a record is searchable, and what never is.

Opaque content is never text (ASR-215, ASR-232): ``opaque`` parts, a reasoning part's
``opaque`` and ``signature``, and tool inputs sealed as opaque values (``opaqueInput``) give no
text, and their data never reaches a column either. Unknown part types give no text
(ASR-218: readers skip them). Structured values (a ``data`` part, a tool's ``input``) are
searched as their string and number leaves, one ``key: value`` line each, so a path or a shell
command is found by its words rather than through JSON escapes.
"""

from __future__ import annotations

from typing import Any

#: Part types whose own ``text`` member is the part's text.
_TEXT_PARTS = frozenset({"text", "refusal"})
#: How deep a structured value is walked for text (hostile nesting stops here, never recurses on).
_MAX_DEPTH = 200


def is_opaque(value: Any) -> bool:
    """A value shaped like an opaque part (``{"type": "opaque", ...}``): ciphertext, never text."""
    return isinstance(value, dict) and value.get("type") == "opaque"


def part_text(part: dict[str, Any]) -> str | None:
    """The searchable text of one content part, or None when it has none (or must not have one)."""
    kind = part.get("type")
    if kind in _TEXT_PARTS:
        text = part.get("text")
        return text if isinstance(text, str) else None
    if kind == "reasoning":  # text and summary segments; never opaque or signature (ASR-215)
        pieces = []
        text = part.get("text")
        if isinstance(text, str) and text:
            pieces.append(text)
        summary = part.get("summary")
        if isinstance(summary, list):
            pieces.extend(s for s in summary if isinstance(s, str) and s)
        return "\n\n".join(pieces) if pieces else None
    if kind == "data":
        return flatten(part.get("data"))
    if kind == "resource_link":
        return _lines(part.get(k) for k in ("name", "title", "description", "uri"))
    if kind == "resource":
        resource = part.get("resource")
        if isinstance(resource, dict):
            return _lines(resource.get(k) for k in ("uri", "text"))
    return None  # image, audio, opaque, unknown types


def _lines(values: Any) -> str | None:
    found = [v for v in values if isinstance(v, str) and v]
    return "\n".join(found) if found else None


def flatten(value: Any) -> str | None:
    """String and number leaves of a JSON value as ``key: value`` lines; opaque values skipped."""
    lines: list[str] = []
    _walk(value, "", lines, 0)
    return "\n".join(lines) if lines else None


def _walk(value: Any, key: str, lines: list[str], depth: int) -> None:
    if depth > _MAX_DEPTH or is_opaque(value):
        return
    if isinstance(value, str):
        lines.append(f"{key}: {value}" if key else value)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        lines.append(f"{key}: {value}" if key else str(value))
    elif isinstance(value, dict):
        for name, item in value.items():
            _walk(item, str(name), lines, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _walk(item, key, lines, depth + 1)


def sealed_input(value: Any, sealed: Any) -> Any:
    """A tool call's ``input`` with every opaque value reduced to ``{type, format}`` (no data):
    the members ``opaqueInput`` lists, and any opaque-shaped value anywhere in it."""
    names = {n for n in sealed if isinstance(n, str)} if isinstance(sealed, list) else set()
    if isinstance(value, dict) and names:
        value = {k: (_seal(v) if k in names else v) for k, v in value.items()}
    return _strip(value, 0)


def _seal(value: Any) -> dict[str, Any]:
    sealed: dict[str, Any] = {"type": "opaque"}
    if isinstance(value, dict) and isinstance(value.get("format"), str):
        sealed["format"] = value["format"]
    return sealed


def _strip(value: Any, depth: int) -> Any:
    if is_opaque(value):
        return _seal(value)
    if depth > _MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return {k: _strip(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip(v, depth + 1) for v in value]
    return value


def input_text(record: dict[str, Any]) -> str | None:
    """The searchable text of a tool call: its input's leaves (sealed members left out), or the
    raw ``arguments`` string when the arguments were not JSON."""
    if "input" in record:
        return flatten(sealed_input(record["input"], record.get("opaqueInput")))
    arguments = record.get("arguments")
    return arguments if isinstance(arguments, str) and arguments else None
