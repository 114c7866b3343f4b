"""The JSON Schema of a record, for standard validators (JSON Schema 2020-12).

Pydantic's own schema of the record union is a ``oneOf`` in which every typed record also
matches the open record kept for unknown types, so a standard validator rejects valid
records and lets broken ones through. Here each union is a discriminator on ``type`` made of
``if``/``then`` pairs: a record (or content part) whose ``type`` is known is checked against
that type's definition only, and only an unknown ``type`` falls to the open definition.
Optional members are written without ``null`` (a stream omits a member it does not have).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:asr-adapters:schema:record"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _dispatch(models: Mapping[str, str], unknown: str, description: str) -> dict[str, Any]:
    """A discriminator on ``type``: each known value against its own definition, others open."""
    known = sorted(models)
    branches: list[dict[str, Any]] = [
        {"if": {"properties": {"type": {"const": kind}}}, "then": _ref(models[kind])} for kind in known
    ]
    branches.append({"if": {"properties": {"type": {"enum": known}}}, "else": _ref(unknown)})
    return {
        "description": description,
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"type": "string"}},
        "allOf": branches,
    }


def _drop_null(prop: dict[str, Any]) -> dict[str, Any]:
    """``X | None = None`` as just ``X``: an optional member is left out, not written as null."""
    options = prop.get("anyOf")
    if "default" not in prop or prop["default"] is not None or not isinstance(options, list):
        return prop
    rest = [o for o in options if o != {"type": "null"}]
    if len(rest) == len(options):
        return prop
    out = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    if len(rest) == 1:
        out.update(rest[0])
    else:
        out["anyOf"] = rest
    return out


def _rewrite(node: Any, part_refs: set[str]) -> Any:
    """Nulls dropped from optional members, and every content-part union made one reference."""
    if isinstance(node, list):
        return [_rewrite(item, part_refs) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("oneOf")
    if isinstance(options, list) and options and all(o.get("$ref") in part_refs for o in options):
        return _ref("ContentPart")
    out = {key: _rewrite(value, part_refs) for key, value in node.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {name: _drop_null(prop) for name, prop in props.items()}
    return out


def build(raw: dict[str, Any], records: Mapping[str, str], parts: Mapping[str, str]) -> dict[str, Any]:
    """The standard schema from pydantic's ``raw`` one; ``records``/``parts`` map each known
    ``type`` value to its definition's name."""
    part_refs = {f"#/$defs/{name}" for name in (*parts.values(), "UnknownPart")}
    defs: dict[str, Any] = _rewrite(raw.get("$defs", {}), part_refs)
    for kind, name in (*records.items(), *parts.items()):
        definition = defs[name]
        required = definition.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")
        definition["properties"]["type"] = {"const": kind}
    for name in (*records.values(), "UnknownRecord"):
        definition = defs[name]
        definition["required"] = ["type", "seq", "id", *(r for r in definition.get("required", []) if r != "type")]
        definition["properties"]["seq"] = {"type": "integer", "minimum": 1}
        definition["properties"]["id"] = {"type": "string", "minLength": 1}
    defs["UnknownRecord"]["properties"]["type"] = {"type": "string", "not": {"enum": sorted(records)}}
    defs["UnknownPart"]["properties"]["type"] = {"type": "string", "not": {"enum": sorted(parts)}}
    defs["ContentPart"] = _dispatch(parts, "UnknownPart", "A content part, checked by its type.")
    defs["Record"] = _dispatch(records, "UnknownRecord", "An ASR record, checked by its type.")
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": "Agent Session Record (ASR) stream record",
        "description": "One line of an ASR JSON Lines stream. Unknown record and part types are kept (ASR-218).",
        "$ref": "#/$defs/Record",
        "$defs": dict(sorted(defs.items())),
    }
