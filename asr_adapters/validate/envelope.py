"""The optional envelope members a record may hold, each checked only where present
(``stream._ENVELOPE``): ``tsPrecision``, ``assembly``, ``copiedFrom``, ``usage``, ``nativeUsage``,
``capture``. ``supersedes`` and ``parent`` name other records: they are ``references``'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.usage import definition_problems
from ..model.vocab import ASSEMBLY_MODES, CAPTURE_STATES
from .formats import is_session_ref, is_str_list, show, valid_ts

if TYPE_CHECKING:
    from .stream import StreamValidator

#: The members of a normalized ``usage`` (issue 14.13), each present only where the source records it.
USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "totalTokens")


def ts_precision(validator: StreamValidator, record: dict, kind: str) -> None:
    precision = record["tsPrecision"]
    if precision != "s" or "ts" not in record:
        validator.report("PROFILE-ts", f"tsPrecision is 's' and goes with a ts, not {show(precision)}")
    elif valid_ts(record["ts"]) and "." in record["ts"]:
        validator.report("PROFILE-ts", "tsPrecision 's' means ts has no fraction")


def assembly(validator: StreamValidator, record: dict, kind: str) -> None:
    assembly = record["assembly"]
    if (
        not isinstance(assembly, dict)
        or not isinstance(assembly.get("mode"), str)
        or assembly["mode"] not in ASSEMBLY_MODES
        or not is_str_list(assembly.get("sourceIds"))
    ):
        validator.report("PROFILE-assembly", "assembly must be {mode: 'folded', sourceIds: [string, ...]}")


def copied_from(validator: StreamValidator, record: dict, kind: str) -> None:
    if not is_session_ref(record["copiedFrom"], with_record=True):
        validator.report(
            "PROFILE-ref", f"copiedFrom must be a session reference with a # part, not {show(record['copiedFrom'])}"
        )


def usage(validator: StreamValidator, record: dict, kind: str) -> None:
    """Normalized token usage: the six counts, each a non-negative integer, and ``partial``;
    the counts must keep the definition (parts within their whole, total = input + output)."""
    usage = record["usage"]
    if not isinstance(usage, dict):
        validator.report("PROFILE-usage", f"usage must be an object of token counts, not {show(usage)}")
        return
    unknown = [key for key in usage if key not in USAGE_KEYS and key != "partial"]
    if unknown:  # one finding a record (a verbatim native object has many such keys)
        names = ", ".join(map(repr, unknown[:4])) + (" …" if len(unknown) > 4 else "")
        validator.report("PROFILE-usage", f"usage has {names}: its members are {', '.join(USAGE_KEYS)}, partial")
    for key, value in usage.items():
        if key in USAGE_KEYS and (value.__class__ is not int or value < 0):
            validator.report("PROFILE-usage", f"usage.{key} must be a non-negative integer, not {show(value)}")
    for problem in definition_problems(usage):
        validator.report("PROFILE-usage", f"usage {problem}")


def native_usage(validator: StreamValidator, record: dict, kind: str) -> None:
    """The agent's own usage object, kept verbatim beside ``usage``: an object."""
    if not isinstance(record["nativeUsage"], dict):
        validator.report("PROFILE-usage", f"nativeUsage must be an object, not {show(record['nativeUsage'])}")


def capture(validator: StreamValidator, record: dict, kind: str) -> None:
    capture = record["capture"]
    if not isinstance(capture, dict):
        validator.report("PROFILE-capture", "capture must be an object {field: {state, reason?}}")
        return
    for field, entry in capture.items():
        state = entry.get("state") if isinstance(entry, dict) else None
        if not isinstance(state, str) or state not in CAPTURE_STATES:
            validator.report(
                "PROFILE-capture",
                f"capture.{field} must be {{state: absent|truncated|masked|redacted, reason?}}, not {show(entry)}",
            )
        elif "reason" in entry and not isinstance(entry["reason"], str):
            validator.report("PROFILE-capture", f"capture.{field}.reason must be a string")
