"""Bugs the property tests found in adapters, each as its smallest reproduction, kept so they
stay fixed. A new one goes in as xfail (strict) until its fix lands."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from corpus import build_sqlite
from golden_support import GOLDEN

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


def test_openclaw_content_block_type_not_a_string() -> None:
    header = b'{"type":"session","version":3,"id":"s1","timestamp":"2026-03-09T20:51:01.101Z","cwd":"/w"}\n'
    message = {
        "type": "message",
        "id": "00000002",
        "parentId": None,
        "timestamp": "2026-03-09T20:51:03.000Z",
        "message": {"role": "user", "content": [{"type": None, "text": "hi"}], "timestamp": 1773089463000},
    }
    assert findings(header + orjson.dumps(message) + b"\n", "openclaw") == []


def test_t3code_v2_turn_item_message_id_null(tmp_path: Path) -> None:
    database = build_sqlite(GOLDEN / "t3code" / "v1-imported-to-v2" / "input.sql", tmp_path / "state.sqlite")
    with sqlite3.connect(database) as connection:
        (payload,) = connection.execute("SELECT payload_json FROM orchestration_v2_events WHERE rowid = 2").fetchone()
        item = orjson.loads(payload)
        assert item["type"] == "user_message"
        item["messageId"] = None
        connection.execute("UPDATE orchestration_v2_events SET payload_json = ? WHERE rowid = 2", (orjson.dumps(item),))
    connection.close()
    conversion = Conversion(database, "t3code", as_dicts=True)
    streams = [list(stream.records) for stream in conversion.streams()]
    assert [f.describe() for records in streams for f in validate_records(records)] == []


def test_t3code_v2_context_handoff_summary_not_a_string(tmp_path: Path) -> None:
    database = build_sqlite(GOLDEN / "t3code" / "v2-provider-switch" / "input.sql", tmp_path / "state.sqlite")
    with sqlite3.connect(database) as connection:
        (payload,) = connection.execute(
            "SELECT payload_json FROM orchestration_v2_events WHERE event_type = 'context-handoff.updated' "
            "ORDER BY sequence LIMIT 1"
        ).fetchone()
        event = orjson.loads(payload)
        event["summaryText"] = True
        connection.execute(
            "UPDATE orchestration_v2_events SET payload_json = ? WHERE event_type = 'context-handoff.updated'",
            (orjson.dumps(event),),
        )
    connection.close()
    conversion = Conversion(database, "t3code", as_dicts=True)
    streams = [list(stream.records) for stream in conversion.streams()]
    assert [f.describe() for records in streams for f in validate_records(records)] == []


@pytest.mark.parametrize(
    ("agent", "data"),
    [
        pytest.param(
            "codex",
            CODEX_META + b'{"timestamp":"2026-05-02T09:00:10.001Z","type":"","payload":{"type":""}}\n',
            id="codex",
        ),
        pytest.param(
            "openclaw",
            b'{"type":"session","version":3,"id":"s1","timestamp":"2026-03-09T20:51:01.101Z","cwd":"/w"}\n'
            b'{"type":"","id":"x"}\n',
            id="openclaw",
        ),
    ],
)
def test_line_type_empty_string(agent: str, data: bytes) -> None:
    assert findings(data, agent) == []
