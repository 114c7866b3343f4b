"""How much ``asr export`` costs next to ``asr convert`` on the inputs scripts/bench.py builds.

For each agent, on the same built native input (bench.py's cache under bench-data/), CPU time
of this one process, best of ``--repeat``, measured side by side in one run:

- convert: ``convert_file`` (what ``asr convert PATH > OUT`` does);
- export to ATIF and to OpenTelemetry (an OTLP/JSON file): ``export_path`` of the native file
  (converted on the fly, every stream exported), and each format's export/convert ratio;
- the same exports from the already written ASR stream.

``--rss-mb 20,200`` adds the peak RSS (``VmHWM``) of a child process exporting each format from
inputs of those sizes, next to a child that only imports (the fixed overhead): the export keeps
the open step or spans and the step index, so peak RSS must not grow with the input.
``scripts/bench.py --export`` prints the same table in its report. Never run in tests.

    python scripts/bench_export.py --size-mb 200 --agents claude-code
    python scripts/bench_export.py --size-mb 20 --rss-mb 20,200
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench  # the sibling script's builders

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

        warm = bench.build_input(bench.find_sample(agent) or _missing(agent), 1)  # imports and caches untimed
        bench.convert_file(warm.path, agent, stream)
        for to in formats:
            export(warm.path, to, agent)
        row["convert_s"] = cpu(lambda: bench.convert_file(native, agent, stream), repeat)
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
    args = [sys.executable, str(Path(__file__).resolve()), "--child", agent, to, str(path or "-")]
    output = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return int(output) / 1024


def _child(agent: str, to: str, path: str) -> None:
    from asr_adapters import registry
    from asr_adapters.export import export_path

    registry.get(agent)
    if to == "otel":
        from asr_adapters.export import otel  # noqa: F401 - the SDK import counts in the base
    if path != "-":
        with open(os.devnull, "w", encoding="utf-8") as out:
            export_path(Path(path), out, to=to, agent=agent)
    sys.stdout.write(f"{bench._peak_rss_kb()}\n")


def memory(agent: str, sizes: list[float], formats: tuple[str, ...] = FORMATS) -> list[dict[str, Any]]:
    """Peak RSS of exporting inputs of ``sizes`` MB, per format, with the import-only base."""
    sample = bench.find_sample(agent) or _missing(agent)
    rows = []
    for mb in sizes:
        built = bench.build_input(sample, int(mb * bench.MB))
        for to in formats:
            rows.append(
                {
                    "agent": agent,
                    "format": to,
                    "input_mb": built.bytes / bench.MB,
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
        sample = bench.find_sample(agent)
        if sample is None:
            continue
        built = bench.build_input(sample, size)
        log(f"{agent}: export vs convert on {built.bytes / bench.MB:.0f} MB")
        rows.append({"agent": agent, "input_mb": built.bytes / bench.MB, **measure(agent, built.path, repeat)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=200)
    parser.add_argument("--agents", default=",".join(bench.AGENTS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rss-mb", default="", help="also peak RSS of exports of these sizes, e.g. 20,200")
    parser.add_argument("--no-timing", action="store_true", help="only the --rss-mb runs")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    agents = [a for a in args.agents.split(",") if a]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} at start; CPU seconds of this process, best of {args.repeat}")
    if not args.no_timing:
        print_rows(export_rows(agents, int(args.size_mb * bench.MB), args.repeat, log))
    if args.rss_mb:
        sizes = [float(x) for x in args.rss_mb.split(",")]
        for agent in agents:
            log(f"{agent}: peak RSS at {sizes} MB")
            print_memory(memory(agent, sizes))


if __name__ == "__main__":
    main()
