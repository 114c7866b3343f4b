"""Attachment and system lines: context the harness injects, hook output, notices, and
``queued_command`` attachments (input the queue drained into a running turn)."""

from __future__ import annotations

from typing import Any

from .host import BuilderHost
from .info import schema_of
from .parts import HARNESS, is_hook_run, is_hook_text, text_part, user_parts
from .queue import STEER

_HOOK = ("hook", "injected")
#: ``origin.kind`` of injected turns -> (author, origin).
ORIGIN_KINDS = {
    "task-notification": HARNESS,
    "auto-continuation": HARNESS,
    "observer": HARNESS,
    "observer-activity": HARNESS,
    "peer": ("agent", "inter_session"),
    "coordinator": ("agent", "inter_session"),
}
_NOTICE_SUBTYPES = frozenset({"away_summary", "informational"})
#: The hint Claude Code appends to its first recaps (`${recap} (disable recaps in /config)`):
#: the harness's text after the model's.
RECAP_HINT = " (disable recaps in /config)"
#: System lines written when a turn ends.
_TURN_END = frozenset({"turn_duration", "stop_hook_summary"})
_ATTACHMENT_SKIP = ("attachment",)
_ATTACHMENT_SCHEMAS: dict[str, str] = {}  # attachment type -> its data part's schema
_SYSTEM_SKIP = ("subtype", "content")


class SideLinesMixin(BuilderHost):
    """Needs the builder's ``out``, ``queue``, ``busy``, ``_message`` and ``_vendor`` (host.py)."""

    def _attachment(self, obj: dict[str, Any]) -> None:
        attachment = obj.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, dict) else None
        acc = self.out.acc
        if kind == "queued_command" and isinstance(attachment, dict):
            # the queue drained into the running turn: this is where the model got the input
            prompt = attachment.get("prompt")
            item = self.queue.take_removed(prompt) or self.queue.take_pending(prompt)
            if item is not None:
                acc.folded += 1 + len(item.moves)
            origin = attachment.get("origin")
            default = STEER
            if isinstance(origin, dict) and origin_kind(origin) in ORIGIN_KINDS:
                default = ORIGIN_KINDS[origin["kind"]]
            parts = user_parts(prompt, default)
            rest = {k: v for k, v in attachment.items() if k != "prompt"}
            self._message(
                obj,
                parts,
                role=None,
                capture={"role": {"state": "absent"}},
                native={"attachment": rest},
                skip=_ATTACHMENT_SKIP,
                queued=item,
            )
        else:
            who = _HOOK if isinstance(kind, str) and kind.startswith("hook_") else HARNESS
            schema = _ATTACHMENT_SCHEMAS.get(kind) if isinstance(kind, str) else None
            if schema is None:
                schema = schema_of(f"attachment/{kind or 'unknown'}")
                if isinstance(kind, str) and len(_ATTACHMENT_SCHEMAS) < 256:
                    _ATTACHMENT_SCHEMAS[kind] = schema
            part = {"type": "data", "data": attachment, "schema": schema}
            self._message(obj, [part], role=None, who=who, capture={"role": {"state": "absent"}}, skip=_ATTACHMENT_SKIP)
        acc.records += 1

    def _system(self, obj: dict[str, Any]) -> None:
        subtype = obj.get("subtype")
        subtype = subtype if isinstance(subtype, str) or subtype is None else str(subtype)
        content = obj.get("content")
        if subtype in _TURN_END:
            self.busy = False
        if not isinstance(content, str) or (
            subtype is not None and subtype != "local_command" and subtype not in _NOTICE_SUBTYPES
        ):
            self._vendor(obj, f"system/{subtype}" if subtype else "system")
            return
        if subtype is None:
            # a hook's result line is the hook's; "Running <Event>…" is the harness's status
            parts = [text_part(content, _HOOK if is_hook_run(content) or is_hook_text(content) else HARNESS)]
            parts[0].pop("origin")
        elif subtype == "local_command":
            parts = user_parts(content, ("harness", "command"))
        elif subtype == "away_summary":
            parts = recap_parts(content)
        else:
            parts = [text_part(content, ("harness", "notice"))]
        self._message(obj, parts, role=None, audience="user", capture={"role": {"state": "absent"}}, skip=_SYSTEM_SKIP)
        self.out.acc.records += 1


def recap_parts(content: str) -> list[dict[str, Any]]:
    """An ``away_summary`` line: the recap is the reply of a model call Claude Code makes for
    it (``querySource: 'away_summary'``; author model, no origin: it is no harness notice),
    the hint it appends to the first recaps the harness's notice (ASR-203)."""
    recap, hint = (content[: -len(RECAP_HINT)], RECAP_HINT) if content.endswith(RECAP_HINT) else (content, "")
    parts = []
    if recap or not hint:
        parts.append({"type": "text", "text": recap, "author": "model"})
    if hint:
        parts.append(text_part(hint, ("harness", "notice")))
    return parts


def origin_kind(origin: dict[str, Any]) -> str | None:
    kind = origin.get("kind")
    return kind if isinstance(kind, str) else None
