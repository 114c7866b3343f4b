"""Which streams are a session's subagents (docs/stats.md, "Rows and columns"): besides a
``subagent`` record naming the child and a child read in the same input, a child whose header
names its ``parent`` and whose first words are the parent agent's task (Gemini CLI's subagent
files: a flat v0.31-v0.36 file with the parent's sessionId, a v0.37+ file in
``chats/<parentSessionId>/``; OpenClaw's child that the sessions index says was spawned), and
a child whose report reached the parent (OpenClaw's completion event names the child's
session_id). A fork, opened by the person, stays a session of its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from golden_support import GOLDEN, SHARED_SAMPLES

from asr_adapters.stats import report
from stats.streams import Stream, usage

T = "2026-03-18T10:0{}:00Z"


def _rows(*paths: Path) -> dict[str, set[str]]:
    return {row.key: row.subagents for row in report(list(paths), by="session", price=False).rows}


def test_a_child_opened_by_its_parent_agents_task_is_its_subagent(tmp_path: Path) -> None:
    parent = Stream("gemini-cli:p1", "gemini-cli", ts=T.format(0))
    parent.prompt(T.format(0), "find the hook config")
    parent.call(T.format(1), "c1", name="codebase_investigator")
    parent.add("subagent", T.format(1), callId="c1", agentType="codebase_investigator")  # names no session
    parent.reply(T.format(4), "gemini-2.5-pro", usage(1_000, 10))
    parent.write(tmp_path / "parent.asr.jsonl")
    child = Stream("gemini-cli:p1-subagent-20260318T100100000Z", "gemini-cli", ts=T.format(1), parent="gemini-cli:p1")
    child.add("message", T.format(1), messageId="t", role="user", author="agent", origin="prompt",
              content=[{"type": "text", "text": "Your task is to find the hook config"}])  # fmt: skip
    child.reply(T.format(2), "gemini-2.5-flash", usage(500, 5))
    child.write(tmp_path / "child.asr.jsonl")
    fork = Stream("codex:f1", "codex", ts=T.format(5), parent="gemini-cli:p1")
    fork.prompt(T.format(5), "take it from here")  # the person's: a fork, not a subagent
    fork.reply(T.format(6), "gpt-5", usage(100, 1))
    fork.write(tmp_path / "fork.asr.jsonl")
    rows = _rows(tmp_path)
    assert rows == {"gemini-cli:p1": {"gemini-cli:p1-subagent-20260318T100100000Z"}, "codex:f1": set()}
    (total,) = [report([tmp_path], by="agent", agents=["gemini-cli"], price=False).rows[0]]
    assert len(total.sessions) == 1 and total.totals.responses == 2


def test_an_openclaw_child_named_by_its_completion_event(tmp_path: Path) -> None:
    """No sessions index: the child's header names no parent and the spawn call no session;
    the parent's ``[Internal task completion event]`` names the child's session_id."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(
        GOLDEN / "openclaw/not-a-person-prompts/input.jsonl", folder / "d4e5f607-1829-43a4-b5c6-d7e8f9001a2b.jsonl"
    )
    shutil.copy(
        GOLDEN / "openclaw/subagent-child-task/input.jsonl", folder / "e7c7ec0c-89e8-4b39-9855-8c80866ab40b.jsonl"
    )
    assert _rows(folder) == {
        "openclaw:d4e5f607-1829-43a4-b5c6-d7e8f9001a2b": {"openclaw:e7c7ec0c-89e8-4b39-9855-8c80866ab40b"}
    }


def test_the_shared_samples_subagents_count_in_their_parents() -> None:
    gemini, openclaw = SHARED_SAMPLES / "gemini-cli", SHARED_SAMPLES / "openclaw"
    if not (gemini.is_dir() and openclaw.is_dir()):
        pytest.skip(f"no shared samples at {SHARED_SAMPLES} (set ASR_SAMPLES)")
    rows = _rows(gemini)
    parent = "gemini-cli:a41f5459-d458-492a-860d-722d91c66efc"  # the flat v0.31-v0.36 subagent file beside it
    assert rows[parent] == {f"{parent}-subagent-20260317T223742549Z"} and len(rows) == 4
    rows = _rows(
        openclaw / "subagent-parent-spawn-announce-2026-04.jsonl", openclaw / "subagent-child-of-parent-2026-04.jsonl"
    )
    assert rows == {"openclaw:b8a25e56-fae2-4c68-a05a-5997a520dd90": {"openclaw:d7c7ec0c-89e8-4b39-9855-8c80866ab40b"}}
    # nothing in the source ties this child to a parent (no index, no parent transcript): its own session
    alone = _rows(openclaw / "subagent-child-codex-responses-signatures-2026-03.jsonl")
    assert alone == {"openclaw:0d3125a3-dc1e-4661-bbb8-cd881c16e662": set()}
