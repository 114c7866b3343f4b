"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/``) -> ASR streams.

Two eras share one record schema: a single JSON ``ConversationRecord`` (up to v0.38,
rewritten whole on each change) and an append-only JSONL log (v0.39+). The era is told
by content, not by the file name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import orjson

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.errors import InputError
from ...core.items import misplaced
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .jsonl import DISPATCH, convert_jsonl
from .mapping import Mapper

FORMAT = "gemini-cli-chat"
META_KEYS = ("sessionId", "startTime")


def era(head: bytes) -> str:
    """``"json"`` for a whole-document ConversationRecord, ``"jsonl"`` for the event log."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{"):
        return "jsonl"
    if text[1:2] in (b"\n", b"\r", b" ", b"\t"):
        return "json"  # pretty-printed: JSON.stringify(record, null, 2)
    line, newline, _ = text.partition(b"\n")
    if not newline:
        return "json"  # one compact line longer than the sniff window, or the whole file
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        return "json"
    if isinstance(first, dict) and isinstance(first.get("messages"), list) and "$set" not in first:
        return "json"
    return "jsonl"


def session_header(
    meta: dict[str, Any], source: Source, variant: str, fallback_id: str
) -> tuple[dict[str, Any], str, bool]:
    """The header record, the session id and whether the record is a subagent's.

    A subagent file of v0.31-v0.36 sits in ``chats/`` with its *parent's* sessionId (and no
    ``directories``); its own reference is derived from the parent id and its start time so
    that it does not collide with the parent's stream.
    """
    native_id = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else None
    subagent = meta.get("kind") == "subagent"
    parent: str | None = None
    derived = False
    if native_id is None:
        session_id, derived = fallback_id, True
    elif subagent and "directories" not in meta:
        start_time = meta.get("startTime")
        start = start_time if isinstance(start_time, str) else discover.stem(source.name)
        stamp_part = "".join(c for c in start if c.isalnum())  # 2026-03-17T22:37:42.549Z -> 20260317T223742549Z
        session_id, derived, parent = f"{native_id}-subagent-{stamp_part}", True, session_ref("gemini-cli", native_id)
    else:
        session_id = native_id
        if subagent:
            parent = discover.parent_from_path(source.path)
    record = header(
        "gemini-cli", session_id, agent_version=None, source_format=FORMAT, variant=variant, file=source.name
    )
    stamp(record, from_iso(meta.get("startTime")))
    if isinstance(meta.get("summary"), str):
        record["title"] = meta["summary"]
    if parent is not None:
        record["parent"] = parent
    if derived:
        record["idSource"] = "derived"
    # every member of the header as recorded (projectHash, lastUpdated, kind, directories,
    # memoryScratchpad ...), so nothing of it is lost
    record["meta"] = {k: v for k, v in meta.items() if k != "messages"}
    return record, session_id, subagent


@register
class GeminiCliAdapter(Adapter):
    name: ClassVar[str] = "gemini-cli"
    description: ClassVar[str] = "Gemini CLI chat recordings: session-*.json (<= v0.38) and session-*.jsonl (v0.39+)"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        head = source.head()
        if not head.strip():
            raise InputError(source.display, "empty file: not a Gemini CLI session")
        if era(head) == "jsonl":
            yield from convert_jsonl(self, source, context)
            return
        yield from self._document(source, context)

    def _document(self, source: Source, context: Context) -> Iterator[Stream]:
        """The legacy era: one JSON document, read whole (memory is bounded by the file)."""
        document = context.document("not a Gemini CLI session")
        if not isinstance(document, dict):
            raise InputError(source.display, "not a Gemini CLI session: the document is not an object")
        messages = document.get("messages")
        if not isinstance(messages, list):
            messages = []
        context.accounting.native_items += len(messages)
        record, session_id, subagent = session_header(document, source, "json", discover.stem(source.name))
        yield Stream(
            record["session"], self._document_records(document, messages, record, session_id, subagent, context)
        )

    def _document_records(
        self,
        document: dict[str, Any],
        messages: list[Any],
        head: dict[str, Any],
        session_id: str,
        subagent: bool,
        context: Context,
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        yield emit(head)
        mapper = Mapper(emit, self.registry_name, session_id, subagent, repeats=False)
        accounting = context.accounting
        for index, message in enumerate(messages):
            problem = misplaced(message, DISPATCH)
            if problem is not None:
                context.unreadable(None, f"messages[{index}] unreadable: {problem}; skipped")
                continue
            records = mapper.message(message, f"messages[{index}]")
            outcome(accounting, records)
            yield from records


def outcome(accounting: Any, records: list[dict[str, Any]]) -> None:
    """One native item's single outcome: records, vendor, or a duplicate of what was written."""
    if not records:
        accounting.duplicates += 1
        return
    for record in records:
        if record["type"] != "vendor":
            accounting.records += 1
            return
    accounting.vendor += 1
