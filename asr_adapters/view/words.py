"""What the page's labels mean, in plain words (issue 31 item 9): the legend under a page's
header and the tooltips on its markers and badges say the same words, from here."""

from __future__ import annotations

from typing import Any

#: What the page's labels mean, in plain words: the legend and the tooltips say them.
AUTHOR_WORDS = {
    "human": "a person typed or chose it",
    "model": "the model generated it",
    "harness": "the agent software inserted it",
    "hook": "a hook the user configured produced it",
    "agent": "another agent produced it",
    "tool": "a tool produced it, delivered as a message",
    "unknown": "the source does not say who wrote it",
}
ORIGIN_WORDS = {
    "prompt": "typed and sent as a normal prompt",
    "queued": "sent while the agent was busy, delivered at the next chance",
    "steer": "sent into a turn that was already running",
    "command": "a slash command or similar command",
    "injected": "context the agent software inserted (reminders, attachments, instructions)",
    "memory": "loaded from a memory store",
    "retrieval": "found by a search and inserted",
    "subagent_report": "a subagent's result, sent back as a message",
    "inter_session": "a message from another session or its agent",
    "notice": "a notice the agent software showed the person",
}
VISIBILITY_WORDS = {
    "full": "the provider exposed the model's reasoning text",
    "summary": "the provider exposed only a summary of the reasoning",
    "omitted": "the provider or the agent withheld the reasoning text",
    "encrypted": "the reasoning exists only as ciphertext, which is never shown",
    "redacted": "the provider redacted the reasoning",
    "unknown": "the source does not say whether this is the full reasoning or a summary",
}
AUDIENCE_WORDS = {
    "model": "only the model saw this, the person did not",
    "user": "only the person saw this, the model did not",
    "both": "the person and the model both saw this",
    "unknown": "the source does not say who saw this",
}
CAPTURE_WORDS = {
    "absent": "the source keeps no copy of this",
    "truncated": "the source keeps only part of this",
    "masked": "the source rewrote this after the model saw it",
    "redacted": "the source removed this for privacy or security",
}
RECORD_ID_WORDS = "the record's id: its number in the stream (r26 is the 26th record); a link to this record"
BOOKKEEPING_WORDS = (
    "native items the agent wrote that no ASR record type holds (settings, snapshots, markers), kept as they were"
)
COPY_WORDS = "a copy of a record of another session (history replayed into this one), not new content of this one"


def words(table: dict[str, str], value: Any) -> str:
    """The plain words for a label (its last segment for a namespaced value)."""
    short = value.rsplit("/", 1)[-1] if isinstance(value, str) else "unknown"
    return table.get(short or "unknown", f"a value the agent defines: {value}")


#: What each outcome that is not a failure means, in plain words (docs/semantics.md, Tool outcome).
OUTCOME_WORDS = {
    "denied": "the person refused this call (at a prompt, or by a permission rule or mode they set): it did not run",
    "cancelled": "the harness did not run this call, or stopped it on its own account",
    "interrupted": "the person's interrupt stopped this call before it finished",
}
