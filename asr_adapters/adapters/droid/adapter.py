"""The Factory Droid adapter: ``~/.factory/sessions/<project>/<sessionId>.jsonl``.

A transcript is append-only JSON Lines: a ``session_start`` header line, then ``message``,
``todo_state`` and ``compaction_state`` records. The session's settings and its only token
counts live in the ``<sessionId>.settings.json`` sidecar, read into the header.
docs/agents/droid.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Lines, Stream, header
from ...core.errors import InputError
from ...core.items import names
from ...core.refs import session_ref
from ...core.source import Source
from ...registry import register
from . import discover, sniff
from .mapper import DroidMapper

FORMAT = "droid-session"
#: Members a record is dispatched on by name (``core.items``): an array or object there is one
#: unreadable record.
DISPATCH = names("type", "message.role")
#: sidecar cap: a settings file is a few hundred bytes
MAX_SETTINGS_BYTES = 1 << 20


@register
class DroidAdapter(Adapter):
    name: ClassVar[str] = "droid"
    description: ClassVar[str] = (
        "Factory Droid sessions: ~/.factory/sessions/<project>/<sessionId>.jsonl (+ .settings.json)"
    )

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        if sniff.is_settings(source):
            raise InputError(
                source.display, "a Droid session's settings sidecar: it is read with its transcript <sessionId>.jsonl"
            )
        lines = context.first_line(DISPATCH, "empty file: no Droid session_start line")
        native_id = sniff.start_id(lines.first[1])
        is_start = native_id is not None
        session_id = native_id if native_id else discover.stem(source.name)
        yield Stream(
            session_ref(self.name, session_id),
            self._records(source, context, lines, session_id, is_start),
        )

    def _records(
        self, source: Source, context: Context, lines: Lines, session_id: str, is_start: bool
    ) -> Iterator[dict[str, Any]]:
        start: dict[str, Any] = lines.first[1] if is_start else {}
        emit = Emitter(context.accounting)
        yield emit(self._header(source, context, session_id, start))
        mapper = DroidMapper(self, context, emit, child=isinstance(start.get("callingSessionId"), str))
        for number, item in lines.entries(is_start, context.accounting):
            yield from mapper.record(number, item)

    def _header(self, source: Source, context: Context, session_id: str, start: dict[str, Any]) -> dict[str, Any]:
        version = start.get("version")
        record = header(
            self.name,
            session_id,
            agent_version=None,  # the CLI's version is written only into its logs
            source_format=FORMAT,
            variant=f"v{version}" if isinstance(version, int) and not isinstance(version, bool) else None,
            file=source.name,
        )
        # no ts: session_start records no time (the real sample), and none is invented
        title = start.get("sessionTitle")
        if not isinstance(title, str):
            title = start.get("title")
        if isinstance(title, str):
            record["title"] = title
        if isinstance(start.get("cwd"), str):
            record["cwd"] = start["cwd"]
        parent = start.get("callingSessionId") or start.get("parent")
        if isinstance(parent, str) and parent:
            record["parent"] = session_ref(self.name, parent)  # a Task child's caller, or a fork's source
        if not start:
            record["idSource"] = "derived"  # no session_start line: the id came from the file name
        if start:
            record["sessionStart"] = {k: v for k, v in start.items() if k != "type"}
        settings, name = _settings(source, context, session_id)
        if settings is not None and name is not None:
            context.accounting.native_items += 1
            context.accounting.folded += 1
            record["companions"] = [name]
            record["sessionSettings"] = settings
        return record


def _settings(source: Source, context: Context, session_id: str) -> tuple[Any, str | None]:
    """The settings sidecar beside the transcript (``<stem>.settings.json``, else
    ``<sessionId>.settings.json``), parsed; (None, None) when there is none or it cannot be read
    (with a warning naming it)."""
    if source.path is None:
        return None, None
    for path in discover.settings_candidates(source.path, session_id):
        if path.exists() or path.is_symlink():
            break
    else:
        return None, None
    value = context.companion_json(path, MAX_SETTINGS_BYTES)  # beside the transcript
    if value is None:
        return None, None
    if not isinstance(value, dict):
        context.warn(None, f"{path.name}: not a Droid settings object; not read")
        return None, None
    return value, path.name
