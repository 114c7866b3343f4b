"""ASR content parts as ATIF step pieces: message text, full reasoning, and what only extra can hold.

ATIF messages hold text (and images or audio by file path); ASR parts hold more. Text parts are
carried exactly. Only ``visibility: "full"`` reasoning becomes ``reasoning_content`` (ASR-214:
nothing else may be presented as full reasoning). Opaque data and signatures never leave the
stream (ASR-215, ASR-232): such parts are kept only as a flag.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from .report import APPROXIMATE, CARRIED, DROPPED, LossReport

PROVENANCE = ("author", "origin", "phase", "derivation", "annotations", "_meta")
#: Members flag_only replaces (``data`` only outside a data part, ``resource`` only its blobs).
FLAGGED = frozenset(("opaque", "signature", "blob", "data", "resource"))


@dataclass
class Pieces:
    """What one content array gave: texts for ``message``, full reasoning, and parts for extra."""

    texts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)


def flag_only(part: dict[str, Any]) -> dict[str, Any]:
    """A part with every opaque value, signature and inline byte string replaced by ``true``."""
    kind = part.get("type")
    if kind == "opaque":
        return {"type": "opaque", "format": part.get("format"), "opaque": True}
    if FLAGGED.isdisjoint(part) or (kind == "data" and FLAGGED.intersection(part) == {"data"}):
        return part  # nothing to flag (most parts): the part itself, no copy
    kept: dict[str, Any] = {}
    for key, value in part.items():
        if key in ("opaque", "signature", "blob") or (key == "data" and kind != "data"):
            kept[key] = True
        elif key == "resource" and isinstance(value, dict):
            kept[key] = {k: (True if k in ("blob", "blobRef") else v) for k, v in value.items()}
        else:
            kept[key] = value
    return kept


@functools.cache
def _label(name: str, kind: str, visibility: Any) -> str:
    return f"{name}[{kind}]" if kind != "reasoning" else f"{name}[reasoning:{visibility}]"


def map_parts(parts: Any, record_type: str, name: str, report: LossReport, *, agent_step: bool) -> Pieces:
    """Split a content array into ATIF pieces, noting each part's outcome in the report."""
    pieces = Pieces()
    if not isinstance(parts, list):
        return pieces
    plain = 0  # text parts with nothing else: counted once below
    for index, part in enumerate(parts):
        if not isinstance(part, dict):
            report.note(record_type, f"{name}[?]", DROPPED, "not a content part")
            continue
        kind = str(part.get("type"))
        if kind == "text" and len(part) == 2 and isinstance(part.get("text"), str):  # the common case, fast
            pieces.texts.append(part["text"])
            plain += 1
            continue
        label = _label(name, kind, part.get("visibility", "unknown"))
        provenance = {key: part[key] for key in PROVENANCE if key in part}
        if provenance:
            pieces.extra.append({"part": index, **provenance})
            report.note(
                record_type,
                f"{name}[].author/origin/phase",
                APPROXIMATE,
                "per-part provenance collapsed to the step's source; kept in extra.asr parts",
            )
        if kind == "text" and isinstance(part.get("text"), str):
            pieces.texts.append(part["text"])
            report.note(record_type, label, CARRIED)
        elif kind == "reasoning":
            _reasoning(part, index, pieces, record_type, label, report, agent_step=agent_step)
        elif kind == "refusal" and isinstance(part.get("text"), str):
            pieces.texts.append(part["text"])
            pieces.extra.append({"part": index, "type": "refusal"})
            report.note(record_type, label, APPROXIMATE, "refusal text kept as message text, flagged in extra.asr")
        elif kind in ("data", "resource", "resource_link", "opaque"):
            pieces.extra.append({"part": index, **flag_only(part)})
            how = "kept only as a flag (opaque data never exported)" if kind == "opaque" else "kept in extra.asr"
            report.note(record_type, label, APPROXIMATE, how)
        elif kind in ("image", "audio"):
            pieces.extra.append({"part": index, **flag_only(part)})
            report.note(
                record_type,
                label,
                DROPPED,
                "ATIF media need a file path; bytes/blob refs are not carried (type and mimeType kept in extra.asr)",
            )
        else:
            report.note(record_type, label, DROPPED, "part type unknown to the exporter")
    if plain:
        report.note(record_type, _label(name, "text", None), CARRIED, count=plain)
    return pieces


def _reasoning(
    part: dict[str, Any],
    index: int,
    pieces: Pieces,
    record_type: str,
    label: str,
    report: LossReport,
    *,
    agent_step: bool,
) -> None:
    visibility = part.get("visibility")
    text = part.get("text")
    if visibility == "full" and isinstance(text, str) and agent_step:
        pieces.reasoning.append(text)
        report.note(record_type, label, CARRIED)
        if "signature" in part or "opaque" in part:
            pieces.extra.append({"part": index, "type": "reasoning", "signature": True})
            report.note(record_type, f"{label}.signature", APPROXIMATE, "kept only as a flag (ASR-215)")
        return
    pieces.extra.append({"part": index, **flag_only(part)})
    if visibility in ("encrypted", "redacted", "omitted"):
        how = f"{visibility} reasoning kept only as a flag in extra.asr (ASR-215)"
    elif visibility == "summary":
        how = "summary kept in extra.asr: reasoning_content would present it as full reasoning (ASR-214)"
    else:
        how = "reasoning of unknown visibility kept in extra.asr, not as reasoning_content (ASR-214)"
    report.note(record_type, label, APPROXIMATE, how)
