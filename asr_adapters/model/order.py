"""Canonical key order of every record type (profile §1).

``type, seq, id, ts, tsPrecision``, the envelope's turn and inference ids, then the type's
own fields in the order the spec's tables list them, then ``capture``, then the remaining
envelope members, then anything else in the order it came.
"""

from __future__ import annotations

_HEAD = ("type", "seq", "id", "ts", "tsPrecision", "turnId", "inferenceId")
_TAIL = (
    "capture",
    "idSource",
    "supersedes",
    "parent",
    "copiedFrom",
    "assembly",
)

_OWN: dict[str, tuple[str, ...]] = {
    "session": (
        "session",
        "agent",
        "producer",
        "source",
        "title",
        "cwd",
        "parent",
        "participants",
        "conversations",
    ),
    "message": (
        "messageId",
        "role",
        "author",
        "origin",
        "phase",
        "audience",
        "status",
        "from",
        "recipients",
        "triggersTurn",
        "conversation",
        "platform",
        "addressed",
        "via",
        "derivedFrom",
        "content",
        "displayContent",
        "displayCorrespondence",
    ),
    "plan": (
        "planId",
        "planType",
        "status",
        "callId",
        "entries",
        "content",
        "source",
        "budget",
        "used",
    ),
    "delivery": ("message", "conversation", "status", "reason", "platformMessageIds", "attempt"),
    "tool_call": ("callId", "name", "messageId", "input", "arguments", "status"),
    "tool_result": ("callId", "name", "status", "isError", "content"),
    "subagent": ("callId", "session", "address", "agentType", "description"),
    "input_request": ("requestId", "callId", "kind", "content", "options", "answer", "status"),
    "participant": ("participantId", "kind", "name"),
    "conversation": ("conversationId", "platform", "kind", "name"),
    "vendor": ("schema", "data"),
}


def _rank_table(own: tuple[str, ...]) -> dict[str, int]:
    keys: list[str] = list(_HEAD)
    keys += [k for k in own if k not in keys]
    keys += [k for k in _TAIL if k not in keys]
    return {k: i for i, k in enumerate(keys)}


KEY_RANKS: dict[str, dict[str, int]] = {t: _rank_table(own) for t, own in _OWN.items()}
DEFAULT_RANKS: dict[str, int] = _rank_table(())
UNRANKED = 10_000


_SHAPES: dict[tuple, tuple | None] = {}
_SHAPE_LIMIT = 4096


def _canonical_keys(kind: object, keys: tuple) -> tuple | None:
    """The canonical order of these keys, or None when they are in it already."""
    ranks = KEY_RANKS.get(kind, DEFAULT_RANKS)  # type: ignore[call-overload]
    last = -1
    for key in keys:
        rank = ranks.get(key, UNRANKED)
        if rank < last:
            return tuple(sorted(keys, key=lambda k: ranks.get(k, UNRANKED)))
        last = rank
    return None


def canonical_order(record: dict) -> dict:
    """Return ``record`` with its keys in canonical order (the same dict when already so).

    Records of one adapter come in few shapes, so the answer is remembered per (type, keys):
    this runs once per record on the hot path."""
    shape = (record.get("type"), *record)
    try:
        order = _SHAPES[shape]
    except KeyError:
        order = _canonical_keys(shape[0], shape[1:])
        if len(_SHAPES) < _SHAPE_LIMIT:
            _SHAPES[shape] = order
    except TypeError:  # an unhashable type value; let the sort below sort it out
        order = _canonical_keys(None, tuple(record))
    if order is None:
        return record
    return {key: record[key] for key in order}


_PART_OWN = (
    "visibility",
    "text",
    "mimeType",
    "data",
    "blob",
    "uri",
    "name",
    "title",
    "description",
    "size",
    "resource",
    "summary",
    "opaque",
    "signature",
    "schema",
    "format",
)
_PART_TAIL = ("author", "origin", "phase", "derivation", "annotations", "_meta")
PART_RANKS: dict[str, int] = {k: i for i, k in enumerate(("type", *_PART_OWN, *_PART_TAIL))}
_PART_FIELDS = ("content", "displayContent", "answer")
KNOWN_PARTS = frozenset(
    {"text", "image", "audio", "resource_link", "resource", "reasoning", "refusal", "data", "opaque"}
)


def canonical_part_order(part: dict) -> dict:
    """Key order of a content part: ``type``, its own fields, the ASR members, then the rest."""
    last = -1
    for key in part:
        rank = PART_RANKS.get(key, UNRANKED)
        if rank < last:
            return dict(sorted(part.items(), key=lambda kv: PART_RANKS.get(kv[0], UNRANKED)))
        last = rank
    return part


def canonical_deep(record: dict) -> dict:
    """Canonical order of a record and of the content parts it holds (the model's slow path)."""
    record = canonical_order(record)
    for field in _PART_FIELDS:
        parts = record.get(field)
        if isinstance(parts, list):
            record[field] = [
                canonical_part_order(p) if isinstance(p, dict) and p.get("type") in KNOWN_PARTS else p for p in parts
            ]
    return record
