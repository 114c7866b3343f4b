"""GitHub Copilot CLI: detection, layouts and discovery, subagent streams, the mapping rules."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN, golden_cases, shared_samples

from asr_adapters import registry, validate_records
from asr_adapters.adapters.copilot_cli import discover
from asr_adapters.batch import agent_homes
from asr_adapters.batch import discover as batch_discover
from asr_adapters.cli import main
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source

AGENTID_CASE = GOLDEN / "copilot-cli" / "subagent-agentid-reasoning-hooks"
PARENT_ID_CASE = GOLDEN / "copilot-cli" / "subagent-parent-tool-call-id"
RESUME_CASE = GOLDEN / "copilot-cli" / "resume-appended-runs"
TOOLS_CASE = GOLDEN / "copilot-cli" / "tool-calls-dedupe-failure-chunks"
REASONING_CASE = GOLDEN / "copilot-cli" / "reasoning-three-places"
SAMPLES = shared_samples("copilot-cli")
NATIVE_IDS = {"message": "messageId", "tool_call": "callId"}


def convert(path: Path | bytes, agent: str | None = "copilot-cli") -> tuple[dict[str, list[dict[str, Any]]], Any]:
    conversion = Conversion(path, agent, as_dicts=True)
    streams = {stream.key: list(stream.records) for stream in conversion.streams()}
    return streams, conversion


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]


def all_records(streams: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [record for records in streams.values() for record in records]


# -- detection -------------------------------------------------------------------------------


def test_copilot_files_are_detected_and_other_agents_files_are_not_claimed() -> None:
    adapter = registry.get("copilot-cli")
    for case in golden_cases("copilot-cli"):
        score = adapter.detect(Source(case.input))
        if case.name == "garbage-line-start-without-producer":  # scored by its lines, not the CLI's marks
            assert registry.SURE <= score < 100, case.id
        else:
            assert score == 100, case.id
        best = max(registry.all_adapters(), key=lambda a: a.detect(Source(case.input)))
        assert best.name == "copilot-cli", case.id
    for case in golden_cases():
        if case.agent != "copilot-cli" and case.input.suffix != ".sql":
            assert adapter.detect(Source(case.input)) == 0, case.id


def test_a_file_cut_before_its_session_start_is_still_recognised(tmp_path: Path) -> None:
    lines = AGENTID_CASE.joinpath("input.jsonl").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "session-state" / "0a1b2c3d-0000-4000-8000-000000000001.jsonl"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(b"".join(lines[3:]))  # from the user.message on
    assert registry.get("copilot-cli").detect(Source(cut)) == 70
    streams, conversion = convert(cut)
    head = next(iter(streams.values()))[0]
    assert head["session"] == "copilot-cli:0a1b2c3d-0000-4000-8000-000000000001"  # the flat file's stem
    assert "idSource" not in head and conversion.accounting.balanced()


# -- layouts and discovery -------------------------------------------------------------------


def test_homes_follow_copilot_home_then_home_and_the_legacy_xdg_folders(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path / "home"),
        "COPILOT_HOME": str(tmp_path / "relocated"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    assert discover.default_homes(env) == [
        tmp_path / "relocated" / "session-state",
        tmp_path / "home" / ".copilot" / "session-state",
        tmp_path / "state" / ".copilot" / "session-state",
        tmp_path / "config" / ".copilot" / "session-state",
    ]
    windows = {"USERPROFILE": str(tmp_path / "User")}
    assert discover.default_homes(windows) == [tmp_path / "User" / ".copilot" / "session-state"]
    assert next(h.path for h in agent_homes(env, ["copilot-cli"])) == tmp_path / "relocated" / "session-state"


def test_both_layouts_are_discovered_and_sidecars_are_not(tmp_path: Path) -> None:
    home = tmp_path / "copilot"
    folder = home / "session-state" / "11111111-0000-4000-8000-000000000001"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_bytes(RESUME_CASE.joinpath("input.jsonl").read_bytes())
    (folder / "workspace.yaml").write_text("id: 11111111-0000-4000-8000-000000000001\n")
    (folder / "plan.md").write_text("# plan\n")
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "001.jsonl").write_text("{}\n")
    flat = home / "session-state" / "22222222-0000-4000-8000-000000000002.jsonl"
    flat.write_bytes(TOOLS_CASE.joinpath("input.jsonl").read_bytes())
    found = {d.path: d for d in batch_discover(env={"HOME": str(tmp_path / "nohome"), "COPILOT_HOME": str(home)})}
    assert set(found) == {folder / "events.jsonl", flat}
    assert all(d.agent == "copilot-cli" for d in found.values())
    assert not discover.is_session_file(folder / "checkpoints" / "001.jsonl")
    assert discover.session_id(folder / "events.jsonl") == folder.name
    assert discover.session_id(flat) == flat.stem


def test_a_folder_layout_names_its_variant_and_the_flat_one_too(tmp_path: Path) -> None:
    folder = tmp_path / "session-state" / "7a1b2c3d-4e5f-4a6b-8c7d-000000000c01"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_bytes(RESUME_CASE.joinpath("input.jsonl").read_bytes())
    streams, _ = convert(folder / "events.jsonl")
    assert next(iter(streams.values()))[0]["source"]["variant"] == "folder"
    streams, _ = convert(RESUME_CASE / "input.jsonl")
    assert next(iter(streams.values()))[0]["source"]["variant"] == "file"


# -- streams, accounting, the coming validator rules ----------------------------------------


@pytest.mark.parametrize("case", golden_cases("copilot-cli"), ids=lambda c: c.name)
def test_every_line_is_accounted_for_and_no_native_id_is_written_twice(case: Any) -> None:
    streams, conversion = convert(case.input)
    assert conversion.accounting.balanced(), conversion.accounting
    assert conversion.accounting.native_items == len(case.input.read_text(encoding="utf-8").splitlines())
    for records in streams.values():
        assert not [f for f in validate_records(records) if f.is_error]
        seen: dict[tuple[str, str], str] = {}  # native id -> the record that last wrote it
        calls = {r["callId"] for r in records if r["type"] == "tool_call"}
        for record in records:
            field = NATIVE_IDS.get(record["type"])
            if field is not None and field in record:
                key = (field, record[field])
                assert key not in seen or record.get("supersedes") == seen[key], record  # a revision says so
                seen[key] = record["id"]
            if record["type"] == "tool_result":
                assert record["callId"] in calls, record


def test_subagent_events_go_to_their_own_stream_whichever_marker_they_carry() -> None:
    for case, children in ((AGENTID_CASE, 1), (PARENT_ID_CASE, 2)):
        streams, _ = convert(case / "input.jsonl")
        main_key, *child_keys = streams
        assert len(child_keys) == children
        links = {r["session"]: r for r in streams[main_key] if r["type"] == "subagent"}
        assert set(links) == set(child_keys)
        for key in child_keys:
            agent_id = key.rsplit("/agent-", 1)[1]
            head = streams[key][0]
            assert head["parent"] == main_key and head["idSource"] == "derived"
            assert links[key]["callId"] == agent_id
            # nothing of the subagent is in the parent's stream but the link and its lifecycle
            parent_ids = {r.get("messageId") for r in streams[main_key]}
            child_ids = {r.get("messageId") for r in streams[key][1:] if r["type"] == "message"}
            assert child_ids and not child_ids & parent_ids


def test_a_pipe_gives_the_same_streams_as_a_file() -> None:
    from_file, _ = convert(AGENTID_CASE / "input.jsonl")
    from_pipe, _ = convert(io.BytesIO(AGENTID_CASE.joinpath("input.jsonl").read_bytes()))  # read once only
    strip = lambda streams: [[{k: v for k, v in r.items() if k != "source"} for r in s] for s in streams.values()]  # noqa: E731
    assert strip(from_file) == strip(from_pipe)


def test_a_subagent_without_subagent_started_is_still_linked(tmp_path: Path) -> None:
    lines = [
        line
        for line in PARENT_ID_CASE.joinpath("input.jsonl").read_text(encoding="utf-8").splitlines()
        if '"subagent.started"' not in line
    ]
    path = tmp_path / "input.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    streams, conversion = convert(path)
    main_key, *child_keys = streams
    assert {r["session"] for r in streams[main_key] if r["type"] == "subagent"} == set(child_keys)
    assert conversion.accounting.balanced()


# -- mapping rules --------------------------------------------------------------------------


def test_the_model_facing_prompt_is_split_without_losing_a_character() -> None:
    streams, _ = convert(AGENTID_CASE / "input.jsonl")
    native = next(e for e in events(AGENTID_CASE / "input.jsonl") if e["type"] == "user.message")["data"]
    prompt = next(r for r in next(iter(streams.values())) if r.get("role") == "user")
    assert "".join(p["text"] for p in prompt["content"]) == native["transformedContent"]
    assert [p["author"] for p in prompt["content"]] == ["harness", "human", "harness"]
    typed = {"type": "text", "text": native["content"], "author": "human", "origin": "prompt"}
    assert prompt["displayContent"] == [typed]


def test_usage_is_output_tokens_once_per_response_and_never_the_shutdown_totals() -> None:
    for case in (AGENTID_CASE, RESUME_CASE, TOOLS_CASE, PARENT_ID_CASE):
        streams, _ = convert(case / "input.jsonl")
        records = all_records(streams)
        per_response: dict[str, int] = {}
        for event in events(case / "input.jsonl"):
            data = event["data"]
            if event["type"] == "assistant.message" and "outputTokens" in data:
                per_response.setdefault(data.get("apiCallId") or data["requestId"], data["outputTokens"])
        summed = sum(r["usage"]["outputTokens"] for r in records if "usage" in r)
        assert summed == sum(per_response.values()), case.name
        assert all(set(r["usage"]) == {"outputTokens"} for r in records if "usage" in r)
        shutdowns = [r for r in records if r.get("schema") == "com.github.copilot-cli/session.shutdown"]
        native_shutdowns = [e for e in events(case / "input.jsonl") if e["type"] == "session.shutdown"]
        assert len(shutdowns) == len(native_shutdowns) and all("usage" not in r for r in shutdowns)


def test_reasoning_visibility_is_never_claimed_for_readable_text_and_opaque_stays_opaque() -> None:
    streams, _ = convert(REASONING_CASE / "input.jsonl")
    parts = [p for r in all_records(streams) for p in r.get("content", []) if p["type"] == "reasoning"]
    assert all("visibility" not in p for p in parts if "text" in p)
    # an opaque blob alone is encrypted; one whose text is in the reasoning event's own
    # record (named by reasoningTextIn) claims nothing
    assert [p.get("visibility") for p in parts if "text" not in p] == [None, "encrypted"]
    assert {p["opaque"]["format"] for p in parts if "opaque" in p} == {
        "github.copilot.reasoning_opaque",
        "openai.encrypted_content",
    }
    texts = [p["text"] for p in parts if "text" in p]
    assert len(texts) == len(set(texts))  # a reasoning event repeated on its message is written once


def test_a_repeated_thinking_block_is_written_once_and_named() -> None:
    streams, _ = convert(AGENTID_CASE / "input.jsonl")
    child = streams[list(streams)[1]]
    messages = [r for r in child if r["type"] == "message"]
    assert [p["type"] for p in messages[0]["content"]] == ["reasoning"]
    assert [p["type"] for p in messages[1]["content"]] == ["text"]
    assert messages[1]["native"]["reasoningRepeatsMessage"] == f"messageId={messages[0]['messageId']}"


def test_tool_start_is_a_duplicate_unless_it_adds_something() -> None:
    streams, conversion = convert(TOOLS_CASE / "input.jsonl")
    records = all_records(streams)
    calls = [r["callId"] for r in records if r["type"] == "tool_call"]
    assert len(calls) == len(set(calls)) == 4
    kept = [r for r in records if r.get("schema") == "com.github.copilot-cli/tool.execution_start"]
    assert [r["data"]["data"]["toolCallId"] for r in kept] == ["call_f1"]  # it adds shellToolInfo
    assert conversion.accounting.duplicates == 3  # the user-requested call's start repeats its request
    failed = next(r for r in records if r["type"] == "tool_result" and r["callId"] == "call_f2")
    assert failed["isError"] is True and failed["content"] == [{"type": "text", "text": "patch is empty"}]


def test_every_unknown_event_is_kept_verbatim(tmp_path: Path) -> None:
    event = {"type": "session.from_the_future", "data": {"a": [1, 2]}, "id": "e9", "timestamp": "2026-09-01T00:00:00Z"}
    path = tmp_path / "input.jsonl"
    path.write_bytes(RESUME_CASE.joinpath("input.jsonl").read_bytes() + orjson.dumps(event) + b"\n")
    streams, _ = convert(path)
    last = next(iter(streams.values()))[-1]
    assert last["schema"] == "com.github.copilot-cli/session.from_the_future" and last["data"] == event


# -- viewer and exporters run on the outputs with no per-agent code -------------------------


def test_show_and_export_run_on_a_session_with_a_subagent(tmp_path: Path) -> None:
    native = str(AGENTID_CASE / "input.jsonl")
    result = CliRunner().invoke(main, ["show", native])
    assert result.exit_code == 0, result.output
    assert 'data-author="human"' in result.output
    for target in ("atif", "otel"):
        out = tmp_path / f"out.{target}"
        result = CliRunner().invoke(main, ["export", native, "--to", target, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert out.stat().st_size > 0


# -- real samples ------------------------------------------------------------------------------


@pytest.mark.skipif(not SAMPLES, reason="no Copilot CLI sample file in ../shared/samples/copilot-cli (SOURCES.md only)")
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_shared_samples_convert_balanced_and_valid(sample: Path) -> None:
    streams, conversion = convert(sample)
    assert conversion.accounting.balanced()
    for records in streams.values():
        assert not [f for f in validate_records(records, strict=True) if f.is_error]


@pytest.mark.parametrize("budget", [8 << 20, 300], ids=["in-memory", "spilled-to-a-file"])
def test_many_interleaved_subagents_each_get_their_events_and_nothing_is_left_behind(
    budget: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More subagents than spill files kept open, their events interleaved line by line, held
    in memory or (a small budget) moved to the spill file."""
    monkeypatch.setattr("asr_adapters.adapters.copilot_cli.groups._MEMORY", budget)
    lines = [{"type": "session.start", "data": {"sessionId": "s-many", "copilotVersion": "1.0.60"}, "id": "e0"}]
    agents = [f"toolu_{n:02d}" for n in range(40)]
    for round_ in range(3):
        for agent in agents:
            message = {"messageId": f"{agent}-m{round_}", "content": f"{agent} says {round_}", "toolRequests": []}
            lines.append({"type": "assistant.message", "data": message, "id": f"{agent}-{round_}", "agentId": agent})
    path = tmp_path / "input.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    spill_root = tmp_path / "tmp"
    spill_root.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(spill_root))
    streams, conversion = convert(path)
    assert conversion.accounting.balanced()
    children = list(streams)[1:]
    assert [key.rsplit("/agent-", 1)[1] for key in children] == agents
    for key in children:
        agent = key.rsplit("/agent-", 1)[1]
        texts = [r["content"][0]["text"] for r in streams[key] if r["type"] == "message"]
        assert texts == [f"{agent} says {n}" for n in range(3)]
    assert list(spill_root.iterdir()) == []


def test_a_line_written_twice_is_a_duplicate_and_a_message_written_again_revises_the_first(tmp_path: Path) -> None:
    lines = RESUME_CASE.joinpath("input.jsonl").read_bytes().splitlines(keepends=True)
    again = json.loads(lines[2])  # the first answer, written again under a new event id
    again["id"] = "00000000-0000-4000-8000-0000000000ff"
    path = tmp_path / "input.jsonl"
    path.write_bytes(b"".join(lines[:3]) + lines[2] + orjson.dumps(again) + b"\n" + b"".join(lines[3:]))
    streams, conversion = convert(path)
    records = next(iter(streams.values()))
    assert conversion.accounting.duplicates == 1 and conversion.accounting.balanced()
    answers = [r for r in records if r.get("messageId") == "m-1"]
    assert len(answers) == 2 and answers[1]["supersedes"] == answers[0]["id"]
    assert not [f for f in validate_records(records) if f.is_error]
