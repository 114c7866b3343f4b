"""The clocks and the floor: CPU and wall seconds, peak RSS, orjson alone on the same bytes, and
the conversion ``asr convert`` does."""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from . import ROOT


def cpu_wall(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Process CPU seconds, wall seconds and the result of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def floor_loads(path: Path, agent: str) -> float:
    """CPU seconds of reading the input and ``orjson.loads`` of every native line (JSON column for a DB)."""
    loads = orjson.loads
    start = time.process_time()
    if agent == "opencode":
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            for table in ("message", "part"):
                for (data,) in connection.execute(f"SELECT data FROM {table}"):
                    loads(data)
        finally:
            connection.close()
    elif agent == "cline":  # two JSON documents, each parsed whole (as the adapter must)
        for name in ("ui_messages.json", "api_conversation_history.json"):
            loads(path.with_name(name).read_bytes())
    elif agent == "t3code":
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            query = "SELECT payload_json, metadata_json FROM orchestration_events ORDER BY sequence"
            for payload, metadata in connection.execute(query):
                loads(payload)
                loads(metadata)
        finally:
            connection.close()
    else:
        with open(path, "rb") as handle:
            for line in handle:
                with contextlib.suppress(orjson.JSONDecodeError):
                    loads(line)
    return time.process_time() - start


def floor_dumps(stream: Path, chunk: int = 20_000) -> tuple[float, float]:
    """CPU seconds of ``orjson.dumps`` of every record in ``stream`` (parsed untimed, a chunk at a time),
    and of ``orjson.loads`` of every line of it."""
    # No cyclic GC passes over the chunk of parsed records held here (a converter holds none).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _dump_chunks(stream, chunk)
    finally:
        if collecting:
            gc.enable()


def _dump_chunks(stream: Path, chunk: int) -> tuple[float, float]:
    dumps, loads, option = orjson.dumps, orjson.loads, orjson.OPT_APPEND_NEWLINE
    dumping = parsing = 0.0
    with open(stream, "rb") as handle:
        while True:
            lines = handle.readlines(chunk * 512)
            if not lines:
                break
            start = time.process_time()
            records = [loads(line) for line in lines]
            middle = time.process_time()
            for record in records:
                dumps(record, option=option)
            dumping += time.process_time() - middle
            parsing += middle - start
    return dumping, parsing


def convert_file(path: Path, agent: str, dest: Path | str) -> tuple[int, dict[str, int]]:
    """What ``asr convert PATH > DEST`` does: the main stream written, the others drained.

    A database holds threads and no main stream: its streams are all written (the built
    T3 Code database holds one thread, so this is ``asr convert --thread``).
    """
    from asr_adapters.convert import Conversion
    from asr_adapters.stream.writer import StreamWriter

    conversion = Conversion(path, agent, as_dicts=True)
    records = 0
    with open(dest, "wb") as out:
        for stream in conversion.streams():
            if stream.main or agent in ("t3code", "opencode"):
                records += StreamWriter(out).write_all(stream.records)
            else:
                for _ in stream.records:
                    pass
    return records, conversion.accounting.as_dict()


def peak_rss_kb() -> int:
    """This process's peak RSS in KB (``VmHWM``; ``ru_maxrss`` where /proc is absent)."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def best_of(times: int, fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """``cpu_wall(fn)`` of the run with the least CPU time among ``times`` runs."""
    runs = [cpu_wall(fn) for _ in range(max(1, times))]
    return min(runs, key=lambda run: run[0])


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", "asr_adapters"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (asr_adapters/ modified)" if dirty else "")


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average {load} at start"
