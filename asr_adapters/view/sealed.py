"""Opaque values are never shown: what the page prints of a record passes through here first.

ASR-215 and ASR-232: readers must not render reasoning ciphertext, signatures or opaque parts as
text, and docs/format.md ("Encrypted tool arguments") extends that to the ``input`` members a
record's ``opaqueInput`` names. The page prints record members as JSON in several places (tool
inputs, data parts, parts of a type it does not know, vendor payloads, records it cannot lay
out); each of them goes through ``sealed``, which replaces every such value by a short note
saying that it exists, in what format and how long it is, never its bytes. Vendor payloads are
an agent's native items, whose ciphertext has native names (``encrypted_content``,
``signature``, ``redacted_thinking``'s ``data``): those names are sealed too.
"""

from __future__ import annotations

from typing import Any

#: Members that hold a provider's ciphertext or signature, in ASR records and in native items
#: kept verbatim (Anthropic ``signature``, Gemini ``thoughtSignature``, OpenAI
#: ``encrypted_content``). A member whose name contains "encrypted" and holds a string is one too.
SEALED_MEMBERS = frozenset({"opaque", "signature", "thoughtSignature", "thought_signature"})

#: Native block types whose ``data`` is ciphertext (Anthropic's redacted thinking).
SEALED_BLOCKS = frozenset({"redacted_thinking"})


def size_of(value: Any) -> int:
    """How many characters of ciphertext a sealed value holds (a blob's byte size)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        data = value.get("data")
        if isinstance(data, str):
            return len(data)
        blob = value.get("blob")
        if isinstance(blob, dict) and isinstance(blob.get("size"), int):
            return int(blob["size"])
    if isinstance(value, list):
        return sum(len(item) for item in value if isinstance(item, str))
    return 0


def note(value: Any, kind: str = "encrypted") -> str:
    """What the page says in place of an opaque value (``kind``: encrypted, signature)."""
    name = value.get("format") if isinstance(value, dict) else None
    what = f"{kind} ({name})" if isinstance(name, str) and name else kind
    return f"‹{what}, {size_of(value)} characters: not shown›"


def is_opaque_value(value: Any) -> bool:
    """An opaque part, or an opaque value shaped like one (an encrypted tool argument)."""
    return isinstance(value, dict) and value.get("type") == "opaque"


def _replacement(key: str, item: Any, holder: dict[str, Any]) -> str | None:
    """The note for ``holder[key]`` when it is an opaque value, else None."""
    if is_opaque_value(item):
        return note(item)
    if key in SEALED_MEMBERS:
        if not (isinstance(item, str | dict | list) and item):
            return None
        return note(item, "encrypted" if key == "opaque" else "signature")
    if "encrypted" in key.lower() and isinstance(item, str) and item:
        return note(item)
    if key == "data" and holder.get("type") in SEALED_BLOCKS:
        return note(item)
    return None


def sealed(value: Any) -> Any:
    """A copy of ``value`` with every opaque value replaced by its note (``note``); iterative,
    so a value nested as deep as a stream may hold (core.nesting) needs no recursion."""
    if is_opaque_value(value):
        return note(value)
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    # (what is read, the copy being filled, the members of it to seal whatever they hold)
    stack: list[tuple[Any, Any, frozenset[str]]] = [(value, root, frozenset())]
    while stack:
        source, target, hidden = stack.pop()
        if isinstance(source, list):
            for item in source:
                if is_opaque_value(item):
                    target.append(note(item))
                elif isinstance(item, dict | list):
                    child: Any = {} if isinstance(item, dict) else []
                    target.append(child)
                    stack.append((item, child, frozenset()))
                else:
                    target.append(item)
            continue
        listed = source.get("opaqueInput")
        names = frozenset(n for n in listed if isinstance(n, str)) if isinstance(listed, list) else frozenset()
        for key, item in source.items():
            replaced = note(item) if key in hidden else None
            if replaced is None and isinstance(key, str):
                replaced = _replacement(key, item, source)
            if replaced is not None:
                target[key] = replaced
            elif isinstance(item, dict | list):
                child = {} if isinstance(item, dict) else []
                target[key] = child
                stack.append((item, child, names if key == "input" else frozenset()))
            else:
                target[key] = item
    return root


def opaque_arguments(record: dict[str, Any]) -> list[tuple[str, str]]:
    """The encrypted arguments of a tool call, as (member, note): the members ``opaqueInput``
    lists and any other member whose value is opaque."""
    value = record.get("input")
    if not isinstance(value, dict):
        return []
    listed = record.get("opaqueInput")
    names = {name for name in listed if isinstance(name, str)} if isinstance(listed, list) else set()
    return [
        (key, note(item))
        for key, item in value.items()
        if isinstance(key, str) and (key in names or is_opaque_value(item))
    ]


def plain_input(record: dict[str, Any]) -> Any:
    """A tool call's input without its encrypted arguments (shown apart, by ``opaque_arguments``),
    every other opaque value inside it sealed."""
    value = record.get("input")
    if not isinstance(value, dict):
        return sealed(value)
    hidden = {key for key, _ in opaque_arguments(record)}
    return {key: sealed(item) for key, item in value.items() if key not in hidden}
