"""The sample each agent's input is built from, and the inputs built from it (cached under bench-data/)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from . import DATA, GENERATOR, GOLDEN, SAMPLES
from .databases import build_opencode, build_t3code
from .template import TREE_KEY, Template, header_count

# The sample each agent's input is built from: the shared sample of the agent's largest kind
# where there is one, else a golden input (so a clone without the shared samples still runs).
# Codex: a Codex Desktop rollout (the kind that reaches several GB). Claude Code: the current
# CLI's line zoo (attachments, tasks, agent spawns). OpenClaw: the largest current-format
# session. Gemini CLI: its JSONL era exists only as constructed golden inputs. T3 Code: a
# SQLite database; its golden V1 thread is repeated as event rows. Cline: a task folder (two
# JSON documents, read whole by design), its golden native-tools task repeated in both files.
# Copilot CLI: no whole real file is stored; the golden case reduced from a real 1.0.55 file
# (a subagent, hooks, reasoning), so each repetition adds a subagent stream.
SHARED: dict[str, str] = {
    "codex": "v0.104-desktop-2026-02-sanitized-remote-compaction-images-mcp.jsonl",
    "claude-code": "cc-2.1.114-agent-team-taskcreate-attachments-redacted-thinking.jsonl",
    "openclaw": "feishu-dm-system-notice-aborted-2026-02.jsonl",
}
GOLDEN_CASE: dict[str, str] = {
    "codex": "10-tool-calls-every-kind",
    "claude-code": "fold-tool-calls",
    "openclaw": "thinking-tools-status",
    "gemini-cli": "jsonl-tool-calls",
    "t3code": "v1-activities",
    "opencode": "sqlite-turn-tools-usage",
    "cline": "native-tools-task-folder",
    "copilot-cli": "subagent-agentid-reasoning-hooks",
    "pi": "tools-bash-skill",
    "qwen-code": "tools-commands-usage",
}
#: the task id of the built Cline task folder (``tasks/<id>/``)
CLINE_TASK = "1761000000000"


@dataclass
class Sample:
    agent: str
    path: Path
    origin: str  # "shared" or "golden"

    @property
    def name(self) -> str:
        return self.path.name if self.origin == "shared" else f"golden/{self.agent}/{self.path.parent.name}"


def find_sample(agent: str, overrides: dict[str, Path] | None = None) -> Sample | None:
    """The sample an agent's input is built from (an override, the shared sample, a golden input)."""
    if overrides and agent in overrides:
        return Sample(agent, overrides[agent], "given")
    shared = SHARED.get(agent)
    if shared and (SAMPLES / agent / shared).is_file():
        return Sample(agent, SAMPLES / agent / shared, "shared")
    case = GOLDEN / agent / GOLDEN_CASE[agent]
    for name in ("input.jsonl", "input.sql", "input.json"):
        if (case / name).is_file():
            return Sample(agent, case / name, "golden")
    return None


@dataclass
class Built:
    path: Path
    bytes: int
    lines: int  # native lines (rows for a database)
    largest_line: int
    reps: int
    seconds: float = 0.0  # to build; 0 when it came from the cache


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def build_input(sample: Sample, size: int, folder: Path = DATA) -> Built:
    """A native input of at least ``size`` bytes built from ``sample``; cached in ``folder``."""
    suffix = ".sqlite" if sample.path.suffix == ".sql" else ".jsonl"
    stem = f"{sample.agent}-{_digest(sample.path)}-{size}-g{GENERATOR}"
    task_folder = sample.path.suffix == ".json"  # Cline: a task folder, its ui timeline the entry
    path = folder / stem / "tasks" / CLINE_TASK / "ui_messages.json" if task_folder else folder / (stem + suffix)
    meta = folder / (stem + ".meta.json")
    if path.is_file() and meta.is_file():
        return Built(path=path, **orjson.loads(meta.read_bytes()))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / stem if task_folder else path
    partial = target.with_name(target.name + ".partial")
    _remove(partial)
    start = time.perf_counter()
    try:
        if suffix == ".sqlite" and sample.agent == "opencode":
            lines, largest, reps = build_opencode(sample.path, size, partial)
        elif task_folder:
            lines, largest, reps = _build_cline(sample.path, size, partial)
        elif suffix == ".sqlite":
            lines, largest, reps = build_t3code(sample.path, size, partial)
        else:
            lines, largest, reps = _build_jsonl(sample, size, partial)
    except BaseException:
        _remove(partial)
        raise
    os.replace(partial, target)
    on_disk = sum(f.stat().st_size for f in path.parent.iterdir()) if task_folder else path.stat().st_size
    built = Built(path, on_disk, lines, largest, reps, time.perf_counter() - start)
    meta.write_bytes(orjson.dumps({k: v for k, v in asdict(built).items() if k not in ("path", "seconds")}))
    return built


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


