"""The OpenHands adapter: one conversation folder of per-event JSON files, V1 or V0.

The input is the conversation's entry (``base_state.json``, ``metadata.json``, or its first
event file when it has neither; ``discover``); the events are read from the folder, one file
at a time in index order (``folder``). V1 and V0 share nothing but words, so each has its own
mapper (``v1``, ``v0``). docs/agents/openhands.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Stream, header
from ...core.errors import InputError
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .common import AGENT
from .folder import Conversation, events, read_json
from .v0 import V0Mapper
from .v1 import V1Mapper, token_usages

_HEX = re.compile(r"[0-9a-f]{32}\Z")
#: how many V0 events are read ahead for the ``system`` action that names the version
_VERSION_LOOKAHEAD = 4


@register
class OpenHandsAdapter(Adapter):
    name: ClassVar[str] = AGENT
    description: ClassVar[str] = (
        "OpenHands conversations: V1 <id>/base_state.json + events/event-NNNNN-<uuid>.json "
        "(~/.openhands/conversations), V0 sessions/<sid>/events/<n>.json"
    )

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        entry = context.document("not an OpenHands conversation file")
        if not isinstance(entry, dict):
            raise InputError(source.display, "not an OpenHands conversation file: not a JSON object")
        if source.path is None:
            raise InputError(source.display, "an OpenHands conversation is a folder: convert a file inside it")
        path = Path(source.path)
        generation = _generation(path, entry)
        if generation is None:
            raise InputError(source.display, "not an OpenHands conversation file: neither a V1 nor a V0 event or state")
        is_event = _is_event(entry)
        if is_event and path.parent.name != discover.EVENTS:
            raise InputError(
                source.display, "an OpenHands event file outside an events/ folder: convert its conversation"
            )
        folder = path.parent.parent if is_event else path.parent
        conversation = Conversation(generation, folder, path)
        state = None if is_event else entry
        if is_event:
            state_path = conversation.state_file
            if state_path.is_file():
                state = read_json(state_path, [folder], context.accounting, "state file")
                if state is not None:
                    context.accounting.native_items += 1
                    context.accounting.folded += 1
        else:
            context.accounting.native_items += 1
            context.accounting.folded += 1  # the state or metadata file: the header
        session_id = _session_id(folder, state)
        key = session_ref(AGENT, session_id)
        yield Stream(key, self._records(conversation, context, state, session_id, entry if is_event else None))

    def _records(
        self, conversation: Conversation, context: Context, state: Any, session_id: str, entry_event: Any
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        stream = events(conversation, context.accounting, entry_event)
        if conversation.generation == "v1":
            yield emit(self._v1_header(conversation, session_id, state))
            delegated = _parent_conversation(conversation.folder) is not None
            mapper1 = V1Mapper(emit, context.accounting, self.vendor, token_usages(state), delegated)
            for event in stream:
                yield from mapper1.event(event.data)
            return
        ahead = []
        version = None
        for event in stream:
            ahead.append(event)
            args = event.data.get("args")
            if event.data.get("action") == "system" and isinstance(args, dict):
                version = args.get("openhands_version") if isinstance(args.get("openhands_version"), str) else None
            if version is not None or len(ahead) >= _VERSION_LOOKAHEAD:
                break
        yield emit(self._v0_header(conversation, session_id, state, version))
        mapper0 = V0Mapper(emit, context.accounting, self.vendor)
        for event in ahead:
            yield from mapper0.event(event.data, event.index)
        for event in stream:
            yield from mapper0.event(event.data, event.index)

    def _v1_header(self, conversation: Conversation, session_id: str, state: Any) -> dict[str, Any]:
        record = header(
            AGENT, session_id, agent_version=None, source_format="openhands-v1-events",
            variant="base-state" if isinstance(state, dict) else "events-only", file=conversation.entry.name,
        )  # fmt: skip
        if isinstance(state, dict):
            workspace = state.get("workspace")
            if isinstance(workspace, dict) and isinstance(workspace.get("working_dir"), str):
                record["cwd"] = workspace["working_dir"]
            elif isinstance(state.get("working_dir"), str):
                record["cwd"] = state["working_dir"]  # 2025-09 state files
        parent = _parent_conversation(conversation.folder)
        if parent is not None:
            record["parent"] = session_ref(AGENT, parent)
        if isinstance(state, dict):
            record[AGENT] = {"baseState": _state_summary(state)}
        return record

    def _v0_header(
        self, conversation: Conversation, session_id: str, metadata: Any, version: str | None
    ) -> dict[str, Any]:
        record = header(
            AGENT, session_id, agent_version=version, source_format="openhands-v0-events",
            variant="metadata" if isinstance(metadata, dict) else "events-only", file=conversation.entry.name,
        )  # fmt: skip
        if isinstance(metadata, dict):
            stamp(record, from_iso(metadata.get("created_at")))
            if isinstance(metadata.get("title"), str) and metadata["title"]:
                record["title"] = metadata["title"]
            record[AGENT] = {"metadata": {k: v for k, v in metadata.items() if k not in ("conversation_id", "title")}}
        return record


def _generation(path: Path, entry: dict[str, Any]) -> str | None:
    """V1 or V0, from the content (a name can mislead; the same file may sit anywhere)."""
    if isinstance(entry.get("kind"), str) and isinstance(entry.get("id"), str):
        return "v1"
    if isinstance(entry.get("agent"), dict) and ("execution_status" in entry or "agent_status" in entry):
        return "v1"
    if isinstance(entry.get("id"), int) and ("action" in entry or "observation" in entry):
        return "v0"
    if isinstance(entry.get("conversation_id"), str):
        return "v0"
    return None


def _is_event(entry: dict[str, Any]) -> bool:
    return (isinstance(entry.get("kind"), str) and isinstance(entry.get("id"), str)) or (
        isinstance(entry.get("id"), int) and ("action" in entry or "observation" in entry)
    )


def _session_id(folder: Path, state: Any) -> str:
    """The conversation folder's name (the id's hex form in both generations), else the
    state's own id."""
    if _HEX.match(folder.name):
        return folder.name
    if isinstance(state, dict):
        for key in ("conversation_id", "id"):
            value = state.get(key)
            if isinstance(value, str) and value:
                return value.replace("-", "")
    return folder.name


def _parent_conversation(folder: Path) -> str | None:
    """A delegated sub-agent's conversation lies in ``<parent>/subagents/<child hex>/``."""
    if folder.parent.name == discover.SUBAGENTS and _HEX.match(folder.parent.parent.name):
        return folder.parent.parent.name
    return None


def _state_summary(state: dict[str, Any]) -> dict[str, Any]:
    """``base_state.json`` for the header, verbatim. Its ``secret_registry`` is kept too: the
    SDK writes each secret redacted (``**********``) or encrypted with the conversation's
    cipher, never in plain text (``ConversationState._save_base_state``, ``serialize_secret``)."""
    return dict(state)
