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
from . import discover, sdk
from .files import API, UI, companions, kind_of
from .mapper import TaskMapper
from .parts import parse_json

FORMAT = "cline-task"
_CWD = re.compile(r"# Current Working Directory \((.+?)\) Files")


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


def first_environment(metadata: Any) -> dict[str, Any]:
    """The first ``environment_history`` entry of ``task_metadata.json`` (Cline's
    ``EnvironmentContextTracker``: OS, host and Cline version when the task started; a later
    entry is a change, kept verbatim in ``taskMetadata``), or {}."""
    history = metadata.get("environment_history") if isinstance(metadata, dict) else None
    first = history[0] if isinstance(history, list) and history else None
    return first if isinstance(first, dict) else {}


def known(value: Any) -> str | None:
    """A non-empty string other than Cline's "Unknown" (what it writes when it cannot tell)."""
    return value if isinstance(value, str) and value.strip() and value != "Unknown" else None


@register
class ClineAdapter(Adapter):
    name: ClassVar[str] = "cline"
    description: ClassVar[str] = (
        "Cline / Roo Code / Kilo Code task folders: ui_messages.json, api_conversation_history.json,"
        " task_metadata.json;"
        " Cline CLI 3.x sessions: <sessionId>.messages.json"
    )

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        document = context.document("not a Cline task file")
        if isinstance(document, dict):  # Cline CLI 3.x: a session's messages.json (or its manifest)
            sdk.check(source, document)
            head = sdk.session_header(source, document, context)
            yield Stream(head["session"], self._session_records(head, document, context))
            return
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
        environment = first_environment(metadata)
        record = header(
            "cline",
            session_id,
            agent_version=known(environment.get("cline_version")),
            source_format=FORMAT,
            variant=variant,
            file=source.name,
        )
        stamp(record, from_epoch_millis(first_ts))
        cwd = first_cwd(ui, api)
        if cwd is not None:
            record["cwd"] = cwd
        if native is None:
            record["idSource"] = "derived"
        host: dict[str, Any] = {}
        extension = discover.host(source.path)
        if extension is not None:
            host.update(extension=extension[0], product=extension[1])
        for member, native in (("name", "host_name"), ("version", "host_version")):
            value = known(environment.get(native))
            if value is not None:
                host[member] = value
        if host:
            record["host"] = host
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

    def _session_records(
        self, head: dict[str, Any], document: dict[str, Any], context: Context
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        yield emit(head)
        yield from sdk.SessionMapper(emit, context, document).records()
