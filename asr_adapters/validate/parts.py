"""Checks of content parts (ASR-210 to ASR-233)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.vocab import AUTHORS, DERIVATION_METHODS, ORIGINS, PHASES, VISIBILITIES, is_open_value

Report = Callable[[str, str], None]
_MEMBERS = frozenset({"author", "origin", "phase", "derivation"})


def check_parts(parts: Any, field: str, report: Report) -> None:
    """Every part of one content array."""
    if not isinstance(parts, list):
        report("ASR-210", f"{field} must be an array of content parts")
        return
    count = len(parts)
    for index, part in enumerate(parts):
        where = f"{field}[{index}]"
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            report("ASR-210", f"{where} must be an object with a string type")
            continue
        check = _PART_CHECKS.get(part["type"])
        if check is not None:
            check(part, where, report)
        if _MEMBERS.intersection(part):
            _check_members(part, where, count, index, report)


def _check_members(part: dict, where: str, count: int, index: int, report: Report) -> None:
    for key, listed in (("author", AUTHORS), ("origin", ORIGINS), ("phase", PHASES)):
        if key in part and not is_open_value(part[key], listed):
            report("ASR-224", f"{where}.{key} {part[key]!r} is not a spec value or a namespaced one")
    derivation = part.get("derivation")
    if derivation is not None:
        if not isinstance(derivation, dict) or not is_open_value(derivation.get("method"), DERIVATION_METHODS):
            report("ASR-233", f"{where}.derivation must have a method")
        elif "from" in derivation:
            source = derivation["from"]
            if isinstance(source, bool) or not isinstance(source, int) or not 0 <= source < count or source == index:
                report("ASR-233", f"{where}.derivation.from must be the index of another part in the array")


def _text(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("text"), str):
        report("ASR-210", f"{where}: a text part must have a string text")


def _media(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("mimeType"), str):
        report("ASR-212", f"{where}: {part['type']} parts must have mimeType")
    if "data" in part and "blob" in part:
        report("ASR-212", f"{where}: {part['type']} parts must not have both data and blob")
    if "blob" in part:
        _blob_ref(part["blob"], f"{where}.blob", "ASR-212", report)


def _blob_ref(value: Any, where: str, rule: str, report: Report) -> None:
    if not isinstance(value, dict) or not isinstance(value.get("blob"), str) or not value["blob"].startswith("sha256:"):
        report(rule, f"{where} must be a BlobRef {{blob: 'sha256:…', size, mimeType}}")


def _resource_link(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("uri"), str) or not isinstance(part.get("name"), str):
        report("ASR-213", f"{where}: a resource_link must have uri and name")


def _resource(part: dict, where: str, report: Report) -> None:
    resource = part.get("resource")
    if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
        report("ASR-213", f"{where}: a resource must have resource.uri")
        return
    held = [k for k in ("text", "blob", "blobRef") if k in resource]
    if len(held) > 1:
        report("ASR-213", f"{where}: a resource holds at most one of text, blob, blobRef (has {held})")


def _reasoning(part: dict, where: str, report: Report) -> None:
    visibility = part.get("visibility")
    if visibility is not None and not is_open_value(visibility, VISIBILITIES):
        report("ASR-214", f"{where}: visibility {visibility!r} is not a spec value or a namespaced one")
    if "text" in part and visibility not in (None, "full"):
        report("ASR-214", f"{where}: text is only for full (or unstated) visibility, not {visibility!r}")
    summary = part.get("summary")
    if summary is not None and (not isinstance(summary, list) or not all(isinstance(s, str) for s in summary)):
        report("ASR-214", f"{where}: summary must be an array of strings")
    opaque = part.get("opaque")
    if opaque is not None:
        if not isinstance(opaque, dict):
            report("ASR-231", f"{where}: opaque must be an object")
        elif "data" in opaque and "blob" in opaque:
            report("ASR-231", f"{where}: opaque must not have both data and blob")


def _refusal(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("text"), str):
        report("ASR-217", f"{where}: a refusal part must have text")


def _data(part: dict, where: str, report: Report) -> None:
    if "data" not in part:
        report("ASR-230", f"{where}: a data part must contain data")


def _opaque(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("format"), str):
        report("ASR-231", f"{where}: an opaque part must contain format")
    if "data" in part and "blob" in part:
        report("ASR-231", f"{where}: an opaque part must not have both data and blob")


_PART_CHECKS: dict[str, Callable[[dict, str, Report], None]] = {
    "text": _text,
    "image": _media,
    "audio": _media,
    "resource_link": _resource_link,
    "resource": _resource,
    "reasoning": _reasoning,
    "refusal": _refusal,
    "data": _data,
    "opaque": _opaque,
}
