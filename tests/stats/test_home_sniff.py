"""A file found in an agent's home is asked of that agent alone (``inputs.sniff_as``): over
every agent's home, golden and shared samples, it is read, or left out, exactly as asking every
adapter decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_support import SHARED_SAMPLES

from asr_adapters.batch.scan import prefilter, walk
from asr_adapters.stats.inputs import STREAM_SUFFIXES, Sniffed, claimed, plan, sniff, sniff_as
from stats.homes import home_env, plant_every_agent, plant_shared_samples


def decided(sniffed: Sniffed, path: Path) -> tuple[str, str | None]:
    """What becomes of the file: read as an agent's session, or not read (the reason aside)."""
    if sniffed[0] == "agent" and sniffed[1] is not None:
        sniffed = claimed(path, sniffed[1], False)
    return (sniffed[0], sniffed[1]) if sniffed[0] in ("native", "asr") else ("not read", None)


@pytest.mark.parametrize("planted", ["golden", "samples"])
def test_the_home_agent_decides_as_every_adapter_does(tmp_path: Path, planted: str) -> None:
    env = home_env(tmp_path)
    if planted == "golden":
        plant_every_agent(env)
    elif SHARED_SAMPLES.is_dir():
        plant_shared_samples(env, SHARED_SAMPLES)
    else:
        pytest.skip(f"no shared samples at {SHARED_SAMPLES} (set ASR_SAMPLES)")
    found = plan(None, env=env)
    planned = {item.path: item for item in found.inputs}
    answered = set()
    for candidate in walk(found.homes):
        if candidate.path.name.endswith(STREAM_SUFFIXES) or prefilter(candidate.path, candidate.size) is not None:
            continue
        item = planned.get(candidate.path)
        if item is None:  # left out by the plan: its home's agent says it is no session
            quick: Sniffed | None = ("none", "left out")
        elif item.home is not None:
            quick = sniff_as(item.path, item.home)
        else:
            continue
        if quick is not None:
            answered.add(item.home if item is not None else "left out")
            assert decided(quick, candidate.path) == decided(sniff(candidate.path), candidate.path), candidate.path
    assert len(answered) >= 9 and "left out" in answered  # most agents' homes take the shortcut


def test_a_home_inside_another_is_no_agent_s_alone(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    plant_every_agent(env)
    inner = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "codex"
    Path(env["CODEX_HOME"]).rename(inner)
    env["CODEX_HOME"] = str(inner)
    found = plan(None, env=env)
    assert any(item.path.is_relative_to(inner) for item in found.inputs)
    assert all(item.home not in ("claude-code", "codex") for item in found.inputs)
    assert any(item.home is not None for item in found.inputs)
