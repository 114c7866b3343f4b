"""Cline task folders -> ASR streams.

A task is ``tasks/<taskId>/`` under the extension's global storage, holding
``ui_messages.json`` (the ui timeline), ``api_conversation_history.json`` (what the model
was sent) and ``task_metadata.json``. Any one of the two timelines is an entry; the other
files of its folder are read with it when present (``files``). Roo Code and Kilo Code keep
the same layout under their own extension ids; the header names the host.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.errors import InputError
from ...core.source import Source
from ...core.timestamps import from_epoch_millis, stamp
from ...registry import register
from . import discover
from .files import API, UI, companions, kind_of
from .mapper import TaskMapper
from .parts import parse_json

FORMAT = "cline-task"
_ARRAY = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*\[\s*\{")
_UI_TYPE = re.compile(rb'"type"\s*:\s*"(?:say|ask)"')
_UI_SUBTYPE = re.compile(rb'"(?:say|ask)"\s*:\s*"')
_UI_TS = re.compile(rb'"ts"\s*:\s*\d')
_CWD = re.compile(r"# Current Working Directory \((.+?)\) Files")
_API_MESSAGE = re.compile(rb'\{\s*"role"\s*:\s*"(?:user|assistant)"\s*,\s*"content"\s*:')


def first_cwd(ui: list[Any], api: list[Any]) -> str | None:
    """The working directory Cline states in the first request's ``<environment_details>``
    (``# Current Working Directory (<path>) Files``): the only place a task folder records it."""
    texts: list[Any] = []
    first = api[0] if api and isinstance(api[0], dict) else None
    if first is not None and first.get("role") == "user":
        content = first.get("content")
        texts = [content] if isinstance(content, str) else [b.get("text") for b in content or () if isinstance(b, dict)]
    else:
        for row in ui:
            if isinstance(row, dict) and row.get("say") == "api_req_started":
                info = parse_json(row.get("text"))
                texts = [info.get("request")] if isinstance(info, dict) else []
                break
    for text in texts:
        match = _CWD.search(text) if isinstance(text, str) else None
        if match is not None:
            return match.group(1)
    return None


@register
class ClineAdapter(Adapter):
    name: ClassVar[str] = "cline"
    registry_name: ClassVar[str] = "bot.cline"
    description: ClassVar[str] = (
        "Cline / Roo Code / Kilo Code task folders: ui_messages.json, api_conversation_history.json, task_metadata.json"
    )
    discovery = discover

    def detect(self, source: Source) -> int:
        if source.is_sqlite:
            return 0
        head = source.head()
        if _ARRAY.match(head) is None:
            return 0
        if _UI_TYPE.search(head) and _UI_SUBTYPE.search(head) and _UI_TS.search(head):
            return 90
        if _API_MESSAGE.search(head):
            if source.name == discover.API_FILE:
                return 90
            if b"<task>" in head:
                return 70
        return 0

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        document = context.document("not a Cline task file")
        entry_kind = kind_of(document)
        if entry_kind is None:
            if document == []:
                entry_kind = UI
            else:
                raise InputError(source.display, "not a Cline task file: not a ui timeline or an api history")
        other, other_name, metadata = companions(source.path, entry_kind, context)
        ui: list[Any] = document if entry_kind == UI else (other or [])
        api: list[Any] = document if entry_kind == API else (other or [])
        record = self._header(source, ui, api, other_name, metadata, context)
        yield Stream(record["session"], self._records(record, ui, api, context))

    def _header(
        self,
        source: Source,
        ui: list[Any],
        api: list[Any],
        other_name: str | None,
        metadata: Any,
        context: Context,
    ) -> dict[str, Any]:
        native = discover.task_id(source.path)
        first_ts = next((r.get("ts") for r in ui if isinstance(r, dict) and "ts" in r), None)
        if first_ts is None:
            first_ts = next((m.get("ts") for m in api if isinstance(m, dict) and "ts" in m), None)
        session_id = native if native is not None else str(first_ts if first_ts is not None else source.name)
        variant = "task-folder" if ui and api else "ui-only" if ui else "api-only"
        record = header(
            "cline", session_id, agent_version=None, source_format=FORMAT, variant=variant, file=source.name
        )
        stamp(record, from_epoch_millis(first_ts))
        cwd = first_cwd(ui, api)
        if cwd is not None:
            record["cwd"] = cwd
        if native is None:
            record["idSource"] = "derived"
        host = discover.host(source.path)
        if host is not None:
            record["host"] = {"extension": host[0], "product": host[1]}
        if other_name is not None:
            record["companions"] = [other_name]
        if metadata is not None:
            context.accounting.native_items += 1
            context.accounting.folded += 1
            record.setdefault("companions", []).append(discover.METADATA_FILE)
            record["taskMetadata"] = metadata
        return record

    def _records(
        self, head: dict[str, Any], ui: list[Any], api: list[Any], context: Context
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        yield emit(head)
        mapper = TaskMapper(emit, context, ui, api)
        yield from mapper.records()
