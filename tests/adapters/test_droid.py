"""Factory Droid adapter: detection, the settings sidecar, who wrote each part of a user
message, tool pairing, plans and compaction, discovery, and the shared real sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from golden_support import SHARED_SAMPLES, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.droid import discover
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError
from asr_adapters.core.source import Source

SID = "5b1f0c2e-0000-4000-8000-00000000000d"
START = {"type": "session_start", "id": SID, "title": "t", "sessionTitle": "Demo", "owner": "dev", "version": 2,
         "cwd": "/work/demo"}  # fmt: skip


def _lines(*records: Any) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _message(mid: str, role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "id": mid, "timestamp": "2026-10-26T14:02:12.031Z",
            "message": {"role": role, "content": content}, **extra}  # fmt: skip


def _convert(data: bytes | Path) -> tuple[list[dict[str, Any]], Conversion]:
    conversion = Conversion(data, "droid", as_dicts=True)
    return [r for stream in conversion.streams() for r in stream.records], conversion


def test_detected_by_its_session_start_and_not_for_other_session_start_lines() -> None:
    assert registry.detect(Source(_lines(START))).name == "droid"
    other = _lines({"type": "session_start", "id": "x", "model": "m", "resumed": False}, {"type": "assistant_delta"})
    assert registry.get("droid").detect(Source(other)) == 0
    bare = _lines({"type": "session_start", "id": "x", "cwd": "/w"}, _message("m1", "user", "hi"))
    assert registry.get("droid").detect(Source(bare)) >= 50


def test_reminder_blocks_are_the_harness_parts_beside_the_persons_prompt() -> None:
    text = "<system-reminder>cwd: /work/demo</system-reminder>\nFix it.<system-reminder>x</system-reminder>"
    records, _ = _convert(_lines(START, _message("m1", "user", [{"type": "text", "text": text}])))
    parts = records[1]["content"]
    assert "".join(p["text"] for p in parts) == text  # nothing lost or trimmed (ASR-211)
    assert [(p["author"], p["origin"]) for p in parts] == [
        ("harness", "injected"), ("human", "prompt"), ("harness", "injected")]  # fmt: skip
    assert "author" not in records[1]


def test_results_pair_with_calls_by_id_in_either_spelling_and_keep_is_error() -> None:
    calls = [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}},
             {"type": "tool_use", "id": "toolu_2", "name": "Execute", "input": {"command": "false"}}]  # fmt: skip
    results = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"},
               {"type": "tool_result", "toolUseId": "toolu_2", "content": [{"type": "text", "text": "1"}],
                "isError": True}]  # fmt: skip
    records, conversion = _convert(_lines(START, _message("a1", "assistant", calls), _message("u1", "user", results)))
    kinds = [r["type"] for r in records]
    assert kinds == ["session", "tool_call", "tool_call", "tool_result", "tool_result"]  # no empty messages
    first, second = records[3], records[4]
    assert (first["callId"], first["name"], "isError" in first) == ("toolu_1", "Read", False)
    assert (second["name"], second["isError"], "status" in second) == ("Execute", True, False)
    assert records[1]["droidMessageId"] == "a1" and first["droidMessageId"] == "u1"
    accounting = conversion.accounting
    assert accounting.native_items == 3 == accounting.records


def test_settings_sidecar_is_folded_into_the_header(tmp_path: Path) -> None:
    folder = tmp_path / "-work-demo"
    folder.mkdir()
    transcript = folder / f"{SID}.jsonl"
    transcript.write_bytes(_lines(START))
    settings = {"model": "claude-opus-4-5", "tokenUsage": {"inputTokens": 3, "outputTokens": 4}}
    (folder / f"{SID}.settings.json").write_text(json.dumps(settings, indent=2))
    records, conversion = _convert(transcript)
    assert records[0]["sessionSettings"] == settings
    assert records[0]["companions"] == [f"{SID}.settings.json"]
    assert conversion.accounting.folded == 1 and conversion.accounting.native_items == 2
    assert registry.get("droid").companion_files(transcript) == [folder / f"{SID}.settings.json"]


def test_a_sidecar_is_claimed_as_part_of_its_transcript_not_converted_alone(tmp_path: Path) -> None:
    sidecar = tmp_path / f"{SID}.settings.json"
    sidecar.write_text(json.dumps({"model": "m", "autonomyLevel": "off"}, indent=2))
    assert registry.detect(Source(sidecar)).name == "droid"
    assert not registry.get("droid").is_session_file(sidecar)
    with pytest.raises(InputError, match="settings sidecar"):
        _convert(sidecar)


def test_a_broken_sidecar_is_a_warning_not_a_lost_session(tmp_path: Path) -> None:
    transcript = tmp_path / f"{SID}.jsonl"
    transcript.write_bytes(_lines(START, _message("m1", "user", "hi")))
    (tmp_path / f"{SID}.settings.json").write_text("{not json")
    records, conversion = _convert(transcript)
    assert "sessionSettings" not in records[0] and records[1]["content"][0]["text"] == "hi"
    assert any("settings.json" in d.reason for d in conversion.accounting.diagnostics)


def test_todo_states_are_one_plan_revised_and_unknown_types_stay_vendor() -> None:
    todo = {"type": "todo_state", "id": "t1", "timestamp": 1793023342000,
            "todos": {"todos": [{"id": "1", "content": "a", "status": "pending"}]}}  # fmt: skip
    later = {**todo, "id": "t2", "todos": {"todos": [{"id": "1", "content": "a", "status": "completed"}]}}
    records, _ = _convert(_lines(START, todo, later, {"type": "session_end", "durationMs": 1}))
    first, second, end = records[1], records[2], records[3]
    assert (first["planId"], first["entries"][0]["status"]) == ("todo", "pending")
    assert first["ts"] == "2026-10-26T14:02:22.000Z"  # epoch milliseconds
    assert second["supersedes"] == first["id"]
    assert end["type"] == "vendor" and end["schema"] == "ai.factory.droid/session_end"


def test_compaction_summary_replaces_the_records_before_it() -> None:
    compaction = {"type": "compaction_state", "id": "k1", "timestamp": "2026-10-26T14:02:50.000Z", "summaryText": "s"}
    records, _ = _convert(_lines(START, _message("m1", "user", "hi"), compaction))
    summary = records[2]
    assert summary["summaryOf"] == "compaction" and summary["compaction"] == {"through": records[1]["id"]}
    assert summary["capture"]["role"]["state"] == "absent" and "role" not in summary


def test_a_task_child_names_its_parent_and_its_first_prompt_is_the_agents() -> None:
    child = {**START, "callingSessionId": "parent-1", "callingToolUseId": "toolu_9"}
    records, _ = _convert(_lines(child, _message("m1", "user", "# Task Tool Invocation\nfind x")))
    assert records[0]["parent"] == "droid:parent-1"
    assert records[1]["author"] == "agent"


def test_homes_and_session_files(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "h"), "FACTORY_HOME_OVERRIDE": str(tmp_path / "o"), "DROID_SESSIONS_DIR": "/a, /b"}
    moved, home = tmp_path / "o" / ".factory" / "sessions", tmp_path / "h" / ".factory" / "sessions"
    assert discover.default_homes(env) == [Path("/a"), Path("/b"), moved, home]
    assert discover.is_session_file(Path("/h/.factory/sessions/-w/x.jsonl"))
    assert not discover.is_session_file(Path("/h/.factory/sessions/-w/x.settings.json"))
    assert not discover.is_session_file(Path("/h/.factory/projects/p/run.jsonl"))


def test_batch_discover_finds_sessions_in_a_home_laid_out_as_droid_lays_it_out(tmp_path: Path) -> None:
    from asr_adapters.batch import discover as batch_discover

    folder = tmp_path / "o" / ".factory" / "sessions" / "-work-demo"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_bytes(_lines(START, _message("m1", "user", "hi")))
    (folder / f"{SID}.settings.json").write_text("{}")
    (folder.parent / ".favorites").write_text("[]")
    env = {"HOME": str(tmp_path / "h"), "FACTORY_HOME_OVERRIDE": str(tmp_path / "o")}
    found = list(batch_discover(env=env, agents=["droid"]))
    assert [(d.agent, d.session_id, d.path.name) for d in found] == [("droid", SID, f"{SID}.jsonl")]


@pytest.mark.parametrize("sample", shared_samples("droid"), ids=lambda p: p.name)
def test_every_shared_sample_converts_and_validates(sample: Path, tmp_path: Path) -> None:
    copy = tmp_path / sample.parent.name / sample.name
    copy.parent.mkdir()
    shutil.copy(sample, copy)
    sidecar = sample.with_name(sample.name.removesuffix(".jsonl") + ".settings.json")
    if sidecar.exists():
        shutil.copy(sidecar, copy.parent / sidecar.name)
    records, conversion = _convert(copy)
    assert records[0]["session"] == f"droid:{sample.name.removesuffix('.jsonl')}"
    assert "\\" in records[0]["cwd"]  # the Windows cwd, kept as written
    assert "sessionSettings" in records[0] and "tokenUsage" not in records[0]["sessionSettings"]
    findings = validate_records(records)  # every finding, warnings included: --strict clean
    assert not findings, [f.describe() for f in findings]
    accounting = conversion.accounting
    assert accounting.balanced() and accounting.native_items == 2 and accounting.folded == 1


def test_shared_samples_present_or_skipped() -> None:
    if not (SHARED_SAMPLES / "droid").is_dir():
        pytest.skip("../shared/samples/droid absent (a user's clone has no ../shared)")
    assert shared_samples("droid")


def _inner(mid: str, role: str, content: Any, **inner: Any) -> dict[str, Any]:
    """A ``message`` line with members inside ``message`` (FactoryDroidMessageSchema's place)."""
    return {"type": "message", "id": mid, "timestamp": "2026-10-26T14:02:12.031Z",
            "message": {"role": role, "content": content, **inner}}  # fmt: skip


def _valid(records: list[dict[str, Any]]) -> None:
    findings = validate_records(records)
    assert not findings, [f.describe() for f in findings]


def test_llm_only_inside_the_message_is_a_harness_injection_as_at_line_level() -> None:
    text = [{"type": "text", "text": "Tool catalog: Read, LS"}]
    inner = _inner("m1", "user", text, visibility="llm_only")
    line = _message("m2", "user", text, visibility="llm_only")
    records, _ = _convert(_lines(START, inner, line))
    for record in records[1:]:
        assert (record["author"], record["origin"], record["audience"]) == ("harness", "injected", "model")
        assert record["visibility"] == "llm_only"
    _valid(records)


def test_user_only_is_what_the_user_saw_and_both_is_seen_by_both() -> None:
    shown = [{"type": "text", "text": "Interrupted by user"}]
    records, _ = _convert(_lines(START, _inner("m1", "user", shown, visibility="user_only"),
                                 _message("m2", "user", shown, visibility="user_only"),
                                 _inner("m3", "user", "hi", visibility="both")))  # fmt: skip
    for record in records[1:3]:
        assert record["content"] == [] and record["displayContent"] == [{"type": "text", "text": "Interrupted by user"}]
        assert record["capture"]["content"]["state"] == "absent" and record["audience"] == "user"
        assert "author" not in record  # who wrote a user-only line is not recorded (ASR-202)
    assert records[3]["audience"] == "both" and records[3]["author"] == "human"
    _valid(records)


def test_in_a_task_child_an_injection_before_the_task_prompt_leaves_the_prompt_the_agents() -> None:
    child = {**START, "callingSessionId": "parent-1", "callingToolUseId": "toolu_9"}
    skills = _inner("m1", "user", [{"type": "text", "text": "Available skills: a"}], visibility="llm_only")
    prompt = _message("m2", "user", "# Task Tool Invocation\nSubagent type: worker\n\nDo x.")
    records, _ = _convert(_lines(child, skills, prompt))
    assert (records[1]["author"], records[2]["author"], records[2]["origin"]) == ("harness", "agent", "prompt")
    # the prefix marks the parent's prompt even after other prompts (the flat variant's rule)
    task = _message("m2", "user", "# Task Tool Invocation")
    later, _ = _convert(_lines(child, _message("m1", "user", "context"), task))
    assert later[2]["author"] == "agent"


def test_hook_rows_are_the_hooks_and_keep_their_event_name() -> None:
    records, _ = _convert(_lines(START, _inner("h1", "user", [{"type": "text", "text": "hook output"}],
                                               hookEventName="SessionEnd")))  # fmt: skip
    hook = records[1]
    assert (hook["author"], hook["origin"], hook["hookEventName"]) == ("hook", "injected", "SessionEnd")
    _valid(records)


def test_a_skill_notification_appended_to_the_prompt_is_the_harnesss_part() -> None:
    text = "please fix it\n<system-notification>Skill activated: pdf</system-notification>"
    records, _ = _convert(_lines(START, _message("u1", "user", [{"type": "text", "text": text}])))
    parts = records[1]["content"]
    assert "".join(p["text"] for p in parts) == text
    notification = "<system-notification>Skill activated: pdf</system-notification>"
    assert [(p["text"], p["author"]) for p in parts] == [("please fix it\n", "human"), (notification, "harness")]
    # unclosed, it runs to the end of the text (the reader cuts there); inside a line it is the person's
    open_, _ = _convert(_lines(START, _message("u2", "user", "fix\n<system-notification>Skill: pdf")))
    assert [p["author"] for p in open_[1]["content"]] == ["human", "harness"]
    inline, _ = _convert(_lines(START, _message("u3", "user", "what does <system-notification> mean?")))
    assert inline[1]["author"] == "human" and len(inline[1]["content"]) == 1


def _compaction(**members: Any) -> dict[str, Any]:
    return {"type": "compaction_state", "id": "k1", "timestamp": "2026-10-26T14:02:50.000Z", "summaryText": "s",
            **members}  # fmt: skip


def test_the_compaction_replaces_the_records_before_its_anchor_message() -> None:
    lines = [_message(f"c{i}", "user" if i % 2 else "assistant", f"t{i}") for i in range(1, 5)]
    anchor = _compaction(summaryKind="llm_summary", anchorMessage={"id": "c4", "index": 3}, removedCount=3)
    records, _ = _convert(_lines(START, *lines, anchor))
    summary = records[5]
    assert summary["compaction"] == {"through": records[3]["id"]}  # c3's record: c4 is kept
    assert (summary["author"], summary["origin"], "audience" in summary) == ("harness", "injected", False)
    assert (summary["anchorMessage"], summary["removedCount"]) == ({"id": "c4", "index": 3}, 3)
    unknown, _ = _convert(_lines(START, *lines, _compaction(anchorMessage={"id": "gone"})))
    assert unknown[5]["compaction"] == {"through": unknown[4]["id"]}  # an anchor not in the file: the rule before
    first, _ = _convert(_lines(START, *lines, _compaction(anchorMessage={"id": "c1"})))
    assert first[5]["compaction"] == {}  # the first message kept: nothing before it replaced
    _valid(records)


def test_only_an_llm_summary_is_a_compaction_summary() -> None:
    switch = _compaction(summaryKind="provider_switch_serialization", summaryText="turns re-serialized")
    records, conversion = _convert(_lines(START, _message("m1", "user", "hi"), switch))
    assert records[2]["type"] == "vendor" and records[2]["schema"] == "ai.factory.droid/compaction_state"
    assert conversion.accounting.vendor == 1


def test_an_empty_thinking_claims_no_visibility() -> None:
    block = {"type": "thinking", "thinking": "", "signature": "", "signatureProvider": "unknown"}
    records, _ = _convert(_lines(START, _message("a1", "assistant", [block, {"type": "text", "text": "ok"}])))
    part = records[1]["content"][0]
    assert part["type"] == "reasoning" and "visibility" not in part and part["text"] == ""
    _valid(records)


def test_tool_and_system_roles_are_records_not_vendor() -> None:
    results = [{"type": "tool_result", "toolUseId": "toolu_1", "content": "out"}]
    call = _message("a1", "assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}])
    system = _inner("s1", "system", [{"type": "text", "text": "You are Droid."}])
    records, conversion = _convert(_lines(START, system, call, _inner("t1", "tool", results),
                                          _inner("t2", "tool", [{"type": "text", "text": "note"}])))  # fmt: skip
    assert (records[1]["role"], records[1]["author"], records[1]["origin"]) == ("system", "harness", "injected")
    assert (records[3]["type"], records[3]["callId"], records[3]["name"]) == ("tool_result", "toolu_1", "Read")
    assert (records[4]["type"], records[4]["role"]) == ("message", "ai.factory.droid/tool")
    assert "author" not in records[4]  # who wrote a tool-role note is not recorded
    assert conversion.accounting.vendor == 0
    _valid(records)


def test_a_message_id_written_again_revises_the_earlier_record() -> None:
    first = _message("m1", "assistant", [{"type": "text", "text": "draft"}])
    again = {**_message("m1", "assistant", [{"type": "text", "text": "final"}]), "parentId": "m1"}
    records, _ = _convert(_lines(START, first, again))
    assert records[2]["messageId"] == "m1" and records[2]["supersedes"] == records[1]["id"]
    _valid(records)


def test_model_id_and_a_model_member_are_both_kept() -> None:
    line = _inner("a1", "assistant", "hi", modelId="claude-opus-4-5", model="custom:alias")
    records, _ = _convert(_lines(START, line))
    assert records[1]["model"] == "claude-opus-4-5" and records[1]["droidModel"] == "custom:alias"
    _valid(records)


def test_factory_dir_names_the_factory_folder_as_codeburn_reads_it(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "h"), "FACTORY_DIR": str(tmp_path / "f")}
    assert discover.default_homes(env) == [tmp_path / "f" / "sessions", tmp_path / "h" / ".factory" / "sessions"]


def test_a_session_start_naming_its_session_by_session_id_is_droids(tmp_path: Path) -> None:
    # droid-sdk-typescript src/schemas/session-metadata.ts SessionStartEventSchema: sessionId, no id
    start = {"type": "session_start", "sessionId": SID, "title": "t", "owner": "dev", "cwd": "/w"}
    data = _lines(start, _message("m1", "user", "hi"))
    assert registry.detect(Source(data)).name == "droid"
    records, _ = _convert(data)
    assert records[0]["session"] == f"droid:{SID}" and "idSource" not in records[0]
    transcript = tmp_path / "renamed.jsonl"
    transcript.write_bytes(data)
    assert discover.session_id(transcript) == SID


def test_in_a_task_child_a_user_only_line_is_not_the_parents_prompt() -> None:
    child = {**START, "callingSessionId": "parent-1", "callingToolUseId": "toolu_9"}
    shown = _inner("m1", "user", [{"type": "text", "text": "Starting worker"}], visibility="user_only")
    records, _ = _convert(_lines(child, shown, _message("m2", "user", "Do x.")))
    assert "author" not in records[1] and records[2]["author"] == "agent"
