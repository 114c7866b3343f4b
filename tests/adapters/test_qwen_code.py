"""Qwen Code adapter: detection beside Claude Code (both chain records by uuid), the Gemini
CLI part mapping reused under Qwen Code's name and where it differs, usage conventions,
discovery, and every shared sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from golden_support import SHARED_SAMPLES, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.qwen_code import discover
from asr_adapters.adapters.qwen_code.usage import normalized_usage
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

SID = "7c1e0000-0000-4000-8000-0000000000aa"


def _record(uuid: str, parent: str | None, kind: str, **extra: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": parent, "sessionId": SID, "timestamp": "2026-04-10T12:00:00.000Z",
            "type": kind, "cwd": "/work/demo", "version": "0.14.2", **extra}  # fmt: skip


def _lines(*records: Any) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _convert(data: bytes | Path, agent: str | None = "qwen-code") -> tuple[list[dict[str, Any]], Conversion]:
    conversion = Conversion(data, agent, as_dicts=True)
    return [r for stream in conversion.streams() for r in stream.records], conversion


def _user(uuid: str, text: str, parent: str | None = None) -> dict[str, Any]:
    return _record(uuid, parent, "user", message={"role": "user", "parts": [{"text": text}]})


def test_detected_above_claude_code_and_not_for_claude_code_lines() -> None:
    qwen = _lines(_user("u1", "hi"))
    assert registry.detect(Source(qwen)).name == "qwen-code"
    line = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": SID, "cwd": "/w", "version": "2.1.0"}
    claude = _lines({**line, "userType": "external", "message": {"role": "user", "content": "hi"}})
    assert registry.get("qwen-code").detect(Source(claude)) == 0
    assert registry.detect(Source(claude)).name == "claude-code"


def test_a_thought_part_is_reasoning_of_unknown_visibility_not_a_gemini_summary() -> None:
    parts = [{"text": "Check the file first.", "thought": True}, {"text": "Reading it."}]
    records, _ = _convert(_lines(_record("a1", None, "assistant", message={"role": "model", "parts": parts})))
    reasoning, text = records[1]["content"]
    assert reasoning == {"type": "reasoning", "text": "Check the file first."}
    assert text == {"type": "text", "text": "Reading it."}
    gemini = registry.get("gemini-cli").registry_name
    assert gemini not in json.dumps(records)  # nothing is named as Gemini CLI's


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        # OpenAI-compatible (every real file): thoughts inside the candidates, cached inside the prompt
        ({"promptTokenCount": 13873, "candidatesTokenCount": 182, "thoughtsTokenCount": 31,
          "totalTokenCount": 14055, "cachedContentTokenCount": 13713},
         {"inputTokens": 13873, "outputTokens": 182, "cacheReadTokens": 13713, "reasoningTokens": 31,
          "totalTokens": 14055}),
        # Gemini API: thoughts beside the candidates (the total says so)
        ({"promptTokenCount": 100, "candidatesTokenCount": 10, "thoughtsTokenCount": 5, "totalTokenCount": 115},
         {"inputTokens": 100, "outputTokens": 15, "reasoningTokens": 5, "totalTokens": 115}),
        ({"promptTokenCount": 0, "candidatesTokenCount": 0, "totalTokenCount": 0}, None),
        ("12", None),
    ],
)  # fmt: skip
def test_usage_conventions(metadata: Any, expected: Any) -> None:
    assert normalized_usage(metadata) == expected


def test_envelope_members_are_kept_only_where_they_change() -> None:
    first = _user("u1", "hi")
    later = {**_user("u2", "again", "u1"), "version": "0.14.3", "gitBranch": "dev"}
    records, conversion = _convert(_lines(first, later))
    assert records[0]["agent"] == {"name": "qwen-code", "version": "0.14.2"}
    assert "version" not in records[1] and (records[2]["version"], records[2]["gitBranch"]) == ("0.14.3", "dev")
    assert records[2]["parent"] == "r2" and conversion.accounting.balanced()


def test_a_repeated_uuid_is_kept_as_vendor_and_a_bare_file_gets_its_id_from_the_name(tmp_path: Path) -> None:
    records, conversion = _convert(_lines(_user("u1", "hi"), _user("u1", "hi")))
    assert [r["type"] for r in records] == ["session", "message", "vendor"]
    assert records[2]["schema"] == "ai.qwen.qwen-code/repeated-record" and conversion.accounting.balanced()
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(b'["x"]\n')
    records, _ = _convert(path)
    assert records[0]["session"] == f"qwen-code:{SID}" and records[0]["idSource"] == "derived"


def test_homes_honour_the_runtime_dir_and_qwen_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert discover.default_homes({"HOME": str(home)}) == [home / ".qwen" / "projects"]
    env = {"HOME": str(home), "QWEN_RUNTIME_DIR": str(tmp_path / "rt"), "QWEN_HOME": str(tmp_path / "qh")}
    assert discover.default_homes(env) == [
        tmp_path / "rt" / "projects",
        tmp_path / "qh" / "projects",
        home / ".qwen" / "projects",
    ]


def test_batch_discovers_recordings_laid_out_as_qwen_code_lays_them_out(tmp_path: Path) -> None:
    from asr_adapters.batch import discover as discover_sessions

    env = {"HOME": str(tmp_path / "home")}
    chats = tmp_path / "home" / ".qwen" / "projects" / "-work-demo" / "chats"
    chats.mkdir(parents=True)
    target = chats / f"{SID}.jsonl"
    target.write_bytes(_lines(_user("u1", "hi")))
    (chats.parent.parent.parent / "todos").mkdir()
    (chats.parent.parent.parent / "todos" / f"{SID}.json").write_text("[]")
    found = [d for d in discover_sessions(env=env) if d.agent == "qwen-code"]
    assert [(d.path, d.session_id) for d in found] == [(target, SID)]


SAMPLES = shared_samples("qwen-code")


@pytest.mark.skipif(not SAMPLES, reason=f"no shared qwen-code samples under {SHARED_SAMPLES}")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_is_detected_converts_validates_and_balances(path: Path) -> None:
    assert registry.detect(Source(path)).name == "qwen-code"
    conversion = Conversion(path, "qwen-code", as_dicts=True)
    for stream in conversion.streams():
        findings = validate_records(list(stream.records))
        assert not findings, "\n".join(f.describe() for f in findings[:10])
    accounting = conversion.accounting
    assert accounting.native_items == sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert accounting.balanced() and accounting.unreadable == 0, accounting.as_dict()


@pytest.mark.skipif(not SAMPLES, reason=f"no shared qwen-code samples under {SHARED_SAMPLES}")
def test_shared_samples_error_commands_and_subagent() -> None:
    by_name = {p.name: p for p in SAMPLES}
    termux, _ = _convert(by_name["qwen-0.12.1-termux-read-file-outside-workspace-error.jsonl"])
    failed = next(r for r in termux if r["type"] == "tool_result")
    assert failed["isError"] is True and failed["toolCallResult"] == {"error": {}, "errorType": "invalid_tool_params"}
    assert failed["content"][0]["text"].startswith("File path must be within")
    windows, _ = _convert(by_name["qwen-0.14.0-windows-slash-commands-at-command-parallel-reads.jsonl"])
    assert windows[1]["displayContent"] == [{"type": "text", "text": "/ide install"}] and windows[1]["content"] == []
    assert windows[2]["origin"] == "notice"
    prompt = next(r for r in windows if r.get("role") == "user" and len(r["content"]) > 1)
    assert [p.get("author") for p in prompt["content"]] == [None, "harness", "harness", "harness", "harness"]
    agent, _ = _convert(by_name["qwen-0.14.2-windows-agent-subagent-cancelled-telemetry-only.jsonl"])
    spawn = next(r for r in agent if r["type"] == "subagent")
    assert (spawn["agentType"], spawn["status"]) == ("debugger", "interrupted")
    assert sum(r.get("usage", {}).get("inputTokens", 0) for r in agent) == 32188  # the parent's one call


def test_a_record_without_uuid_gets_a_derived_message_id() -> None:
    """Found by tests/reliability/test_nesting.py: a user record without ``uuid`` gave an empty
    ``messageId`` (ASR-200)."""
    bare = {k: v for k, v in _user("u1", "hi").items() if k != "uuid"}
    records, _ = _convert(_lines(bare))
    assert (records[1]["messageId"], records[1]["idSource"]) == ("L1", "derived")
