"""Who wrote each part of a Codex user-role message.

Codex stores harness context (AGENTS.md, environment snapshots, hook context, skills,
notifications …) as ordinary ``role: "user"`` items. Upstream recognises each fragment by
its start and end markers (ASCII case-insensitive, after trimming); we use the same markers
so that a part is only called injected where Codex itself would call it so. The person's
own words get ``author: human`` only where the source says a person wrote them (ASR-202).
"""

from __future__ import annotations

from ...core.valueclass import valueclass

#: Where the IDE extensions put the person's request after their own context block.
IDE_REQUEST_MARKER = "## My request for Codex:"
IDE_PREFIXES = ("# Context from my IDE setup:", "# Files mentioned by the user:")
SUMMARY_PREFIX = "Another language model started to solve this problem"


@valueclass(frozen=True)
class Fragment:
    """A recognised harness fragment: its markers and what it is."""

    start: str
    end: str | None
    author: str
    origin: str


#: (start marker, end marker or None for prefix-only, author, origin).
FRAGMENTS: tuple[Fragment, ...] = (
    Fragment("# agents.md instructions", "</instructions>", "harness", "injected"),
    Fragment("<user_instructions>", "</user_instructions>", "harness", "injected"),
    Fragment("<environment_context>", "</environment_context>", "harness", "injected"),
    Fragment("<skill>", "</skill>", "harness", "injected"),
    Fragment("<user_shell_command>", "</user_shell_command>", "harness", "command"),
    Fragment("<turn_aborted>", "</turn_aborted>", "harness", "injected"),
    Fragment("<subagent_notification>", "</subagent_notification>", "harness", "subagent_report"),
    Fragment("<codex_internal_context", "</codex_internal_context>", "harness", "injected"),
    Fragment("<goal_context>", "</goal_context>", "harness", "injected"),
    Fragment("<recommended_plugins>", "</recommended_plugins>", "harness", "injected"),
    Fragment("<hook_prompt", "</hook_prompt>", "hook", "injected"),
    Fragment("<user_action>", "</user_action>", "harness", "injected"),
    Fragment("<current_time_reminder>", "</current_time_reminder>", "harness", "injected"),
    Fragment("<image_resize_notice>", "</image_resize_notice>", "harness", "injected"),
    Fragment("<guardian_sync_review>", "</guardian_sync_review>", "harness", "injected"),
    Fragment("<node_repl_review_evidence>", "</node_repl_review_evidence>", "harness", "injected"),
    Fragment("<realtime_delegation>", "</realtime_delegation>", "harness", "injected"),
    Fragment("<permissions instructions>", "</permissions instructions>", "harness", "injected"),
    Fragment(SUMMARY_PREFIX.lower(), None, "harness", "injected"),
)

#: The label parts Codex writes around an attached image or audio clip.
_LABEL_STARTS = ("<image", "</image>", "<audio", "</audio>")


EXTERNAL = Fragment("<external_", "</external_", "hook", "injected")


def classify(text: str) -> Fragment | None:
    """The harness fragment ``text`` is, or None when it carries no known marker."""
    stripped = text.strip()
    if not stripped:
        return None
    head = stripped[:64].lower()
    if head[0] not in "<#a":
        return None
    tail = stripped[-64:].lower()
    for fragment in FRAGMENTS:
        if head.startswith(fragment.start) and (fragment.end is None or tail.endswith(fragment.end)):
            return fragment
    if head.startswith("<external_") and tail.endswith(">") and "</external_" in tail:
        return EXTERNAL
    return None


def is_media_label(text: str) -> bool:
    """``<image name=[Image #1]>``, ``</image>`` and their audio twins."""
    stripped = text.strip()
    return len(stripped) < 512 and stripped.endswith(">") and stripped.startswith(_LABEL_STARTS)


def split_ide_request(text: str) -> tuple[str, str] | None:
    """Split an IDE message at the request marker, keeping every character (ASR-203, 211).

    Returns ``(ide context through the marker line, the person's request)``; None when the
    text is not an IDE-prefixed message or has nothing after the marker.
    """
    if not text.startswith(IDE_PREFIXES) and not text.lstrip().startswith(IDE_PREFIXES):
        return None
    at = text.find(IDE_REQUEST_MARKER)
    if at < 0:
        return None
    cut = at + len(IDE_REQUEST_MARKER)
    if text.startswith("\r\n", cut):
        cut += 2
    elif text.startswith("\n", cut):
        cut += 1
    if cut >= len(text):
        return None
    return text[:cut], text[cut:]
