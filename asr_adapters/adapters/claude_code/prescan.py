"""Header facts before the first record: session id, cwd, version, first time, title.

The header is the stream's first record, but Claude Code writes the title (``custom-title``,
``ai-title`` lines) anywhere in the file. A raw byte pass finds those lines by substring and
parses only them and the first envelope lines; a source that cannot be read twice (a pipe)
is sniffed from its first bytes only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ...core.source import Source


@dataclass
class Facts:
    session_id: str | None = None
    agent_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    ts: str | None = None
    title: str | None = None


def prescan(source: Source) -> Facts:
    facts = Facts()
    custom = ai = None
    for raw in _raw_lines(source):
        has_env = facts.session_id is None or facts.ts is None or facts.cwd is None
        title_line = b'"customTitle"' in raw or b'"aiTitle"' in raw
        if not (has_env or title_line):
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        if title_line:
            if obj.get("type") == "custom-title" and isinstance(obj.get("customTitle"), str):
                custom = obj["customTitle"]
            elif obj.get("type") == "ai-title" and isinstance(obj.get("aiTitle"), str):
                ai = obj["aiTitle"]
        if has_env:
            _envelope(facts, obj)
    facts.title = custom or ai
    return facts


def _envelope(facts: Facts, obj: dict[str, Any]) -> None:
    if facts.ts is None and isinstance(obj.get("timestamp"), str):
        facts.ts = obj["timestamp"]
    if facts.session_id is None and isinstance(obj.get("sessionId"), str):
        facts.session_id = obj["sessionId"]
        agent = obj.get("agentId")
        if isinstance(agent, str) and agent and obj.get("isSidechain") is True:
            facts.agent_id = agent
    if facts.cwd is None and isinstance(obj.get("cwd"), str):
        facts.cwd = obj["cwd"]
        if isinstance(obj.get("version"), str):
            facts.version = obj["version"]


def _raw_lines(source: Source) -> Iterator[bytes]:
    if source.path is not None or getattr(source, "_bytes", None) is not None:
        for _number, raw in source.lines():
            yield raw
        return
    head = source.head()
    for raw in head.split(b"\n")[:-1]:
        if raw.strip():
            yield raw
