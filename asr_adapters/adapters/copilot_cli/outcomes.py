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
        usage = compaction_usage(used)
        if usage is not None:
            record["usage"] = usage
            record["nativeUsage"] = used
        native = {k: v for k, v in data.items() if k not in ("summaryContent", "compactionTokensUsed")}
        if native:
            record["native"] = native
        return self._write(record)


#: members of a ``compactionTokensUsed`` form that count cached input beside its input count
_CACHED = ("cachedInput", "cacheReadTokens", "cacheWriteTokens")


def compaction_usage(used: Any) -> dict[str, int] | None:
    """The compaction's own model call's usage from ``compactionTokensUsed`` (``inputTokens``/
    ``outputTokens`` in the SDK's schema, ``input``/``output`` in older files). The output
    count is always normalized. The input count only when the form lists no cached count
    beside it: then it is the call's one input count, all of its input (docs/semantics.md
    Usage); beside a cached count (``cachedInput``, ``cacheReadTokens``, ``cacheWriteTokens``)
    the schema does not say whether the input includes it, so the input side stays in
    ``nativeUsage`` (docs/format.md: a member only where the source gives the numbers it needs)."""
    output = _count(used, ("outputTokens", "output"))
    if output is None:
        return None
    assert isinstance(used, dict)
    input_ = None if any(k in used for k in _CACHED) else _count(used, ("inputTokens", "input"))
    if input_ is None:
        return {"outputTokens": output}
    return {"inputTokens": input_, "outputTokens": output, "totalTokens": input_ + output}


def _count(used: Any, keys: tuple[str, ...]) -> int | None:
    if not isinstance(used, dict):
        return None
    for key in keys:
        value = used.get(key)
        if type(value) is int and value >= 0:
            return value
    return None
