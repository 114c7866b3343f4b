"""Checks of content parts (ASR-210 to ASR-233), over plain dicts; any JSON value gives findings, never an error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.vocab import AUTHORS, DERIVATION_METHODS, ORIGINS, PHASES, VISIBILITIES, is_open_value
from .formats import blob_problem, is_str_list, show

Report = Callable[[str, str], None]
_MEMBERS = frozenset({"author", "origin", "phase", "derivation"})
#: Visibilities under which a reasoning part holds no reasoning text (ASR-214).
_NO_TEXT = frozenset({"summary", "omitted", "encrypted", "redacted"})


def check_parts(parts: Any, field: str, report: Report, message: dict | None = None) -> None:
    """Every part of one content array.

    ``message`` is the message that holds the array, when it is one: a part's own author,
    origin and audience resolve against it (ASR-224) for the notice rule (ASR-205).
    """
    if not isinstance(parts, list):
        report("ASR-210", f"{field} must be an array of content parts, not {show(parts)}")
        return
    count = len(parts)
    checks = _PART_CHECKS
    members = _MEMBERS
    for index, part in enumerate(parts):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            report("ASR-210", f"{field}[{index}] must be an object with a string type")
            continue
        check = checks.get(part["type"])
        if check is not None:
            check(part, f"{field}[{index}]", report)
        if not members.isdisjoint(part):
            _check_members(part, f"{field}[{index}]", count, index, report, message)


def _check_members(part: dict, where: str, count: int, index: int, report: Report, message: dict | None) -> None:
    for key, listed in (("author", AUTHORS), ("origin", ORIGINS), ("phase", PHASES)):
        if key in part and not is_open_value(part[key], listed):
            report("ASR-224", f"{where}.{key} {show(part[key])} is not a spec value or a namespaced one")
    if "derivation" in part:
        derivation = part["derivation"]
        if not isinstance(derivation, dict) or not isinstance(derivation.get("method"), str):
            report("ASR-233", f"{where}.derivation must be an object with a string method")
        else:
            if not is_open_value(derivation["method"], DERIVATION_METHODS):
                report(
                    "PROFILE-open-value",
                    f"{where}.derivation.method {show(derivation['method'])} is not a spec value or a namespaced one",
                )
            if "from" in derivation:
                source = derivation["from"]
                if (
                    isinstance(source, bool)
                    or not isinstance(source, int)
                    or not 0 <= source < count
                    or source == index
                ):
                    report("ASR-233", f"{where}.derivation.from {show(source)} is not the index of another part")
    if message is not None and ("origin" in part or "author" in part):
        origin = part.get("origin", message.get("origin"))
        author = part.get("author", message.get("author"))
        if origin == "notice" and (author != "harness" or message.get("audience") != "user"):
            report("ASR-205", f"{where} is a notice: its author must be harness and the message's audience user")


def _blob(value: Any, where: str, report: Report) -> None:
    problem = blob_problem(value)
    if problem is not None:
        report("PROFILE-blobref", f"{where}: {problem}")


def _text(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("text"), str):
        report("ASR-210", f"{where}: a text part must have a string text")


def _media(part: dict, where: str, report: Report) -> None:
    kind = part["type"]
    if not isinstance(part.get("mimeType"), str):
        report("ASR-212", f"{where}: {kind} parts must have a string mimeType")
    if "data" in part:
        if "blob" in part:
            report("ASR-212", f"{where}: {kind} parts must not have both data and blob")
        if not isinstance(part["data"], str):
            report("ASR-212", f"{where}: data must be a base64 string")
    if "blob" in part:
        _blob(part["blob"], f"{where}.blob", report)


def _resource_link(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("uri"), str) or not isinstance(part.get("name"), str):
        report("ASR-213", f"{where}: a resource_link must have a string uri and name")


def _resource(part: dict, where: str, report: Report) -> None:
    resource = part.get("resource")
    if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
        report("ASR-213", f"{where}: a resource must have resource.uri")
        return
    held = [key for key in ("text", "blob", "blobRef") if key in resource]
    if len(held) > 1:
        report("ASR-213", f"{where}: a resource holds at most one of text, blob, blobRef (has {', '.join(held)})")
    for key in ("text", "blob"):
        if key in resource and not isinstance(resource[key], str):
            report("ASR-213", f"{where}.resource.{key} must be a string")
    if "blobRef" in resource:
        _blob(resource["blobRef"], f"{where}.resource.blobRef", report)


def _reasoning(part: dict, where: str, report: Report) -> None:
    visibility = part.get("visibility")
    if visibility is not None and not is_open_value(visibility, VISIBILITIES):
        report("PROFILE-open-value", f"{where}.visibility {show(visibility)} is not a spec value or a namespaced one")
    text = part.get("text")
    if "text" in part and not isinstance(text, str):
        report("ASR-214", f"{where}.text must be a string")
    elif text and isinstance(visibility, str) and visibility in _NO_TEXT:
        report("ASR-214", f"{where}: reasoning text under visibility {visibility!r}; text is for full (or unstated)")
    if "summary" in part:
        summary = part["summary"]
        if not is_str_list(summary):
            report("ASR-214", f"{where}.summary must be an array of strings")
        elif summary and visibility == "full" and not text:
            report("ASR-214", f"{where}: a summary without text is labelled visibility 'full'")
    if "signature" in part and not isinstance(part["signature"], str):
        report("ASR-214", f"{where}.signature must be a string")
    if "opaque" in part:
        opaque = part["opaque"]
        if not isinstance(opaque, dict):
            report("ASR-231", f"{where}.opaque must be an object {{format?, data? | blob?}}")
        else:
            _opaque_body(opaque, f"{where}.opaque", report)


def _opaque_body(body: dict, where: str, report: Report, *, format_checked: bool = False) -> None:
    if not format_checked and "format" in body and not isinstance(body["format"], str):
        report("ASR-231", f"{where}.format must be a string")
    if "data" in body:
        if "blob" in body:
            report("ASR-231", f"{where} must not have both data and blob")
        if not isinstance(body["data"], str):
            report("ASR-231", f"{where}.data must be a string")
    if "blob" in body:
        _blob(body["blob"], f"{where}.blob", report)


def _refusal(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("text"), str):
        report("ASR-217", f"{where}: a refusal part must have a string text")


def _data(part: dict, where: str, report: Report) -> None:
    if "data" not in part:
        report("ASR-230", f"{where}: a data part must contain data")
    if "schema" in part and not isinstance(part["schema"], str):
        report("ASR-230", f"{where}.schema must be a string")


def _opaque(part: dict, where: str, report: Report) -> None:
    if not isinstance(part.get("format"), str):
        report("ASR-231", f"{where}: an opaque part must contain a string format")
    _opaque_body(part, where, report, format_checked=True)


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
