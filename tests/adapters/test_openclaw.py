"""OpenClaw adapter: mapping rules one by one, the SQLite era, discovery, and every shared sample."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from golden_support import shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.openclaw import discover
from asr_adapters.adapters.openclaw.inbound import parse_user_text
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

SID = "11111111-2222-4333-8444-555555555555"


def _lines(*entries: dict[str, Any], header: dict[str, Any] | None = None) -> bytes:
    head = header or {"type": "session", "version": 3, "id": SID, "timestamp": "2026-03-03T10:00:00.000Z", "cwd": "/w"}
    return b"".join(json.dumps(e, ensure_ascii=False).encode() + b"\n" for e in (head, *entries))


def _convert(data: bytes | Path) -> tuple[list[dict[str, Any]], Conversion]:
    conversion = Conversion(data, "openclaw", as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    return records, conversion


def _entry(eid: str, parent: str | None, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-03-03T10:00:01.000Z",
        "message": message,
        **extra,
    }


def _user(eid: str, text: str, parent: str | None = None, **extra: Any) -> dict[str, Any]:
    return _entry(eid, parent, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1, **extra})


def _assistant(eid: str, content: list[dict[str, Any]], parent: str | None = None, **extra: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": content, "provider": "zai", "model": "glm-5", "stopReason": "stop"}
    message.update(extra)
    return _entry(eid, parent, message)


def _meta(label: str, data: dict[str, Any]) -> str:
    return f"{label} (untrusted metadata):\n```json\n{json.dumps(data, indent=2)}\n```\n\n"


def _by_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


# -- inbound text: every character kept, harness parts split off --------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[Telegram Alice (@a) id:123 +1m 2026-01-21T09:34Z] Ready\n[message_id: 221]",
        _meta("Conversation info", {"message_id": "9", "sender_id": "5", "was_mentioned": True})
        + _meta("Sender", {"id": "5", "name": "Ana"})
        + "[Sun 2026-04-12 21:19 GMT+1] hello there",
        "System: [2026-02-26 22:09:12 GMT+8] Feishu[main] DM from ou_1: hi\n\n"
        + _meta("Conversation info", {"message_id": "om_1:permission-error", "sender": "system"})
        + "[System: permission error]",
        "[Queued messages while agent was busy]\n\n---\nQueued #1\nfirst\n\n---\nQueued #2\nsecond",
        "Conversation context (untrusted, chronological, selected for current message):\n#1 Ana: hi\n\nok",
        "plain words with no metadata",
        "[Chat messages since your last reply - for context]\n[WhatsApp G id:1@g.us] Bob: hi\n\n"
        "[Current message - respond to this]\n[WhatsApp G id:1@g.us +1m 2026-01-21T10:00Z] Carol: yo",
        "[media attached: /tmp/a.jpg (image/jpeg)]\nlook at this",
    ],
)
def test_inbound_parts_keep_every_character(text: str) -> None:
    parsed = parse_user_text(text, (None, "prompt"))
    assert "".join(p["text"] for p in parsed.parts) == text


def test_envelope_era_facts_and_parts() -> None:
    parsed = parse_user_text(
        "[Telegram Alice (@a) id:123 +1m 2026-01-21T09:34Z] Ready\n[message_id: 221]", (None, "prompt")
    )
    assert parsed.channel == "telegram"
    assert parsed.sender == {"id": "123", "label": "Alice (@a)"}
    assert parsed.message_ids == ["221"]
    assert [(p["text"], p.get("author"), p.get("origin")) for p in parsed.parts] == [
        ("[Telegram Alice (@a) id:123 +1m 2026-01-21T09:34Z] ", "harness", "injected"),
        ("Ready", None, "prompt"),
        ("\n[message_id: 221]", "harness", "injected"),
    ]


def test_group_envelope_names_the_group_and_the_body_names_the_sender() -> None:
    text = "[WhatsApp Family id:1203@g.us +2m 2026-01-21T10:00Z] Carol: dinner?\n[from: Carol (+15550001234)]"
    parsed = parse_user_text(text, (None, "prompt"))
    assert parsed.conversation == {
        "chat_type": "group",  # a WhatsApp group JID (``…@g.us``) names a group
        "is_group_chat": True,
        "chat_id": "whatsapp:1203@g.us",
        "conversation_label": "Family",
    }
    assert parsed.sender == {"label": "Carol (+15550001234)", "e164": "+15550001234"}
    assert [p["text"] for p in parsed.parts if "author" not in p] == ["dinner?"]
    assert "".join(p["text"] for p in parsed.parts) == text


def test_group_history_and_media_lines_are_harness_text() -> None:
    text = (
        "[Chat messages since your last reply - for context]\n[WhatsApp G id:1@g.us] Bob: hi\n\n"
        "[Current message - respond to this]\n[WhatsApp G id:1@g.us +1m 2026-01-21T10:00Z] Carol: "
        "[media attached: /tmp/a.jpg (image/jpeg)]\nlook"
    )
    parsed = parse_user_text(text, (None, "prompt"))
    assert [p["text"] for p in parsed.parts if "author" not in p] == ["look"]
    assert parsed.sender == {"label": "Carol"}


def test_index_chat_type_decides_what_the_envelope_names() -> None:
    text = "[Telegram Team id:42 +1m 2026-01-21T10:00Z] Dave: ship it"
    assert parse_user_text(text, (None, "prompt")).sender == {"id": "42", "label": "Team"}
    grouped = parse_user_text(text, (None, "prompt"), group=True)
    assert grouped.sender == {"label": "Dave"}
    assert grouped.conversation["chat_id"] == "telegram:42"


def test_json_block_era_routes_sender_conversation_and_mention() -> None:
    text = (
        _meta(
            "Conversation info",
            {
                "message_id": "77",
                "reply_to_id": "70",
                "sender_id": "5",
                "conversation_label": "Guild #x",
                "is_group_chat": True,
                "was_mentioned": True,
            },
        )
        + _meta("Sender", {"label": "ana", "name": "Ana", "username": "ana"})
        + "@bot hi"
    )
    records, _ = _convert(_lines(_user("u1", text)))
    participant, conversation, message = records[1], records[2], records[3]
    assert participant == {
        "type": "participant",
        "seq": 2,
        "id": "r2",
        "participantId": "p1",
        "name": "Ana",
        "platformId": "5",
        "label": "ana",
        "username": "ana",
    }
    # ``is_group_chat: true`` alone types no kind: OpenClaw writes it for groups and channels (27.14)
    assert conversation["conversationId"] == "c1" and "kind" not in conversation
    assert message["from"] == {"participant": "p1"}
    assert message["conversation"] == "c1"
    assert message["platform"] == {"messageIds": ["77"], "replyTo": "70"}
    assert message["addressed"] is True
    assert message["via"] == "channel"
    assert "author" not in message  # OpenClaw does not know whether the sender is a person
    assert [p.get("author") for p in message["content"]] == ["harness", "harness", None]
    assert message["content"][-1]["origin"] == "prompt"


def test_second_message_of_known_sender_declares_nothing_new() -> None:
    text = _meta("Conversation info", {"message_id": "1", "sender_id": "5"}) + "a"
    again = _meta("Conversation info", {"message_id": "2", "sender_id": "5"}) + "b"
    records, _ = _convert(_lines(_user("u1", text), _user("u2", again, "u1")))
    assert [r["type"] for r in records] == ["session", "participant", "message", "message"]
    assert records[3]["from"] == {"participant": "p1"}


def test_control_ui_is_web_without_a_participant() -> None:
    text = (
        _meta("Sender", {"label": "openclaw-control-ui", "id": "openclaw-control-ui"})
        + "[Sun 2026-04-12 21:19 GMT+1] hi"
    )
    records, _ = _convert(_lines(_user("u1", text)))
    message = records[1]
    assert message["via"] == "web" and "from" not in message and "author" not in message


# -- user entries no person wrote ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        (
            "[cron:job-1 Health Check] run it\nCurrent time: now",
            {"kind": "cron", "jobId": "job-1", "name": "Health Check"},
        ),
        ("[OpenClaw heartbeat poll]", {"kind": "heartbeat"}),
        ("Pre-compaction memory flush. Reply with NO_REPLY.", {"kind": "memory_flush"}),
        ("[System] Your previous turn was interrupted by a gateway restart.", {"kind": "restart_recovery"}),
        ("A new session was started via /new or /reset. Greet the user.", {"kind": "session_startup"}),
    ],
)
def test_harness_prompts_keep_their_trigger(text: str, trigger: dict[str, str]) -> None:
    records, _ = _convert(_lines(_user("u1", text)))
    message = records[1]
    assert (message["author"], message["origin"]) == ("harness", "injected")
    assert message["trigger"] == trigger
    assert message["content"] == [{"type": "text", "text": text}]


def test_provenance_inter_session_comes_first() -> None:
    provenance = {"kind": "inter_session", "originSessionId": "abc-1", "sourceTool": "sessions_send"}
    records, _ = _convert(_lines(_user("u1", "please review", provenance=provenance)))
    message = records[1]
    assert (message["author"], message["origin"]) == ("agent", "inter_session")
    assert message["from"] == {"session": "openclaw:abc-1"}
    assert message["provenance"] == provenance


def test_subagent_announce_splits_the_child_result() -> None:
    text = (
        "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n[Internal task completion event]\nsource: subagent\n"
        "session_id: child-9\n\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\ndone\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n"
        "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
    )
    provenance = {"kind": "inter_session", "sourceTool": "subagent_announce"}
    records, _ = _convert(_lines(_user("u1", text, provenance=provenance)))
    message = records[1]
    assert message["from"] == {"session": "openclaw:child-9"}
    assert [(p.get("author"), p.get("origin")) for p in message["content"]] == [
        ("harness", "injected"),
        ("agent", "subagent_report"),
        ("harness", "injected"),
    ]
    assert message["content"][1]["text"] == "done"


def test_webhook_content_is_split_from_its_wrapper() -> None:
    text = (
        "Job ID: hook-1 | Received: 2026-03-03\n\nSECURITY NOTICE: The following content is EXTERNAL.\n\n\n"
        '<<<EXTERNAL_UNTRUSTED_CONTENT id="ab12">>>\nSource: Webhook\nFrom: ci@example.com\n---\n'
        'Build 42 failed.\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="ab12">>>'
    )
    records, _ = _convert(_lines(_user("u1", text)))
    message = records[1]
    assert [(p.get("author"), p.get("origin")) for p in message["content"]] == [
        ("harness", "injected"),
        (None, "injected"),
        ("harness", "injected"),
    ]
    assert message["content"][1]["text"] == "Build 42 failed."
    assert message["trigger"] == {"kind": "external", "source": "Webhook"}
    assert "".join(p["text"] for p in message["content"]) == text


def test_subagent_task_is_the_parent_agents_words() -> None:
    text = "[Subagent Context] You are a subagent.\n\n[Subagent Task]: add a task"
    records, _ = _convert(_lines(_user("u1", text)))
    parts = records[1]["content"]
    assert parts[-1] == {"type": "text", "text": "add a task", "author": "agent", "origin": "inter_session"}


# -- custom messages and summaries ---------------------------------------------------------


@pytest.mark.parametrize(("display", "audience"), [(False, "model"), (True, "both")])
def test_custom_message_has_no_role(display: bool, audience: str) -> None:
    entry = {
        "type": "custom_message",
        "customType": "openclaw.runtime-context",
        "content": "ctx",
        "display": display,
        "id": "c1",
        "parentId": None,
        "timestamp": "2026-06-29T18:29:57.534Z",
    }
    records, _ = _convert(_lines(entry))
    message = records[1]
    assert "role" not in message
    assert message["capture"]["role"]["state"] == "absent"
    assert message["audience"] == audience
    assert (message["author"], message["origin"]) == ("harness", "injected")
    assert message["customType"] == "openclaw.runtime-context"
    assert not validate_records(records)


def test_compaction_is_a_harness_summary() -> None:
    entry = {
        "type": "compaction",
        "id": "k1",
        "parentId": None,
        "timestamp": "2026-03-03T10:00:02.000Z",
        "summary": "## Goal",
        "firstKeptEntryId": "x",
        "tokensBefore": 10,
    }
    records, _ = _convert(_lines(entry))
    message = records[1]
    assert message["content"] == [{"type": "text", "text": "## Goal"}]
    assert (message["author"], message["origin"]) == ("harness", "injected")
    assert "audience" not in message  # the entry does not say who saw the summary (ASR-204, issue 27.16)
    assert message["firstKeptEntryId"] == "x"


# -- synthetic assistants and deliveries ---------------------------------------------------


def test_delivery_mirror_is_harness_inserted_text_and_a_sent_delivery() -> None:
    mirror = _assistant("m1", [{"type": "text", "text": "sent text"}], provider="openclaw", model="delivery-mirror")
    records, _ = _convert(_lines(mirror))
    message, delivery = records[1], records[2]
    assert ("author" not in message, message["origin"]) == (True, "injected")  # who wrote it: not recorded
    assert delivery["type"] == "delivery"
    assert (delivery["message"], delivery["status"]) == ("messageId=m1", "sent")


def test_no_delivery_from_a_message_alone() -> None:
    injected = _assistant("g1", [{"type": "text", "text": "⚠️ failed"}], provider="openclaw", model="gateway-injected")
    reply = _assistant("a1", [{"type": "text", "text": "Here you go."}], "g1")
    records, _ = _convert(_lines(injected, reply))
    assert not _by_type(records, "delivery")
    assert records[1]["author"] == "harness" and records[2]["author"] == "model"


@pytest.mark.parametrize("token", ["NO_REPLY", "no_reply", "HEARTBEAT_OK", "ANNOUNCE_SKIP", "REPLY_SKIP"])
def test_silent_reply_is_suppressed(token: str) -> None:
    records, _ = _convert(_lines(_assistant("a1", [{"type": "text", "text": token}])))
    delivery = records[2]
    assert delivery["status"] == "suppressed"
    assert delivery["reason"] == token.upper()
    assert delivery["message"] == "messageId=a1"


def test_silent_token_inside_a_longer_reply_is_not_suppressed() -> None:
    records, _ = _convert(_lines(_assistant("a1", [{"type": "text", "text": "NO_REPLY needed? Yes."}])))
    assert not _by_type(records, "delivery")


def test_message_tool_send_and_failure() -> None:
    call = {
        "type": "toolCall",
        "id": "c1",
        "name": "message",
        "arguments": {"action": "send", "channel": "telegram", "target": "42", "message": "hi"},
    }
    fail = {
        "type": "toolCall",
        "id": "c2",
        "name": "message",
        "arguments": {"action": "send", "channel": "slack", "target": "C1", "message": "hi"},
    }
    react = {
        "type": "toolCall",
        "id": "c3",
        "name": "message",
        "arguments": {"action": "react", "target": "42", "emoji": "+1"},
    }
    ok = _entry(
        "r1",
        "a1",
        {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "message",
            "content": [{"type": "text", "text": "ok"}],
            "details": {"result": {"messageId": 9001}},
            "isError": False,
        },
    )
    bad = _entry(
        "r2",
        "r1",
        {
            "role": "toolResult",
            "toolCallId": "c2",
            "toolName": "message",
            "content": [{"type": "text", "text": "not linked"}],
            "isError": True,
        },
    )
    reacted = _entry(
        "r3",
        "r2",
        {
            "role": "toolResult",
            "toolCallId": "c3",
            "toolName": "message",
            "content": [],
            "details": {"result": {"messageId": "42"}},
        },
    )
    records, _ = _convert(
        _lines(
            _assistant("a1", [{"type": "text", "text": "sending"}, call, fail, react], stopReason="toolUse"),
            ok,
            bad,
            reacted,
        )
    )
    deliveries = _by_type(records, "delivery")
    assert [(d["status"], d.get("platformMessageIds"), d.get("reason")) for d in deliveries] == [
        ("sent", ["9001"], None),
        ("failed", None, "not linked"),
    ]
    conversations = {c["conversationId"]: c for c in _by_type(records, "conversation")}
    target = conversations[deliveries[0]["conversation"]]
    assert (target["platform"], target["platformId"]) == ("telegram", "42")
    # A tool send names its call, not the assistant message that made it (that text was not sent).
    assert [d["callId"] for d in deliveries] == ["c1", "c2"] and all("message" not in d for d in deliveries)
    assert not validate_records(records)


def test_sessions_spawn_becomes_a_subagent_record(tmp_path: Path) -> None:
    key = "agent:main:subagent:26d8"
    call = {
        "type": "toolCall",
        "id": "s1",
        "name": "sessions_spawn",
        "arguments": {"runtime": "subagent", "task": "do it"},
    }
    details = {"status": "accepted", "childSessionKey": key, "runId": "run-1", "mode": "run"}
    result = _entry(
        "r1",
        "a1",
        {
            "role": "toolResult",
            "toolCallId": "s1",
            "toolName": "sessions_spawn",
            "content": [{"type": "text", "text": "accepted"}],
            "details": details,
        },
    )
    (tmp_path / "t.jsonl").write_bytes(_lines(_assistant("a1", [call], stopReason="toolUse"), result))
    (tmp_path / "sessions.json").write_text(json.dumps({key: {"sessionId": "child-1"}}))
    records, _ = _convert(tmp_path / "t.jsonl")
    subagent = _by_type(records, "subagent")[0]
    assert (subagent["callId"], subagent["session"], subagent["address"]) == ("s1", "openclaw:child-1", key)
    assert (subagent["agentType"], subagent["description"]) == ("subagent", "do it")
    assert not validate_records(records)


def _write_direct_index(folder: Path, **members: Any) -> None:
    """A sessions.json naming SID as the Telegram direct chat with user 7 (``members`` override)."""
    row = {
        "sessionId": SID,
        "chatType": "direct",
        "deliveryContext": {"channel": "telegram", "to": "telegram:7"},
        **members,
    }
    (folder / "sessions.json").write_text(json.dumps({"agent:main:telegram:direct:7": row}))


def test_archived_generation_finds_its_index_row_and_reads_compressed(tmp_path: Path) -> None:
    import zstandard

    name = f"{SID}.jsonl.reset.2026-07-01T00-00-00.000Z.zst"
    (tmp_path / name).write_bytes(zstandard.ZstdCompressor().compress(_lines(_user("u1", "hi"))))
    _write_direct_index(
        tmp_path,
        sessionId="newer-id",
        usageFamilySessionIds=[SID, "newer-id"],
        pendingFinalDelivery=True,
        pendingFinalDeliveryAttemptCount=4,
    )
    records, _ = _convert(tmp_path / name)
    assert records[0]["sessionKey"] == "agent:main:telegram:direct:7"
    assert records[0]["source"]["file"] == name
    assert records[1]["messageId"] == "u1"
    assert not _by_type(records, "delivery")  # the pending reply belongs to the current generation


def test_cron_run_log_records_the_runs_delivery(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_bytes(
        _lines(
            _user("u1", "[cron:job-7 Digest] write it"), _assistant("a1", [{"type": "text", "text": "Digest."}], "u1")
        )
    )
    runs = tmp_path / "cron" / "runs"
    runs.mkdir(parents=True)
    lines = [
        {"ts": 1772513675479, "jobId": "job-7", "sessionId": "other", "deliveryStatus": "delivered"},
        {
            "ts": 1772513675479,
            "jobId": "job-7",
            "sessionId": SID,
            "deliveryStatus": "not-delivered",
            "deliveryError": "channel unavailable",
        },
    ]
    (runs / "job-7.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    records, conversion = _convert(tmp_path / "t.jsonl")
    deliveries = _by_type(records, "delivery")
    assert [(d["status"], d.get("reason"), "message" in d) for d in deliveries] == [
        ("failed", "channel unavailable", False)
    ]
    assert conversion.accounting.native_items == 4 and conversion.accounting.balanced()


def test_a_label_does_not_split_the_sessions_own_conversation(tmp_path: Path) -> None:
    text = _meta("Conversation info", {"message_id": "9", "sender_id": "7", "conversation_label": "Ana id:7"}) + "hi"
    (tmp_path / "t.jsonl").write_bytes(_lines(_user("u1", text)))
    _write_direct_index(tmp_path)
    records, _ = _convert(tmp_path / "t.jsonl")
    message = _by_type(records, "message")[0]
    assert message["conversation"] == "c1" and message["addressed"] is True
    assert not _by_type(records, "conversation")


def test_failed_queue_entry_for_this_session(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_bytes(_lines(_user("u1", "hi")))
    _write_direct_index(tmp_path)
    failed = tmp_path / "delivery-queue" / "failed"
    failed.mkdir(parents=True)
    entry = {
        "channel": "telegram",
        "to": "telegram:7",
        "retryCount": 3,
        "lastError": "403 blocked",
        "enqueuedAt": 1772701500000,
        "mirror": {"sessionKey": "agent:main:telegram:direct:7"},
    }
    (failed / "q1.json").write_text(json.dumps(entry))
    (failed / "q2.json").write_text(json.dumps(dict(entry, mirror={"sessionKey": "other"})))
    records, conversion = _convert(tmp_path / "t.jsonl")
    header, delivery = records[0], records[-1]
    assert header["conversations"][0]["conversationId"] == "c1"
    assert header["sessionKey"] == "agent:main:telegram:direct:7"
    assert (delivery["status"], delivery["reason"], delivery["attempt"], delivery["conversation"]) == (
        "failed",
        "403 blocked",
        3,
        "c1",
    )
    assert conversion.accounting.balanced() and conversion.accounting.native_items == 3


# -- reasoning, tools, status --------------------------------------------------------------


def test_reasoning_visibility() -> None:
    content = [
        {"type": "thinking", "thinking": "full text", "thinkingSignature": "EvYDCkYI"},
        {"type": "thinking", "thinking": "x", "thinkingSignature": "reasoning_content"},
        {
            "type": "thinking",
            "thinking": "",
            "thinkingSignature": json.dumps({"id": "rs_1", "encrypted_content": "gAAA", "summary": []}),
        },
        {"type": "thinking", "thinking": "[redacted]", "thinkingSignature": "b64", "redacted": True},
        {"type": "thinking", "thinking": "", "thinkingSignature": "EvYD"},
        {
            "type": "text",
            "text": "answer",
            "textSignature": json.dumps({"v": 1, "id": "msg_1", "phase": "final_answer"}),
        },
    ]
    records, _ = _convert(_lines(_assistant("a1", content)))
    parts = records[1]["content"]
    # signed thinking: summarized or full depends on the model, which the entry does not state
    # (ASR-214), so no visibility; an unsigned provider's raw reasoning field is full
    assert [p.get("visibility") for p in parts[:5]] == [None, "full", "encrypted", "redacted", "omitted"]
    assert parts[0]["signature"] == "EvYDCkYI"
    assert "signature" not in parts[1] and parts[1]["_meta"] == {"ai.openclaw/thinkingSignature": "reasoning_content"}
    assert parts[2]["opaque"]["format"] == "openai.reasoning_item" and "text" not in parts[2]
    assert parts[3]["opaque"] == {"format": "anthropic.redacted_thinking", "data": "b64"} and "text" not in parts[3]
    assert parts[5]["phase"] == "final"
    assert not validate_records(records)


def test_tool_call_only_response_and_partial_call() -> None:
    only = _assistant(
        "a1",
        [{"type": "toolCall", "id": "t1", "name": "exec", "arguments": {"command": "ls"}}],
        stopReason="toolUse",
        responseId="resp_1",
    )
    partial = _assistant(
        "a2",
        [
            {"type": "text", "text": "writing"},
            {"type": "toolCall", "id": "t2", "name": "write", "arguments": {}, "partialJson": '{"pa'},
        ],
        "a1",
        stopReason="aborted",
        errorMessage="Request was aborted",
    )
    records, _ = _convert(_lines(only, partial))
    first = records[1]
    assert first["type"] == "tool_call" and first["inferenceId"] == "resp_1"
    assert first["model"] == "glm-5" and first["stopReason"] == "toolUse" and "messageId" not in first
    message, call = records[2], records[3]
    assert message["status"] == "interrupted" and message["error"] == "Request was aborted"
    assert message["parent"] == "r2"
    assert call["status"] == "partial" and call["messageId"] == "a2"


def test_the_call_being_written_when_the_turn_stopped_is_partial() -> None:
    first = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}}
    cut = {"type": "toolCall", "id": "t2", "name": "write", "arguments": {"path": "b", "content": "# He"}}
    records, _ = _convert(_lines(_assistant("a1", [first, cut], stopReason="length")))
    calls = _by_type(records, "tool_call")
    assert [c.get("status") for c in calls] == [None, "partial"]


def test_error_turn_without_content_has_a_capture_state() -> None:
    records, _ = _convert(_lines(_assistant("a1", [], stopReason="error", errorMessage="400 too long")))
    message = records[1]
    assert message["status"] == "error" and message["content"] == []
    assert message["capture"]["content"]["state"] == "absent"
    assert message["error"] == "400 too long"


def test_synthetic_repair_result_is_harness_text() -> None:
    text = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
    result = _entry(
        "r1",
        None,
        {
            "role": "toolResult",
            "toolCallId": "t9",
            "toolName": "exec",
            "content": [{"type": "text", "text": text}],
            "isError": True,
        },
    )
    records, _ = _convert(_lines(result))
    assert records[1]["content"][0]["author"] == "harness"


# -- tree, ids, vendor ---------------------------------------------------------------------


def test_parent_links_and_dangling_parents() -> None:
    records, _ = _convert(
        _lines(_user("u1", "a"), _assistant("a1", [{"type": "text", "text": "b"}], "u1"), _user("u2", "c", "gone"))
    )
    assert records[2]["parent"] == "r2"
    assert "parent" not in records[3]


def test_v1_entries_get_derived_ids_chained_in_file_order() -> None:
    header = {
        "type": "session",
        "id": SID,
        "timestamp": "2025-12-09T00:53:29.825Z",
        "cwd": "/w",
        "provider": "anthropic",
    }
    v1 = [
        {
            "type": "message",
            "timestamp": "2025-12-08T22:41:05.306Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1},
        },
        {
            "type": "message",
            "timestamp": "2025-12-08T22:41:06.306Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "stopReason": "stop"},
        },
    ]
    records, _ = _convert(_lines(*v1, header=header))
    assert records[0]["source"]["variant"] == "v1" and records[0]["provider"] == "anthropic"
    assert (records[1]["messageId"], records[1]["idSource"]) == ("L2", "derived")
    assert (records[2]["messageId"], records[2]["parent"]) == ("L3", "r2")


def test_header_only_file_and_a_file_without_header(tmp_path: Path) -> None:
    records, conversion = _convert(_lines())
    assert [r["type"] for r in records] == ["session"] and conversion.accounting.balanced()
    mirror = _assistant("m1", [{"type": "text", "text": "sent"}], provider="openclaw", model="delivery-mirror")
    path = tmp_path / "9f9f9f9f-0000-4000-8000-000000000000.jsonl"
    path.write_bytes(json.dumps(mirror).encode() + b"\n")
    assert registry.detect(Source(path)).name == "openclaw"
    records, conversion = _convert(path)
    header = records[0]
    assert header["session"] == "openclaw:9f9f9f9f-0000-4000-8000-000000000000" and header["idSource"] == "derived"
    assert [r["type"] for r in records[1:]] == ["message", "delivery"]
    assert conversion.accounting.native_items == 1 and conversion.accounting.balanced()


def test_unknown_entry_types_are_vendor_records() -> None:
    plugin = {"type": "plugin_event", "id": "p1", "parentId": None, "timestamp": "2026-03-03T10:00:03.000Z", "x": 1}
    records, conversion = _convert(
        _lines(plugin, {"type": "custom", "customType": "model-snapshot", "data": {}, "id": "c", "parentId": "p1"})
    )
    assert [(r["type"], r.get("schema")) for r in records[1:]] == [
        ("vendor", "ai.openclaw/plugin_event"),
        ("vendor", "ai.openclaw/custom"),
    ]
    assert records[1]["data"] == plugin
    assert conversion.accounting.vendor == 2 and conversion.accounting.balanced()


def test_unreadable_line_is_reported_and_counted() -> None:
    _, conversion = _convert(_lines(_user("u1", "hi")) + b"{broken\n")
    accounting = conversion.accounting
    assert accounting.unreadable == 1 and accounting.balanced()
    assert "unreadable" in accounting.diagnostics[0].reason


# -- detection, discovery, SQLite ----------------------------------------------------------


def test_detect_claims_openclaw_files_only() -> None:
    adapter = registry.get("openclaw")
    assert adapter.detect(Source(_lines(_user("u1", "hi")))) >= 90
    codex = b'{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}\n'
    assert adapter.detect(Source(codex)) == 0
    assert registry.detect(Source(_lines(_user("u1", "hi")))).name == "openclaw"


def test_archive_suffix_policy() -> None:
    taken = [
        "a.jsonl",
        "a-topic-5.jsonl",
        "a.jsonl.reset.2026-04-12T20-23-30.145Z",
        "a.jsonl.deleted.2026-04-13T10-42-32.875Z",
        "a.jsonl.reset.2026-07-01T00-00-00.000Z.zst",
        "a.jsonl.zst",
        "openclaw-agent.sqlite",
    ]
    skipped = [
        "a.checkpoint.0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0.jsonl",
        "a.jsonl.bak-123-1770000000000",
        "a.jsonl.bak.1",
        "a.jsonl.lock",
        "a.trajectory.jsonl",
        "a.trajectory-path.json",
        "sessions.json",
        "sessions.json.bak.1",
        "sessions.json.telegram-sent-messages.json",
    ]
    assert all(discover.is_session_file(Path(n)) for n in taken)
    assert not any(discover.is_session_file(Path(n)) for n in skipped)
    home = Path("/home/u/.openclaw")
    assert discover.is_session_file(home / "agents/main/sessions/a.jsonl")
    assert discover.is_session_file(home / "agents/main/agent/openclaw-agent.sqlite")
    assert not discover.is_session_file(home / "cron/runs/44819451.jsonl")
    assert not discover.is_session_file(home / "workspace/notes/data.jsonl")


def test_default_homes_honour_the_state_dir() -> None:
    homes = discover.default_homes({"OPENCLAW_STATE_DIR": "/srv/oc", "HOME": "/home/u"})
    assert homes[0] == Path("/srv/oc")
    assert Path("/home/u/.openclaw") in homes and Path("/home/u/.clawdbot") in homes


def _database(path: Path, events: list[tuple[str, int, str]]) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE transcript_events(session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, "
            "created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, "
            "PRIMARY KEY(session_id, seq))"
        )
        for sid, seq, text in events:
            connection.execute(
                "INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, NULL)", (sid, seq, text, seq)
            )
    connection.close()


def test_sqlite_is_read_only_and_one_stream_per_session(tmp_path: Path) -> None:
    path = tmp_path / "openclaw-agent.sqlite"
    header = json.dumps(
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-07-20T08:00:00.000Z", "cwd": "/w"}
    )
    _database(
        path, [("s1", 1, header), ("s1", 2, json.dumps(_user("u1", "hi"))), ("s2", 1, json.dumps(_user("u9", "yo")))]
    )
    os.chmod(path, 0o444)
    before = path.read_bytes()
    conversion = Conversion(path, as_dicts=True)
    streams = [(s.key, s.main, list(s.records)) for s in conversion.streams()]
    assert [(k, m) for k, m, _ in streams] == [("openclaw:s1", True), ("openclaw:s2", False)]
    assert streams[1][2][0]["session"] == "openclaw:s2" and streams[1][2][1]["messageId"] == "u9"
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*-journal")) and not list(tmp_path.glob("*-wal"))
    assert conversion.accounting.balanced() and conversion.accounting.native_items == 3


def test_sqlite_row_that_is_not_utf8_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "openclaw-agent.sqlite"
    header = json.dumps(
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-07-20T08:00:00.000Z", "cwd": "/w"}
    )
    _database(path, [("s1", 1, header), ("s1", 2, json.dumps(_user("u1", "hi")))])
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE transcript_events SET event_json = CAST(X'7B22FF22FE7D' AS TEXT) WHERE seq = 2")
    connection.close()
    records, conversion = _convert(path)
    assert [r["type"] for r in records] == ["session"]
    assert conversion.accounting.unreadable == 1 and conversion.accounting.balanced()


def test_sqlite_detection_leaves_t3code_databases_alone(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE orchestration_events(sequence INTEGER, event_type TEXT)")
    connection.close()
    assert registry.get("openclaw").detect(Source(path)) == 0


# -- every shared sample -------------------------------------------------------------------

SAMPLES = shared_samples("openclaw")


@pytest.mark.skipif(not SAMPLES, reason="../shared/samples/openclaw is absent")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_converts_validates_and_balances(path: Path) -> None:
    conversion = Conversion(path, "openclaw", as_dicts=True)
    for stream in conversion.streams():
        records = list(stream.records)
        findings = validate_records(records)
        assert not findings, "\n".join(f.describe() for f in findings[:10])
    accounting = conversion.accounting
    lines = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert accounting.native_items == lines
    assert accounting.balanced(), accounting.as_dict()
    assert accounting.unreadable == 0


def test_memory_stays_bounded_by_a_line_not_the_file(tmp_path: Path) -> None:
    import tracemalloc

    body = "x" * 4000
    entries = []
    previous = None
    for index in range(2000):
        eid = f"{index:08x}"
        if index % 2:
            entries.append(_assistant(eid, [{"type": "text", "text": body}], previous))
        else:
            entries.append(_user(eid, body, previous))
        previous = eid
    path = tmp_path / "big.jsonl"
    path.write_bytes(_lines(*entries))
    tracemalloc.start()
    try:
        conversion = Conversion(path, "openclaw", as_dicts=True)
        count = sum(1 for stream in conversion.streams() for _ in stream.records)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 2001
    assert peak < path.stat().st_size / 4, f"peak {peak} for a {path.stat().st_size}-byte file"


def test_parent_ids_that_read_as_the_same_hex_number_stay_distinct() -> None:
    """``0000000a`` and ``0000000A`` (or `` 000000a``) are different entries: a parent link
    names the one it spells, not whichever was seen last."""
    records, _ = _convert(
        _lines(
            _user("0000000a", "first"),
            _user("0000000A", "second"),
            _user(" 000000a", "third"),
            _assistant("0000000b", [{"type": "text", "text": "reply"}], "0000000a"),
        )
    )
    assert [r.get("parent") for r in records[1:]] == [None, None, None, "r2"]


# -- issue 15.8: OpenClaw's own placeholder in a failed turn is not model output -----------------

PLACEHOLDER = "[assistant turn failed before producing content]"


@pytest.mark.parametrize(
    "content",
    [[{"type": "text", "text": PLACEHOLDER}], PLACEHOLDER, [{"type": "text", "text": f" {PLACEHOLDER}\n"}]],
)
def test_failed_turn_placeholder_is_harness_text(content: Any) -> None:
    entry = _assistant("a1", [], stopReason="error", errorMessage="401", usage={"input": 0, "output": 0})
    entry["message"]["content"] = content
    records, _ = _convert(_lines(entry))
    message = records[1]
    assert (message["author"], message["origin"], message["status"]) == ("harness", "injected", "error")
    text = content if isinstance(content, str) else content[0]["text"]
    assert message["content"] == [{"type": "text", "text": text}]  # kept exactly
    assert "usage" not in message and message["nativeUsage"] == {"input": 0, "output": 0}
    assert not _by_type(records, "delivery")


def test_placeholder_beside_model_text_is_a_harness_part() -> None:
    content = [{"type": "text", "text": "Partial answer."}, {"type": "text", "text": PLACEHOLDER}]
    records, _ = _convert(_lines(_assistant("a1", content, stopReason="error")))
    message = records[1]
    assert message["author"] == "model" and "origin" not in message
    assert message["content"][0] == {"type": "text", "text": "Partial answer."}
    assert message["content"][1] == {"type": "text", "text": PLACEHOLDER, "author": "harness", "origin": "injected"}


def test_the_placeholder_inside_other_text_is_model_text() -> None:
    content = [{"type": "text", "text": f"I saw {PLACEHOLDER} in the log."}]
    records, _ = _convert(_lines(_assistant("a1", content)))
    assert records[1]["author"] == "model" and "author" not in records[1]["content"][0]


# -- issue 14.13: normalized usage beside pi's own object ---------------------------------------


def test_usage_is_normalized_and_the_native_object_kept() -> None:
    native = {
        "input": 3,
        "output": 40,
        "cacheRead": 12000,
        "cacheWrite": 300,
        "totalTokens": 12343,
        "cost": {"total": 1},
    }
    records, _ = _convert(_lines(_assistant("a1", [{"type": "text", "text": "hi"}], usage=native)))
    message = records[1]
    # issue 26: pi's input leaves the cache out; inputTokens is all of the input, and pi's
    # own total (input + output + cacheRead + cacheWrite) is inputTokens + outputTokens
    assert message["usage"] == {
        "inputTokens": 12303,
        "outputTokens": 40,
        "cacheReadTokens": 12000,
        "cacheWriteTokens": 300,
        "totalTokens": 12343,
    }
    assert message["nativeUsage"] == native
    assert not validate_records(records)


def test_usage_of_pis_gemini_api_key_provider_counts_the_cache_once() -> None:
    """pi's google-generative-ai and google-vertex providers store promptTokenCount as
    ``input``, which already holds the cached part (pi ``providers/google.ts``)."""
    native = {"input": 1000, "output": 50, "cacheRead": 800, "cacheWrite": 0, "totalTokens": 1050}
    line = _assistant("a1", [{"type": "text", "text": "hi"}], usage=native)
    line["message"]["api"] = "google-generative-ai"
    records, _ = _convert(_lines(line))
    assert records[1]["usage"] == {
        "inputTokens": 1000,
        "outputTokens": 50,
        "cacheReadTokens": 800,
        "cacheWriteTokens": 0,
        "totalTokens": 1050,
    }


def test_usage_of_a_tool_call_only_response_is_on_its_first_call_once() -> None:
    calls = [
        {"type": "toolCall", "id": "t1", "name": "exec", "arguments": {}},
        {"type": "toolCall", "id": "t2", "name": "exec", "arguments": {}},
    ]
    records, _ = _convert(_lines(_assistant("a1", calls, stopReason="toolUse", usage={"input": 5, "output": 1})))
    first, second = _by_type(records, "tool_call")
    assert first["usage"] == {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6}
    assert "usage" not in second and "nativeUsage" not in second
    assert sum(r.get("usage", {}).get("inputTokens", 0) for r in records) == 5


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}, None),  # reported none
        ({"input": 7, "output": 0}, {"inputTokens": 7, "outputTokens": 0, "totalTokens": 7}),  # what pi records
        ({"input": 7, "output": "3", "totalTokens": -1, "reasoning": 2}, {"inputTokens": 7}),  # no bad counts
        ({"input": True, "output": 2.0}, None),
        ("12", None),
    ],
)
def test_usage_takes_only_the_counts_the_source_records(usage: Any, expected: Any) -> None:
    records, _ = _convert(_lines(_assistant("a1", [{"type": "text", "text": "hi"}], usage=usage)))
    assert records[1].get("usage") == expected
    assert records[1]["nativeUsage"] == usage


def test_synthetic_assistants_carry_no_usage() -> None:
    usage = {"input": 10, "output": 5, "totalTokens": 15}
    mirror = _assistant(
        "m1", [{"type": "text", "text": "x"}], provider="openclaw", model="delivery-mirror", usage=usage
    )
    records, _ = _convert(_lines(mirror))
    assert "usage" not in records[1] and records[1]["nativeUsage"] == usage


# -- issue 15.9: conversations carry platform and kind; deliveries name them --------------------


def test_system_dm_line_declares_a_direct_conversation_for_the_notice_and_the_sender() -> None:
    notice = _user(
        "u1",
        "System: [2026-02-26 22:09:12 GMT+8] Feishu[main] DM from ou_1: hi\n\n"
        + _meta("Conversation info", {"message_id": "om_1:permission-error", "sender": "system"})
        + "[System: permission error]",
    )
    person = _user("u2", _meta("Conversation info", {"message_id": "om_1", "sender": "ou_1"}) + "hi", "u1")
    other = _user("u3", _meta("Conversation info", {"message_id": "om_2", "sender": "ou_2"}) + "yo", "u2")
    mirror = _assistant("m1", [{"type": "text", "text": "ok"}], "u3", provider="openclaw", model="delivery-mirror")
    records, _ = _convert(_lines(notice, person, other, mirror))
    (declared,) = _by_type(records, "conversation")
    assert {k: declared[k] for k in ("conversationId", "platform", "kind")} == {
        "conversationId": "c1",
        "platform": "feishu",
        "kind": "direct",
    }
    assert "platformId" not in declared  # the line names the sender, not the chat's id
    assert declared["accountId"] == "main"  # Feishu[main] (issue 27.13)
    by_id = {r.get("messageId"): r for r in records if r["type"] == "message"}
    assert by_id["u1"]["conversation"] == "c1" and "author" not in by_id["u1"]
    # the sender's words the line quotes are their own part (issue 27.17); the rest is harness text
    assert [(p["text"], p.get("author"), p.get("origin")) for p in by_id["u1"]["content"][:3]] == [
        ("System: [2026-02-26 22:09:12 GMT+8] Feishu[main] DM from ou_1: ", "harness", "injected"),
        ("hi", None, "injected"),  # quoted by the notice, not a prompt: u2 is the message itself
        ("\n\n", "harness", "injected"),
    ]
    prompts = [p for r in records if r["type"] == "message" for p in r["content"] if p.get("origin") == "prompt"]
    assert [p["text"] for p in prompts] == ["hi", "yo"]  # one prompt per person's message
    # OpenClaw's own event id for the notice is not a platform message id (ASR-226)
    assert "platform" not in by_id["u1"] and by_id["u1"]["eventIds"] == ["om_1:permission-error"]
    assert by_id["u2"]["platform"] == {"messageIds": ["om_1"]}
    assert by_id["u2"]["conversation"] == "c1"
    assert "conversation" not in by_id["u3"]  # another sender: no chat recorded for it
    # the mirror records no target and the session no conversation of its own (issue 27.15)
    assert "conversation" not in _by_type(records, "delivery")[0]
    assert not validate_records(records)


def test_a_reply_to_a_web_ui_prompt_is_not_filed_under_the_last_chat() -> None:
    """Found by review: a NO_REPLY answering a control-UI prompt was written as a suppressed
    delivery to the Feishu chat written to before it; the source names no chat for it."""
    chat = _user("u1", _meta("Conversation info", {"message_id": "1", "sender_id": "5", "chat_id": "feishu:5"}) + "hi")
    answer = _assistant("a1", [{"type": "text", "text": "hello"}], "u1")
    ui = _user("u2", _meta("Conversation info", {"message_id": "2", "sender": "openclaw-control-ui"}) + "status?", "a1")
    silent = _assistant("a2", [{"type": "text", "text": "NO_REPLY"}], "u2")
    records, _ = _convert(_lines(chat, answer, ui, silent))
    by_id = {r.get("messageId"): r for r in records if r["type"] == "message"}
    assert by_id["u1"]["conversation"] == "c1" and by_id["u2"]["via"] == "web"
    (delivery,) = _by_type(records, "delivery")
    assert delivery["status"] == "suppressed" and "conversation" not in delivery


@pytest.mark.parametrize(
    ("info", "platform", "kind"),
    [
        ({"chat_id": "telegram:-100", "is_group_chat": True}, "telegram", None),  # not typed (27.14)
        ({"chat_id": "telegram:-100", "chat_type": "group", "is_group_chat": True}, "telegram", "group"),
        (
            {"chat_id": "discord:9", "conversation_label": "Srv #ops channel id:9", "is_group_chat": True},
            "discord",
            "channel",
        ),
        (
            {"chat_id": "discord:8", "conversation_label": "Group DM #pals channel id:8", "is_group_chat": True},
            "discord",
            "group",
        ),
        ({"chat_id": "x:1", "provider": "discord", "chat_type": "channel", "is_group_chat": True}, "x", "channel"),
        ({"conversation_label": "Fam", "surface": "WhatsApp", "is_group_chat": False}, "whatsapp", "direct"),
        ({"conversation_label": "Fam", "provider": "slack"}, "slack", None),
    ],
)
def test_conversation_platform_and_kind_come_from_the_block(info: dict[str, Any], platform: str, kind: Any) -> None:
    text = _meta("Conversation info", {"message_id": "1", "sender_id": "5", **info}) + "hello"
    records, _ = _convert(_lines(_user("u1", text)))
    (declared,) = _by_type(records, "conversation")
    assert declared.get("platform") == platform
    assert declared.get("kind") == kind


def test_a_repeated_entry_id_is_kept_as_vendor_not_a_second_message() -> None:
    reply = _assistant("a1", [{"type": "text", "text": "hi"}])
    records, conversion = _convert(_lines(reply, reply))
    assert [r["type"] for r in records] == ["session", "message", "vendor"]
    assert records[2]["schema"] == "ai.openclaw/repeated-entry" and records[2]["data"] == reply
    assert conversion.accounting.balanced() and not validate_records(records)


# -- issue 27 items 13-17 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "declared", "words"),
    [
        (
            "System: [2026-02-20 18:00:01 GMT+8] Feishu[work] message in group oc_g: deploy?",
            {"platform": "feishu", "kind": "group", "platformId": "oc_g", "accountId": "work"},
            "deploy?",
        ),
        (
            "System: [2026-02-20 18:00:01 GMT+8] Feishu[work] message in group oc_g",
            {"platform": "feishu", "kind": "group", "platformId": "oc_g", "accountId": "work"},
            None,
        ),
        ("System: WeCom DM from u7: hi there", {"platform": "wecom", "kind": "direct"}, "hi there"),
        (
            "System (untrusted): DingTalk[a] DM from d1: ok",
            {"platform": "dingtalk", "kind": "direct", "accountId": "a"},
            "ok",
        ),
    ],
)
def test_every_form_of_the_system_line_names_its_chat(line: str, declared: dict[str, str], words: Any) -> None:
    notice = _user(
        "u1", line + "\n\n" + _meta("Conversation info", {"message_id": "e:permission-error", "sender": "system"}) + "x"
    )
    records, _ = _convert(_lines(notice))
    (conversation,) = _by_type(records, "conversation")
    assert {k: v for k, v in conversation.items() if k not in ("type", "seq", "id", "conversationId")} == declared
    (message,) = _by_type(records, "message")
    assert message["conversation"] == conversation["conversationId"]
    # the sender's words, split off (issue 27.17), are a quotation inside the harness notice,
    # not a submitted prompt: origin injected, author absent (review of fid-cgo, finding A)
    assert not [p for p in message["content"] if p.get("origin") == "prompt"]
    quoted = [p for p in message["content"] if p.get("origin") == "injected" and "author" not in p]
    assert [p["text"] for p in quoted] == ([words] if words else [])
    assert "".join(p["text"] for p in message["content"]) == notice["message"]["content"][0]["text"]


def test_a_system_line_of_no_channel_names_no_chat() -> None:
    """``New message from bob`` is not a channel event: without ``[<account>]`` the word before
    the verb must be a channel OpenClaw ships."""
    records, _ = _convert(_lines(_user("u1", "System: [t] Reminder DM from bob: hi\n\nhello")))
    assert not _by_type(records, "conversation")
    (message,) = _by_type(records, "message")
    assert message["content"][0] == {
        "type": "text",
        "text": "System: [t] Reminder DM from bob: hi\n\n",
        "author": "harness",
        "origin": "injected",
    }


def test_a_memory_flush_reply_is_no_held_back_delivery_but_a_chat_reply_is() -> None:
    flush = _user(
        "u1", "Pre-compaction memory flush. Store durable memories now. If nothing to store, reply with NO_REPLY."
    )
    silent = _assistant("a1", [{"type": "text", "text": "NO_REPLY"}], "u1")
    chat = _user("u2", "anything?", "a1")
    again = _assistant("a2", [{"type": "text", "text": "NO_REPLY"}], "u2")
    records, _ = _convert(_lines(flush, silent, chat, again))
    (delivery,) = _by_type(records, "delivery")
    assert delivery["message"] == "messageId=a2" and delivery["status"] == "suppressed"


@pytest.mark.parametrize(
    ("details", "is_error"),
    [
        # web_search without a key: OpenClaw returns jsonResult({error, message, docs}), never
        # throws, so the toolResult says isError false (the feishu sample's web_search result)
        ({"error": "missing_brave_api_key", "message": "web_search needs a Brave Search API key.", "docs": "d"}, True),
        ({"error": "unsupported_freshness", "message": "freshness is only supported by Brave."}, True),
        ({"error": "", "results": []}, False),  # an empty error string states no failure
        ({"error": None, "results": []}, False),
        ({"results": [], "count": 0}, False),
    ],
)
def test_a_details_error_code_is_a_failure(details: dict[str, Any], is_error: bool) -> None:
    """Review finding B: OpenClaw's look-up tools report a failure as a returned payload whose
    ``error`` is a code, with ``isError`` false; that is the tool's own record of failure."""
    call = {"type": "toolCall", "id": "w1", "name": "web_search", "arguments": {"query": "q"}}
    result = _entry(
        "t1",
        "a1",
        {
            "role": "toolResult",
            "toolCallId": "w1",
            "toolName": "web_search",
            "content": [{"type": "text", "text": json.dumps(details, indent=2)}],
            "details": details,
            "isError": False,
        },
    )
    records, _ = _convert(_lines(_assistant("a1", [call], stopReason="toolUse"), result))
    (tool_result,) = _by_type(records, "tool_result")
    assert tool_result["isError"] is is_error
    assert not validate_records(records)


def test_a_delivery_mirror_names_no_author() -> None:
    """Review finding C: OpenClaw's outbound path writes a delivery-mirror entry with the text it
    sent (often another run's model reply, or a message-tool send); the entry records who
    inserted it (the harness: origin injected) but not who wrote the words, so author is absent
    (ASR-202). A gateway-injected entry stays the harness's."""
    mirror = _assistant(
        "m1", [{"type": "text", "text": "Your report is ready."}], provider="openclaw", model="delivery-mirror"
    )
    injected = _assistant("g1", [{"type": "text", "text": "note"}], "m1", provider="openclaw", model="gateway-injected")
    records, _ = _convert(_lines(mirror, injected))
    by_id = {r["messageId"]: r for r in _by_type(records, "message")}
    assert "author" not in by_id["m1"] and by_id["m1"]["origin"] == "injected"
    assert "usage" not in by_id["m1"]  # not a model response: its zero counts are not usage
    assert (by_id["g1"]["author"], by_id["g1"]["origin"]) == ("harness", "injected")
    assert [d["status"] for d in _by_type(records, "delivery")] == ["sent"]
    assert not validate_records(records)
