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
    checks = _PART_CHECKS
    members = _MEMBERS
    index = 0
    for part in parts:
        if (
            part.__class__ is dict
            and len(part) == 2
            and part.get("type") == "text"
            and part.get("text").__class__ is str
        ):
            index += 1
            continue  # exactly {type: text, text: string}: nothing else to check
        kind = part.get("type") if part.__class__ is dict else None
        if kind.__class__ is not str:
            if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                report("ASR-210", f"{field}[{index}] must be an object with a string type")
                index += 1
                continue
            kind = part["type"]
        if kind == "text":
            if part.get("text").__class__ is not str and not isinstance(part.get("text"), str):
                report("ASR-210", f"{field}[{index}]: a text part must have a string text")
        else:
            check = checks.get(kind)
            if check is not None:
                check(part, field, index, report)
        if not members.isdisjoint(part):
            _check_members(part, field, len(parts), index, report, message)
        index += 1


def _check_members(part: dict, field: str, count: int, index: int, report: Report, message: dict | None) -> None:
    for key, listed in (("author", AUTHORS), ("origin", ORIGINS), ("phase", PHASES)):
        if key in part and not is_open_value(part[key], listed):
            report("ASR-224", f"{field}[{index}].{key} {show(part[key])} is not a spec value or a namespaced one")
    if "derivation" in part:
        derivation = part["derivation"]
        if not isinstance(derivation, dict) or not isinstance(derivation.get("method"), str):
            report("ASR-233", f"{field}[{index}].derivation must be an object with a string method")
        else:
            if not is_open_value(derivation["method"], DERIVATION_METHODS):
                report(
                    "PROFILE-open-value",
                    f"{field}[{index}].derivation.method {show(derivation['method'])} is not a spec value"
                    " or a namespaced one",
                )
            if "from" in derivation:
                source = derivation["from"]
                if (
                    isinstance(source, bool)
                    or not isinstance(source, int)
                    or not 0 <= source < count
                    or source == index
                ):
                    report(
                        "ASR-233", f"{field}[{index}].derivation.from {show(source)} is not the index of another part"
                    )
    if message is not None and ("origin" in part or "author" in part):
        origin = part.get("origin", message.get("origin"))
        author = part.get("author", message.get("author"))
        if origin == "notice" and (author != "harness" or message.get("audience") != "user"):
            report(
                "ASR-205", f"{field}[{index}] is a notice: its author must be harness and the message's audience user"
            )
        elif origin == "injected" and author == "human":
            report(
                "ASR-203", f"{field}[{index}] was inserted by the harness (origin injected): its author is not human"
            )


def _blob(value: Any, where: str, report: Report) -> None:
    problem = blob_problem(value)
    if problem is not None:
        report("PROFILE-blobref", f"{where}: {problem}")


def _media(part: dict, field: str, index: int, report: Report) -> None:
    kind = part["type"]
    if not isinstance(part.get("mimeType"), str):
        report("ASR-212", f"{field}[{index}]: {kind} parts must have a string mimeType")
    if "data" in part:
        if "blob" in part:
            report("ASR-212", f"{field}[{index}]: {kind} parts must not have both data and blob")
        if not isinstance(part["data"], str):
            report("ASR-212", f"{field}[{index}]: data must be a base64 string")
    if "blob" in part:
        _blob(part["blob"], f"{field}[{index}].blob", report)


def _resource_link(part: dict, field: str, index: int, report: Report) -> None:
    if not isinstance(part.get("uri"), str) or not isinstance(part.get("name"), str):
        report("ASR-213", f"{field}[{index}]: a resource_link must have a string uri and name")


def _resource(part: dict, field: str, index: int, report: Report) -> None:
    resource = part.get("resource")
    if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
        report("ASR-213", f"{field}[{index}]: a resource must have resource.uri")
        return
    held = [key for key in ("text", "blob", "blobRef") if key in resource]
    if len(held) > 1:
        report(
            "ASR-213", f"{field}[{index}]: a resource holds at most one of text, blob, blobRef (has {', '.join(held)})"
        )
    for key in ("text", "blob"):
        if key in resource and not isinstance(resource[key], str):
            report("ASR-213", f"{field}[{index}].resource.{key} must be a string")
    if "blobRef" in resource:
        _blob(resource["blobRef"], f"{field}[{index}].resource.blobRef", report)


def _reasoning(part: dict, field: str, index: int, report: Report) -> None:
    visibility = part.get("visibility")
    if (
        visibility is not None
        and not (visibility.__class__ is str and visibility in VISIBILITIES)
        and not is_open_value(visibility, VISIBILITIES)
    ):
        report(
            "PROFILE-open-value",
            f"{field}[{index}].visibility {show(visibility)} is not a spec value or a namespaced one",
        )
    text = part.get("text")
    if "text" in part and not isinstance(text, str):
        report("ASR-214", f"{field}[{index}].text must be a string")
    elif text and isinstance(visibility, str) and visibility in _NO_TEXT:
        report(
            "ASR-214",
            f"{field}[{index}]: reasoning text under visibility {visibility!r}; text is for full (or unstated)",
        )
    if "summary" in part:
        summary = part["summary"]
        if not is_str_list(summary):
            report("ASR-214", f"{field}[{index}].summary must be an array of strings")
        elif summary and visibility == "full" and not text:
            report("ASR-214", f"{field}[{index}]: a summary without text is labelled visibility 'full'")
    if "signature" in part and not isinstance(part["signature"], str):
        report("ASR-214", f"{field}[{index}].signature must be a string")
    if "opaque" in part:
        opaque = part["opaque"]
        if not isinstance(opaque, dict):
            report("ASR-231", f"{field}[{index}].opaque must be an object {{format?, data? | blob?}}")
        else:
            _opaque_body(opaque, f"{field}[{index}].opaque", report)


def _opaque_body(body: dict, where: str, report: Report, *, format_checked: bool = False) -> None:
    """The ``{format?, data? | blob?}`` of an opaque part or a reasoning part's ``opaque``."""
    if not format_checked and "format" in body and not isinstance(body["format"], str):
        report("ASR-231", f"{where}.format must be a string")
    if "data" in body:
        if "blob" in body:
            report("ASR-231", f"{where} must not have both data and blob")
        if not isinstance(body["data"], str):
            report("ASR-231", f"{where}.data must be a string")
    if "blob" in body:
        _blob(body["blob"], f"{where}.blob", report)


def _refusal(part: dict, field: str, index: int, report: Report) -> None:
    if not isinstance(part.get("text"), str):
        report("ASR-217", f"{field}[{index}]: a refusal part must have a string text")


def _data(part: dict, field: str, index: int, report: Report) -> None:
    if "data" not in part:
        report("ASR-230", f"{field}[{index}]: a data part must contain data")
    if "schema" in part and not isinstance(part["schema"], str):
        report("ASR-230", f"{field}[{index}].schema must be a string")


def _opaque(part: dict, field: str, index: int, report: Report) -> None:
    if not isinstance(part.get("format"), str):
        report("ASR-231", f"{field}[{index}]: an opaque part must contain a string format")
    _opaque_body(part, f"{field}[{index}]", report, format_checked=True)


_PART_CHECKS: dict[str, Callable[[dict, str, int, Report], None]] = {
    "image": _media,
    "audio": _media,
    "resource_link": _resource_link,
    "resource": _resource,
    "reasoning": _reasoning,
    "refusal": _refusal,
    "data": _data,
    "opaque": _opaque,
}
