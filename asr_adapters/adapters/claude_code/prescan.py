"""Header facts before the first record: session id, cwd, version, first time.

Only the first envelope lines are read. Titles (``custom-title``, ``ai-title`` lines) can
come anywhere in the file, so they stay the vendor records they are: taking them into the
header would change the first record whenever a growing transcript gets a title, against
the profile's rule that appended lines leave earlier records unchanged. A source that cannot
be read twice (a pipe) is sniffed from its first bytes only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ...core import items
from ...core.source import Source
from ...core.valueclass import valueclass


@valueclass
class Facts:
    session_id: str | None = None
    agent_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    ts: str | None = None
    title: str | None = None


#: How many lines the pre-pass reads at most: header facts sit in the first lines, and a file
#: without them must not be parsed twice.
PRESCAN_LINES = 256


def prescan(source: Source) -> Facts:
    facts = Facts()
    for count, raw in enumerate(_raw_lines(source)):
        if count >= PRESCAN_LINES:
            break
        try:
            obj = items.parse(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            _envelope(facts, obj)
        if facts.session_id is not None and facts.ts is not None and facts.cwd is not None:
            break
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
    """The first lines: the whole lines of the head (read once for detection already), then,
    when the facts are not in them, the lines after them as ``Source.lines`` gives them. The
    head's lines are the same bytes: a 256 KB block split for a few lines cost more than
    parsing them."""
    head = source.head()
    cut = head.rfind(b"\n")
    whole = head[:cut].split(b"\n") if cut >= 0 else []
    for raw in whole:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw and not raw.isspace():
            yield raw
    if source.path is None and getattr(source, "_bytes", None) is None:
        return  # a stream is read once, by the conversion
    seen = len(whole)
    for number, raw in source.lines():
        if number > seen:
            yield raw
