"""The three rollout containers, read into one shape.

G2+ envelope JSONL (``{timestamp, type, payload}``), G1 bare JSONL (a header line without
``type``, bare Responses items, ``record_type: state`` lines) and the G0 single ``.json``
object all become a stream of ``NativeLine``: the line number, the envelope kind, the
payload and the line's own timestamp (None where the container has none).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from ...core.adapter import Context
from ...core.errors import InputError
from ...core.source import Source

_G0_HEAD = re.compile(rb'\A\s*\{\s*"session"\s*:\s*\{')


#: ``(line number, envelope kind, payload, line timestamp or None, the native item as stored)``.
#: A plain tuple: one is made per line, so it stays cheap.
NativeLine = tuple[int | None, str, Any, str | None, Any]


def sniff_era(head: bytes) -> str | None:
    """``envelope``, ``bare``, ``json`` or None, from the first bytes of a file."""
    if _G0_HEAD.match(head):
        return "json"
    first = head.lstrip().split(b"\n", 1)[0]
    if not first.startswith(b"{"):
        return None
    if b'"type":"session_meta"' in first or b'"type": "session_meta"' in first:
        return "envelope"
    if first.startswith(b'{"timestamp":') and b'"payload":' in first:
        return "envelope"
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict) and "type" not in value and "id" in value and "timestamp" in value:
        return "bare"
    return None


#: The envelope kinds of G2+ rollouts (``{timestamp, type, payload}``).
ENVELOPE_KINDS = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "inter_agent_communication",
        "inter_agent_communication_metadata",
    }
)


def envelope_line(obj: dict[str, Any]) -> bool:
    """A line in the envelope rollouts' shape, with or without its timestamp."""
    return obj.get("type") in ENVELOPE_KINDS and "payload" in obj


def era_of(source: Source) -> tuple[str | None, int]:
    """The rollout's era and how sure that is (0 to 100), from its head: the first line's shape
    (``sniff_era``), else the share of the head's parsed lines that are envelope lines (a
    rollout cut before its header, or after a garbage line)."""
    era = sniff_era(source.head())
    if era == "envelope":
        return era, 100
    if era is not None:
        return era, 80 if source.name.startswith("rollout-") else 60
    share = source.head_lines().share(envelope_line)
    return ("envelope", round(90 * share)) if share else (None, 0)


def envelope_lines(context: Context) -> Iterator[NativeLine]:
    for number, value, _raw in context.parsed_lines():
        if type(value) is dict:
            kind = value.get("type")
            if type(kind) is str and "payload" in value:
                stamp = value.get("timestamp")
                yield number, kind, value["payload"], stamp if type(stamp) is str else None, value
                continue
        yield number, "?", value, None, value


def bare_lines(context: Context) -> Iterator[NativeLine]:
    first = True
    for number, value in context.json_lines():
        if first and isinstance(value, dict) and "type" not in value:
            first = False
            stamp = value.get("timestamp")
            yield number, "session_meta", value, stamp if isinstance(stamp, str) else None, value
            continue
        first = False
        if isinstance(value, dict) and value.get("record_type") == "state":
            yield number, "state", value, None, value
        elif isinstance(value, dict) and isinstance(value.get("type"), str):
            yield number, "response_item", value, None, value
        else:
            yield number, "?", value, None, value


def json_document(context: Context) -> Iterator[NativeLine]:
    """G0: one object; its ``session`` and each entry of ``items`` are the native items.

    This era is one JSON document, so it is read whole (these files are small: the
    TypeScript CLI wrote them in April and May 2025)."""
    source = context.source
    document = context.document("not a Codex JSON rollout")
    if not isinstance(document, dict) or not isinstance(document.get("session"), dict):
        raise InputError(source.display, "not a Codex JSON rollout: no session object")
    session = document["session"]
    context.accounting.native_items += 1
    stamp = session.get("timestamp")
    yield None, "session_meta", session, stamp if isinstance(stamp, str) else None, session
    items = document.get("items")
    for index, item in enumerate(items if isinstance(items, list) else []):
        context.accounting.native_items += 1
        kind = "response_item" if isinstance(item, dict) and isinstance(item.get("type"), str) else "?"
        yield index + 1, kind, item, None, item
    rest = {k: v for k, v in document.items() if k not in ("session", "items")}
    if rest:
        context.accounting.native_items += 1
        yield None, "document_extra", rest, None, rest
