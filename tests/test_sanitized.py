"""Sanitizer markers become a ``redacted`` capture state, never content (issue 26 item 5)."""

from __future__ import annotations

from asr_adapters.core.sanitized import mark, scrub

MARK = "[REDACTED_TEXT len=3642 sha=c1f3a045]"


def test_a_part_that_is_only_a_marker_leaves_and_the_reason_keeps_it() -> None:
    record = {"type": "message", "messageId": "m", "role": "user", "content": [{"type": "text", "text": MARK}]}
    assert mark(record)
    assert record["content"] == []
    assert record["capture"] == {
        "content": {"state": "redacted", "reason": f"replaced by a sanitizer before conversion: {MARK}"}
    }


def test_a_marker_inside_real_text_stays_and_the_field_is_redacted() -> None:
    text = "Deploy to [REDACTED_NAME len=5 sha=ab12cd34] now"
    record = {"type": "message", "messageId": "m", "content": [{"type": "text", "text": text}]}
    assert mark(record)
    assert record["content"] == [{"type": "text", "text": text}]
    assert record["capture"]["content"]["state"] == "redacted"


def test_reasoning_segments_opaque_data_and_arguments() -> None:
    reasoning = {
        "type": "reasoning",
        "visibility": "summary",
        "summary": ["[REDACTED_SUMMARY len=32 sha=563f3ee3]"],
        "opaque": {"format": "openai.encrypted_content", "data": "[REDACTED_ENCRYPTED_CONTENT len=1892 sha=f0869daf]"},
    }
    message = {"type": "message", "messageId": "r", "role": "assistant", "content": [reasoning]}
    assert mark(message)
    assert message["content"] == [{"type": "reasoning", "visibility": "summary", "summary": []}]
    assert "REDACTED_ENCRYPTED_CONTENT" in message["capture"]["content"]["reason"]
    call = {"type": "tool_call", "callId": "c", "name": "exec", "arguments": "[REDACTED_ARGUMENTS len=83 sha=b4e1e5f7]"}
    assert mark(call)
    assert "arguments" not in call and call["capture"]["input"]["state"] == "redacted"


def test_an_earlier_capture_reason_is_kept_and_records_without_markers_are_untouched() -> None:
    result = {
        "type": "tool_result",
        "callId": "c",
        "content": [{"type": "text", "text": "[REDACTED_OUTPUT len=9 sha=1]"}],
        "capture": {"content": {"state": "truncated", "reason": "preview only"}},
    }
    assert mark(result)
    assert result["capture"]["content"]["reason"].endswith("; preview only")
    plain = {"type": "message", "messageId": "m", "content": [{"type": "text", "text": "[REDACTED] is a word here"}]}
    assert not mark(plain) and "capture" not in plain


def test_scrub_puts_capture_back_in_canonical_order() -> None:
    record = {"type": "message", "seq": 2, "id": "r2", "messageId": "m", "role": "user"}
    record["content"] = [{"type": "text", "text": MARK}]
    record["idSource"] = "derived"
    (out,) = list(scrub(iter([record])))
    assert list(out) == ["type", "seq", "id", "messageId", "role", "content", "capture", "idSource"]
