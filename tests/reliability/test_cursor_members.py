"""Cursor bubbles with members missing: every member of a bubble is optional (docs/agents/cursor.md),
so a bubble lacking any one of them still converts, and one odd bubble never stops its stream."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from asr_adapters import validate_records
from asr_adapters.convert import Conversion

COMPOSER = "c0ffee00-0000-4000-8000-0000000000aa"
FULL_ASSISTANT: dict[str, Any] = {
    "_v": 3,
    "type": 2,
    "bubbleId": "b-full",
    "text": "Done.",
    "rawText": "Done.",
    "requestId": "req-1",
    "modelType": "gpt-5",
    "thinking": {"text": "Look first."},
    "tokenCount": {"inputTokens": 0, "outputTokens": 0},
    "toolFormerData": {
        "toolCallId": "tool_1",
        "name": "list_dir",
        "rawArgs": "{}",
        "status": "completed",
        "result": "{}",
    },
}
FULL_USER: dict[str, Any] = {"_v": 3, "type": 1, "bubbleId": "u-full", "text": "List it.", "relevantFiles": ["a.py"]}


def without_each(bubble: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for number, member in enumerate(bubble):
        if member in ("type", "bubbleId"):
            continue
        copy = {k: v for k, v in bubble.items() if k != member}
        copy["bubbleId"] = f"{bubble['bubbleId']}-{number}"
        if isinstance(copy.get("toolFormerData"), dict):  # one call id per copy
            copy["toolFormerData"] = {**copy["toolFormerData"], "toolCallId": f"tool_{number}"}
        out.append(copy)
    return out


def build(path: Path, bubbles: list[dict[str, Any]]) -> Path:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    connection.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    headers = [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles]
    composer = {"composerId": COMPOSER, "createdAt": 1758000000000, "fullConversationHeadersOnly": headers}
    rows = [(f"composerData:{COMPOSER}", orjson.dumps(composer))]
    rows += [(f"bubbleId:{COMPOSER}:{b['bubbleId']}", orjson.dumps(b)) for b in bubbles]
    connection.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
    connection.commit()
    connection.close()
    return path


@pytest.mark.parametrize("full", [FULL_ASSISTANT, FULL_USER], ids=["assistant", "user"])
def test_a_bubble_missing_any_one_member_converts(tmp_path: Path, full: dict[str, Any]) -> None:
    bubbles = without_each(full)
    conversion = Conversion(build(tmp_path / "state.vscdb", bubbles), "cursor", as_dicts=True)
    streams = [list(stream.records) for stream in conversion.streams()]
    assert len(streams) == 1, "the composer's stream is written"
    records = streams[0]
    named = {r.get("messageId") for r in records}
    for bubble in bubbles:
        assert bubble["bubbleId"] in named, bubble
    assert conversion.accounting.balanced()
    assert not list(validate_records(records))


def test_an_assistant_bubble_without_text_or_raw_text_keeps_its_stream(tmp_path: Path) -> None:
    """The reviewer's probe (B1): no ``text`` and no ``rawText`` once raised KeyError and wrote nothing."""
    bubbles = [
        {"type": 1, "bubbleId": "u-1", "text": "Go."},
        {"type": 2, "bubbleId": "a-1", "thinking": {"text": "Hm."}},
        {"type": 2, "bubbleId": "a-2", "text": "Gone."},
    ]
    conversion = Conversion(build(tmp_path / "state.vscdb", bubbles), "cursor", as_dicts=True)
    records = [r for stream in conversion.streams() for r in stream.records]
    assert [r.get("messageId") for r in records if r["type"] == "message"] == ["u-1", "a-1", "a-2"]


ODD_VALUES = [None, 0, 1.5, True, "", "x", [], [1], {}, {"a": 1}]


@pytest.mark.parametrize("full", [FULL_ASSISTANT, FULL_USER], ids=["assistant", "user"])
def test_a_bubble_with_any_member_of_an_odd_type_costs_at_most_itself(tmp_path: Path, full: dict[str, Any]) -> None:
    """Every member, then every member of toolFormerData, set to each odd JSON value in turn: the
    stream is still written, the other bubble still converts, and the output is valid."""
    cases: list[dict[str, Any]] = []
    tool = full.get("toolFormerData")
    for member in [m for m in full if m not in ("type", "bubbleId")] + ["context", "createdAt", "requestId"]:
        cases += [{**full, member: value} for value in ODD_VALUES]
    if isinstance(tool, dict):
        for member in [*tool, "modelCallId", "tool"]:
            cases += [{**full, "toolFormerData": {**tool, member: value}} for value in ODD_VALUES]
    for number, case in enumerate(cases):
        bubbles = [{**case, "bubbleId": "odd"}, {"type": 1, "bubbleId": "after", "text": "Next."}]
        if isinstance(case.get("toolFormerData"), dict):  # one call id per database
            bubbles[0]["toolFormerData"] = {**case["toolFormerData"]}
        path = build(tmp_path / f"{number}.vscdb", bubbles)
        conversion = Conversion(path, "cursor", as_dicts=True)
        records = [r for stream in conversion.streams() for r in stream.records]
        assert records and records[-1].get("messageId") == "after", case
        assert conversion.accounting.balanced(), case
        assert not list(validate_records(records)), (case, list(validate_records(records))[:2])
        path.unlink()
