"""The Qwen Code adapter: chat recordings ``~/.qwen/projects/<project>/chats/<sessionId>.jsonl``.

Qwen Code began as a Gemini CLI fork; since v0.4 it writes its own append-only JSONL of
``ChatRecord`` lines (``packages/core/src/services/chatRecordingService.ts``): no header,
every record repeats the session id, cwd, version and branch. docs/agents/qwen-code.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...core.adapter import Adapter, Context, Emitter, Lines, Stream, header
from ...core.items import names
from ...core.refs import session_ref
from ...core.source import Source
from ...core.timestamps import from_iso, stamp
from ...registry import register
from . import discover
from .mapper import ENVELOPE, QwenMapper

FORMAT = "qwen-code-chat"
#: Members a record is dispatched on by name (``core.items``): an array or object there is one
#: unreadable record.
DISPATCH = names("type", "subtype", "message.role")


@register
class QwenCodeAdapter(Adapter):
    name: ClassVar[str] = "qwen-code"
    description: ClassVar[str] = "Qwen Code chat recordings: ~/.qwen/projects/<project>/chats/<sessionId>.jsonl (v0.4+)"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        lines = context.first_line(DISPATCH, "empty file: no Qwen Code record")
        line = lines.first[1] if isinstance(lines.first[1], dict) else {}
        native = line.get("sessionId")
        session_id = native if isinstance(native, str) and native else discover.stem(source.name)
        yield Stream(session_ref(self.name, session_id), self._records(source, context, lines, session_id))

    def _records(self, source: Source, context: Context, lines: Lines, session_id: str) -> Iterator[dict[str, Any]]:
        line = lines.first[1] if isinstance(lines.first[1], dict) else {}
        version = line.get("version")
        record = header(
            self.name,
            session_id,
            agent_version=version if isinstance(version, str) and version != "unknown" else None,
            source_format=FORMAT,
            variant="jsonl",
            file=source.name,
        )
        stamp(record, from_iso(line.get("timestamp")))
        if isinstance(line.get("cwd"), str):
            record["cwd"] = line["cwd"]
        if not isinstance(line.get("sessionId"), str):
            record["idSource"] = "derived"  # the session id came from the file name
        if isinstance(line.get("gitBranch"), str):
            record["gitBranch"] = line["gitBranch"]
        envelope = {key: line.get(key) for key in ENVELOPE if key in line}
        emit = Emitter(context.accounting)
        yield emit(record)
        mapper = QwenMapper(self, context, emit, envelope)
        for number, item in lines.entries(False, context.accounting):  # no header line: every line is a record
            yield from mapper.record(number, item)
