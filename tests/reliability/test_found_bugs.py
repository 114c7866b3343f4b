"""Bugs the property tests found in adapters, each as its smallest reproduction. They stay xfail
(strict) until the adapter's owner fixes them; then the lead removes the mark."""

from __future__ import annotations

import orjson

from asr_adapters import validate_records
from asr_adapters.convert import Conversion

CODEX_META = (
    b'{"timestamp":"2026-05-02T09:00:00.000Z","type":"session_meta","payload":{"id":"019d0000-aaaa-7000-8000-'
    b'0000000000f2","timestamp":"2026-05-02T09:00:00.000Z","cwd":"/work/acme-app","cli_version":"0.128.0"}}\n'
)


def findings(data: bytes, agent: str) -> list[str]:
    conversion = Conversion(data, agent, as_dicts=True)
    records = [record for stream in conversion.streams() for record in stream.records]
    assert conversion.accounting.balanced()
    return [finding.describe() for finding in validate_records(records)]


def test_codex_user_message_null() -> None:
    line = (
        b'{"timestamp":"2026-05-02T09:00:10.001Z","type":"event_msg","payload":{"type":"user_message","message":null}}'
    )
    assert findings(CODEX_META + line + b"\n", "codex") == []


def test_codex_json_message_without_content() -> None:
    document = {
        "session": {"id": "s1", "timestamp": "2025-04-20T10:00:00.000Z"},
        "items": [{"type": "message", "role": "user", "content": []}],
    }
    assert findings(orjson.dumps(document), "codex") == []


def test_gemini_cli_empty_display_content() -> None:
    document = {
        "sessionId": "3f9c2a71-5b8e-4d20-9a1c-7e6b0d4f2a18",
        "projectHash": "9b1e",
        "startTime": "2026-03-18T10:00:00.000Z",
        "lastUpdated": "2026-03-18T10:02:00.000Z",
        "messages": [
            {
                "id": "u-1",
                "timestamp": "2026-03-18T10:02:00.000Z",
                "type": "user",
                "content": [{"text": "Review the staged changes."}],
                "displayContent": [],
            }
        ],
    }
    assert findings(orjson.dumps(document), "gemini-cli") == []
