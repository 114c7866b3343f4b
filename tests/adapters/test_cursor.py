"""Cursor's state.vscdb: the real 2024 workspace database, the snapshot rules shared with T3 Code
and OpenCode (nothing created beside the file, a writer's uncommitted rows never seen), detection
against VS Code's own state.vscdb, discovery, and the bubble rules the golden cases show."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from golden_support import GOLDEN, SHARED_SAMPLES, sql_script

from asr_adapters import registry, validate_records
from asr_adapters.adapters.cursor import discover
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

REAL = SHARED_SAMPLES / "cursor" / "cursor-ide-2024-11-workspace-state-aichat-tabs-inline-composer.vscdb"
GLOBAL = GOLDEN / "cursor" / "global-2025-bubbles-tools"
WORKSPACE = GOLDEN / "cursor" / "workspace-2024-chat-composer"
COMPOSER = "cursor:c0ffee00-0000-4000-8000-000000000001"


def build(case: Path, target: Path) -> Path:
    connection = sqlite3.connect(target)
    connection.executescript(sql_script(case / "input.sql"))
    connection.commit()
    connection.close()
    return target


def convert(path: Path) -> tuple[dict[str, list[dict[str, Any]]], Conversion]:
    conversion = Conversion(path, "cursor", as_dicts=True)
    return {s.key: list(s.records) for s in conversion.streams()}, conversion


def balanced(conversion: Conversion) -> bool:
    a = conversion.accounting
    return a.records + a.vendor + a.folded + a.duplicates + a.unreadable == a.native_items


def test_the_real_workspace_database_converts_whole_and_validates_strict(tmp_path: Path) -> None:
    if not REAL.is_file():
        pytest.skip(f"{REAL} is absent (no ../shared/samples): the real Cursor database is not here")
    folder = tmp_path / "ws"
    folder.mkdir()
    copy = folder / "state.vscdb"
    shutil.copyfile(REAL, copy)
    found, conversion = convert(copy)
    assert os.listdir(folder) == ["state.vscdb"]  # nothing created beside it
    variants = [records[0]["source"]["variant"] for records in found.values()]
    assert variants.count("workspace-chat") == 5 and variants.count("workspace-composer") == 26
    assert variants.count("workspace") == 1
    assert balanced(conversion) and conversion.accounting.unreadable == 0
    messages = [r for rs in found.values() for r in rs if r["type"] == "message"]
    assert len(messages) == 126
    # each tab ends in the unsent input box: kept, never a message
    drafts = [r for rs in found.values() for r in rs if r.get("schema") == "com.cursor/draft-bubble"]
    assert len(drafts) == 5 and all(m["content"] for m in messages if m["role"] == "user")
    for key, records in found.items():
        assert records[0]["session"] == key
        errors = list(validate_records(records))
        assert not errors, (key, errors[:3])
    # the editor's retrieval per chat request (persistentChatMetadata, review A1): 22 entries, each
    # right after the user bubble it names, in that tab's stream
    for key, records in found.items():
        for number, record in enumerate(records):
            if record.get("schema") == "com.cursor/chat-metadata":
                assert records[number - 1]["messageId"] == record["data"]["bubbleId"], key
    metadata = [r for rs in found.values() for r in rs if r.get("schema") == "com.cursor/chat-metadata"]
    assert len(metadata) == 22 and sum(1 for r in metadata if r["data"]["intermediateChunks"]) >= 4
    assert conversion.accounting.native_items == 188
    # relevantFiles is Cursor's per-bubble default, not shown to be sent (review A3): kept, not a part
    schemas = {p.get("schema") for m in messages for p in m["content"]}
    assert "com.cursor/context/relevantFiles" not in schemas
    assert sum(1 for m in messages if m.get("cursor", {}).get("relevantFiles")) > 0
    # every typed prompt is the person's, but the editor's fix-in-chat text (2 prompts) has no
    # author; every assistant bubble is the model's
    users = [m for m in messages if m["role"] == "user"]
    texts = [p for m in users for p in m["content"] if p["type"] == "text"]
    unknown = [p for p in texts if "author" not in p]
    assert len(unknown) == 2 and all(p["text"].startswith("For the code present") for p in unknown)
    assert all(p["author"] == "human" for p in texts if p not in unknown)
    assert all(m.get("author") == "model" for m in messages if m["role"] == "assistant")


def test_a_writers_uncommitted_rows_are_never_seen_and_nothing_is_created(tmp_path: Path) -> None:
    path = build(GLOBAL, tmp_path / "state.vscdb")
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN")
    writer.execute(
        "INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)",
        (f"bubbleId:{COMPOSER.removeprefix('cursor:')}:b-005", json.dumps({"type": 2, "text": "UNCOMMITTED"})),
    )
    try:
        before = sorted(os.listdir(tmp_path))
        found, conversion = convert(path)
        assert sorted(os.listdir(tmp_path)) == before
    finally:
        writer.rollback()
        writer.close()
    text = json.dumps(found)
    assert "UNCOMMITTED" not in text
    missing = [r for r in found[COMPOSER] if r.get("messageId") == "b-005"]
    assert missing[0]["capture"]["content"]["state"] == "absent"  # the header's place is kept
    assert balanced(conversion)


def test_an_untouched_wal_database_is_read_without_creating_its_wal_or_shm(tmp_path: Path) -> None:
    path = build(GLOBAL, tmp_path / "state.vscdb")
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()  # a clean close checkpoints and removes -wal/-shm
    assert sorted(os.listdir(tmp_path)) == ["state.vscdb"]
    found, _ = convert(path)
    assert sorted(os.listdir(tmp_path)) == ["state.vscdb"]
    assert len(found[COMPOSER]) > 1


def test_login_rows_are_never_read(tmp_path: Path) -> None:
    found, _ = convert(build(GLOBAL, tmp_path / "state.vscdb"))
    assert "NOT-A-REAL-TOKEN" not in json.dumps(found) and "cursorAuth" not in json.dumps(found)


def test_header_order_tool_bubbles_and_unlisted_rows(tmp_path: Path) -> None:
    found, conversion = convert(build(GLOBAL, tmp_path / "state.vscdb"))
    records = found[COMPOSER]
    order = [r.get("messageId") or r.get("callId") for r in records[1:] if r["type"] in ("message", "tool_call")]
    assert order == ["b-001", "b-002", "tool_9f1c2e34-0000-4000-8000-00000000aaaa", "b-004", "b-005", "b-006"]
    call = next(r for r in records if r["type"] == "tool_call")
    assert call["input"] == {"command": "npm test", "is_background": False} and "messageId" not in call
    # a tool-only bubble writes no message: its call keeps the bubble's id (B5); requestId is the
    # turn (one request spans the thinking, tool and text bubbles), not a model call (B4)
    assert call["turnId"] == "req-a" and "inferenceId" not in call and call["cursor"]["bubbleId"] == "b-003"
    thinking = next(r for r in records if r.get("messageId") == "b-002")
    assert thinking["turnId"] == "req-a" and "inferenceId" not in thinking
    assert "visibility" not in thinking["content"][0]  # full or summary: not stated (B3, ASR-214)
    result = next(r for r in records if r["type"] == "tool_result")
    assert result["callId"] == call["callId"] and result["name"] == "run_terminal_cmd"
    vendors = [r["schema"] for r in records if r["type"] == "vendor"]
    assert vendors == ["com.cursor/unlisted-bubble", "com.cursor/checkpointId"]
    reasons = [d.reason for d in conversion.accounting.diagnostics]
    assert any("NULL" in r for r in reasons) and any("b-005" in r for r in reasons)
    assert conversion.accounting.unreadable == 2  # the NULL bubble row and the NULL composer row
    assert balanced(conversion)


def test_an_index_only_workspace_composer_is_kept_and_reported(tmp_path: Path) -> None:
    found, conversion = convert(build(WORKSPACE, tmp_path / "state.vscdb"))
    assert "cursor:comp-0002" not in found
    workspace = found["cursor:workspace-state"]
    assert [r["schema"] for r in workspace[1:]] == [
        "com.cursor/chatdata",
        "com.cursor/composerData",
        "com.cursor/composer-index-entry",
        "com.cursor/aiService.prompts",
    ]
    assert any("comp-0002" in d.reason and "global" in d.reason for d in conversion.accounting.diagnostics)
    assert balanced(conversion)


def test_detection_claims_cursor_databases_and_not_vs_codes(tmp_path: Path) -> None:
    assert registry.detect(Source(build(GLOBAL, tmp_path / "g.vscdb"))).name == "cursor"
    assert registry.detect(Source(build(WORKSPACE, tmp_path / "w.vscdb"))).name == "cursor"
    vscode = tmp_path / "vscode.vscdb"
    connection = sqlite3.connect(vscode)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.execute("INSERT INTO ItemTable VALUES ('workbench.sideBar.position', '0')")
    connection.commit()
    connection.close()
    assert registry.get("cursor").detect(Source(vscode)) == 0


def test_homes_follow_the_app_data_folders() -> None:
    homes = discover.default_homes({"HOME": "/h", "XDG_CONFIG_HOME": "/x"})
    assert Path("/x/Cursor/User/globalStorage") in homes
    assert Path("/h/.config/Cursor/User/workspaceStorage") in homes
    assert Path("/h/Library/Application Support/Cursor/User/globalStorage") in homes
    windows = discover.default_homes({"APPDATA": "C:/Users/u/AppData/Roaming"})
    assert windows[0] == Path("C:/Users/u/AppData/Roaming/Cursor/User/globalStorage")
    assert discover.is_session_file(Path("/x/state.vscdb"))
    assert not discover.is_session_file(Path("/x/state.vscdb.backup"))


def test_batch_discovers_both_databases_in_a_home_laid_out_as_cursor_lays_it_out(tmp_path: Path) -> None:
    from asr_adapters.batch.discover import discover as batch_discover

    user = tmp_path / "config" / "Cursor" / "User"
    (user / "globalStorage").mkdir(parents=True)
    (user / "workspaceStorage" / "0a1b2c").mkdir(parents=True)
    build(GLOBAL, user / "globalStorage" / "state.vscdb")
    build(WORKSPACE, user / "workspaceStorage" / "0a1b2c" / "state.vscdb")
    env = {"HOME": str(tmp_path / "nohome"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    paths = {Path(d.path) for d in batch_discover(env=env, agents=["cursor"])}
    assert paths == {user / "globalStorage" / "state.vscdb", user / "workspaceStorage" / "0a1b2c" / "state.vscdb"}
    streams, _ = convert(user / "workspaceStorage" / "0a1b2c" / "state.vscdb")
    assert "cursor:workspace-0a1b2c" in streams


def test_workspace_json_gives_every_workspace_header_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "workspaceStorage" / "9f8e"
    folder.mkdir(parents=True)
    path = build(WORKSPACE, folder / "state.vscdb")
    (folder / "workspace.json").write_text('{"folder": "file:///c%3A/Users/dev/acme%20app"}')
    found, _ = convert(path)
    assert {records[0].get("cwd") for records in found.values()} == {"c:/Users/dev/acme app"}
    assert found["cursor:workspace-9f8e"][0]["cursor"] == {
        "workspace.json": {"folder": "file:///c%3A/Users/dev/acme%20app"}
    }
    assert discover.companion_files(path) == [folder / "workspace.json"]
    (folder / "workspace.json").write_text('{"folder": "vscode-remote://ssh-remote%2Bbox/home/dev/app"}')
    found, _ = convert(path)
    assert all("cwd" not in records[0] for records in found.values())  # a remote folder is no local cwd


def test_a_composer_with_headers_is_not_read_twice_from_a_legacy_inline_copy(tmp_path: Path) -> None:
    path = build(GLOBAL, tmp_path / "state.vscdb")
    connection = sqlite3.connect(path)
    key = f"composerData:{COMPOSER.removeprefix('cursor:')}"
    (value,) = connection.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
    composer = json.loads(value)
    composer["conversation"] = [{"type": 1, "bubbleId": "b-001", "text": "Run the parser tests and fix what fails."}]
    connection.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(composer), key))
    connection.commit()
    connection.close()
    found, conversion = convert(path)
    assert [r.get("messageId") for r in found[COMPOSER]].count("b-001") == 1
    assert found[COMPOSER][0]["cursor"]["conversation"] == composer["conversation"]  # kept, not placed
    assert balanced(conversion)


def global_db(
    path: Path, composer: dict[str, Any], bubbles: list[dict[str, Any]], extra: dict[str, Any] | None = None
) -> Path:
    """A global database holding one composer (``c-1``) and its bubbles in header order."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    headers = [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles]
    row = {"composerId": "c-1", "createdAt": 1758000000000, "fullConversationHeadersOnly": headers, **composer}
    rows = [("composerData:c-1", json.dumps(row))]
    rows += [(f"bubbleId:c-1:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
    rows += [(k, json.dumps(v)) for k, v in (extra or {}).items()]
    connection.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
    connection.commit()
    connection.close()
    return path


def test_encryption_keys_never_reach_the_output(tmp_path: Path) -> None:
    """Composers carry the keys Cursor encrypts blobs and summaries with (review B2): dropped from
    every record, and the record says so (capture redacted, the member's path, no value)."""
    composer = {
        "blobEncryptionKey": "KEYMATERIAL-blob-0001",
        "speculativeSummarizationEncryptionKey": "KEYMATERIAL-spec-0002",
        "modelConfig": {"modelName": "gpt-5"},
    }
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Hi.", "extra": {"secretKey": "KEYMATERIAL-bubble-0003"}},
        {"type": 2, "bubbleId": "a-1", "text": "Hello."},
    ]
    unlisted = {"bubbleId:c-1:x-9": {"type": 2, "bubbleId": "x-9", "blobEncryptionKey": "KEYMATERIAL-unlisted-0004"}}
    found, conversion = convert(global_db(tmp_path / "state.vscdb", composer, bubbles, unlisted))
    records = found["cursor:c-1"]
    assert b"KEYMATERIAL" not in b"".join(json.dumps(r).encode() for r in records)
    head = records[0]
    assert head["cursor"] == {"modelConfig": {"modelName": "gpt-5"}}
    assert head["capture"]["cursor"]["state"] == "redacted"
    assert "blobEncryptionKey" in head["capture"]["cursor"]["reason"]
    user = next(r for r in records if r.get("messageId") == "u-1")
    assert user["capture"]["cursor"]["state"] == "redacted" and user["cursor"] == {"extra": {}}
    assert not list(validate_records(records)) and balanced(conversion)


def test_a_completed_call_with_an_empty_error_is_not_an_error(tmp_path: Path) -> None:
    """Status completed beside ``error: ""`` (review B7) once gave status complete and isError
    together; the stated status wins, and an error with no status is still a failure."""
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Go."},
        {
            "type": 2,
            "bubbleId": "a-1",
            "toolFormerData": {"toolCallId": "t-1", "name": "ls", "status": "completed", "result": "{}", "error": ""},
        },
        {"type": 2, "bubbleId": "a-2", "toolFormerData": {"toolCallId": "t-2", "name": "ls", "error": "boom"}},
    ]
    found, _ = convert(global_db(tmp_path / "state.vscdb", {}, bubbles))
    results = {r["callId"]: r for r in found["cursor:c-1"] if r["type"] == "tool_result"}
    assert results["t-1"]["status"] == "complete" and "isError" not in results["t-1"]
    assert results["t-2"]["isError"] is True


