"""``asr export`` next to ``asr convert`` on the built inputs (``bench_export.py``, ``bench.py --export``)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import MB
from .inputs import build_input, find_sample
from .measure import convert_file

#: the script whose ``--child`` runs one export for ``peak_rss_mb``
CHILD_SCRIPT = Path(__file__).resolve().parent.parent / "bench_export.py"

FORMATS = ("atif", "otel")


def cpu(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def measure(agent: str, native: Path, repeat: int, formats: tuple[str, ...] = FORMATS) -> dict[str, float]:
    """CPU seconds of convert, of each format's export from the native file and from the stream,
    and each export/convert ratio."""
    from asr_adapters.export import export_path

    row: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        stream = Path(scratch) / "out.asr.jsonl"
        document = Path(scratch) / "out.json"

        def export(source: Path, to: str, given: str | None) -> None:
            with open(document, "w", encoding="utf-8") as out:
                export_path(source, out, to=to, agent=given)

        warm = build_input(find_sample(agent) or _missing(agent), 1)  # imports and caches untimed
        convert_file(warm.path, agent, stream)
        for to in formats:
            export(warm.path, to, agent)
        row["convert_s"] = cpu(lambda: convert_file(native, agent, stream), repeat)
        for to in formats:
            row[f"{to}_s"] = cpu(lambda to=to: export(native, to, agent), repeat)
            row[f"{to}_ratio"] = row[f"{to}_s"] / row["convert_s"]
        for to in formats:
            row[f"{to}_from_asr_s"] = cpu(lambda to=to: export(stream, to, None), repeat)
    return row


def _missing(agent: str) -> Any:
    raise SystemExit(f"{agent}: no sample to build from")


def peak_rss_mb(agent: str, path: Path | None, to: str) -> float:
    """Peak RSS (MB) of a child exporting ``path`` to /dev/null (None: imports only)."""
    args = [sys.executable, str(CHILD_SCRIPT), "--child", agent, to, str(path or "-")]
    output = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return int(output) / 1024


def memory(agent: str, sizes: list[float], formats: tuple[str, ...] = FORMATS) -> list[dict[str, Any]]:
    """Peak RSS of exporting inputs of ``sizes`` MB, per format, with the import-only base."""
    sample = find_sample(agent) or _missing(agent)
    rows = []
    for mb in sizes:
        built = build_input(sample, int(mb * MB))
        for to in formats:
            rows.append(
                {
                    "agent": agent,
                    "format": to,
                    "input_mb": built.bytes / MB,
                    "largest_line_kb": built.largest_line / 1024,
                    "rss_mb": peak_rss_mb(agent, built.path, to),
                    "base_rss_mb": peak_rss_mb(agent, None, to),
                }
            )
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'agent':<12} {'MB':>6} {'convert s':>9} {'ATIF s':>7} {'ATIF/conv':>9} {'OTel s':>7} {'OTel/conv':>9} "
        f"{'ATIF from ASR s':>15} {'OTel from ASR s':>15}"
    )
    for r in rows:
        print(
            f"{r['agent']:<12} {r['input_mb']:>6.1f} {r['convert_s']:>9.2f} {r['atif_s']:>7.2f} "
            f"{r['atif_ratio']:>8.2f}x {r['otel_s']:>7.2f} {r['otel_ratio']:>8.2f}x "
            f"{r['atif_from_asr_s']:>15.2f} {r['otel_from_asr_s']:>15.2f}"
        )


def print_memory(rows: list[dict[str, Any]]) -> None:
    for m in rows:
        print(
            f"export RSS {m['agent']:<12} {m['format']:<5} {m['input_mb']:>6.0f} MB input "
            f"(largest line {m['largest_line_kb']:.0f} KB): peak {m['rss_mb']:.0f} MB, base {m['base_rss_mb']:.0f} MB"
        )


def export_rows(agents: list[str], size: int, repeat: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """One row per agent with a sample: input size and ``measure``'s numbers (bench.py --export)."""
    rows = []
    for agent in agents:
        sample = find_sample(agent)
        if sample is None:
            continue
        built = build_input(sample, size)
        log(f"{agent}: export vs convert on {built.bytes / MB:.0f} MB")
        rows.append({"agent": agent, "input_mb": built.bytes / MB, **measure(agent, built.path, repeat)})
    return rows
