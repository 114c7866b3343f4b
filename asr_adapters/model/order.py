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
    "tool_result": ("callId", "name", "status", "isError", "exitCode", "content"),
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


#: Each part type's own fields in the order of the spec's tables (MCP's for MCP blocks).
_PART_OWN: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("mimeType", "data", "blob"),
    "audio": ("mimeType", "data", "blob"),
    "resource_link": ("uri", "name", "title", "description", "mimeType", "size"),
    "resource": ("resource",),
    "reasoning": ("visibility", "text", "summary", "opaque", "signature"),
    "refusal": ("text",),
    "data": ("data", "schema"),
    "opaque": ("format", "data", "blob"),
}
_PART_TAIL = ("author", "origin", "phase", "derivation", "annotations", "_meta")
PART_RANKS: dict[str, dict[str, int]] = {
    kind: {k: i for i, k in enumerate(("type", *own, *_PART_TAIL))} for kind, own in _PART_OWN.items()
}
_PART_FIELDS = ("content", "displayContent", "answer")


def canonical_part_order(part: dict) -> dict:
    """Key order of a known content part: ``type``, its own fields, the ASR members, then the
    rest in the order they came. Parts of unknown types keep their order (ASR-218)."""
    ranks = PART_RANKS.get(part.get("type"))  # type: ignore[arg-type]
    if ranks is None:
        return part
    last = -1
    for key in part:
        rank = ranks.get(key, UNRANKED)
        if rank < last:
            return dict(sorted(part.items(), key=lambda kv: ranks.get(kv[0], UNRANKED)))
        last = rank
    return part


def canonical_deep(record: dict) -> dict:
    """Canonical order of a record and of the content parts it holds (the model's slow path)."""
    record = canonical_order(record)
    for field in _PART_FIELDS:
        parts = record.get(field)
        if isinstance(parts, list):
            record[field] = [canonical_part_order(p) if isinstance(p, dict) else p for p in parts]
    return record
