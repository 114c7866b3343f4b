"""Header facts before the first record: session id, cwd, version, first time, title.

The header is the stream's first record, but Claude Code writes the title (``custom-title``,
``ai-title`` lines) anywhere in the file. A raw byte pass finds those lines by substring and
parses only them and the first envelope lines; a source that cannot be read twice (a pipe)
is sniffed from its first bytes only.
"""

from __future__ import annotations

import mmap
import os
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
    for raw in _raw_lines(source):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            _envelope(facts, obj)
        if facts.session_id is not None and facts.ts is not None and facts.cwd is not None:
            break
    facts.title = _title(source)
    return facts


def _title(source: Source) -> str | None:
    """The last ``custom-title``, else ``ai-title``, else ``agent-name``: found by a byte search
    (memory-mapped for files), so the lines in between are never split or parsed."""
    data: Any = None
    handle = None
    try:
        if source.path is not None and not source.compressed:
            handle = open(source.path, "rb")  # noqa: SIM115 - closed below
            if os.fstat(handle.fileno()).st_size == 0:
                return None
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        elif getattr(source, "_bytes", None) is not None and not source.compressed:
            data = source._bytes
        if data is None:
            return None
        return (
            _last(data, b'"customTitle"', "custom-title", "customTitle")
            or _last(data, b'"aiTitle"', "ai-title", "aiTitle")
            or _last(data, b'"agentName"', "agent-name", "agentName")
        )
    except (OSError, ValueError):
        return None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
        if handle is not None:
            handle.close()


def _last(data: Any, key: bytes, kind: str, field: str) -> str | None:
    found = None
    pos = data.find(key)
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        try:
            obj = orjson.loads(data[start:end])
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and obj.get("type") == kind and isinstance(obj.get(field), str):
            found = obj[field]
        pos = data.find(key, end)
    return found


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
    """The first lines: from the head when it holds whole lines, else read on."""
    if source.path is not None or getattr(source, "_bytes", None) is not None:
        for _number, raw in source.lines():
            yield raw
        return
    head = source.head()
    for raw in head.split(b"\n")[:-1]:
        if raw.strip():
            yield raw
