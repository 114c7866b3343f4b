"""Nothing lost, over every shared sample: every native line (or entry) is accounted for, and every
content string of the input (text, reasoning, tool input and output) is in the output unchanged.

What counts as content (docs/reliability.md, "Nothing lost"): a string under one of
``CONTENT_KEYS`` anywhere in a native line (Gemini CLI: a ``messages`` entry), and an object under
one of ``OBJECT_KEYS`` (tool inputs). It is found when the output holds it as a string, or as the
concatenation of one content list's text parts (a text the adapter split), or when it is a JSON
string of tool arguments, as the parsed value (``tool_call.input``). Codex's ``event_msg``
``user_message``/``agent_message`` mirror its ``response_item`` messages: a mirror the adapter
drops as a duplicate is accounted for by ``duplicates``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import SHARED_SAMPLES, shared_samples

from asr_adapters.convert import Conversion
from asr_adapters.core.sanitized import MARKER

#: every test here reads the shared samples: marked ``samples`` by tests/conftest.py
SAMPLES_MODULE = True

CONTENT_KEYS = {"text", "thinking", "message", "content", "arguments", "input", "output", "args", "result",
                "description"}  # fmt: skip
OBJECT_KEYS = {"input", "args", "arguments"}
AGENTS = ("claude-code", "codex", "gemini-cli", "openclaw", "t3code")


def _params() -> list[Any]:
    params = []
    for agent in AGENTS:
        samples = shared_samples(agent)
        if not samples:
            reason = f"no shared samples for {agent} under {SHARED_SAMPLES}"
            params.append(pytest.param(agent, None, marks=pytest.mark.skip(reason=reason), id=f"{agent}-none"))
        params.extend(pytest.param(agent, path, id=f"{agent}-{path.name}") for path in samples)
    return params


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def native_content(value: Any, key: str | None = None) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        if key in OBJECT_KEYS and value:
            found.append((key, value))
        for k, item in value.items():
            found.extend(native_content(item, k))
    elif isinstance(value, list):
        for item in value:
            found.extend(native_content(item, key))
    elif isinstance(value, str) and key in CONTENT_KEYS and value.strip():
        found.append((key, value))
    return found


class Output:
    """Every string and every object or list of a conversion's streams."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.strings: set[str] = set()
        self.values: set[bytes] = set()
        #: sanitizer markers a record keeps in a ``redacted`` capture reason (core/sanitized.py)
        self.markers: set[str] = set()
        for record in records:
            self._walk(record)
            for state in (record.get("capture") or {}).values():
                if isinstance(state, dict) and state.get("state") == "redacted":
                    self.markers.update(MARKER.findall(str(state.get("reason", ""))))

    def _walk(self, value: Any) -> None:
        if isinstance(value, dict):
            self.values.add(canonical(value))
            for item in value.values():
                self._walk(item)
        elif isinstance(value, list):
            self.values.add(canonical(value))
            texts = [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
            if len(texts) > 1:
                self.strings.add("".join(texts))
            for item in value:
                self._walk(item)
        elif isinstance(value, str):
            self.strings.add(value)

    def holds(self, key: str, value: Any) -> bool:
        if isinstance(value, str):
            if value in self.strings or (MARKER.fullmatch(value.strip()) and value.strip() in self.markers):
                return True
            if key in OBJECT_KEYS:
                try:
                    return canonical(orjson.loads(value)) in self.values
                except orjson.JSONDecodeError:
                    return False
            return False
        return canonical(value) in self.values


def native_items(agent: str, path: Path) -> list[Any]:
    """The native items of a sample as the adapter counts them."""
    data = path.read_bytes()
    if path.suffix == ".json":
        document = orjson.loads(data)
        assert isinstance(document, dict) and isinstance(document.get("messages"), list)
        return list(document["messages"])
    files = [path]
    if agent == "claude-code":
        files += sorted((path.with_suffix("") / "subagents").glob("*.jsonl"))
    items = []
    for file in files:
        for line in file.read_bytes().splitlines():
            if line.strip():
                try:
                    items.append(orjson.loads(line))
                except orjson.JSONDecodeError:
                    items.append(None)
    return items


@pytest.mark.parametrize(("agent", "path"), _params())
def test_every_item_accounted_for_and_content_unchanged(agent: str, path: Path) -> None:
    conversion = Conversion(path, agent, as_dicts=True)
    records = [record for stream in conversion.streams() for record in stream.records]
    accounting = conversion.accounting
    items = native_items(agent, path)
    assert accounting.balanced(), accounting.as_dict()
    assert accounting.native_items == len(items), accounting.as_dict()
    assert accounting.unreadable == sum(1 for item in items if item is None)
    output = Output(records)
    missing, mirrors = [], 0
    for item in items:
        for key, value in native_content(item):
            if output.holds(key, value):
                continue
            payload = item.get("payload") if isinstance(item, dict) else None
            kind = payload.get("type") if isinstance(payload, dict) else None
            if agent == "codex" and item.get("type") == "event_msg" and kind in ("user_message", "agent_message"):
                mirrors += 1
                continue
            missing.append((key, value if isinstance(value, str) else canonical(value).decode()))
    assert not missing, f"{len(missing)} content strings not in the output, e.g. {missing[:3]}"
    assert mirrors <= accounting.duplicates
