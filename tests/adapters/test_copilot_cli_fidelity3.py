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
