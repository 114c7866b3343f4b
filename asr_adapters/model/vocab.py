"""The spec's value lists.

Closed lists are enforced as they are; open lists accept any value that is namespaced
with a registry name (``<registry name>/<value>``, profile §2) besides the listed ones.
"""

from __future__ import annotations

ROLES = frozenset({"user", "assistant", "system", "developer"})
AUTHORS = frozenset({"human", "model", "harness", "hook", "tool", "agent"})
ORIGINS = frozenset(
    {
        "prompt",
        "queued",
        "steer",
        "command",
        "injected",
        "memory",
        "retrieval",
        "subagent_report",
        "inter_session",
        "notice",
    }
)
PHASES = frozenset({"commentary", "final"})
AUDIENCES = frozenset({"model", "user", "both", "unknown"})  # closed (ASR-204)
MESSAGE_STATUSES = frozenset({"complete", "interrupted", "error", "partial", "withdrawn"})
VIA = frozenset({"cli", "tui", "ide", "desktop", "web", "mobile", "api", "channel"})
CORRESPONDENCES = frozenset({"native", "derived"})
RECIPIENT_KINDS = frozenset({"primary", "additional"})
VISIBILITIES = frozenset({"full", "summary", "omitted", "encrypted", "redacted"})
DERIVATION_METHODS = frozenset({"transcription", "caption", "ocr", "translation", "summary"})
PLAN_TYPES = frozenset({"items", "document", "goal"})
PLAN_STATUSES = frozenset({"active", "paused", "blocked", "usage_limited", "budget_limited", "complete"})
ENTRY_STATUSES = frozenset({"pending", "in_progress", "completed"})
PRIORITIES = frozenset({"high", "medium", "low"})
#: ``tool_call.status``, ``tool_result.status`` and ``subagent.status`` (issue 26): the spec's
#: message statuses that describe an outcome; a call the person rejected or the harness
#: cancelled is namespaced, ``<registry name>/denied`` / ``<registry name>/cancelled``
TOOL_STATUSES = frozenset({"complete", "error", "interrupted", "partial"})
#: the fixed suffixes of the namespaced tool statuses every adapter uses for the same outcome
DENIED_SUFFIX = "/denied"
CANCELLED_SUFFIX = "/cancelled"
#: ``summaryOf`` (docs/format.md): what a summary the agent wrote stands for
SUMMARY_KINDS = frozenset({"compaction"})
#: open fields of the profile's own records with no listed value: every value is namespaced
NO_VALUES: frozenset[str] = frozenset()
DELIVERY_STATUSES = frozenset({"queued", "sent", "delivered", "suppressed", "failed", "unknown"})
CAPTURE_STATES = frozenset({"absent", "truncated", "masked", "redacted"})  # closed (profile §2)
ASSEMBLY_MODES = frozenset({"folded"})


#: Registry: short name -> reverse-DNS registry name (profile §7).
REGISTRY_NAMES = {
    "codex": "com.openai.codex",
    "claude-code": "com.anthropic.claude-code",
    "openclaw": "ai.openclaw",
    "gemini-cli": "com.google.gemini-cli",
    "t3code": "chat.t3.code",
    "cline": "bot.cline",
    "opencode": "ai.opencode",
    "copilot-cli": "com.github.copilot-cli",
    "cursor": "com.cursor",
    "pi": "dev.pi",
    "qwen-code": "ai.qwen.qwen-code",
    "droid": "ai.factory.droid",
    "openhands": "dev.all-hands.openhands",
}


def is_open_value(value: object, listed: frozenset[str]) -> bool:
    """True when ``value`` is a listed value or a namespaced vendor value."""
    if not isinstance(value, str):
        return False
    if value in listed:
        return True
    namespace, sep, rest = value.partition("/")
    return bool(sep and namespace and rest and "." in namespace)