def test_who_wrote_a_user_bubble(tmp_path: Path) -> None:
    """A subagent composer's HUMAN bubbles hold the parent agent's prompt (review B10: Cursor's
    subagent service appends them); a nudge (B11) and the fix-in-chat template (A2) are not shown
    to be the person's, so their author is absent (ASR-202); a typed prompt is the person's."""
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Typed by me."},
        {"type": 1, "bubbleId": "u-2", "text": "Keep going.", "isNudge": True},
        {
            "type": 1,
            "bubbleId": "u-3",
            "text": "For the code present, we get this error:\n```\nx\n```\nHow can I resolve this?",
        },
    ]
    found, _ = convert(global_db(tmp_path / "state.vscdb", {}, bubbles))
    authors = [r["content"][0].get("author") for r in found["cursor:c-1"] if r["type"] == "message"]
    assert authors == ["human", None, None]
    child = {"subagentInfo": {"subagentType": 1, "parentComposerId": "c-0", "toolCallId": "tool_9"}}
    found, _ = convert(global_db(tmp_path / "child.vscdb", child, bubbles[:1]))
    first = next(r for r in found["cursor:c-1"] if r["type"] == "message")
    assert first["content"][0]["author"] == "agent" and first["content"][0]["origin"] == "prompt"


def test_a_per_call_model_call_id_is_the_inference_id(tmp_path: Path) -> None:
    """``toolFormerData.modelCallId`` names the model call (review B4); ``requestId`` the turn."""
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Go."},
        {
            "type": 2,
            "bubbleId": "a-1",
            "requestId": "req-1",
            "thinking": {"text": "Look."},
            "toolFormerData": {
                "toolCallId": "t-1",
                "name": "ls",
                "modelCallId": "mc-1",
                "status": "completed",
                "result": "{}",
            },
        },
        {"type": 2, "bubbleId": "a-2", "requestId": "req-1", "text": "Done."},
    ]
    found, _ = convert(global_db(tmp_path / "state.vscdb", {}, bubbles))
    records = {(r["type"], r.get("callId") or r.get("messageId")): r for r in found["cursor:c-1"]}
    assert (
        records[("message", "a-1")]["inferenceId"] == "mc-1" and records[("tool_call", "t-1")]["inferenceId"] == "mc-1"
    )
    assert "modelCallId" not in records[("tool_call", "t-1")]["cursor"]["toolFormerData"]
    assert {r.get("turnId") for k, r in records.items() if k[0] != "session" and k[1] != "u-1"} == {"req-1"}
    assert "inferenceId" not in records[("message", "a-2")]


