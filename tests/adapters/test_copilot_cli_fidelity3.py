"""Copilot CLI: issue 27 items 21-23 (opaque reasoning forms, `!` commands, compaction usage,
failed subagents, prompt senders), each on its golden case or a small built file."""

from __future__ import annotations

from pathlib import Path

from golden_support import GOLDEN

from asr_adapters import validate_records

from .test_copilot_cli import all_records
from .test_copilot_cli import convert as convert_file
from .test_copilot_cli_review import call, convert, main, reply, write

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


def test_the_compaction_calls_output_tokens_count(tmp_path: Path) -> None:
    """Item 23: the summary's own model call is a response whose output is counted, in the
    SDK's field names and the older ones."""
    done = {
        "type": "session.compaction_complete",
        "data": {
            "success": True,
            "summaryContent": "Summary.",
            "compactionTokensUsed": {"inputTokens": 9000, "outputTokens": 700, "cacheReadTokens": 8000},
        },
    }
    records = main(convert(write(tmp_path, [reply("m1", "hi", outputTokens=5), done])))
    summary = next(r for r in records if r.get("summaryOf") == "compaction")
    assert summary["usage"] == {"outputTokens": 700}
    assert summary["nativeUsage"] == {"inputTokens": 9000, "outputTokens": 700, "cacheReadTokens": 8000}
    assert "compactionTokensUsed" not in summary.get("native", {})
    assert sum(r.get("usage", {}).get("outputTokens", 0) for r in records) == 705
    assert not validate_records(records)
    golden = main(convert_file(CASES / "notices-abort-compaction-unknown" / "input.jsonl")[0])
    usage = next(r for r in golden if r.get("summaryOf") == "compaction")["usage"]
    assert usage == {"inputTokens": 2000, "outputTokens": 1000, "totalTokens": 3000}


def test_compaction_input_counts_only_when_no_cached_count_sits_beside_it(tmp_path: Path) -> None:
    """Review of item 23: a form listing no cached tokens beside its input count
    ({"input": 2000, "output": 1000}) has one input count, the call's whole input: it is
    inputTokens (docs/semantics.md Usage). A form with a cached count beside it (older
    ``cachedInput``, newer ``cacheReadTokens``/``cacheWriteTokens``) does not say whether the
    input holds it, so only the output is normalized there."""
    forms = [
        ({"input": 2000, "output": 1000}, {"inputTokens": 2000, "outputTokens": 1000, "totalTokens": 3000}),
        ({"inputTokens": 50, "outputTokens": 7}, {"inputTokens": 50, "outputTokens": 7, "totalTokens": 57}),
        ({"input": 1000, "output": 500, "cachedInput": 200}, {"outputTokens": 500}),
        ({"inputTokens": 50, "outputTokens": 7, "cacheWriteTokens": 0}, {"outputTokens": 7}),
    ]
    for n, (used, expected) in enumerate(forms):
        done = {
            "type": "session.compaction_complete",
            "data": {"success": True, "summaryContent": "S.", "compactionTokensUsed": used},
        }
        records = main(convert(write(tmp_path, [reply("m1", "hi", outputTokens=5), done], name=f"{n}.jsonl")))
        summary = next(r for r in records if r.get("summaryOf") == "compaction")
        assert (summary["usage"], summary["nativeUsage"]) == (expected, used)
        assert not validate_records(records)


def test_a_failed_subagent_has_a_status(tmp_path: Path) -> None:
    events = [
        reply("m1", requests=[call("t1", "task", description="Fix TODOs", prompt="p")]),
        {"type": "subagent.started", "agentId": "t1", "data": {"toolCallId": "t1", "agentName": "explore"}},
        {"type": "subagent.failed", "data": {"toolCallId": "t1", "agentName": "explore", "error": "model error"}},
    ]
    records = main(convert(write(tmp_path, events)))
    started, failed = [r for r in records if r["type"] == "subagent"]
    assert failed["supersedes"] == started["id"] and failed["status"] == "error"
    assert failed["native"]["failed"]["error"] == "model error" and "status" not in started
    assert not validate_records(records)


def test_a_prompt_names_the_agent_that_sent_it_when_its_stream_is_written() -> None:
    """Item 23 (ASR-226): `source: agent-<id>` names the sender; `from` only when that agent's
    stream is written here (the parent, a linked subagent), never for an id seen nowhere else."""
    streams, _ = convert_file(CASES / "prompt-sender-agent" / "input.jsonl")
    sid = "7a1b2c3d-4e5f-4a6b-8c7d-000000000e23"
    auditor = f"copilot-cli:{sid}/agent-toolu_T1"
    child = [r for r in streams[f"copilot-cli:{sid}/agent-toolu_T2"] if r.get("role") == "user"]
    assert child[0]["from"] == {"session": auditor} and "from" not in child[1]
    report = [r for r in streams[f"copilot-cli:{sid}"] if r.get("role") == "user"][-1]
    assert report["from"] == {"session": auditor} and report["displayContent"][0]["author"] == "agent"
    assert auditor in streams
    for records in streams.values():
        assert not validate_records(records)


def test_an_unlinked_sender_in_the_main_stream_gets_no_from(tmp_path: Path) -> None:
    records = main(convert(write(tmp_path, [{"type": "user.message", "data": {"content": "x", "source": "agent-q"}}])))
    prompt = next(r for r in records if r.get("role") == "user")
    assert "from" not in prompt and prompt["displayContent"][0]["author"] == "agent"
