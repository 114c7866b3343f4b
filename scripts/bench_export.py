"""How much ``asr export`` costs next to ``asr convert`` on the same built inputs (scripts/bench.py).

For each agent: the input bench.py builds (same cache under bench-data/), then CPU time of
``convert_file`` (what ``asr convert PATH > OUT`` does) and of ``export_path`` to ATIF (the
native file converted on the fly, every stream exported), best of ``--repeat``; and the export
of the already written ASR stream alone. Prints export/convert. ``--to otel`` measures the
OpenTelemetry export (OTLP/JSON file) instead. Never run in tests.

    python scripts/bench_export.py --size-mb 200
    python scripts/bench_export.py --size-mb 20 --agents codex,claude-code
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench  # the sibling script's builders

from asr_adapters.export import export_path


def cpu(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=200)
    parser.add_argument("--agents", default="codex,claude-code,openclaw,gemini-cli")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--to", default="atif", choices=["atif", "otel"], help="the export format (default atif)")
    args = parser.parse_args()
    print(f"{'agent':<12} {'MB':>7} {'convert s':>10} {'export s':>9} {'ratio':>6} {'from ASR s':>11}")
    for agent in args.agents.split(","):
        sample = bench.find_sample(agent)
        if sample is None:
            print(f"{agent:<12} no sample")
            continue
        built = bench.build_input(sample, int(args.size_mb * 1024 * 1024))
        convert, exported, from_asr = measure(agent, built.path, args.repeat, args.to)
        ratio = exported / convert
        mb = built.bytes / 1e6
        print(f"{agent:<12} {mb:>7.1f} {convert:>10.2f} {exported:>9.2f} {ratio:>6.2f} {from_asr:>11.2f}")


def measure(agent: str, native: Path, repeat: int, to: str = "atif") -> tuple[float, float, float]:
    """CPU seconds of convert, of export from the native file, and of export from the stream."""
    with tempfile.TemporaryDirectory() as scratch:
        stream = Path(scratch) / "out.asr.jsonl"
        trajectory = Path(scratch) / "out.atif.json"

        def export(source: Path) -> None:
            with open(trajectory, "w", encoding="utf-8") as out:
                export_path(source, out, to=to)

        convert = cpu(lambda: bench.convert_file(native, agent, stream), repeat)
        exported = cpu(lambda: export(native), repeat)
        from_asr = cpu(lambda: export(stream), repeat)
    return convert, exported, from_asr


if __name__ == "__main__":
    main()