def test_a_tool_error_keeps_what_the_model_got_apart_from_what_the_user_saw(tmp_path: Path) -> None:
    """Cursor's ToolResultError separates modelVisibleErrorMessage (sent to the model) from
    clientVisibleErrorMessage (shown); review B6: the shown text is displayContent, never content."""
    error = {
        "clientVisibleErrorMessage": "File not found",
        "modelVisibleErrorMessage": "No file a.md; list the folder.",
    }
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Go."},
        {
            "type": 2,
            "bubbleId": "a-1",
            "toolFormerData": {"toolCallId": "t-1", "name": "read_file", "status": "error", "error": json.dumps(error)},
        },
        {
            "type": 2,
            "bubbleId": "a-2",
            "toolFormerData": {
                "toolCallId": "t-2",
                "name": "read_file",
                "status": "error",
                "error": {"clientVisibleErrorMessage": "Plan failed", "actualError": "x"},
            },
        },
    ]
    found, _ = convert(global_db(tmp_path / "state.vscdb", {}, bubbles))
    records = found["cursor:c-1"]
    results = {r["callId"]: r for r in records if r["type"] == "tool_result"}
    assert results["t-1"]["content"] == [{"type": "text", "text": "No file a.md; list the folder."}]
    assert results["t-1"]["displayContent"] == [{"type": "text", "text": "File not found"}]
    assert results["t-2"]["content"] == [] and results["t-2"]["capture"]["content"]["state"] == "absent"
    assert results["t-2"]["displayContent"] == [{"type": "text", "text": "Plan failed"}]
    assert results["t-2"]["cursor"] == {"error": {"actualError": "x"}} and results["t-2"]["isError"] is True
    assert not list(validate_records(records))


