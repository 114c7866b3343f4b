"""Cursor: a ``state.vscdb`` (workspace or global) into one stream per conversation.

- A workspace database (``workspaceStorage/<hash>/state.vscdb``, 2024 shape): each chat-pane
  tab of ``workbench.panel.aichat.view.aichat.chatdata`` and each composer of
  ``composer.composerData`` that holds its ``conversation`` inline is a stream; the rest of the
  workspace's rows (the typed-prompt history, composer index entries whose conversation lives in
  the global database, the containers' other members) are vendor records of one workspace stream.
- A global database (``globalStorage/state.vscdb``, 2025+): each ``composerData:<id>`` row is a
  stream, its bubbles read in the order of ``fullConversationHeadersOnly`` from
  ``bubbleId:<id>:<bubbleId>`` rows; bubbles no header lists and the composer's checkpoint, diff
  and request-context rows follow as vendor records.

Every stream is non-main (``asr batch`` writes one file per conversation). The mapping of a
bubble is ``bubbles.py``; docs/agents/cursor.md has the table of every native item.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.companion import CompanionSkipped, read_companion, report_skip
from ...core.errors import InputError
from ...core.refs import session_ref
from ...core.source import Source
from ...core.sqlite_limits import open_store
from ...registry import register
from .bubbles import AGENT, BubbleMapper
from .capabilities import take_tool_data
from .db import CHAT, COMPOSERS, DISK, GENERATIONS, PROMPTS, WORKSPACE_USER, CursorDb
from .keys import scrub_member
from .rows import FORMAT, composer_header, is_draft, is_subagent, local_path, parse_row

#: the ``cursorDiskKV`` families keyed ``<family>:<composerId>:…`` that are not messages
COMPOSER_FAMILIES = ("checkpointId", "codeBlockDiff", "messageRequestContext")


@register
class CursorAdapter(Adapter):
    name = AGENT
    description = "Cursor state.vscdb (workspace chat tabs and composers, global composerData/bubbleId rows)"

    def vendor(self, kind: str, data: Any) -> dict[str, Any]:
        """A vendor record, without key material (``keys.py``)."""
        record = super().vendor(kind, data)
        scrub_member(record, "data")
        return record

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        db = open_store(CursorDb, source.path, source.display, "a Cursor state.vscdb")
        try:
            if not db.tables:
                raise InputError(source.display, "not a Cursor state.vscdb: no ItemTable or cursorDiskKV table")
            workspace = Workspace(self, db, source, context)
            yield from workspace.streams()
            if DISK in db.tables:
                yield from self._global(db, source.name, context)
            yield from workspace.rest()
        finally:
            db.close()

    # -- the global database ----------------------------------------------------------------

    def _global(self, db: CursorDb, file: str, context: Context) -> Iterator[Stream]:
        for key in list(db.kv_keys("composerData:")):
            context.accounting.native_items += 1
            value = db.kv(key)[1]
            if value is None:
                context.unreadable(None, f"{key}: NULL value; skipped")
                continue
            composer = parse_row(value, key, context)
            composer_id = key.removeprefix("composerData:")
            if composer is None:
                continue
            if not composer_id:
                context.unreadable(None, f"{key}: no composer id in the key; skipped")
                continue
            context.accounting.folded += 1  # the composer: the header
            yield Stream(
                session_ref(AGENT, composer_id), self._composer(db, composer_id, composer, file, context), main=False
            )

    def _composer(
        self, db: CursorDb, composer_id: str, composer: dict[str, Any], file: str, context: Context
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        accounting = context.accounting
        headers = composer.get("fullConversationHeadersOnly")
        inline = composer.get("conversation")
        if isinstance(headers, list) and headers:
            inline = None  # the headers and their rows are the conversation; a legacy copy stays in the header
        moved: tuple[str, ...] = ("composerId", "name", "createdAt", "fullConversationHeadersOnly")
        if isinstance(inline, list):
            moved += ("conversation",)
        tool_data, rest = take_tool_data(composer)
        yield emit(composer_header(composer_id, rest, file, "global-composer", moved))
        mapper = BubbleMapper(
            emit, accounting, self.vendor, composer_id, subagent=is_subagent(composer), tool_data=tool_data
        )
        if isinstance(inline, list):  # a legacy composer with its bubbles inline
            for bubble in inline:
                accounting.native_items += 1
                yield from mapper.bubble(bubble)
        listed: set[str] = set()
        prefix = f"bubbleId:{composer_id}:"
        for entry in headers if isinstance(headers, list) else ():
            bubble_id = entry.get("bubbleId") if isinstance(entry, dict) else None
            if not isinstance(bubble_id, str) or not bubble_id:
                accounting.native_items += 1
                accounting.vendor += 1
                yield emit(self.vendor("conversation-header", entry))
                continue
            listed.add(bubble_id)
            found, value = db.kv(prefix + bubble_id)
            if not found or value is None:
                why = "no bubbleId row for this header" if not found else "the bubbleId row's value is NULL"
                context.warn(None, f"composer {composer_id} bubble {bubble_id}: {why}")
                if found:
                    accounting.native_items += 1
                    accounting.folded += 1  # a NULL row: its place is the message written for its header
                yield from mapper.missing(entry, why)
                continue
            accounting.native_items += 1
            bubble = parse_row(value, prefix + bubble_id, context)
            if bubble is None:
                yield from mapper.missing(entry, "the bubbleId row is not JSON")
                continue
            yield from mapper.bubble(bubble, header_type=entry.get("type"))
        yield from mapper.leftover_tool_data()
        for key in list(db.kv_keys(prefix)):
            if key[len(prefix) :] in listed:
                continue
            accounting.native_items += 1
            value = db.kv(key)[1]
            bubble = parse_row(value, key, context) if value is not None else None
            if value is None:
                context.unreadable(None, f"{key}: NULL value; skipped")
                continue
            if bubble is not None:
                accounting.vendor += 1  # not in the conversation (no header lists it): kept, not placed
                yield emit(self.vendor("unlisted-bubble", {"key": key, "value": bubble}))
        for family in COMPOSER_FAMILIES:
            for key, value in db.kv_range(f"{family}:{composer_id}:"):
                accounting.native_items += 1
                data = parse_row(value, key, context) if value is not None else None
                if value is None:
                    context.unreadable(None, f"{key}: NULL value; skipped")
                elif data is not None:
                    accounting.vendor += 1
                    yield emit(self.vendor(family, {"key": key, "value": data}))


class Workspace:
    """The workspace database's rows: chat tabs and inline composers as streams, the rest kept."""

    def __init__(self, adapter: CursorAdapter, db: CursorDb, source: Source, context: Context) -> None:
        self.adapter = adapter
        self.db = db
        self.file = source.name
        self.path = source.path
        self.context = context
        self.kept: list[dict[str, Any]] = []  # vendor records for the workspace stream
        self.folder: dict[str, Any] | None = None  # workspace.json beside the database
        self.cwd: str | None = None
        #: ``persistentChatMetadata`` entries (what the editor retrieved for a chat request) by tab
        self.chat_metadata: dict[str, list[dict[str, Any]]] = {}
        self._read_workspace_json()

    def _read_workspace_json(self) -> None:
        """``workspace.json`` beside a ``workspaceStorage/<hash>/state.vscdb``: VS Code's record
        of the folder (``{"folder": "file:///…"}``) or workspace file (``{"workspace": …}``) the
        hash stands for. A local folder's path becomes every header's ``cwd``."""
        if self.path is None or self.path.parent.parent.name != "workspaceStorage":
            return
        meta = self.path.parent / "workspace.json"
        try:
            raw = read_companion(meta, [self.path.parent])
        except CompanionSkipped as exc:
            report_skip(self.context.accounting, exc, "workspace.json")
            return
        if raw is None:
            return
        try:
            value = items.parse(raw)
        except orjson.JSONDecodeError:
            self.context.warn(None, "workspace.json beside the database is not JSON; not read")
            return
        if isinstance(value, dict):
            self.folder = value
            self.cwd = local_path(value.get("folder"))

    def streams(self) -> Iterator[Stream]:
        chat = self._row(CHAT)
        tabs = chat.get("tabs") if isinstance(chat, dict) else None
        self._read_chat_metadata(tabs if isinstance(tabs, list) else [])
        if isinstance(chat, dict):
            self._keep("chatdata", {k: v for k, v in chat.items() if k != "tabs"})
            for tab in tabs if isinstance(tabs, list) else ():
                yield from self._tab(tab)
        elif chat is not None:
            self._keep("chatdata", chat)
        composers = self._row(COMPOSERS)
        if isinstance(composers, dict):
            every = composers.get("allComposers")
            self._keep("composerData", {k: v for k, v in composers.items() if k != "allComposers"})
            for composer in every if isinstance(every, list) else ():
                yield from self._composer(composer)
        elif composers is not None:
            self._keep("composerData", composers)
        for key in (PROMPTS, GENERATIONS):
            value = self._row(key)
            if value is not None:
                self._keep(key, value)

    def _read_chat_metadata(self, tabs: list[Any]) -> None:
        """The workspace-user row: its ``persistentChatMetadata`` entries ``{tabId, bubbleId,
        intermediateChunks, predictedContext, injectedContext, docsCitations, webCitations}`` (one
        per sent chat request: the code chunks and files the editor retrieved for it) go to their
        tab's stream; an entry of no tab here, and the row's other members, to the workspace stream."""
        row = self._row(WORKSPACE_USER)
        if row is None:
            return
        if not isinstance(row, dict) or not isinstance(row.get("persistentChatMetadata"), list):
            self._keep("workspaceUser", row)
            return
        tab_ids = {t.get("tabId") for t in tabs if isinstance(t, dict)}
        for entry in row["persistentChatMetadata"]:
            tab = entry.get("tabId") if isinstance(entry, dict) else None
            if isinstance(tab, str) and tab in tab_ids:
                self.chat_metadata.setdefault(tab, []).append(entry)  # counted where it is written
            else:
                self.context.accounting.native_items += 1
                self._keep("chat-metadata", entry)
        self._keep("workspaceUser", {k: v for k, v in row.items() if k != "persistentChatMetadata"})

    def rest(self) -> Iterator[Stream]:
        """The workspace stream (kept rows), when the database had any."""
        if self.kept:
            yield Stream(session_ref(AGENT, self.workspace_id()), self._kept(), main=False)

    def workspace_id(self) -> str:
        """``workspace-<hash>``: the ``workspaceStorage`` folder's name, else the file's stem."""
        if self.path is not None and self.path.parent.parent.name == "workspaceStorage":
            return f"workspace-{self.path.parent.name}"
        return f"workspace-{Path(self.file).stem}"

    def _row(self, key: str) -> Any:
        found, value = self.db.item(key)
        if not found:
            return None
        self.context.accounting.native_items += 1
        if value is None:
            self.context.unreadable(None, f"ItemTable {key}: NULL value; skipped")
            return None
        parsed = parse_row(value, f"ItemTable {key}", self.context, count=False)
        if parsed is None:
            self.context.unreadable(None, f"ItemTable {key}: not JSON; skipped")
        return parsed

    def _keep(self, kind: str, value: Any) -> None:
        """A row (or a container's members other than its conversations) for the workspace stream."""
        self.kept.append(self.adapter.vendor(kind, value))

    def _kept(self) -> Iterator[dict[str, Any]]:
        emit = Emitter(self.context.accounting)
        record = header(
            AGENT, self.workspace_id(), agent_version=None, source_format=FORMAT, variant="workspace", file=self.file
        )
        if self.cwd is not None:
            record["cwd"] = self.cwd
        record["idSource"] = "derived"
        if self.folder is not None:
            record[AGENT] = {"workspace.json": self.folder}
        yield emit(record)
        for vendor in self.kept:
            self.context.accounting.vendor += 1
            yield emit(vendor)
        self.kept = []

    def _tab(self, tab: Any) -> Iterator[Stream]:
        accounting = self.context.accounting
        accounting.native_items += 1
        tab_id = tab.get("tabId") if isinstance(tab, dict) else None
        if not isinstance(tab_id, str) or not tab_id:
            self._keep("chat-tab", tab)  # no id to name a stream by: kept whole in the workspace stream
            return
        accounting.folded += 1  # the tab: the header
        yield Stream(session_ref(AGENT, tab_id), self._tab_records(tab_id, tab), main=False)

    def _tab_records(self, tab_id: str, tab: dict[str, Any]) -> Iterator[dict[str, Any]]:
        emit = Emitter(self.context.accounting)
        record = header(
            AGENT, tab_id, agent_version=None, source_format=FORMAT, variant="workspace-chat", file=self.file
        )
        title = tab.get("chatTitle")
        if isinstance(title, str) and title:
            record["title"] = title
        if self.cwd is not None:
            record["cwd"] = self.cwd
        record[AGENT] = {k: v for k, v in tab.items() if k not in ("tabId", "chatTitle", "bubbles")}
        scrub_member(record, AGENT)
        yield emit(record)
        mapper = BubbleMapper(emit, self.context.accounting, self.adapter.vendor, tab_id)
        bubbles = tab.get("bubbles")
        bubbles = bubbles if isinstance(bubbles, list) else []
        metadata: dict[str | None, list[dict[str, Any]]] = {}
        for entry in self.chat_metadata.pop(tab_id, []):
            named = entry.get("bubbleId")
            metadata.setdefault(named if isinstance(named, str) else None, []).append(entry)
        for number, bubble in enumerate(bubbles, 1):
            self.context.accounting.native_items += 1
            if number == len(bubbles) and is_draft(bubble):
                self.context.accounting.vendor += 1
                yield emit(self.adapter.vendor("draft-bubble", bubble))
                continue
            yield from mapper.bubble(bubble)
            bubble_id = bubble.get("id") if isinstance(bubble, dict) else None
            yield from self._metadata(emit, metadata.pop(bubble_id, []) if isinstance(bubble_id, str) else [])
        for rest in metadata.values():  # entries naming no bubble of the tab: after its bubbles
            yield from self._metadata(emit, rest)

    def _metadata(self, emit: Emitter, entries: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Vendor ``com.cursor/chat-metadata``: the retrieval the editor did for the request of the
        bubble just written (Cursor's own record; the text the model got from it is not stored)."""
        for entry in entries:
            self.context.accounting.native_items += 1
            self.context.accounting.vendor += 1
            yield emit(self.adapter.vendor("chat-metadata", entry))

    def _composer(self, composer: Any) -> Iterator[Stream]:
        composer_id = composer.get("composerId") if isinstance(composer, dict) else None
        conversation = composer.get("conversation") if isinstance(composer, dict) else None
        if not isinstance(composer_id, str) or not composer_id or not isinstance(conversation, list):
            if isinstance(composer_id, str) and composer_id:  # 2025+: an index entry, content elsewhere
                self.context.warn(
                    None,
                    f"composer {composer_id}: only an index entry here; its conversation is in the global "
                    "state.vscdb (globalStorage), convert that file",
                )
            self.context.accounting.native_items += 1
            self._keep("composer-index-entry", composer)
            return
        self.context.accounting.native_items += 1
        self.context.accounting.folded += 1  # the composer: the header
        moved = ("composerId", "name", "createdAt", "conversation")
        yield Stream(
            session_ref(AGENT, composer_id),
            self._composer_records(composer_id, composer, conversation, moved),
            main=False,
        )

    def _composer_records(
        self, composer_id: str, composer: dict[str, Any], conversation: list[Any], moved: tuple[str, ...]
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(self.context.accounting)
        tool_data, rest = take_tool_data(composer)
        record = composer_header(composer_id, rest, self.file, "workspace-composer", moved)
        if self.cwd is not None:
            record["cwd"] = self.cwd
        yield emit(record)
        mapper = BubbleMapper(
            emit,
            self.context.accounting,
            self.adapter.vendor,
            composer_id,
            subagent=is_subagent(composer),
            tool_data=tool_data,
        )
        for bubble in conversation:
            self.context.accounting.native_items += 1
            yield from mapper.bubble(bubble)
        yield from mapper.leftover_tool_data()
