"""The files a Claude Code session's cache fingerprint names by listing its folders: never
fewer than the adapter's ``companion_files`` hook names, and a change to any of them (a
subagent in the session's folder, a 2.0.x subagent at the project root) reads the session again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from golden_support import GOLDEN, SHARED_SAMPLES

from asr_adapters.batch.worker import companion_paths
from asr_adapters.stats.cache import stamp_of
from asr_adapters.stats.inputs import Input
from asr_adapters.stats.stamps import listed_companions


def sessions() -> list[Path]:
    found = sorted(GOLDEN.glob("claude-code/*/*.jsonl"))
    if (SHARED_SAMPLES / "claude-code").is_dir():
        found += sorted((SHARED_SAMPLES / "claude-code").glob("*.jsonl"))
    return [path for path in found if not path.name.startswith("agent-")]


@pytest.mark.parametrize("session", sessions(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_listing_names_every_file_the_hook_names(session: Path) -> None:
    listed = listed_companions("claude-code", session)
    assert listed is not None
    hooked = {path for path in companion_paths("claude-code", str(session)) if os.path.exists(path)}
    assert hooked <= set(listed)


def test_the_golden_cases_hold_companions_to_compare() -> None:
    """The comparison above is not empty: subagents in a folder and at a project root."""
    named = [p for s in sessions() for p in companion_paths("claude-code", str(s)) if os.path.exists(p)]
    assert any("/subagents/" in p for p in named) and any(os.path.basename(p).startswith("agent-") for p in named)


def stamp(path: Path) -> str | None:
    return stamp_of(Input(path, "native", "claude-code"), "settings")


def test_a_changed_companion_changes_the_fingerprint(tmp_path: Path) -> None:
    folder = shutil.copytree(GOLDEN / "claude-code" / "subagent-folder", tmp_path / "folder")
    session = folder / "input.jsonl"
    before = stamp(session)
    subagent = next((folder / "input" / "subagents").glob("agent-*.jsonl"))
    subagent.write_bytes(subagent.read_bytes() + b"\n")
    assert stamp(session) != before

    root = shutil.copytree(GOLDEN / "claude-code" / "subagent-project-root", tmp_path / "root")
    session = root / "input.jsonl"
    before = stamp(session)
    agent = next(root.glob("agent-*.jsonl"))
    os.utime(agent, ns=(agent.stat().st_atime_ns, agent.stat().st_mtime_ns + 1_000_000_000))
    assert stamp(session) != before
    (root / "agent-00000000.jsonl").write_bytes(b"{}\n")  # a new one
    assert stamp(session) != before


def test_a_link_in_the_session_folder_leaves_it_to_the_hook(tmp_path: Path) -> None:
    folder = shutil.copytree(GOLDEN / "claude-code" / "subagent-folder", tmp_path / "folder")
    (folder / "input" / "elsewhere").symlink_to(tmp_path)
    assert listed_companions("claude-code", folder / "input.jsonl") is None
    assert listed_companions("codex", folder / "input.jsonl") is None