def test_an_older_composers_tool_calls_come_from_its_tool_former_capability(tmp_path: Path) -> None:
    """Review B9: a composer without toolFormerData keeps each tool bubble's call in
    capabilities[{type: 15, data: {bubbleDataMap: "<JSON by bubbleId>"}}] (Cursor's toolFormer.js)."""
    data_map = {
        "cb-2": {
            "tool": 5,
            "toolCallId": "tool_1",
            "name": "list_dir",
            "rawArgs": '{"path":"."}',
            "status": "completed",
            "result": '{"files":[]}',
        },
        "cb-9": {"tool": 5, "toolCallId": "tool_9", "status": "cancelled"},
    }
    composer = {
        "composerId": "comp-1",
        "createdAt": 1731784600000,
        "conversation": [
            {"type": 1, "bubbleId": "cb-1", "text": "List it."},
            {"type": 2, "bubbleId": "cb-2", "text": "", "capabilityType": 15},
            {"type": 2, "bubbleId": "cb-3", "text": "Empty."},
        ],
        "capabilities": [{"type": 15, "data": {"bubbleDataMap": json.dumps(data_map)}}, {"type": 6, "data": {}}],
    }
    path = tmp_path / "state.vscdb"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.execute(
        "INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps({"allComposers": [composer]}),)
    )
    connection.commit()
    connection.close()
    found, conversion = convert(path)
    records = found["cursor:comp-1"]
    call = next(r for r in records if r["type"] == "tool_call")
    assert call["callId"] == "tool_1" and call["input"] == {"path": "."} and call["cursor"]["bubbleId"] == "cb-2"
    result = next(r for r in records if r["type"] == "tool_result")
    assert result["status"] == "complete" and result["content"] == [{"type": "text", "text": '{"files":[]}'}]
    assert "cb-2" not in [r.get("messageId") for r in records]  # a tool-only bubble: the call is its record
    left = [r for r in records if r["type"] == "vendor"]
    assert [r["schema"] for r in left] == ["com.cursor/toolformer-bubble-data"]
    assert left[0]["data"]["bubbleId"] == "cb-9"
    assert records[0]["cursor"]["capabilities"] == [{"type": 15, "data": {}}, {"type": 6, "data": {}}]
    assert balanced(conversion) and not list(validate_records(records))


