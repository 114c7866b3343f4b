"""Issue 28 target 4: ``asr batch`` of many small sessions next to its floor, in one run.

The floor is what orjson alone costs on the same files: ``orjson.loads`` of every line of every
session file plus ``orjson.dumps`` of each value, CPU time of this process, least of
``--repeat``. The batch is ``asr batch SRC -o OUTDIR --jobs N --quiet`` in a child process,
fresh OUTDIR each run: its CPU (``os.wait4``, workers included) and its wall time, least of
``--repeat``; ``--jobs 2`` against ``--jobs 1`` is the speed-up (wall: it is about two cores).
The sessions are the ones ``scripts/bench.py`` builds (golden inputs with fresh ids, cached in
bench-data/). Timings are reported here, never asserted in tests.

    python scripts/bench_batch_floor.py --count 2000 --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import MB  # noqa: E402 - after the path is set
from benchlib.batch import asr_batch, build_batch  # noqa: E402


def floor_seconds(source: Path) -> tuple[float, int]:
    """CPU seconds of loads + dumps of every line of every file under ``source``, and the files."""
    files = sorted(p for p in source.rglob("*") if p.is_file())
    start = time.process_time()
    for path in files:
        with open(path, "rb") as handle:
            for line in handle:
                if line.strip():
                    with contextlib.suppress(orjson.JSONDecodeError):  # a golden case's torn line
                        orjson.dumps(orjson.loads(line))
    return time.process_time() - start, len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="sessions (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each step; the least is kept")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    source, total = build_batch(args.count)
    floor = min(floor_seconds(source)[0] for _ in range(args.repeat))
    files = floor_seconds(source)[1]
    runs: dict[int, list[tuple[float, float, int]]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        for n in range(args.repeat):
            for jobs in (1, 2):
                out = Path(scratch) / f"out-{jobs}-{n}"
                runs[jobs].append(asr_batch(source, out, jobs))
    best = {
        jobs: (min(r[0] for r in rows), min(r[1] for r in rows), {r[2] for r in rows}) for jobs, rows in runs.items()
    }
    report = {
        "sessions": args.count,
        "files": files,
        "input_mb": total / MB,
        "floor_cpu_s": floor,
        "jobs1": {"wall_s": best[1][0], "cpu_s": best[1][1], "exits": sorted(best[1][2])},
        "jobs2": {"wall_s": best[2][0], "cpu_s": best[2][1], "exits": sorted(best[2][2])},
        "jobs1_cpu_over_floor": best[1][1] / floor,
        "speedup_wall": best[1][0] / best[2][0],
    }
    if args.json:
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        print(
            f"{args.count} sessions ({files} files, {total / MB:.1f} MB): floor {floor:.2f} s CPU; "
            f"--jobs 1 {best[1][1]:.2f} s CPU ({best[1][1] / floor:.2f}x), {best[1][0]:.2f} s wall; "
            f"--jobs 2 {best[2][0]:.2f} s wall: {best[1][0] / best[2][0]:.2f}x (least of {args.repeat})"
        )


if __name__ == "__main__":
    main()
