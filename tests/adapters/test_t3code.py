"""T3 Code adapter: mapping rules, read-only access, accounting per thread, shared samples."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import GOLDEN, SHARED_SAMPLES, shared_samples, sql_script

from asr_adapters import registry, validate_records
from asr_adapters.adapters.t3code.adapter import thread_accounting
from asr_adapters.adapters.t3code.revert import RevertLog, RunLog
from asr_adapters.adapters.t3code.text import IMAGE_ONLY, USAGE_LIMIT, split_user_text
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

CASES = GOLDEN / "t3code"
SAMPLES = SHARED_SAMPLES / "t3code"


def build(tmp: Path, case: str, name: str = "state.sqlite") -> Path:
    path = tmp / name
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA synchronous=OFF")  # a scratch database: no fsync per row
        connection.executescript(sql_script(CASES / case / "input.sql"))
    connection.close()
    return path


def convert(path: Path | bytes, select: str | None = None) -> tuple[dict[str, list[dict[str, Any]]], Conversion]:
    conversion = Conversion(path, "t3code", as_dicts=True, select=select)
    streams = {s.key: list(s.records) for s in conversion.streams()}
    return streams, conversion


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def by_id(records: list[dict[str, Any]], message_id: str) -> dict[str, Any]:
    return next(r for r in records if r.get("messageId") == message_id)


# -- the stored text splits into harness and human parts, keeping every character ---------


@pytest.mark.parametrize(
    "text",
    [
        "Ultrathink:\nWhy?\n\n<terminal_context>\n- T1 lines 1-2:\n  1 | x\n</terminal_context>",
        "see [a](t3-context://v1/file/1) and [b](t3-context://v1/terminal/2)",
        USAGE_LIMIT + "\n\nMessage 1:\nfirst\n\nMessage 2:\nsecond",
        IMAGE_ONLY,
        "PLEASE IMPLEMENT THIS PLAN:\n# Plan\n1. x",
        "plain words",
    ],
)
def test_split_keeps_every_character(text: str) -> None:
    parts = split_user_text(text)
    assert "".join(p["text"] for p in parts) == text


def test_split_authors() -> None:
    parts = split_user_text("Ultrathink:\nWhy?\n\n<terminal_context>\n- T1:\n  1 | x\n</terminal_context>")
    assert [(p["author"], p["origin"]) for p in parts] == [
        ("harness", "injected"),
        ("human", "prompt"),
        ("harness", "injected"),
    ]
    assert parts[1]["text"] == "Why?"
    queued = split_user_text(USAGE_LIMIT + "\n\nMessage 1:\nfirst")
    assert [(p["author"], p["origin"], p["text"]) for p in queued][1] == ("human", "queued", "first")
    assert split_user_text(IMAGE_ONLY)[0]["author"] == "harness"


# -- V1 mapping -----------------------------------------------------------------------------


def test_two_threads_give_two_streams_with_headers(tmp_path: Path) -> None:
    streams, conversion = convert(build(tmp_path, "v1-two-threads"))
    assert list(streams) == ["t3code:thread-a", "t3code:thread-b"]
    head = streams["t3code:thread-a"][0]
    assert head["session"] == "t3code:thread-a"
    assert head["title"] == "Fix flaky test"  # the later title from thread.meta-updated
    assert head["cwd"] == "/home/dev/acme-app"
    assert head["project"]["workspaceRoot"] == "/home/dev/acme-app"
    assert head["providerSessions"][0]["session"] == "codex:019a3c2e-5d10-7aa2-8b4e-2f6c9d1a3b58"
    claude = streams["t3code:thread-b"][0]["providerSessions"][0]
    assert claude["session"] == "claude-code:0f3c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"
    for records in streams.values():
        assert not validate_records(records)
    assert conversion.accounting.balanced()


def test_user_message_is_display_content_only(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v1-two-threads"))
    user = by_id(streams["t3code:thread-a"], "msg-u1")
    assert user["content"] == []
    assert user["capture"]["content"]["state"] == "absent"
    assert user["displayContent"][0] == {
        "type": "text",
        "text": "Fix the flaky test in the screenshot",
        "author": "human",
        "origin": "prompt",
    }
    image = user["displayContent"][1]
    assert image["type"] == "image" and image["mimeType"] == "image/png" and "blob" not in image
    assert user["capture"]["displayContent"]["state"] == "truncated"


def test_attachment_file_beside_the_database_becomes_a_blobref(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-two-threads")
    (tmp_path / "attachments").mkdir()
    (tmp_path / "attachments" / "thread-a-7f1c.png").write_bytes(b"\x89PNG fake")
    streams, _ = convert(path)
    image = by_id(streams["t3code:thread-a"], "msg-u1")["displayContent"][1]
    assert image["blob"] == {
        "blob": "sha256:" + hashlib.sha256(b"\x89PNG fake").hexdigest(),
        "size": 9,
        "mimeType": "image/png",
    }
    assert "displayContent" not in by_id(streams["t3code:thread-a"], "msg-u1")["capture"]


def test_streamed_assistant_text_is_folded_per_message(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v1-two-threads"))
    message = by_id(streams["t3code:thread-a"], "assistant:item_12")
    assert message["content"] == [{"type": "text", "text": "The test races on the shared fixture."}]
    assert message["author"] == "model" and message["status"] == "complete"
    assert message["assembly"] == {"mode": "folded", "sourceIds": ["evt-0009", "evt-0010", "evt-0011", "evt-0012"]}
    assert message["turnId"] == "turn-1"


def test_completion_text_replaces_and_turn_status(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v1-assistant-assembly"))
    records = streams["t3code:thread-d"]
    segment = by_id(records, "assistant:item_5:segment:1")
    assert segment["content"][0]["text"] == "Then I checked the rotation settings."
    assert by_id(records, "assistant:item_9")["status"] == "interrupted"
    assert by_id(records, "assistant:item_11")["status"] == "partial"
    notice = next(r for r in records if r.get("origin") == "notice")
    assert (notice["author"], notice["audience"], notice["idSource"]) == ("harness", "user", "derived")
    assert notice["content"][0]["text"] == "Codex app-server exited unexpectedly"


def test_activities(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v1-activities"))
    records = streams["t3code:thread-e"]
    calls = [r for r in records if r["type"] == "tool_call"]
    assert calls[0]["capture"]["input"]["state"] == "truncated"
    # one tool_call per call: the update row (no data) is folded, not a revision
    assert [c["callId"] for c in calls] == ["act-2", "act-7"] and not any("supersedes" in c for c in calls)
    results = [r for r in records if r["type"] == "tool_result"]
    assert results[0]["callId"] == calls[0]["callId"]
    # T3 kept no output, only the command as detail: the result does not pass the input off as output
    assert results[0]["content"] == [] and results[0]["capture"]["content"]["state"] == "absent"
    assert results[1]["status"] == "chat.t3.code/denied" and "isError" not in results[1]  # not a failure (issue 26)
    requests = [r for r in records if r["type"] == "input_request" and r["requestId"] == "req-1"]
    assert [r.get("status") for r in requests] == [None, "chat.t3.code/answered", "chat.t3.code/resolved"]
    assert requests[1]["answer"] == [{"type": "text", "text": "accept", "author": "human"}]
    assert requests[2]["supersedes"] == requests[1]["id"]
    plans = [r for r in records if r["type"] == "plan"]
    assert [p["planType"] for p in plans] == ["items", "items", "document", "document"]
    assert plans[1]["supersedes"] == plans[0]["id"] and plans[3]["supersedes"] == plans[2]["id"]
    assert plans[0]["entries"][0] == {"content": "Reproduce the failure", "status": "in_progress"}
    error = next(r for r in records if r.get("activityKind") == "runtime.error")
    assert error["capture"]["content"]["state"] == "truncated"
    assert not validate_records(records)


def test_revert_is_recorded_not_applied(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v1-revert-delete"))
    records = streams["t3code:thread-f"]
    revert = next(r for r in records if r.get("schema") == "chat.t3.code/thread.reverted")
    ids = {r["id"]: r for r in records}
    assert [ids[i].get("messageId", ids[i].get("callId", ids[i].get("schema"))) for i in revert["reverted"]] == [
        "u2",
        "assistant:item_2",
        "chat.t3.code/thread.turn-diff-completed",  # the turn's checkpoint goes with it
        "act-2",
    ]
    assert by_id(records, "u3")["seq"] > revert["seq"]
    assert any(r.get("schema") == "chat.t3.code/thread.deleted" for r in records)


# -- V2 -------------------------------------------------------------------------------------


def test_v2_items(tmp_path: Path) -> None:
    streams, conversion = convert(build(tmp_path, "v2-turn-items"))
    records = streams["t3code:thread-v2"]
    reasoning = by_id(records, "ti-2")
    assert reasoning["content"] == [{"type": "reasoning", "text": "Checking the empty-input path first."}]
    result = next(r for r in records if r["type"] == "tool_result")
    assert result["content"][0]["text"].startswith("FAIL parser.test.ts") and result["isError"] is True
    subagent = next(r for r in records if r["type"] == "subagent")
    assert subagent["session"] == "t3code:thread-v2-child"
    assert conversion.accounting.duplicates == 2  # message.updated and plan.updated copies


def test_v2_handoff_derived_from_listed_items(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v2-provider-switch"))
    records = streams["t3code:thread-sw"]
    handoff = by_id(records, "handoff:handoff-1")
    assert (handoff["author"], handoff["origin"], handoff["role"]) == ("harness", "injected", "user")
    ids = {r["id"]: r for r in records}
    assert [ids[i]["turnItem"]["id"] for i in handoff["derivedFrom"]] == ["ti-1", "ti-3", "ti-2"]
    typed = by_id(records, "msg-2")
    assert typed["displayContent"][0]["text"] == "Now add a regression test"


def test_v1_thread_imported_into_v2_is_converted_once(tmp_path: Path) -> None:
    streams, conversion = convert(build(tmp_path, "v1-imported-to-v2"))
    records = streams["t3code:thread-imp"]
    assert [r["messageId"] for r in records if r["type"] == "message"] == ["m-1", "assistant:item_1", "m-3"]
    assert conversion.accounting.duplicates == 3


# -- accounting, safety, selection -----------------------------------------------------------


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_accounting_per_thread_equals_event_rows(tmp_path: Path, case: str) -> None:
    path = build(tmp_path, case)
    streams, conversion = convert(path)
    with sqlite3.connect(path) as connection:
        v1 = dict(
            connection.execute(
                "SELECT stream_id, count(*) FROM orchestration_events "
                "WHERE aggregate_kind = 'thread' GROUP BY stream_id"
            ).fetchall()
        )
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
        v2 = {}
        if "orchestration_v2_events" in tables:
            v2 = dict(
                connection.execute(
                    "SELECT thread_id, count(*) FROM orchestration_v2_events GROUP BY thread_id"
                ).fetchall()
            )
        total = connection.execute("SELECT count(*) FROM orchestration_events").fetchone()[0]
    connection.close()
    per_thread = thread_accounting(conversion.context)
    for thread_id in set(v1) | set(v2):
        accounting = per_thread[thread_id]
        assert accounting.balanced(), accounting.as_dict()
        assert accounting.native_items == v1.get(thread_id, 0) + v2.get(thread_id, 0)
    assert conversion.accounting.balanced()
    assert conversion.accounting.native_items == total + sum(v2.values())
    for records in streams.values():
        assert not validate_records(records)


def test_database_is_byte_identical_and_wal_content_is_read(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-two-threads")
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    payload = {
        "threadId": "thread-b",
        "messageId": "msg-wal",
        "role": "user",
        "text": "committed in the WAL only",
        "attachments": [],
        "turnId": None,
        "streaming": False,
        "createdAt": "2026-05-20T12:00:00.000Z",
        "updatedAt": "2026-05-20T12:00:00.000Z",
    }
    writer.execute(
        "INSERT INTO orchestration_events (event_id, aggregate_kind, stream_id, stream_version, event_type, "
        "occurred_at, command_id, actor_kind, payload_json, metadata_json) VALUES "
        "('evt-wal', 'thread', 'thread-b', 99, 'thread.message-sent', '2026-05-20T12:00:00.000Z', 'c-wal', "
        "'client', ?, '{}')",
        (orjson.dumps(payload).decode(),),
    )
    writer.commit()  # the writer stays open, as T3 Code does: the row lives in state.sqlite-wal
    wal = path.with_name(path.name + "-wal")
    assert wal.exists()
    before = (sha256(path), sha256(wal))
    streams, _ = convert(path)
    assert (sha256(path), sha256(wal)) == before
    assert any(r.get("messageId") == "msg-wal" for r in streams["t3code:thread-b"])
    writer.close()


def test_unwritable_folder_without_wal_falls_back_to_immutable(tmp_path: Path) -> None:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root ignores folder permissions")
    folder = tmp_path / "ro"
    folder.mkdir()
    path = build(folder, "v1-two-threads")
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    os.chmod(folder, 0o555)
    try:
        before = sha256(path)
        streams, _ = convert(path)
        assert len(streams) == 2 and sha256(path) == before
    finally:
        os.chmod(folder, 0o755)


def test_thread_selection_and_bytes_input(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-two-threads")
    conversion = Conversion(path, "t3code", as_dicts=True, select="thread-b")
    mains = [s.key for s in conversion.streams() if s.main and list(s.records) is not None]
    assert mains == ["t3code:thread-b"]
    streams, _ = convert(path.read_bytes())
    assert list(streams) == ["t3code:thread-a", "t3code:thread-b"]


def test_detection(tmp_path: Path) -> None:
    path = build(tmp_path, "v2-turn-items")
    assert registry.detect(Source(path)).name == "t3code"
    other = tmp_path / "openclaw.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE transcript_events (id INTEGER PRIMARY KEY, payload TEXT)")
    connection.close()
    adapter = registry.get("t3code")
    assert adapter.detect(Source(other)) == 0
    assert adapter.detect(Source(b'{"type":"session"}\n')) == 0
    assert adapter.is_session_file(Path("/x/state.sqlite")) and not adapter.is_session_file(Path("/x/state.sqlite-wal"))
    assert adapter.companion_files(path) == []
    path.with_name(path.name + "-wal").write_bytes(b"")
    assert adapter.companion_files(path) == [path.with_name(path.name + "-wal")]
    homes = adapter.default_homes({"T3CODE_HOME": "/data/t3"})
    assert Path("/data/t3/userdata") in homes


# -- shared samples: the schema DDL of both generations ---------------------------------------


def test_shared_sample_schemas_convert_cleanly(tmp_path: Path) -> None:
    if not SAMPLES.is_dir():
        pytest.skip("../shared/samples/t3code is absent")
    ddl = sorted(SAMPLES.glob("*.sql"))
    assert ddl, "the shared samples hold the V1 and V2 schema DDL"
    path = tmp_path / "state.sqlite"
    with sqlite3.connect(path) as connection:
        for script in ddl:  # v1 first, then v2 on top (sorted names)
            connection.executescript(script.read_text(encoding="utf-8"))
    connection.close()
    assert registry.detect(Source(path)).name == "t3code"
    streams, conversion = convert(path)
    assert streams == {} and conversion.accounting.balanced() and conversion.accounting.native_items == 0


def test_open_failure_falls_back_to_immutable_and_warns_about_wal(tmp_path: Path, monkeypatch) -> None:
    """A read-only open that fails (unwritable folder, no -shm) retries with immutable=1; a -wal
    file present then means committed rows are missing, which is reported."""
    from asr_adapters.adapters.t3code import db as db_module

    real = sqlite3.connect

    def connect(database: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if "immutable=1" not in database:
            raise sqlite3.OperationalError("unable to open database file")
        return real(database, *args, **kwargs)

    path = build(tmp_path, "v1-two-threads")
    path.with_name(path.name + "-wal").write_bytes(b"")
    monkeypatch.setattr(db_module.sqlite3, "connect", connect)
    streams, conversion = convert(path)
    assert len(streams) == 2
    assert any("-wal are not included" in d.reason for d in conversion.accounting.diagnostics)


def test_v2_rolled_back_run_is_recorded_not_applied(tmp_path: Path) -> None:
    streams, _ = convert(build(tmp_path, "v2-rollback-delete"))
    records = streams["t3code:thread-rb"]
    assert records[0]["parent"] == "t3code:thread-v2"
    rollback = next(r for r in records if "reverted" in r)
    ids = {r["id"]: r for r in records}
    assert [ids[i]["type"] for i in rollback["reverted"]] == ["message", "tool_call", "tool_result", "message"]
    assert by_id(records, "assistant:ti-5")["status"] == "interrupted"
    assert any(r.get("schema") == "chat.t3.code/v2/thread.deleted" for r in records)


def add_event(path: Path, seq: int, kind: str, payload: Any, thread: str = "thread-f") -> None:
    text = payload if isinstance(payload, str) else orjson.dumps(payload).decode()
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, "
            "event_type, occurred_at, command_id, actor_kind, payload_json, metadata_json) VALUES "
            "(?, ?, 'thread', ?, ?, ?, '2026-06-04T10:00:00.000Z', NULL, 'provider', ?, '{}')",
            (seq, f"extra-{seq}", thread, 1000 + seq, kind, text),
        )
    connection.close()


def test_odd_rows_are_kept_and_counted(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-revert-delete")
    activity = {
        "threadId": "thread-f",
        "activity": {
            "id": "orphan",
            "tone": "tool",
            "kind": "tool.completed",
            "summary": "Ran command",
            "payload": {"itemType": "command_execution", "detail": "ls", "data": {"id": "i9"}},
            "turnId": "turn-9",
            "createdAt": "2026-06-04T10:00:00.000Z",
        },
    }
    add_event(path, 100, "thread.activity-appended", activity)
    add_event(path, 101, "thread.some-future-event", {"threadId": "thread-f", "x": 1})
    add_event(path, 102, "thread.message-sent", "{not json")
    streams, conversion = convert(path)
    records = streams["t3code:thread-f"]
    call, result = (r for r in records if r.get("callId") == "orphan")
    assert call["type"] == "tool_call" and "data" not in call
    # data of no known shape: kept verbatim on the result, not passed off as output
    assert result["type"] == "tool_result" and result["data"] == {"id": "i9"} and result["content"] == []
    schemas = [r.get("schema") for r in records[-2:]]
    assert schemas == ["chat.t3.code/thread.some-future-event", "chat.t3.code/thread.message-sent"]
    assert records[-1]["data"]["payload"] == "{not json"
    accounting = thread_accounting(conversion.context)["thread-f"]
    assert accounting.balanced() and accounting.native_items == 21
    assert not validate_records(records)


def test_v2_user_message_without_turn_item_is_display_content(tmp_path: Path) -> None:
    path = build(tmp_path, "v2-turn-items")
    message = {
        "id": "msg-queued",
        "threadId": "thread-v2",
        "runId": None,
        "nodeId": None,
        "role": "user",
        "text": "Ultrathink:\nalso check the lexer",
        "attachments": [],
        "streaming": False,
        "createdBy": "user",
        "creationSource": "mobile",
        "createdAt": "2026-07-01T08:00:12.000Z",
        "updatedAt": "2026-07-01T08:00:12.000Z",
    }
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO orchestration_v2_events (event_id, thread_id, event_type, occurred_at, payload_json) "
            "VALUES ('v2-extra', 'thread-v2', 'message.updated', '2026-07-01T08:00:12.000Z', ?)",
            (orjson.dumps(message).decode(),),
        )
    connection.close()
    streams, _ = convert(path)
    record = by_id(streams["t3code:thread-v2"], "msg-queued")
    assert record["content"] == [] and record["capture"]["content"]["state"] == "absent"
    assert [(p["author"], p["text"]) for p in record["displayContent"]] == [
        ("harness", "Ultrathink:\n"),
        ("human", "also check the lexer"),
    ]


@pytest.mark.parametrize("sample", shared_samples("t3code"), ids=lambda p: p.name)
def test_shared_session_samples(sample: Path) -> None:
    """Session files among the shared samples (none today: no real T3 Code database is public,
    the folder holds only schema DDL, converted by the test above)."""
    streams, conversion = convert(sample)
    assert conversion.accounting.balanced()
    for records in streams.values():
        assert not validate_records(records)


def test_memory_stays_bounded_by_open_folds(tmp_path: Path) -> None:
    """Rows are read in pages and folds are written when they close: converting a thread of
    20,000 events holds far less than the thread."""
    import tracemalloc

    path = build(tmp_path, "v1-revert-delete")
    rows = []
    chunk = "x" * 500
    for n in range(2000):
        for k in range(10):
            payload = {
                "threadId": "thread-f",
                "messageId": f"assistant:bulk-{n}",
                "role": "assistant",
                "text": chunk if k < 9 else "",
                "turnId": "turn-9",
                "streaming": k < 9,
                "createdAt": "2026-06-04T10:00:00.000Z",
                "updatedAt": "2026-06-04T10:00:00.000Z",
            }
            seq = 1000 + n * 10 + k
            rows.append((seq, f"bulk-{seq}", seq, orjson.dumps(payload).decode()))
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO orchestration_events (sequence, event_id, aggregate_kind, stream_id, stream_version, "
            "event_type, occurred_at, command_id, actor_kind, payload_json, metadata_json) VALUES "
            "(?, ?, 'thread', 'thread-f', ?, 'thread.message-sent', '2026-06-04T10:00:00.000Z', NULL, 'provider', ?, "
            "'{}')",
            rows,
        )
    connection.close()
    assert path.stat().st_size > 10_000_000
    tracemalloc.start()
    conversion = Conversion(path, "t3code", as_dicts=True)
    count = 0
    for stream in conversion.streams():
        for _ in stream.records:
            count += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count > 2000 and conversion.accounting.balanced()
    assert peak < 8_000_000, peak  # the payloads alone are about 9 MB


def test_open_tool_calls_end_with_their_turn(tmp_path: Path) -> None:
    """Open calls stay open while their turn runs (a repeated running session-set changes
    nothing) and are forgotten, unpaired, when the turn ends."""
    path = build(tmp_path, "v1-revert-delete")

    def tool(seq: int, kind: str, act_id: str, turn: str) -> None:
        activity = {
            "id": act_id,
            "tone": "tool",
            "kind": kind,
            "summary": "Ran command",
            "payload": {"itemType": "command_execution", "detail": "make"},
            "turnId": turn,
            "createdAt": "2026-06-04T10:00:00.000Z",
        }
        add_event(path, seq, "thread.activity-appended", {"threadId": "thread-f", "activity": activity})

    session = {"status": "running", "providerName": "codex", "activeTurnId": "turn-7", "lastError": None}
    add_event(path, 100, "thread.session-set", {"threadId": "thread-f", "session": session})
    tool(101, "tool.started", "start-7", "turn-7")
    session = {"status": "running", "providerName": "codex", "activeTurnId": "turn-7", "lastError": None}
    add_event(path, 102, "thread.session-set", {"threadId": "thread-f", "session": session})
    tool(103, "tool.completed", "end-7", "turn-7")
    tool(104, "tool.started", "start-7b", "turn-7")
    add_event(path, 105, "thread.session-set", {"threadId": "thread-f", "session": dict(session, status="ready")})
    streams, _ = convert(path)
    records = streams["t3code:thread-f"]
    results = [r for r in records if r["type"] == "tool_result"]
    assert [r["callId"] for r in results] == ["start-7"]  # paired within the running turn
    assert any(r.get("callId") == "start-7b" and r["type"] == "tool_call" for r in records)


def test_mixed_v1_and_v2_database_gives_one_stream_per_thread(tmp_path: Path) -> None:
    path = build(tmp_path, "v2-provider-switch")
    rows = (CASES / "v1-two-threads" / "input.sql").read_text(encoding="utf-8").split("-- Constructed rows")[1]
    with sqlite3.connect(path) as connection:
        connection.executescript(rows.split("\n", 1)[1])
    connection.close()
    before = sha256(path)
    streams, conversion = convert(path)
    assert list(streams) == ["t3code:thread-a", "t3code:thread-b", "t3code:thread-sw"]
    assert [s[0]["source"]["variant"] for s in streams.values()] == ["v1", "v1", "v2"]
    per_thread = thread_accounting(conversion.context)
    assert all(a.balanced() for a in per_thread.values())
    assert per_thread["thread-sw"].native_items == 12
    assert conversion.accounting.balanced() and sha256(path) == before
    for records in streams.values():
        assert not validate_records(records)


# -- bounded memory: state spilled to disk answers the same ---------------------------------


def _reference_revert(rows: list[tuple[int, Any, bool]], checkpoints: dict[str, int], keep_users: int) -> list[str]:
    """The revert rule on plain lists (what ``RevertLog`` must answer, spilled or not)."""
    retained = {turn for turn, n in checkpoints.items() if n <= keep_users}
    gone: list[tuple[int, Any, bool]] = []
    kept: list[tuple[int, Any, bool]] = []
    users = 0
    for seq, turn, user in rows:
        if user:
            users += 1
            stays = users <= keep_users
        else:
            stays = turn is None or turn in retained
        (kept if stays else gone).append((seq, turn, user))
    rows[:] = kept
    for turn in [t for t, n in checkpoints.items() if n > keep_users]:
        del checkpoints[turn]
    return [f"r{seq}" for seq, _, _ in gone]


@pytest.mark.parametrize("limit", [1, 3, 1000])
def test_revert_log_answers_like_the_rule_spilled_or_not(limit: int) -> None:
    import random

    chance = random.Random(limit)
    log = RevertLog(limit)
    rows: list[tuple[int, Any, bool]] = []
    checkpoints: dict[str, int] = {}
    seq = 0
    for _ in range(3000):
        roll = chance.random()
        if roll < 0.8:
            seq += 1
            turn = chance.choice([None, "t1", "t2", "t3", "t4", "t5", 7])
            user = chance.random() < 0.2
            log.add(seq, turn, user)
            rows.append((seq, turn, user))
        elif roll < 0.97:
            turn, count = chance.choice(["t1", "t2", "t3", "t4", "t5"]), chance.randint(0, 6)
            log.checkpoint(turn, count)
            checkpoints[turn] = count
        else:
            keep = chance.randint(-1, 8)
            assert log.revert(keep) == _reference_revert(rows, checkpoints, keep)
    assert log.revert(2) == _reference_revert(rows, checkpoints, 2)
    log.close()


@pytest.mark.parametrize("limit", [1, 4, 1000])
def test_run_log_lists_a_run_in_order_spilled_or_not(limit: int) -> None:
    log = RunLog(limit)
    expected: dict[str, list[str]] = {}
    for number in range(200):
        run = f"run-{number % 7}"
        log.add(run, f"r{number}")
        expected.setdefault(run, []).append(f"r{number}")
        if number % 50 == 49:
            assert log.pop("run-3") == expected.pop("run-3", [])
    for run in sorted(expected):
        assert log.pop(run) == expected[run]
    assert log.pop("run-0") == [] and log.pop("never") == []
    log.close()


# -- issue 15: interrupts, tool calls, header settings, errors, turns of reverted messages ------


def test_interrupt_request_marks_the_turn_and_its_open_message(tmp_path: Path) -> None:
    """T3 ends an interrupted provider turn with session status ready: only the request says so."""
    records = convert(build(tmp_path, "v1-interrupt-requested"))[0]["t3code:thread-i"]
    request = next(r for r in records if r.get("schema") == "chat.t3.code/thread.turn-interrupt-requested")
    assert request["turnId"] == "turn-c1" and request["turnStatus"] == "interrupted"
    assert by_id(records, "assistant:msg_a1:segment:1")["status"] == "interrupted"
    assert by_id(records, "assistant:msg_a1")["status"] == "complete"  # finished before the request
    assert not validate_records(records)


def test_interrupt_request_without_turn_id_uses_the_running_turn(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-interrupt-requested")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE orchestration_events SET payload_json = json_remove(payload_json, '$.turnId') "
            "WHERE event_type = 'thread.turn-interrupt-requested'"
        )
    connection.close()
    records = convert(path)[0]["t3code:thread-i"]
    request = next(r for r in records if r.get("turnStatus") == "interrupted")
    assert request["turnId"] == "turn-c1"
    assert by_id(records, "assistant:msg_a1:segment:1")["status"] == "interrupted"


def test_interrupted_message_never_completed_is_interrupted_not_partial(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-interrupt-requested")
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM orchestration_events WHERE event_id = 'evt-0010'")  # the completion
    connection.close()
    records = convert(path)[0]["t3code:thread-i"]
    assert by_id(records, "assistant:msg_a1:segment:1")["status"] == "interrupted"


def test_one_tool_call_per_call_with_real_name_input_and_output(tmp_path: Path) -> None:
    streams = convert(build(tmp_path, "v1-tool-calls"))[0]
    claude, codex = streams["t3code:thread-tc"], streams["t3code:thread-tx"]
    for records in (claude, codex):
        calls = [r for r in records if r["type"] == "tool_call"]
        results = [r for r in records if r["type"] == "tool_result"]
        assert len({c["callId"] for c in calls}) == len(calls) == len(results)  # one each, no revisions
        assert [r["callId"] for r in results] == [c["callId"] for c in calls]
        assert not validate_records(records)
    bash, read = (r for r in claude if r["type"] == "tool_call")
    assert bash["name"] == "Bash" and bash["input"] == {
        "command": "npm test -- parser",
        "description": "Run the parser tests",
    }
    assert "capture" not in bash and read["name"] == "Read"
    bash_result, read_result = (r for r in claude if r["type"] == "tool_result")
    assert bash_result["isError"] is True and bash_result["content"][0]["text"].startswith("FAIL parser.test.ts")
    assert read_result["content"][0]["text"].startswith("1\texport function parse") and "isError" not in read_result
    command, files = (r for r in codex if r["type"] == "tool_call")
    assert command["name"] == "commandExecution" and len(command["input"]["command"]) > 180
    assert "capture" not in command  # the item's command is whole though the detail was cut
    assert files["capture"]["input"]["state"] == "truncated"  # nothing but the cut detail exists
    command_result, files_result = (r for r in codex if r["type"] == "tool_result")
    assert command_result["exitCode"] == 2 and command_result["isError"] is True
    assert command_result["content"] == [{"type": "text", "text": "error: src/visitor.ts not found\n"}]
    assert files_result["content"] == [] and files_result["capture"]["content"]["state"] == "absent"


def test_non_zero_exit_is_an_error_even_when_the_item_completed(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-tool-calls")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE orchestration_events SET payload_json = "
            "json_set(payload_json, '$.activity.payload.data.item.status', 'completed') WHERE event_id = 'evt-0018'"
        )
    connection.close()
    codex = convert(path)[0]["t3code:thread-tx"]
    result = next(r for r in codex if r["type"] == "tool_result")
    assert result["status"] == "complete" and result["isError"] is True and result["exitCode"] != 0


def test_denial_naming_the_tool_joins_its_open_call(tmp_path: Path) -> None:
    """A later build's ``tool.denied`` carries ``toolName``, not ``itemType``: it belongs to the
    open call of that name, whose completion (the error result) follows."""
    path = build(tmp_path, "v1-tool-calls")
    denial = {"toolName": "Bash", "toolUseId": "toolu_01A", "detail": "The user denied this command"}
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE orchestration_events SET payload_json = json_set(json_set(payload_json, "
            "'$.activity.kind', 'tool.denied'), '$.activity.payload', json(?)) WHERE event_id = 'evt-0007'",
            (orjson.dumps(denial).decode(),),
        )
    connection.close()
    claude = convert(path)[0]["t3code:thread-tc"]
    calls = [r for r in claude if r["type"] == "tool_call" and r["name"] == "Bash"]
    results = [r for r in claude if r["type"] == "tool_result" and r["name"] == "Bash"]
    assert len(calls) == len(results) == 1
    assert results[0]["status"] == "chat.t3.code/denied" and "isError" not in results[0]  # not a failure (issue 26)
    assert results[0]["denied"]["payload"] == denial
    assert not validate_records(claude)


def test_header_cwd_is_the_worktree_set_before_the_first_message(tmp_path: Path) -> None:
    records = convert(build(tmp_path, "v1-worktree-settings"))[0]["t3code:thread-w"]
    head = records[0]
    assert head["cwd"] == "/home/dev/.t3/worktrees/acme-app/t3code-1a2b"
    assert head["branch"] == "t3code/1a2b" and head["interactionMode"] == "plan"
    starts = [r for r in records if r.get("schema") == "chat.t3.code/thread.turn-start-requested"]
    assert [s["turnId"] for s in starts] == ["turn-w1", "turn-w2"]
    first, second = (s["settings"] for s in starts)
    assert first["modelSelection"]["model"] == "gpt-5.1-codex" and first["interactionMode"] == "plan"
    assert second["branch"] == "t3code/1a2b-parser" and second["runtimeMode"] == "approval-required"
    assert second["interactionMode"] == "default" and second["modelSelection"] == first["modelSelection"]


def test_one_provider_error_is_one_notice(tmp_path: Path) -> None:
    records = convert(build(tmp_path, "v1-error-once"))[0]["t3code:thread-err"]
    notices = [r for r in records if r.get("origin") == "notice"]
    assert len(notices) == 1 and notices[0]["turnId"] == "turn-e1" and notices[0]["turnStatus"] == "error"
    assert by_id(records, "assistant:item_3")["status"] == "error"
    assert not [r for r in records if r.get("schema") == "chat.t3.code/thread.session-set"]
    assert not validate_records(records)


def test_a_different_error_in_the_same_turn_is_its_own_notice(tmp_path: Path) -> None:
    path = build(tmp_path, "v1-error-once")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE orchestration_events SET payload_json = "
            "json_set(payload_json, '$.activity.payload.message', 'rate limited') WHERE event_id = 'evt-0007'"
        )
    connection.close()
    records = convert(path)[0]["t3code:thread-err"]
    texts = [r["content"][0]["text"] for r in records if r.get("origin") == "notice"]
    # the second session-set error repeats the first text, which the activity no longer does
    assert len(texts) == 3 and texts[1] == "rate limited" and texts[0] == texts[2]


def test_failed_turn_start_is_one_notice(tmp_path: Path) -> None:
    """A failed turn start: session-set error, then ``provider.turn.start.failed`` with the same
    detail; a new user message first, so the earlier error does not swallow it."""
    path = build(tmp_path, "v1-error-once")
    detail = "Codex app-server is not logged in"
    add_event(
        path,
        100,
        "thread.message-sent",
        {
            "threadId": "thread-err",
            "messageId": "u2",
            "role": "user",
            "text": "Again",
            "turnId": None,
            "streaming": False,
            "createdAt": "2026-06-07T09:00:00.000Z",
        },
        "thread-err",
    )
    session = {"status": "error", "providerName": "codex", "activeTurnId": None, "lastError": detail}
    add_event(path, 101, "thread.session-set", {"threadId": "thread-err", "session": session}, "thread-err")
    activity = {
        "id": "act-start",
        "tone": "error",
        "kind": "provider.turn.start.failed",
        "summary": "Provider turn start failed",
        "payload": {"detail": detail},
        "turnId": None,
        "createdAt": "2026-06-07T09:00:01.000Z",
    }
    add_event(path, 102, "thread.activity-appended", {"threadId": "thread-err", "activity": activity}, "thread-err")
    records = convert(path)[0]["t3code:thread-err"]
    texts = [r["content"][0]["text"] for r in records if r.get("origin") == "notice"]
    assert len(texts) == 2 and texts[1] == detail


def test_reverted_turn_id_comes_from_the_event_log(tmp_path: Path) -> None:
    records = convert(build(tmp_path, "v1-revert-lost-turn"))[0]["t3code:thread-rv"]
    assert by_id(records, "u1")["turnId"] == "turn-r1"  # projection_turns
    assert by_id(records, "u2")["turnId"] == "turn-r2"  # its row is gone: from the events
    revert = next(r for r in records if r.get("schema") == "chat.t3.code/thread.reverted")
    gone = [r for r in records if r["id"] in revert["reverted"]]
    assert {r.get("turnId") for r in gone} == {"turn-r2"}
    assert {r.get("schema") for r in gone} >= {
        "chat.t3.code/thread.turn-diff-completed",
        "chat.t3.code/activity/checkpoint.captured",
    }
    assert not validate_records(records)


# -- issue 27: provider call ids, plan implementations, settings as of the first message ----


def test_call_ids_are_the_providers_own_where_recorded(tmp_path: Path) -> None:
    """Item 18: a call joins the provider's transcript by the provider's own id (Claude's
    ``tool_result`` ``tool_use_id``, a ``tool.denied`` ``toolUseId``, Codex's item ``id``, a V2
    item's ``nativeItemRef`` when T3 marks it strong); only a call no row names gets the derived
    activity id, and a V2 item with no strong ref its turn item id."""
    streams = convert(build(tmp_path, "v1-provider-call-ids"))[0]
    for key, expected in (
        ("t3code:thread-ids", ["toolu_01ReadParser", "toolu_01CleanBuild", "act-8"]),
        ("t3code:thread-idx", ["call_Lint1"]),
        ("t3code:thread-idv2", ["call_V2Tests", "ti-93", "ti-94"]),
    ):
        records = streams[key]
        calls = [r for r in records if r["type"] == "tool_call"]
        results = [r for r in records if r["type"] == "tool_result"]
        assert [c["callId"] for c in calls] == [r["callId"] for r in results] == expected
        for record in calls + results:
            assert ("idSource" in record) == (record["callId"] == "act-8"), record
        assert not validate_records(records)
    denied = next(
        r
        for r in streams["t3code:thread-ids"]
        if r.get("callId") == "toolu_01CleanBuild" and r["type"] == "tool_result"
    )
    assert (
        denied["status"] == "chat.t3.code/denied" and denied["content"][0]["text"] == "The user declined this command."
    )


def test_a_claude_call_waits_for_the_row_naming_its_id(tmp_path: Path) -> None:
    """The Claude call's update rows name the tool but not its id: the call is written once,
    at the row that carries the ``tool_use_id``, never under the derived id first."""
    records = convert(build(tmp_path, "v1-provider-call-ids"))[0]["t3code:thread-ids"]
    read = [r for r in records if r["type"] == "tool_call" and r["name"] == "Read"]
    assert len(read) == 1 and read[0]["callId"] == "toolu_01ReadParser" and "supersedes" not in read[0]
    assert read[0]["ts"] == "2026-06-10T08:00:03.000Z"  # the start row's time, whatever row wrote it


def test_plan_implementation_is_derived_from_its_plan(tmp_path: Path) -> None:
    """Item 19 (ASR-229): ``sourceProposedPlan`` on the turn start names the plan the prompt was
    rendered from; T3's prefix is its own harness part, the plan after it the model's."""
    streams = convert(build(tmp_path, "v1-implement-plan"))[0]
    same = streams["t3code:thread-p"]
    prompt = by_id(same, "u2")
    plan = next(r for r in same if r["id"] == prompt["derivedFrom"][0])
    assert plan["type"] == "plan" and plan["planId"] == "plan:thread-p:turn:turn-p1" and plan["seq"] < prompt["seq"]
    prefix, body = prompt["displayContent"]
    assert (prefix["text"], prefix["author"], prefix["origin"]) == (
        "PLEASE IMPLEMENT THIS PLAN:\n",
        "harness",
        "injected",
    )
    assert body["text"] == plan["content"][0]["text"] and (body["author"], body["origin"]) == ("model", "injected")
    other = by_id(streams["t3code:thread-q"], "u3")
    assert other["derivedFrom"] == ["t3code:thread-p#planId=plan:thread-p:turn:turn-p1"]
    assert "derivedFrom" not in by_id(same, "u1")
    for records in streams.values():
        assert not validate_records(records)


def test_a_plan_prompt_with_no_recorded_source_is_harness_text() -> None:
    prefix, body = split_user_text("PLEASE IMPLEMENT THIS PLAN:\n# Plan\n1. x")
    assert prefix["text"] == "PLEASE IMPLEMENT THIS PLAN:\n" and body["author"] == "harness"
    assert split_user_text("PLEASE IMPLEMENT THIS PLAN:\n# P", plan_from_model=True)[1]["author"] == "model"


def test_v2_header_settings_are_those_before_the_first_message(tmp_path: Path) -> None:
    """Item 20: V2 thread events carry the whole thread; the header states the branch,
    worktree and modes before the first message, each run record the settings it ran with."""
    records = convert(build(tmp_path, "v2-settings-claude-success"))[0]["t3code:thread-s2"]
    head = records[0]
    assert head["branch"] == "t3code/ab12" and head["interactionMode"] == "plan"
    assert head["cwd"] == head["worktreePath"] == "/home/dev/.t3/worktrees/acme-app/t3code-ab12"
    assert head["runtimeMode"] == "full-access" and head["title"] == "Lexer cleanup"
    runs = [r for r in records if r.get("schema") == "chat.t3.code/v2/run.created"]
    first, second = (r["settings"] for r in runs)
    assert first["branch"] == "t3code/ab12" and first["interactionMode"] == "plan"
    assert second["branch"] == "t3code/ab12-lexer-cleanup" and second["runtimeMode"] == "approval-required"
    assert second["interactionMode"] == "default"


def test_a_claude_success_mark_is_kept(tmp_path: Path) -> None:
    records = convert(build(tmp_path, "v2-settings-claude-success"))[0]["t3code:thread-ok"]
    result = next(r for r in records if r["type"] == "tool_result")
    assert result["callId"] == "toolu_01ReadLexer" and result["isError"] is False


def test_v2_thread_created_members_the_header_does_not_map_are_kept(tmp_path: Path) -> None:
    """Review of issue 27: the V2 ``thread.created`` folded into the header lost
    providerInstanceId, activeProviderThreadId, createdBy, creationSource, lineage.rootThreadId
    and updatedAt. The active provider thread is marked on its provider session; the rest is
    under the registry namespace (members T3 stores as null stay out, as elsewhere)."""
    header = convert(build(tmp_path, "v2-provider-switch"))[0]["t3code:thread-sw"][0]
    assert header["chat.t3.code"] == {
        "providerInstanceId": "codex",
        "lineage": {"rootThreadId": "thread-sw"},
        "createdBy": "user",
        "creationSource": "web",
        "updatedAt": "2026-07-02T08:00:00.000Z",
    }
    active = [s for s in header["providerSessions"] if s.get("active")]
    assert [s["providerThreadId"] for s in active] == ["pthread-1"] and active[0]["active"] is True
    assert not [f for f in validate_records([header]) if f.is_error]


def test_an_active_provider_thread_no_event_describes_is_its_own_provider_session(tmp_path: Path) -> None:
    path = build(tmp_path, "v2-settings-claude-success")
    with sqlite3.connect(path) as connection:
        row = connection.execute(
            "SELECT payload_json FROM orchestration_v2_events"
            " WHERE event_type = 'thread.created' AND thread_id = 'thread-s2'"
        ).fetchone()
        payload = {**orjson.loads(row[0]), "activeProviderThreadId": "pthread-x"}
        connection.execute(
            "UPDATE orchestration_v2_events SET payload_json = ? WHERE event_type = 'thread.created'"
            " AND thread_id = 'thread-s2'",
            (orjson.dumps(payload).decode(),),
        )
    connection.close()
    header = convert(path)[0]["t3code:thread-s2"][0]
    assert {"providerThreadId": "pthread-x", "active": True} in header["providerSessions"]
    assert "activeProviderThreadId" not in header["chat.t3.code"]
