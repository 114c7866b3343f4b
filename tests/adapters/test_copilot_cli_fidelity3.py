"""Copilot CLI: issue 27 items 21-23 (opaque reasoning forms, `!` commands, compaction usage,
failed subagents, prompt senders), each on its golden case or a small built file."""

from __future__ import annotations

from golden_support import GOLDEN

from asr_adapters import validate_records

from .test_copilot_cli import all_records
from .test_copilot_cli import convert as convert_file

CASES = GOLDEN / "copilot-cli"


def test_both_opaque_reasoning_forms_are_kept() -> None:
    """Item 21: `reasoningOpaque` with the text, `encryptedContent` as a part of its own."""
    streams, _ = convert_file(CASES / "reasoning-both-opaque-forms" / "input.jsonl")
    records = all_records(streams)
    first, second = [r for r in records if r.get("role") == "assistant"]
    with_text, encrypted, text = first["content"]
    assert with_text["text"] == "Empty input hits the error branch." and "visibility" not in with_text
    assert with_text["opaque"] == {"format": "github.copilot.reasoning_opaque", "data": "Q29waWxvdE9wYXF1ZUJsb2I="}
    assert encrypted == {
        "type": "reasoning",
        "visibility": "encrypted",
        "opaque": {"format": "openai.encrypted_content", "data": "Z0FBQUFBQnBhWGhoYlhCc1pTMWxibU55"},
    }
    assert text == {"type": "text", "text": "It returns Err on empty input."}
    assert [p.get("visibility") for p in second["content"][:2]] == ["encrypted", "encrypted"]
    assert {p["opaque"]["format"] for p in second["content"][:2]} == {
        "github.copilot.reasoning_opaque",
        "openai.encrypted_content",
    }
    assert not validate_records(records)


def test_a_shell_command_the_person_ran_is_a_call_with_its_result() -> None:
    """Item 22: `tool.user_requested` is the call (author human); the result answers it."""
    streams, conversion = convert_file(CASES / "shell-command-without-start" / "input.jsonl")
    records = all_records(streams)
    (tool_call,) = [r for r in records if r["type"] == "tool_call"]
    (result,) = [r for r in records if r["type"] == "tool_result"]
    assert tool_call["callId"] == result["callId"] and tool_call["seq"] < result["seq"]
    assert tool_call["author"] == "human" and tool_call["input"]["command"] == "git status --short"
    assert tool_call["ts"] == "2026-08-28T23:29:20.911Z" and result["name"] == "local_shell"
    assert not [r for r in records if r["type"] == "vendor"] and conversion.accounting.vendor == 0
    assert not validate_records(records)