_HISTORY_INDEX = re.compile(rb'"conversationHistoryIndex":(\d+)')


def _moved(shift: int) -> Callable[[re.Match[bytes]], bytes]:
    return lambda match: b'"conversationHistoryIndex":%d' % (int(match[1]) + shift)


def _build_cline(ui_file: Path, size: int, root: Path) -> tuple[int, int, int]:
    """A Cline task folder under ``root``: the golden task's ui rows and api messages repeated in
    both files (fresh ids, later ``ts``, each repetition's ``conversationHistoryIndex`` moved
    past the api messages before it), until the two files hold ``size`` bytes together.
    Returns (rows + messages, the larger file's size: Cline files are read whole, so the
    largest item is a whole file, and repetitions)."""
    ui = [orjson.dumps(row) for row in orjson.loads(ui_file.read_bytes())]
    api_file = ui_file.with_name("api_conversation_history.json")
    api = [orjson.dumps(message) for message in orjson.loads(api_file.read_bytes())]
    ui_template, api_template = Template(ui), Template(api)
    period = max(ui_template.period, api_template.period)
    ui_template.period = api_template.period = period  # both files shift together
    task = root / "tasks" / CLINE_TASK
    task.mkdir(parents=True)
    sizes = [0, 0]
    reps = 0
    with open(task / "ui_messages.json", "wb") as ui_out, open(task / "api_conversation_history.json", "wb") as api_out:
        for out in (ui_out, api_out):
            out.write(b"[")
        while sum(sizes) < size:
            shift = reps * len(api)
            for index, (out, template) in enumerate(((ui_out, ui_template), (api_out, api_template))):
                for line in template.render(reps):
                    line = line.rstrip(b"\n")
                    if index == 0 and shift:
                        line = _HISTORY_INDEX.sub(_moved(shift), line)
                    text = (b",\n" if sizes[index] else b"") + line
                    out.write(text)
                    sizes[index] += len(text)
            reps += 1
        for out in (ui_out, api_out):
            out.write(b"]\n")
    return reps * (len(ui) + len(api)), max(sizes) + 2, reps


def _build_jsonl(sample: Sample, size: int, dest: Path) -> tuple[int, int, int]:
    raw = sample.path.read_bytes().splitlines()
    raw = [line for line in raw if line.strip()]
    head = header_count(sample.agent, raw)
    if len(raw) <= head:
        raise ValueError(f"{sample.path}: no lines to repeat after the header")
    template = Template(raw[head:], tree_key=TREE_KEY.get(sample.agent))
    written = lines = largest = reps = 0
    with open(dest, "wb") as out:
        for line in raw[:head]:
            out.write(line + b"\n")
            written += len(line) + 1
            lines += 1
            largest = max(largest, len(line) + 1)
        while written < size:
            for line in template.render(reps):
                out.write(line)
                written += len(line)
                lines += 1
                largest = max(largest, len(line))
            reps += 1
    return lines, largest, reps
