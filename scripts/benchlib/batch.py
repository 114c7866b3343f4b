"""Many small sessions (golden inputs with fresh ids, spread over agents) for ``asr batch``."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import DATA, GENERATOR, GOLDEN, ROOT, SAMPLES
from .template import _UUID, Template

#: real sessions of the shared samples small enough for the batch of small sessions (bytes)
SMALL_REAL = 40 << 10


def _batch_cases() -> list[tuple[str, Path]]:
    """Golden single-file JSONL inputs (no support files beside them), per agent, in name order,
    then the real single-file JSONL sessions of the shared samples under ``SMALL_REAL`` bytes
    (when they are there: Claude Code and OpenClaw have some)."""
    cases = []
    agents = ("codex", "claude-code", "openclaw", "gemini-cli", "copilot-cli")
    for agent in agents:
        for folder in sorted((GOLDEN / agent).glob("*/")):
            names = {p.name for p in folder.iterdir()}
            extra = {n for n in names if n != "README.md" and not n.startswith("expected")}
            if extra == {"input.jsonl"}:
                cases.append((agent, folder / "input.jsonl"))
    for agent in agents:
        for path in sorted((SAMPLES / agent).glob("*.jsonl")) if (SAMPLES / agent).is_dir() else []:
            own_folder = path.with_suffix("").is_dir()  # subagents beside it: not a single file
            if path.stat().st_size <= SMALL_REAL and not own_folder and not path.name.startswith(("aux-", "catalog-")):
                cases.append((agent, path))
    return cases


def _session_name(agent: str, rep: int, text: bytes) -> str:
    """A file name the agent's discovery takes for a session of its own."""
    match = _UUID.search(text.decode("utf-8", "replace"))
    token = match.group(0) if match else f"00000000-0000-4000-8000-{rep:012x}"
    if agent == "codex":
        return f"rollout-2026-01-01T00-00-00-{token}.jsonl"
    if agent == "gemini-cli":
        return f"session-2026-01-01T00-00-{token[:8]}.jsonl"
    return f"{token}.jsonl"


def build_batch(count: int, folder: Path = DATA) -> tuple[Path, int]:
    """``count`` small sessions: golden inputs with fresh ids (session ids too), cycled over agents."""
    cases = _batch_cases()
    key = hashlib.sha256(b"".join(path.read_bytes() for _, path in cases)).hexdigest()[:16]
    root = folder / f"batch-{count}-{key}-g{GENERATOR}"
    done = root / ".complete"
    if done.is_file():
        return root, int(done.read_text())
    shutil.rmtree(root, ignore_errors=True)
    templates = [
        (agent, Template([ln for ln in path.read_bytes().splitlines() if ln.strip()], keep=frozenset()))
        for agent, path in cases
    ]
    total = 0
    for n in range(count):
        agent, template = templates[n % len(templates)]
        rep = n // len(templates) + 1  # never 0: every copy has ids of its own
        text = b"".join(template.render(rep))
        target = root / agent / f"{n:04d}" / _session_name(agent, n, text)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
        total += len(text)
    done.write_text(str(total))
    return root, total


def asr_batch(source: Path, outdir: Path, jobs: int) -> tuple[float, float, int]:
    """Wall seconds, children's CPU seconds and exit status of ``asr batch SOURCE -o OUTDIR --jobs N --quiet``."""
    shutil.rmtree(outdir, ignore_errors=True)
    code = "from asr_adapters.cli import main; main()"
    args = [sys.executable, "-c", code, "batch", str(source), "-o", str(outdir), "--jobs", str(jobs), "--quiet"]
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)