def test_the_editors_retrieval_per_chat_request_is_kept_beside_its_bubble(tmp_path: Path) -> None:
    """Review A1: persistentChatMetadata (workspace-user row) holds what the editor retrieved for
    each chat request: kept as vendor records after the bubble it names, or in the workspace stream."""
    chat = {
        "tabs": [
            {
                "tabId": "tab-1",
                "bubbles": [
                    {"type": "user", "id": "u-1", "text": "Where is parse?"},
                    {"type": "ai", "id": "a-1", "text": "In parser.ts."},
                ],
            }
        ]
    }
    entries = [
        {"tabId": "tab-1", "bubbleId": "u-1", "intermediateChunks": [{"chunkIdentity": {"fileName": "p.ts"}}]},
        {"tabId": "tab-gone", "bubbleId": "u-9", "intermediateChunks": []},
    ]
    row = {"persistentChatMetadata": entries, "aiPanePosition": 1}
    path = tmp_path / "state.vscdb"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.executemany(
        "INSERT INTO ItemTable VALUES (?, ?)",
        [
            ("workbench.panel.aichat.view.aichat.chatdata", json.dumps(chat)),
            (
                "src.vs.platform.reactivestorage.browser.reactiveStorageServiceImpl.persistentStorage.workspaceUser",
                json.dumps(row),
            ),
        ],
    )
    connection.commit()
    connection.close()
    found, conversion = convert(path)
    tab = found["cursor:tab-1"]
    assert [r.get("messageId") or r.get("schema") for r in tab[1:]] == ["u-1", "com.cursor/chat-metadata", "a-1"]
    workspace = found["cursor:workspace-state"]
    kept = [(r["schema"], r["data"]) for r in workspace if r["type"] == "vendor"]
    assert ("com.cursor/chat-metadata", entries[1]) in kept and (
        "com.cursor/workspaceUser",
        {"aiPanePosition": 1},
    ) in kept
    assert balanced(conversion)


def test_a_tab_ending_in_typed_but_unsent_text_keeps_it_as_the_input_box(tmp_path: Path) -> None:
    """Review A4: Cursor's migration moves a tab's last user bubble, whatever its text, into the
    composer's input box: it was never sent, so it is a draft, not a message the model got."""
    chat = {
        "tabs": [
            {
                "tabId": "tab-1",
                "bubbles": [
                    {"type": "user", "id": "u-1", "text": "Sent."},
                    {"type": "ai", "id": "a-1", "text": "Answer."},
                    {"type": "user", "id": "u-2", "text": "half-typed"},
                ],
            }
        ]
    }
    path = tmp_path / "state.vscdb"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.execute(
        "INSERT INTO ItemTable VALUES ('workbench.panel.aichat.view.aichat.chatdata', ?)", (json.dumps(chat),)
    )
    connection.commit()
    connection.close()
    found, conversion = convert(path)
    tab = found["cursor:tab-1"]
    assert [r.get("messageId") for r in tab if r["type"] == "message"] == ["u-1", "a-1"]
    assert tab[-1]["schema"] == "com.cursor/draft-bubble" and tab[-1]["data"]["text"] == "half-typed"
    assert balanced(conversion)
