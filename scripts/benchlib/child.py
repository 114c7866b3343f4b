"""A conversion timed in a fresh child process, per agent and per mode (``bench_convert_check.py``,
``bench_redact.py``): CPU time of the conversion with imports left out, and the child's peak RSS."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import DATA, MB
from .inputs import Built, build_input, find_sample


def run_child(
    code: str, path: Path, agent: str, mode: str, dest: Path, thread: str, imported: list[float] | None = None
) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) that ``code`` prints, run as ``python -c code PATH AGENT MODE DEST THREAD``;
    the CPU seconds of each ``import N`` line it writes on stderr go to ``imported``."""
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), agent, mode, str(dest), thread],
        capture_output=True,
        check=True,
        text=True,
    )
    cpu, rss = done.stdout.split()
    if imported is not None:
        imported.extend(float(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("import "))
    return float(cpu), float(rss)


def thread_of(path: Path, agent: str) -> str:
    """A database input holds threads and no main stream: convert its first one."""
    from asr_adapters.convert import Conversion

    if agent not in ("t3code", "opencode"):
        return ""
    keys = Conversion(path, agent, as_dicts=True).keys
    return keys[0].split(":", 1)[1] if keys else ""


def per_agent(
    code: str,
    agents: list[str],
    size: int,
    modes: tuple[str, ...],
    repeat: int,
    *,
    prefix: str,
    folder: Path = DATA,
    imported: list[float] | None = None,
) -> Iterator[tuple[str, Built, dict[str, tuple[float, float]]]]:
    """For each agent with a sample: its built input and, per mode, the least CPU seconds and the
    largest peak RSS of ``repeat`` child runs (an agent with no sample is said on stderr)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        dest = Path(scratch) / "out.asr.jsonl"
        for agent in agents:
            sample = find_sample(agent)
            if sample is None:
                print(f"{agent}: no sample", file=sys.stderr)
                continue
            built = build_input(sample, size, folder)
            thread = thread_of(built.path, agent)
            measured = {}
            for mode in modes:
                runs = [run_child(code, built.path, agent, mode, dest, thread, imported) for _ in range(repeat)]
                measured[mode] = (min(cpu for cpu, _ in runs), max(rss for _, rss in runs))
            yield agent, built, measured


def arguments(doc: str) -> argparse.ArgumentParser:
    """The options every per-mode child bench takes: --size-mb, --agents, --repeat, --json."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=20)
    parser.add_argument("--agents", default="codex,claude-code,openclaw,gemini-cli,t3code")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    return parser


def row_of(agent: str, built: Built, **numbers: float) -> dict[str, Any]:
    """One agent's row: its name, the input's size in MB, then ``numbers`` (seconds to 3
    places, ratios to 3, RSS in MB to 1)."""
    row: dict[str, Any] = {"agent": agent, "mb": round(built.bytes / MB, 1)}
    for name, value in numbers.items():
        row[name] = round(value, 1 if name.endswith("_mb") else 3)
    return row
