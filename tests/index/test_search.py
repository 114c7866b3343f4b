"""``asr search`` over a constructed archive: what is left out by default (retrieved, memory and
copied content), each filter, tool outcomes, the output forms and --open."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.index import build_index
from asr_adapters.index.rows import outcome
from index.conftest import header, write_stream


def _text(text: str, **extra: object) -> dict[str, object]:
    return {"type": "text", "text": text, **extra}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search") / "archive"
    write_stream(
        root / "codex" / "s1.asr.jsonl",
        [
            header("codex:s1", cwd="/work/acme-app", title="Parser work"),
            {
                "type": "message",
                "ts": "2026-03-01T10:00:00.000Z",
                "messageId": "m1",
                "role": "user",
                "content": [
                    _text("# AGENTS.md run cargo test zebra", author="harness", origin="injected"),
                    _text("please fix the zebra parser", author="human", origin="prompt"),
                ],
            },
            {
                "type": "message",
                "ts": "2026-03-01T10:00:01.000Z",
                "messageId": "m2",
                "role": "user",
                "author": "harness",
                "origin": "retrieval",
                "content": [_text("earlier session said zebra crossing")],
            },
            {
                "type": "message",
                "ts": "2026-03-01T10:00:02.000Z",
                "messageId": "m3",
                "role": "user",
                "content": [_text("remembered zebra preference", author="harness", origin="memory")],
            },
            {
                "type": "message",
                "ts": "2026-03-01T10:00:03.000Z",
                "messageId": "m4",
                "role": "assistant",
                "author": "model",
                "content": [
                    {"type": "reasoning", "visibility": "full", "text": "zebra thoughts", "signature": "sigzebra"},
                    _text("zebra answer", phase="final"),
                ],
                "displayContent": [_text("zebra answer")],
                "usage": {"inputTokens": 10, "outputTokens": 5},
                "model": "gpt-x",
            },
            {
                "type": "tool_call",
                "ts": "2026-03-01T10:00:04.000Z",
                "callId": "c1",
                "name": "shell",
                "input": {"command": ["terraform", "apply"]},
            },
            {
                "type": "tool_result",
                "ts": "2026-03-01T10:00:05.000Z",
                "callId": "c1",
                "isError": True,
                "exitCode": 1,
                "content": [_text("Error: zebra state locked")],
            },
            {"type": "tool_call", "ts": "2026-03-01T10:00:06.000Z", "callId": "c2", "name": "shell", "input": {}},
            {
                "type": "tool_result",
                "ts": "2026-03-01T10:00:07.000Z",
                "callId": "c2",
                "status": "com.openai.codex/denied",
                "isError": True,
                "content": [_text("zebra denied by user")],
            },
            {
                "type": "plan",
                "ts": "2026-03-01T10:00:08.000Z",
                "planId": "p1",
                "planType": "items",
                "entries": [
                    {"content": "Fix zebra parser", "status": "completed"},
                    {"content": "T", "status": "pending"},
                ],
            },
            {"type": "subagent", "callId": "c3", "session": "codex:s2", "description": "explore the zebra module"},
            {"type": "delivery", "message": "messageId=m4", "status": "sent"},
            {
                "type": "message",
                "messageId": "m5",
                "role": "user",
                "status": "withdrawn",
                "content": [_text("quince, never sent")],
            },
        ],
    )
    write_stream(
        root / "claude-code" / "s2.asr.jsonl",
        [
            header("claude-code:s2", parent="codex:s1"),
            {
                "type": "message",
                "ts": "2026-04-01T10:00:00.000Z",
                "messageId": "m1",
                "role": "user",
                "author": "human",
                "origin": "prompt",
                "copiedFrom": "codex:s1#messageId=m1",
                "content": [_text("please fix the zebra parser")],
            },
            {
                "type": "message",
                "ts": "2026-04-01T10:00:01.000Z",
                "messageId": "m2",
                "role": "user",
                "author": "human",
                "content": [_text("a newer zebra question")],
            },
        ],
    )
    build_index(root)
    return root


def _search(archive: Path, *args: str) -> list[dict]:
    result = CliRunner().invoke(main, ["search", *args, "--index", str(archive / "_index.sqlite"), "--json"])
    assert result.exit_code in (0, 1), result.output
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def _where(hits: list[dict]) -> set[tuple[str, str]]:
    return {(h["session"], h["record_id"]) for h in hits}


def test_retrieved_memory_and_copied_content_is_left_out_by_default(archive: Path) -> None:
    found = _where(_search(archive, "zebra"))
    assert ("codex:s1", "r3") not in found and ("codex:s1", "r4") not in found
    assert ("claude-code:s2", "r2") not in found
    assert {("codex:s1", "r2"), ("codex:s1", "r5"), ("claude-code:s2", "r3")} <= found
    assert ("codex:s1", "r3") in _where(_search(archive, "zebra", "--include-retrieved"))
    assert ("codex:s1", "r4") in _where(_search(archive, "zebra", "--include-retrieved"))
    assert _where(_search(archive, "zebra", "--origin", "memory")) == {("codex:s1", "r4")}
    assert ("claude-code:s2", "r2") in _where(_search(archive, "zebra", "--include-copies"))


def test_one_result_per_record(archive: Path) -> None:
    hits = _search(archive, '"zebra answer"')
    assert [(h["record_id"], h["field"]) for h in hits] == [("r5", "content")]


def test_authors(archive: Path) -> None:
    assert _where(_search(archive, "zebra", "--author", "human")) == {("codex:s1", "r2"), ("claude-code:s2", "r3")}
    assert _where(_search(archive, "zebra", "--author", "harness")) == {("codex:s1", "r2")}
    tool = _search(archive, "zebra", "--author", "tool")
    assert {(h["record_id"], h["author"], h["tool"], h["outcome"]) for h in tool} == {
        ("r7", "tool", "shell", "error"),
        ("r9", "tool", "shell", "denied"),
    }
    model = _search(archive, "terraform", "--author", "model")
    assert [(h["record_type"], h["author"]) for h in model] == [("tool_call", "model")]
    assert _search(archive, "terraform", "--author", "human") == []


def test_filters(archive: Path) -> None:
    assert {h["session"] for h in _search(archive, "zebra", "--agent", "claude-code")} == {"claude-code:s2"}
    assert {h["session"] for h in _search(archive, "zebra", "--session", "s2")} == {"claude-code:s2"}
    assert {h["session"] for h in _search(archive, "zebra", "--session", "codex:s")} == {"codex:s1"}
    assert _where(_search(archive, "zebra", "--since", "2026-03-15")) == {("claude-code:s2", "r3")}
    assert ("claude-code:s2", "r3") not in _where(_search(archive, "zebra", "--until", "2026-03-15"))
    assert _where(_search(archive, "zebra", "--failed")) == {("codex:s1", "r7")}
    assert _where(_search(archive, "", "--failed")) == {("codex:s1", "r7"), ("codex:s1", "r6")}
    assert _where(_search(archive, "zebra", "--tool", "shell")) == {("codex:s1", "r7"), ("codex:s1", "r9")}
    assert _search(archive, "zebra", "--tool", "other") == []
    assert _where(_search(archive, "zebra", "--author", "human", "--newest")) == {
        ("claude-code:s2", "r3"),
        ("codex:s1", "r2"),
    }
    assert [h["record_id"] for h in _search(archive, "zebra", "--author", "human", "--newest")] == ["r3", "r2"]


def test_plans_subagents_reasoning_are_searchable_signatures_are_not(archive: Path) -> None:
    assert [h["record_type"] for h in _search(archive, '"fix zebra parser"')] == ["plan"]
    assert [h["record_type"] for h in _search(archive, "module")] == ["subagent"]
    assert [(h["part_type"], h["visibility"]) for h in _search(archive, "thoughts")] == [("reasoning", "full")]
    assert _search(archive, "sigzebra") == []


def test_a_withdrawn_message_is_said_to_be(archive: Path) -> None:
    assert [h["status"] for h in _search(archive, "quince")] == ["withdrawn"]
    result = CliRunner().invoke(main, ["search", "quince", "--index", str(archive / "_index.sqlite")])
    assert result.stdout.splitlines()[0].endswith("unknown (withdrawn)")
    result = CliRunner().invoke(main, ["search", "thoughts", "--index", str(archive / "_index.sqlite")])
    assert result.stdout.splitlines()[0].endswith("model (reasoning, full)")


def test_human_output_and_exit_status(archive: Path) -> None:
    index = str(archive / "_index.sqlite")
    result = CliRunner().invoke(main, ["search", "newer", "--index", index])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "claude-code:s2  r3  2026-04-01T10:00:01.000Z  person"
    assert "a newer zebra question" in lines[1]
    assert lines[2] == f"  asr show {shlex.quote(str(archive / 'claude-code' / 's2.asr.jsonl') + '#r3')} --open"
    assert CliRunner().invoke(main, ["search", "nothingmatches", "--index", index]).exit_code == 1
    missing = CliRunner().invoke(main, ["search", "x"])
    assert missing.exit_code == 2 and "ARCHIVE" in missing.output
    assert CliRunner().invoke(main, ["search", "x", "--index", index, "--since", "someday"]).exit_code == 2


def test_search_with_an_archive_builds_its_index(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    message = {"type": "message", "messageId": "m", "role": "user", "content": [_text("quokka")]}
    write_stream(root / "a.asr.jsonl", [header("codex:a"), message])
    result = CliRunner().invoke(main, ["search", "quokka", str(root), "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["record_id"] == "r2"
    assert (root / "_index.sqlite").is_file()
    elsewhere = tmp_path / "elsewhere.sqlite"
    result = CliRunner().invoke(main, ["search", "quokka", str(root), "--index", str(elsewhere)])
    assert result.exit_code == 0 and elsewhere.is_file(), "ARCHIVE with --index: that file brought up to date"


def test_open_shows_the_session_page_at_the_record(archive: Path, tmp_path: Path) -> None:
    """A real ``asr`` process with a browser (``BROWSER``) that records the address it is given."""
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {opened}\n')
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "BROWSER": str(browser), "TMPDIR": str(tmp_path)}
    asr = [sys.executable, "-c", "from asr_adapters.cli import main; main()"]
    index = str(archive / "_index.sqlite")
    subprocess.run([*asr, "search", "newer", "--index", index, "--open"], env=env, check=True, capture_output=True)
    link = f"{archive / 'claude-code' / 's2.asr.jsonl'}#r3"
    subprocess.run([*asr, "show", link, "--open"], env=env, check=True, capture_output=True)
    urls = opened.read_text().split()
    assert len(urls) == 2
    for url in urls:
        assert url.startswith(f"file://{tmp_path}/asr-show-") and url.endswith("/page.html#r3")
        page = Path(url[len("file://") : -len("#r3")]).read_text(encoding="utf-8")
        # the record's element is rec-r3 (issue 25.19: ids namespaced); the page's script takes #r3 to it
        assert 'id="rec-r3"' in page and "a newer zebra question" in page


@pytest.mark.parametrize(
    ("is_error", "status", "exit_code", "expected"),
    [
        (True, None, None, "error"),
        (False, None, None, "ok"),
        (None, "error", None, "error"),
        (None, "complete", None, "ok"),
        (None, None, 2, "error"),
        (None, None, 0, "ok"),
        (False, None, 1, "error"),
        (True, "com.anthropic.claude-code/denied", None, "denied"),
        (None, "com.openai.codex/cancelled", None, "cancelled"),
        (None, None, None, None),
        (None, "ai.openclaw/something", None, None),
    ],
)
def test_tool_outcome_follows_what_the_result_records(
    is_error: bool | None, status: str | None, exit_code: int | None, expected: str | None
) -> None:
    assert outcome(is_error, status, exit_code) == expected
