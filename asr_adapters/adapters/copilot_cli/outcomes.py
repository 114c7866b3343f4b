"""What the CLI records of a call's outcome beside its result (the person's permission
decision, the shell's exit code) and the compaction summary that replaces the history
(docs/semantics.md, Tool outcome and Compaction)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.outcome import cancelled, denied, not_a_failure, set_exit_code
from .content import text_part

REGISTRY = "com.github.copilot-cli"
#: decisions waiting for their call's result (a permission prompt resolves just before it)
_DECISIONS_LIMIT = 256


class OutcomeMixin:
    """Needs the mapper's ``accounting``, ``emit``, ``_base``, ``_write`` and ``_vendor``."""

    accounting: Any
    emit: Any
    _write: Callable[[dict[str, Any]], dict[str, Any]]
    _base: Callable[[str, dict[str, Any]], dict[str, Any]]
    _vendor: Callable[[Any, Any], dict[str, Any]]

    def init_outcomes(self) -> None:
        #: toolCallId -> the ``permission.completed`` result kind (``denied-…``, ``cancelled``)
        self.decisions: dict[str, str] = {}
        #: the last record before the compaction that is running (``session.compaction_start``)
        self.compaction_through: str | None = None

    def permission(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """``permission.completed`` stays a vendor record; a refusal or cancellation of a
        call waits for that call's result, which it explains."""
        result = data.get("result")
        kind = result.get("kind") if isinstance(result, dict) else None
        call_id = data.get("toolCallId")
        if isinstance(call_id, str) and isinstance(kind, str) and (kind.startswith("denied") or kind == "cancelled"):
            if len(self.decisions) >= _DECISIONS_LIMIT:
                del self.decisions[next(iter(self.decisions))]
            self.decisions[call_id] = kind
        return self._vendor(event.get("type"), event)

    def result_outcome(self, record: dict[str, Any], data: dict[str, Any]) -> None:
        """A call the person (or a rule the person set: ``denied-by-rules`` …) refused is
        ``denied``, one whose prompt was cancelled ``cancelled`` (neither a failure); a shell
        command's exit code (``result.contents[]`` ``shell_exit`` / ``terminal``) is ``exitCode``."""
        decision = self.decisions.pop(record["callId"], None)
        if decision is not None:
            record["status"] = cancelled(REGISTRY) if decision == "cancelled" else denied(REGISTRY)
            not_a_failure(record)
            return
        result = data.get("result")
        contents = result.get("contents") if isinstance(result, dict) else None
        for block in contents if isinstance(contents, list) else ():
            if isinstance(block, dict) and block.get("type") in ("shell_exit", "terminal") and "exitCode" in block:
                set_exit_code(record, block["exitCode"])
                return

    def compaction_start(self, event: dict[str, Any]) -> dict[str, Any]:
        self.compaction_through = f"r{self.emit.seq}" if self.emit.seq > 1 else None
        return self._vendor(event.get("type"), event)

    def compaction_complete(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        """A successful compaction's ``summaryContent`` is the summary that replaces the history
        before the compaction started: a harness message marked ``summaryOf: compaction``.
        The CLI does not say under which role the summary reaches the model."""
        summary = data.get("summaryContent")
        if data.get("success") is not True or not isinstance(summary, str):
            return self._vendor(event.get("type"), event)
        self.accounting.records += 1
        record = self._base("message", event)
        record["messageId"] = event.get("id")
        record["author"] = "harness"
        record["origin"] = "injected"
        record["content"] = [text_part(summary)]
        record["capture"] = {"role": {"state": "absent", "reason": "the event does not say how the summary is sent"}}
        record["summaryOf"] = "compaction"
        through = self.compaction_through
        record["compaction"] = {"through": through} if through else {}
        self.compaction_through = None
        used = data.get("compactionTokensUsed")
        output = compaction_output_tokens(used)
        if output is not None:
            record["usage"] = {"outputTokens": output}
            record["nativeUsage"] = used
        native = {k: v for k, v in data.items() if k not in ("summaryContent", "compactionTokensUsed")}
        if native:
            record["native"] = native
        return self._write(record)


def compaction_output_tokens(used: Any) -> int | None:
    """The output tokens of the compaction's own model call (``compactionTokensUsed``:
    ``outputTokens`` in the SDK's schema, ``output`` in older files), the summary it wrote.
    Only the output count is normalized: the schema does not say whether ``inputTokens``
    includes the cached tokens it lists beside it, so the input side stays in ``nativeUsage``
    (docs/format.md: a member only where the source gives the numbers it needs)."""
    if not isinstance(used, dict):
        return None
    for key in ("outputTokens", "output"):
        value = used.get(key)
        if type(value) is int and value >= 0:
            return value
    return None
