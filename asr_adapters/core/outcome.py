"""Tool outcomes in one vocabulary for every adapter (docs/semantics.md, Tool outcome).

``status`` on a ``tool_call`` / ``tool_result`` is the spec's ``complete``, ``error``,
``interrupted`` (or ``partial`` for a call whose arguments were cut off); a call the person
rejected is ``<registry name>/denied`` and one the harness cancelled ``<registry
name>/cancelled``. Neither they nor an interrupted call is a failure (no ``isError``).
``isError`` is true exactly when the source records failure, an exit code other than 0
included, and the exit code is lifted to ``exitCode``.
"""

from __future__ import annotations

from typing import Any

#: the namespaced suffixes every adapter uses for the same two outcomes (model.vocab)
DENIED = "denied"
CANCELLED = "cancelled"


def denied(registry_name: str) -> str:
    """The status of a call the person rejected (or a rule the person set refused)."""
    return f"{registry_name}/{DENIED}"


def cancelled(registry_name: str) -> str:
    """The status of a call the harness cancelled before it ran to an outcome."""
    return f"{registry_name}/{CANCELLED}"


def is_exit_code(value: Any) -> bool:
    return type(value) is int


def set_exit_code(record: dict[str, Any], code: Any) -> None:
    """``exitCode`` as the tool's structured output records it, and ``isError`` from it
    (0 is success, anything else failure) unless the source already states a failure."""
    if not is_exit_code(code):
        return
    record["exitCode"] = code
    if record.get("isError") is not True:
        record["isError"] = code != 0


def not_a_failure(record: dict[str, Any]) -> None:
    """A denied, cancelled or interrupted call: the tool did not run to an outcome, so the
    record claims neither failure nor success (its ``isError`` is dropped)."""
    record.pop("isError", None)
