"""pi adapter: detection beside OpenClaw (one format, two agents), the mapping rules pi's own
sessions add, discovery of its homes, and every shared sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from golden_support import SHARED_SAMPLES, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.pi import discover
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

SID = "019e0000-0000-7000-8000-0000000000aa"
HEADER = {"type": "session", "version": 3, "id": SID, "timestamp": "2026-06-01T10:00:00.000Z", "cwd": "/work/demo"}
START = [
    {"type": "model_change", "id": "m1", "parentId": None, "timestamp": "2026-06-01T10:00:00.100Z",
     "provider": "openai-codex", "modelId": "gpt-5.4-mini"},
    {"type": "thinking_level_change", "id": "m2", "parentId": "m1", "timestamp": "2026-06-01T10:00:00.100Z",
     "thinkingLevel": "high"},
]  # fmt: skip


def _lines(*entries: Any, header: dict[str, Any] | None = None) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in (header or HEADER, *entries))


def _message(eid: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-06-01T10:00:05.000Z",
        "message": message,
    }


def _convert(data: bytes | Path, agent: str | None = "pi") -> tuple[list[dict[str, Any]], Conversion]:
    conversion = Conversion(data, agent, as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    return records, conversion


# -- detection: pi and OpenClaw write one format ----------------------------------------------


def test_pi_claims_its_own_file_names_and_folders(tmp_path: Path) -> None:
    bare = _lines(_message("u1", None, {"role": "user", "content": "hi"}))
    named = tmp_path / f"2026-06-01T10-00-00-000Z_{SID}.jsonl"
    named.write_bytes(bare)
    assert registry.detect(Source(named)).name == "pi"
    folder = tmp_path / "sessions" / "--work-demo--" / "copy.jsonl"
    folder.parent.mkdir(parents=True)
    folder.write_bytes(bare)
    assert registry.detect(Source(folder)).name == "pi"
    # the same bytes with neither: OpenClaw's, as before this adapter existed
    assert registry.detect(Source(bare)).name == "openclaw"


def test_pi_start_entries_without_openclaw_marks_are_pi() -> None:
    irrlicht_shape = _lines(*START, _message("u1", "m2", {"role": "user", "content": "hi"}))
    assert registry.detect(Source(irrlicht_shape)).name == "pi"
    snapshot = {"type": "custom", "customType": "model-snapshot", "data": {}, "id": "m3", "parentId": "m2"}
    openclaw = _lines(*START, snapshot, _message("u1", "m3", {"role": "user", "content": "hi"}))
    assert registry.get("pi").detect(Source(openclaw)) == 0
    assert registry.detect(Source(openclaw)).name == "openclaw"
    workspace = _lines(*START, header={**HEADER, "cwd": "/root/.openclaw/workspace"})
    assert registry.detect(Source(workspace)).name == "openclaw"


def test_pi_leaves_other_agents_files_alone() -> None:
    codex = b'{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}\n'
    assert registry.get("pi").detect(Source(codex)) == 0
    assert registry.get("pi").detect(Source(b"")) == 0


# -- mapping rules ----------------------------------------------------------------------------


def test_responses_reasoning_summary_is_a_summary_not_full_text() -> None:
    """pi's ``thinking`` for the Responses APIs is the item's summary parts joined by a blank
    line: a summary (ASR-214), kept as the item's parts; before the shared fix it was ``full``."""
    item = {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAA", "summary": [
        {"type": "summary_text", "text": "**Plan**"}, {"type": "summary_text", "text": "Say one."}]}  # fmt: skip
    blocks = [
        {"type": "thinking", "thinking": "**Plan**\n\nSay one.", "thinkingSignature": json.dumps(item)},
        {"type": "thinking", "thinking": "other text", "thinkingSignature": json.dumps(item)},
    ]
    records, _ = _convert(_lines(_message("a1", None, {"role": "assistant", "content": blocks, "stopReason": "stop"})))
    first, second = records[1]["content"]
    assert first["visibility"] == "summary" and first["summary"] == ["**Plan**", "Say one."] and "text" not in first
    assert first["opaque"]["format"] == "openai.reasoning_item" and "_meta" not in first
    assert second["visibility"] == "summary" and second["_meta"] == {"dev.pi/thinking": "other text"}


def test_the_same_reasoning_item_reads_the_same_for_openclaw() -> None:
    item = {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAA", "summary": [
        {"type": "summary_text", "text": "Say one."}]}  # fmt: skip
    block = {"type": "thinking", "thinking": "Say one.", "thinkingSignature": json.dumps(item)}
    data = _lines(_message("a1", None, {"role": "assistant", "content": [block], "stopReason": "stop"}))
    pi, _ = _convert(data, "pi")
    claw, _ = _convert(data, "openclaw")
    assert pi[1]["content"] == claw[1]["content"]


def test_skill_expansion_is_split_at_the_skill_element() -> None:
    skill = '<skill name="x" location="/s/x/SKILL.md">\nbody\n</skill>\n\nargs here'
    records, _ = _convert(_lines(_message("u1", None, {"role": "user", "content": skill})))
    user = records[1]
    assert (user["author"], user["origin"]) == ("human", "command")
    harness, typed = user["content"]
    assert harness["text"] + typed["text"] == skill
    assert (harness["author"], harness["origin"]) == ("harness", "injected") and "author" not in typed


