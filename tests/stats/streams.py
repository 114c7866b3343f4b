"""Small ASR streams built by the tests: a header and records in the profile's shape.

The usage members follow docs/format.md's one definition (``inputTokens`` every input token,
cached or not; cache parts inside it; ``outputTokens`` including reasoning).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


class Stream:
    """Records of one session, numbered as a producer numbers them (seq, id ``r<seq>``)."""

    def __init__(self, session: str, agent: str = "codex", *, ts: str | None = None, **header: Any) -> None:
        self.agent = agent
        self.records: list[dict[str, Any]] = []
        fields: dict[str, Any] = {"session": session, "agent": {"name": agent}}
        fields["producer"] = {"name": "asr-adapters", "version": "0.1.0"}
        fields.update(header)
        self.add("session", ts, **fields)

    def add(self, kind: str, ts: str | None = None, **fields: Any) -> dict[str, Any]:
        seq = len(self.records) + 1
        record: dict[str, Any] = {"type": kind, "seq": seq, "id": f"r{seq}"}
        if ts is not None:
            record["ts"] = ts
        record.update(fields)
        self.records.append(record)
        return record

    def prompt(self, ts: str | None, text: str, **fields: Any) -> dict[str, Any]:
        content = [{"type": "text", "text": text}]
        return self.add(
            "message", ts, messageId=f"u{len(self.records)}", role="user", author="human", origin="prompt",
            content=content, **fields,
        )  # fmt: skip

    def reply(self, ts: str | None, model: str | None, usage: dict[str, Any] | None, **fields: Any) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if model is not None:
            extra["model"] = model
        if usage is not None:
            extra["usage"] = usage
        return self.add(
            "message", ts, messageId=f"m{len(self.records)}", role="assistant", author="model",
            content=[{"type": "text", "text": "done"}], **extra, **fields,
        )  # fmt: skip

    def call(self, ts: str | None, call_id: str | None, name: str = "shell", **fields: Any) -> dict[str, Any]:
        if call_id is not None:
            fields["callId"] = call_id
        return self.add("tool_call", ts, name=name, input={}, **fields)

    def result(self, ts: str | None, call_id: str, **fields: Any) -> dict[str, Any]:
        return self.add("tool_result", ts, callId=call_id, content=[{"type": "text", "text": "out"}], **fields)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in self.records))
        return path


def usage(input_tokens: int, output: int, read: int = 0, write: int = 0, reasoning: int = 0, **more: Any) -> dict:
    """A normalized usage object (only the members given, as a producer writes them)."""
    value: dict[str, Any] = {"inputTokens": input_tokens, "outputTokens": output}
    if read:
        value["cacheReadTokens"] = read
    if write:
        value["cacheWriteTokens"] = write
    if reasoning:
        value["reasoningTokens"] = reasoning
    value.update(more)
    return value
