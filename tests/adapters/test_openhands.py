"""OpenHands adapter: a conversation is a folder of per-event files (V1 and V0), read in integer
index order through the conversation's entry; discovery of both layouts; usage from
``base_state.json`` (V1) and ``model_response`` / the cumulative ``llm_metrics`` (V0); times
without a zone; and every shared sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from golden_support import GOLDEN, SHARED_SAMPLES

from asr_adapters import registry, validate_records
from asr_adapters.adapters.openhands import discover
from asr_adapters.adapters.openhands.common import litellm_usage
from asr_adapters.convert import Conversion
from asr_adapters.core.source import Source
from asr_adapters.core.usage import definition_problems

V1_CASE = GOLDEN / "openhands" / "v1-tools-condensation-usage"
V0_CASE = GOLDEN / "openhands" / "v0-tools-recall-rejected"
HEX = "5c0d0000000040008000000000000001"


def _convert(path: Path) -> tuple[list[dict[str, Any]], Conversion]:
    conversion = Conversion(path, "openhands", as_dicts=True)
    return [r for stream in conversion.streams() for r in stream.records], conversion


def _copy(case: Path, target: Path) -> Path:
    shutil.copytree(case / "events", target / "events")
    return target


def _v0_event(number: int, **members: Any) -> dict[str, Any]:
    return {"id": number, "timestamp": f"2025-07-09T13:41:{number:02d}.000000", "source": "user", **members}


def _user_message(number: int, text: str) -> dict[str, Any]:
    return _v0_event(number, message=text, action="message", args={"content": text, "image_urls": []})


def test_v0_events_are_read_in_integer_order_not_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / HEX / "events"
    folder.mkdir(parents=True)
    for number in range(12):
        (folder / f"{number}.json").write_text(json.dumps(_user_message(number, f"prompt {number}")))
    records, conversion = _convert(folder / "0.json")
    texts = [r["content"][0]["text"] for r in records if r["type"] == "message"]
    assert texts == [f"prompt {n}" for n in range(12)]  # 10 and 11 after 9, not after 1
    assert records[0]["session"] == f"openhands:{HEX}"
    assert conversion.accounting.native_items == 12 and conversion.accounting.balanced()


def test_an_unreadable_event_costs_that_event_and_a_gap_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / HEX / "events"
    folder.mkdir(parents=True)
    (folder / "0.json").write_text(json.dumps(_user_message(0, "first")))
    (folder / "1.json").write_text('{"id": 1, "timestamp": ')
    (folder / "3.json").write_text(json.dumps(_user_message(3, "after the gap")))
    records, conversion = _convert(folder / "0.json")
    assert [r["content"][0]["text"] for r in records if r["type"] == "message"] == ["first", "after the gap"]
    accounting = conversion.accounting
    assert accounting.unreadable == 1 and accounting.balanced(), accounting.as_dict()
    reasons = [d.describe() for d in accounting.diagnostics]
    assert any("1.json" in r and "unreadable" in r for r in reasons), reasons
    assert any("index gap: 2 to 2" in r for r in reasons), reasons


def test_an_event_file_outside_an_events_folder_is_refused_with_a_reason(tmp_path: Path) -> None:
    loose = tmp_path / "0.json"
    loose.write_text(json.dumps(_user_message(0, "hi")))
    with pytest.raises(Exception, match="outside an events/ folder"):
        _convert(loose)


def test_v1_entry_by_state_or_by_first_event_gives_the_same_records(tmp_path: Path) -> None:
    folder = _copy(V1_CASE, tmp_path / "7c1e000000004000800000000000000a")
    shutil.copy(V1_CASE / "input.json", folder / "base_state.json")
    by_state, _ = _convert(folder / "base_state.json")
    first = sorted((folder / "events").glob("event-*.json"))[0]
    by_event, _ = _convert(first)
    assert by_state[1:] == by_event[1:]  # only the header's source.file and variant differ
    assert by_state[0]["session"] == by_event[0]["session"]
    assert by_event[0]["source"]["variant"] == "base-state"  # the state was read beside the event


def test_v1_usage_comes_from_base_state_by_response_id_once_per_response() -> None:
    records, _ = _convert(V1_CASE / "input.json")
    with_usage = [r for r in records if "usage" in r]
    assert [(r["type"], r.get("inferenceId")) for r in with_usage] == [
        ("message", "chatcmpl-01"),
        ("message", "chatcmpl-03"),
        ("message", "resp_04"),
        ("message", None),  # the condensation summary: the condenser's own call
    ]
    first = with_usage[0]
    # prompt 5000 beside 4990 written: LiteLLM may have counted the writes inside it or not
    assert first["usage"] == {"outputTokens": 120, "cacheReadTokens": 0, "cacheWriteTokens": 4990, "reasoningTokens": 0}
    assert first["nativeUsage"]["prompt_tokens"] == 5000
    assert with_usage[-1]["usage"]["inputTokens"] == 3000  # no cache writes: prompt_tokens is the whole


@pytest.mark.parametrize(
    ("native", "expected"),
    [
        # no cache writes: prompt_tokens holds the reads under every LiteLLM convention
        ({"prompt_tokens": 6559, "cache_read_tokens": 6553, "cache_write_tokens": 0}, 6559),
        ({"prompt_tokens": 3000, "completion_tokens": 5}, 3000),
        # smaller than reads + writes: cannot hold the writes (the real V0 sample's calls)
        (
            {"prompt_tokens": 4, "cache_creation_input_tokens": 6553, "prompt_tokens_details": {"cached_tokens": 0}},
            6557,
        ),
        ({"prompt_tokens": 6559, "cache_read_tokens": 6553, "cache_write_tokens": 210}, 6769),
        # may hold them (LiteLLM 2026: 10 + 66360 read + 32435 written) or not: no inputTokens
        ({"prompt_tokens": 98805, "cache_read_tokens": 66360, "cache_write_tokens": 32435}, None),
        ({"prompt_tokens": 5100, "cache_read_tokens": 5000, "cache_write_tokens": 100}, None),
    ],
)
def test_litellm_input_is_written_only_where_the_cache_writes_are_known_inside_or_beside(
    native: dict[str, Any], expected: int | None
) -> None:
    usage = litellm_usage({"completion_tokens": 50, **native})
    assert usage is not None
    assert usage.get("inputTokens") == expected
    assert ("totalTokens" in usage) == (expected is not None)
    assert not definition_problems(usage)


def test_v1_harness_texts_under_source_user_are_not_the_persons() -> None:
    records, _ = _convert(V1_CASE / "input.json")
    users = [r for r in records if r["type"] == "message" and r["role"] == "user" and "summaryOf" not in r]
    assert [(r["author"], r["origin"]) for r in users] == [
        ("human", "prompt"),
        ("harness", "injected"),
        ("harness", "injected"),
    ]


def test_v1_times_without_a_zone_give_no_ts_and_are_kept() -> None:
    records, _ = _convert(V1_CASE / "input.json")
    assert not any("ts" in r for r in records)
    kept = [r["openhands"]["timestamp"] for r in records if "openhands" in r and "timestamp" in r["openhands"]]
    assert kept[0] == "2026-03-02T10:00:00.100000"


def test_v0_reply_usage_is_the_change_of_the_running_total_only_when_per_turn_token_agrees(tmp_path: Path) -> None:
    records, _ = _convert(V0_CASE / "input.json")
    reply = next(r for r in records if r["type"] == "message" and r.get("messageId") == "event:9")
    # prompt 5100 = 5000 read + 100 written: the writes may be inside it or beside it, so no inputTokens
    assert reply["usage"] == {"outputTokens": 60, "cacheReadTokens": 5000, "cacheWriteTokens": 100}
    folder = _copy(V0_CASE, tmp_path / HEX)
    event = json.loads((folder / "events" / "9.json").read_text())
    event["llm_metrics"]["accumulated_token_usage"]["per_turn_token"] = 9999  # two calls in between
    (folder / "events" / "9.json").write_text(json.dumps(event))
    records, _ = _convert(folder / "events" / "0.json")
    reply = next(r for r in records if r["type"] == "message" and r.get("messageId") == "event:9")
    assert "usage" not in reply


def test_v0_usage_sums_to_the_metadata_totals() -> None:
    records, _ = _convert(V0_CASE / "input.json")
    metadata = json.loads((V0_CASE / "input.json").read_text())
    assert sum(r["usage"]["outputTokens"] for r in records if "usage" in r) == metadata["completion_tokens"]
    native = sum(r["nativeUsage"]["prompt_tokens"] for r in records if "nativeUsage" in r)
    reply = next(r for r in records if "usage" in r and "nativeUsage" not in r)
    assert native + reply["usage"]["cacheReadTokens"] + 100 == metadata["prompt_tokens"]  # its prompt_tokens change


def test_homes_honour_the_variables_of_both_generations(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert discover.default_homes({"HOME": str(home)}) == [home / ".openhands"]
    env = {
        "HOME": str(home),
        "OPENHANDS_PERSISTENCE_DIR": str(tmp_path / "root"),
        "OPENHANDS_CONVERSATIONS_DIR": str(tmp_path / "convs"),
        "OH_CONVERSATIONS_PATH": str(tmp_path / "server"),
        "FILE_STORE_PATH": str(tmp_path / "store"),
    }
    assert discover.default_homes(env) == [
        tmp_path / "convs",
        tmp_path / "root",
        tmp_path / "server",
        tmp_path / "store",
    ]


def test_batch_discovers_one_entry_per_conversation_of_both_generations(tmp_path: Path) -> None:
    from asr_adapters.batch import discover as discover_sessions

    root = tmp_path / "home" / ".openhands"
    v1 = _copy(V1_CASE, root / "conversations" / "7c1e000000004000800000000000000a")
    shutil.copy(V1_CASE / "input.json", v1 / "base_state.json")
    bare = _copy(V1_CASE, root / "conversations" / "0123456789abcdef0123456789abcdef")  # no base_state.json
    v0 = _copy(V0_CASE, root / "sessions" / HEX)
    shutil.copy(V0_CASE / "input.json", v0 / "metadata.json")
    child = _copy(V1_CASE, v1 / "subagents" / "fedcba9876543210fedcba9876543210")
    env = {"HOME": str(tmp_path / "home"), "FILE_STORE_PATH": str(root)}
    found = sorted(d.path for d in discover_sessions(env=env) if d.agent == "openhands")
    first = sorted((bare / "events").glob("event-*.json"))[0]
    child_first = sorted((child / "events").glob("event-*.json"))[0]
    assert found == sorted([v1 / "base_state.json", first, v0 / "metadata.json", child_first])
    companions = registry.get("openhands").companion_files(v0 / "metadata.json")
    assert len(companions) == 15 and all(p.parent.name == "events" for p in companions)
    records, _ = _convert(child_first)
    assert records[0]["parent"] == "openhands:7c1e000000004000800000000000000a"


SAMPLES = SHARED_SAMPLES / "openhands"
ENTRIES = {
    "v1-cli": "v1-cli-1.12-2026-02-critic-iterative-followups/events/"
    "event-00000-12bead78-a27c-4319-a401-d358f4b8de7d.json",
    "v0-gui": "v0-gui-0.48-2025-07-ipython-recall-finish/63b4315947a049e2b7a51249b3d4fcc3/metadata.json",
    "v1-sdk": "v1-sdk-1.9dev-2026-01-restore-unknown-kind-stubbed-llm/3fdb316098bb48e1aa029ce56805792a/base_state.json",
}


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"no shared openhands samples under {SHARED_SAMPLES}")
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_shared_sample_is_detected_converts_validates_and_balances(name: str) -> None:
    entry = SAMPLES / ENTRIES[name]
    assert registry.detect(Source(entry)).name == "openhands"
    for event in (entry.parent if entry.parent.name == "events" else entry.parent / "events").glob("*.json"):
        assert registry.detect(Source(event)).name == "openhands", event.name
    conversion = Conversion(entry, "openhands", as_dicts=True)
    for stream in conversion.streams():
        findings = validate_records(list(stream.records))
        assert not findings, "\n".join(f.describe() for f in findings[:10])
    accounting = conversion.accounting
    events = len(list((entry.parent if entry.parent.name == "events" else entry.parent / "events").glob("*.json")))
    assert accounting.native_items == events + (0 if entry.parent.name == "events" else 1)
    assert accounting.balanced() and accounting.unreadable == 0, accounting.as_dict()


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"no shared openhands samples under {SHARED_SAMPLES}")
def test_shared_samples_harness_follow_ups_usage_and_unknown_kind() -> None:
    cli, _ = _convert(SAMPLES / ENTRIES["v1-cli"])
    follow_ups = [r for r in cli if r["type"] == "message" and r.get("author") == "harness" and r["role"] == "user"]
    assert len(follow_ups) == 3  # events 3, 5, 11: the critic's, stored as source user
    assert not any("usage" in r for r in cli)  # no base_state.json was kept
    gui, _ = _convert(SAMPLES / ENTRIES["v0-gui"])
    assert gui[0]["agent"]["version"] == "0.48.0" and gui[0]["ts"] == "2025-07-09T13:38:00.935002Z"
    inputs = sum(r["usage"]["inputTokens"] for r in gui if "usage" in r)
    assert inputs == 13332 + 6972  # metadata.json prompt_tokens + the cache writes of the three calls
    sdk, _ = _convert(SAMPLES / ENTRIES["v1-sdk"])
    assert any(r.get("schema") == "dev.all-hands.openhands/SystemPromptUpdateEvent" for r in sdk)
    assert sum(1 for r in sdk if "usage" in r) == 1  # one TokenUsage for three responses


def _v1_event(number: int, kind: str, **members: Any) -> tuple[str, dict[str, Any]]:
    event_id = f"00000000-0000-4000-8000-{number:012x}"
    event = {"id": event_id, "timestamp": f"2026-03-02T10:00:{number:02d}.000000", "source": "agent"}
    return f"event-{number:05d}-{event_id}.json", {**event, **members, "kind": kind}


def _v1_folder(tmp_path: Path, *events: tuple[str, dict[str, Any]]) -> Path:
    folder = tmp_path / HEX / "events"
    folder.mkdir(parents=True)
    for name, event in events:
        (folder / name).write_text(json.dumps(event, separators=(",", ":")))
    return folder / events[0][0]


def test_v1_responses_reasoning_item_with_its_own_id_is_a_reasoning_only_message(tmp_path: Path) -> None:
    item = {"id": "rs_07", "summary": ["Check the parser."], "encrypted_content": "ZW5j", "status": "completed"}
    entry = _v1_folder(
        tmp_path,
        _v1_event(
            0,
            "MessageEvent",
            llm_message={
                "role": "assistant",
                "content": [{"type": "text", "text": "Done."}],
                "responses_reasoning_item": item,
            },
            llm_response_id="resp_1",
        ),
        _v1_event(
            1,
            "ActionEvent",
            thought=[],
            responses_reasoning_item={**item, "id": "rs_08"},
            tool_name="terminal",
            tool_call_id="call_1",
            tool_call={"id": "call_1", "name": "terminal", "arguments": "{}"},
            llm_response_id="resp_2",
        ),
    )
    records, conversion = _convert(entry)
    reasoning = [r for r in records if r["type"] == "message" and r["messageId"].startswith("rs_")]
    assert [(r["messageId"], r["inferenceId"]) for r in reasoning] == [("rs_07", "resp_1"), ("rs_08", "resp_2")]
    for record in reasoning:
        assert record["role"] == "assistant" and record["author"] == "model"
        [part] = record["content"]
        assert part["visibility"] == "summary" and part["summary"] == ["Check the parser."]
        assert part["opaque"] == {"format": "openai.encrypted_content", "data": "ZW5j"}
    reply = next(r for r in records if r["type"] == "message" and r["messageId"].endswith("000000000000"))
    assert [p["type"] for p in reply["content"]] == ["text"]  # not folded into the reply
    assert not validate_records(records) and conversion.accounting.balanced()


def test_v1_every_record_of_an_event_keeps_its_event_id_and_kind() -> None:
    records, _ = _convert(V1_CASE / "input.json")
    files = [json.loads(p.read_text()) for p in (V1_CASE / "events").glob("event-*.json")]
    events = {event["id"]: event["kind"] for event in files}
    kept = {}
    for record in records[1:]:
        if record["type"] == "vendor":
            kept[record["data"]["id"]] = record["data"]["kind"]
        elif "openhands" in record:
            kept[record["openhands"]["id"]] = record["openhands"]["kind"]
    assert kept == events  # observations and errors too, not only the messages (whose messageId is it)
    result = next(r for r in records if r["type"] == "tool_result")
    assert result["openhands"]["kind"] == "ObservationEvent"


def test_v0_every_record_of_an_event_keeps_its_action_or_observation_type() -> None:
    records, _ = _convert(V0_CASE / "input.json")
    files = [json.loads(p.read_text()) for p in (V0_CASE / "events").glob("*.json")]
    types = {e["id"]: ("action", e["action"]) if "action" in e else ("observation", e["observation"]) for e in files}
    kept = {}
    for record in records[1:]:
        native = record["data"] if record["type"] == "vendor" else record.get("openhands")
        if native is not None:
            key = "action" if "action" in native else "observation"
            kept[native["id"]] = (key, native[key])
    assert kept == types
    assert {t for t in kept.values() if t[0] == "observation"} >= {("observation", "run")}


def test_v1_header_keeps_the_secret_registry_as_the_sdk_masked_it() -> None:
    records, _ = _convert(V1_CASE / "input.json")
    registry_kept = records[0]["openhands"]["baseState"]["secret_registry"]
    assert registry_kept == {"secret_sources": {"GITHUB_TOKEN": {"kind": "StaticSecret", "value": "**********"}}}


def test_v1_two_files_with_one_index_keep_the_first_by_name_and_report_the_other(tmp_path: Path) -> None:
    first = _v1_event(0, "MessageEvent", llm_message={"role": "user", "content": [{"type": "text", "text": "a"}]})
    other = _v1_event(9, "MessageEvent", llm_message={"role": "user", "content": [{"type": "text", "text": "b"}]})
    entry = _v1_folder(tmp_path, first, (other[0].replace("event-00009", "event-00000"), other[1]))
    records, conversion = _convert(entry)
    assert [r["content"][0]["text"] for r in records if r["type"] == "message"] == ["a"]
    assert conversion.accounting.duplicates == 1 and conversion.accounting.balanced()
    assert any("a second event file with index 0" in d.reason for d in conversion.accounting.diagnostics)


def test_a_condensation_summary_without_its_offset_is_not_a_summary_the_model_saw(tmp_path: Path) -> None:
    condensation = _v1_event(0, "Condensation", forgotten_event_ids=[], summary="Earlier work.", summary_offset=None)
    records, _ = _convert(_v1_folder(tmp_path / "v1", condensation))
    assert [r.get("schema") for r in records[1:]] == ["dev.all-hands.openhands/Condensation"]
    folder = tmp_path / "v0" / HEX / "events"
    folder.mkdir(parents=True)
    args = {"forgotten_event_ids": None, "forgotten_events_start_id": 0, "forgotten_events_end_id": 0}
    event = _v0_event(0, action="condensation", args={**args, "summary": "Earlier work.", "summary_offset": None})
    (folder / "0.json").write_text(json.dumps(event))
    records, _ = _convert(folder / "0.json")
    assert [r.get("schema") for r in records[1:]] == ["dev.all-hands.openhands/action/condensation"]