def test_bash_results_exit_code_abort_and_skip() -> None:
    def result(cid: str, text: str) -> dict[str, Any]:
        body = {"role": "toolResult", "toolCallId": cid, "toolName": "bash", "content": text, "isError": True}
        return _message(cid, None, body)

    records, _ = _convert(
        _lines(
            result("c1", "boom\n\nCommand exited with code 2"),
            result("c2", "partial\n\nCommand aborted"),
            result("c3", "Skipped due to queued user message."),
            result("c4", "Command timed out after 5 seconds"),
        )
    )
    c1, c2, c3, c4 = records[1:]
    assert (c1["exitCode"], c1["isError"]) == (2, True)
    assert c2["status"] == "interrupted" and "isError" not in c2
    assert c3["status"] == "dev.pi/cancelled" and "isError" not in c3
    assert c4["isError"] is True and "status" not in c4


def test_session_info_is_a_title_revision_and_v1_ids_are_derived() -> None:
    v1_header = {"type": "session", "id": SID, "timestamp": "2025-12-08T22:41:00.000Z", "cwd": "/w",
                 "provider": "anthropic", "modelId": "claude-opus-4-5", "thinkingLevel": "off"}  # fmt: skip
    v1 = [
        {"type": "message", "timestamp": "2025-12-08T22:41:05.306Z", "message": {"role": "user", "content": "hi"}},
        {"type": "session_info", "timestamp": "2025-12-08T22:41:06.000Z", "name": "Greeting"},
    ]
    records, conversion = _convert(_lines(*v1, header=v1_header))
    assert records[0]["source"]["variant"] == "v1" and records[0]["modelId"] == "claude-opus-4-5"
    assert (records[1]["messageId"], records[1]["idSource"]) == ("L2", "derived")
    assert records[2]["title"] == "Greeting" and records[2]["parent"] == "r2"
    assert conversion.accounting.balanced()


def test_a_file_without_header_takes_the_session_id_from_pi_s_file_name(tmp_path: Path) -> None:
    path = tmp_path / f"2026-06-01T10-00-00-000Z_{SID}.jsonl"
    path.write_bytes(json.dumps(_message("u1", None, {"role": "user", "content": "hi"})).encode() + b"\n")
    records, conversion = _convert(path)
    assert records[0]["session"] == f"pi:{SID}" and records[0]["idSource"] == "derived"
    assert records[1]["type"] == "message" and conversion.accounting.balanced()


# -- discovery --------------------------------------------------------------------------------


def test_homes_honour_the_agent_dir_the_session_dir_and_the_setting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert discover.default_homes({"HOME": str(home)}) == [home / ".pi" / "agent" / "sessions"]
    moved = {"HOME": str(home), "PI_CODING_AGENT_DIR": "~/pi-agent"}
    assert discover.default_homes(moved) == [home / "pi-agent" / "sessions"]
    settings = home / "pi-agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"sessionDir": "~/all-sessions"}')
    assert discover.default_homes(moved) == [home / "all-sessions", home / "pi-agent" / "sessions"]
    flat = {**moved, "PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "flat")}
    assert discover.default_homes(flat) == [tmp_path / "flat", home / "pi-agent" / "sessions"]


def test_batch_discovers_sessions_laid_out_as_pi_lays_them_out(tmp_path: Path) -> None:
    from asr_adapters.batch import discover as discover_sessions

    env = {"HOME": str(tmp_path / "home"), "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    target = tmp_path / "agent" / "sessions" / "--work-demo--" / f"2026-06-01T10-00-00-000Z_{SID}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(_lines(_message("u1", None, {"role": "user", "content": "hi"})))
    (tmp_path / "agent" / "settings.json").write_text("{}")
    found = [d for d in discover_sessions(env=env) if d.agent == "pi"]
    assert [(d.path, d.session_id) for d in found] == [(target, SID)]


# -- every shared sample ----------------------------------------------------------------------

SAMPLES = shared_samples("pi")


@pytest.mark.skipif(not SAMPLES, reason=f"no shared pi samples under {SHARED_SAMPLES}")
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_shared_sample_is_detected_converts_validates_and_balances(path: Path) -> None:
    assert registry.detect(Source(path)).name == "pi"
    conversion = Conversion(path, "pi", as_dicts=True)
    for stream in conversion.streams():
        records = list(stream.records)
        findings = validate_records(records)
        assert not findings, "\n".join(f.describe() for f in findings[:10])
    accounting = conversion.accounting
    assert accounting.native_items == sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert accounting.balanced() and accounting.unreadable == 0, accounting.as_dict()


@pytest.mark.skipif(not SAMPLES, reason=f"no shared pi samples under {SHARED_SAMPLES}")
def test_shared_samples_rewind_compaction_and_abort() -> None:
    by_name = {p.name: p for p in SAMPLES}
    rewind, _ = _convert(by_name["pi-0.70-tree-rewind-two-branches-codex-encrypted-reasoning.jsonl"])
    users = [r for r in rewind if r.get("role") == "user"]
    assert users[1]["parent"] == users[2]["parent"]  # "two" and "three" answer the same reply
    summary = rewind[4]["content"][0]
    assert summary["visibility"] == "summary" and "text" not in summary
    compaction, _ = _convert(by_name["pi-0.70-manual-compaction-entry.jsonl"])
    summary_record = next(r for r in compaction if r.get("summaryOf") == "compaction")
    assert summary_record["compaction"] == {}  # firstKeptEntryId is the first entry: nothing replaced
    aborted, _ = _convert(by_name["pi-0.70-esc-aborted-turn-then-new-prompt.jsonl"])
    stopped = next(r for r in aborted if r.get("stopReason") == "aborted")
    assert stopped["status"] == "interrupted" and "usage" not in stopped
