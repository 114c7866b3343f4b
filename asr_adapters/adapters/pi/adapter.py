"""The pi adapter: the JSONL session files of the pi coding agent (``~/.pi/agent/sessions``).

pi's format is the one OpenClaw's transcripts use (OpenClaw's runtime is pi); the entries
are read through the shared ``tree`` and ``blocks`` modules. What tells the two apart is
where a file lies and what OpenClaw adds to it (see ``detect``). docs/agents/pi.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Lines, Stream, header
from ...core.items import names
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .mapper import PiMapper

FORMAT = "pi-session"
#: Members an entry is dispatched on by name (``core.items``): an array or object there is one
#: unreadable entry.
DISPATCH = names("type", "message.role", "message.api")
_HEADER_KNOWN = frozenset({"type", "id", "version", "timestamp", "cwd", "parentSession"})
#: What OpenClaw writes and pi does not: its names, its workspace folder (``~/.openclaw``,
#: ``~/clawd``), its ``model-snapshot`` custom entry (every OpenClaw session since 2026-01)


@register
class PiAdapter(Adapter):
    name: ClassVar[str] = "pi"
    description: ClassVar[str] = "pi coding agent sessions: ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl (v1-v3)"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        lines = context.first_line(DISPATCH, "empty file: no pi session header")
        line = lines.first[1]
        is_header = isinstance(line, dict) and line.get("type") == "session" and isinstance(line.get("id"), str)
        session_id = line["id"] if is_header else _stem_id(source.name)
        yield Stream(session_ref(self.name, session_id), self._records(source, context, lines, session_id, is_header))

    def _records(
        self, source: Source, context: Context, lines: Lines, session_id: str, is_header: bool
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        line = lines.first[1] if is_header else {}
        yield emit(self._header(source.name, session_id, line, derived=not is_header))
        mapper = PiMapper(self, context, emit)
        for number, item in lines.entries(is_header, context.accounting):
            yield from mapper.entry(number, item)

    def _header(self, file: str, session_id: str, line: dict[str, Any], derived: bool) -> dict[str, Any]:
        version = line.get("version")
        variant = (f"v{version}" if isinstance(version, int) else "v1") if line else None
        record = header(self.name, session_id, agent_version=None, source_format=FORMAT, variant=variant, file=file)
        stamp(record, from_iso(line.get("timestamp")))
        if isinstance(line.get("cwd"), str):
            record["cwd"] = line["cwd"]
        parent = _parent(line)
        if parent is not None:
            record["parent"] = parent
        if derived:
            record["idSource"] = "derived"  # no header line: the session id came from the file name
        for key, value in line.items():
            if key not in _HEADER_KNOWN:
                record[key] = value  # v1: provider, modelId, thinkingLevel, branchedFrom
        if "version" in line:
            record["formatVersion"] = line["version"]
        if isinstance(line.get("parentSession"), str):
            record["parentSession"] = line["parentSession"]
        return record


def _stem_id(name: str) -> str:
    """The session id in a file name: ``<time>_<id>.jsonl`` gives ``<id>``, else the stem."""
    match = discover.FILE_NAME.match(name)
    return match.group("id") if match else name.split(".", 1)[0]


def _parent(line: dict[str, Any]) -> str | None:
    """The session a fork or clone came from: its file (``parentSession``, v1
    ``branchedFrom``) is named ``<time>_<id>.jsonl``."""
    for key in ("parentSession", "branchedFrom"):
        value = line.get(key)
        if isinstance(value, str) and value:
            name = PurePath(value.replace("\\", "/")).name
            stem = _stem_id(name) if discover.FILE_NAME.match(name) else name.split(".jsonl", 1)[0]
            if stem:
                return session_ref("pi", stem)
    return None
