"""The three ways to spread ``asr batch`` (issue 17), on one corpus, at equal workers.

The corpus: ``--count`` small sessions (golden inputs with fresh ids, cycled over the agents)
and ``--big`` large Codex rollouts of ``--big-mb`` MB each, built as scripts/bench.py builds
its inputs (cached under bench-data/, nothing random). Then, each from an empty OUTDIR:

- ``pool``:   ``asr batch SRC -o OUT --jobs 2`` (the local process pool);
- ``dask``:   ``asr batch SRC -o OUT --jobs 2 --engine dask`` (a LocalCluster of 2 worker
              processes, one thread each, started by the run and counted in it);
- ``shards``: ``asr batch SRC -o OUT --shard 1/2 --jobs 1`` and ``--shard 2/2`` started at
              once, then ``asr batch --merge-manifests -o OUT`` (counted in the wall time).

For each: wall time, the peak RSS of the largest single process of the run (``ru_maxrss``
from ``os.wait4``: the maximum over the process and the descendants it reaped) and the peak
of the RSS summed over the whole process tree (sampled every 0.1 s with psutil, which the
dask extra brings). Timings are reported, never asserted in tests.

    python scripts/bench_scale.py                         # 10,000 small + 3 x 100 MB
    python scripts/bench_scale.py --count 2000 --big 2 --big-mb 20
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import DATA, MB, ROOT  # noqa: E402
from benchlib.batch import build_batch  # noqa: E402
from benchlib.inputs import build_input, find_sample  # noqa: E402

MB = MB


def corpus(count: int, big: int, big_mb: int) -> tuple[Path, int, int]:
    """SRC (hard links to the cached inputs), its number of files and bytes."""
    small, _total = build_batch(count)
    sample = find_sample("codex")
    if sample is None:
        raise SystemExit("no Codex sample or golden input to build the large sessions from")
    large = [build_input(sample, (big_mb + index) * MB) for index in range(big)]  # distinct sizes
    src = DATA / f"scale-src-{count}-{big}x{big_mb}"
    if not (src / ".complete").is_file():
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(small, src / "small", copy_function=_link, ignore=shutil.ignore_patterns(".complete"))
        for index, built in enumerate(large):
            target = src / "large" / f"{index}" / "rollout-big.jsonl"
            target.parent.mkdir(parents=True)
            _link(str(built.path), str(target))
        (src / ".complete").write_text("")
    files = [p for p in src.rglob("*") if p.is_file() and p.name != ".complete"]
    return src, len(files), sum(p.stat().st_size for p in files)


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _asr(*arguments: str) -> list[str]:
    return [sys.executable, "-c", "from asr_adapters.cli import main; main()", *arguments]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


class TreeRss:
    """The peak of the RSS summed over some processes and all their descendants."""

    def __init__(self) -> None:
        self.pids: list[int] = []
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        try:
            import psutil
        except ImportError:
            return
        while not self._stop.wait(0.1):
            total = 0
            for pid in list(self.pids):
                try:
                    root = psutil.Process(pid)
                    for process in [root, *root.children(recursive=True)]:
                        total += process.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)


def run(commands: list[list[str]], then: list[str] | None = None) -> dict[str, Any]:
    """Start the commands at once, wait for all (then run ``then``); wall, peaks, exit codes."""
    start = time.perf_counter()
    largest = 0
    codes = []
    with TreeRss() as tree:
        processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, env=_env()) for c in commands]
        tree.pids = [p.pid for p in processes]
        for process in processes:
            _pid, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            codes.append(process.returncode)
            largest = max(largest, usage.ru_maxrss)
        if then is not None:
            codes.append(subprocess.run(then, stdout=subprocess.DEVNULL, env=_env(), check=False).returncode)
    wall = time.perf_counter() - start
    return {"wall_s": wall, "largest_process_mb": largest / 1024, "tree_peak_mb": tree.peak / MB, "exit": codes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="small sessions (default 10,000)")
    parser.add_argument("--big", type=int, default=3, help="large Codex sessions (default 3)")
    parser.add_argument("--big-mb", type=int, default=100, help="MB of each large session (default 100)")
    parser.add_argument("--modes", default="pool,dask,shards", help="which of pool,dask,shards to run")
    parser.add_argument("--scratch", type=Path, default=DATA / "scale-out", help="OUTDIRs (removed after)")
    args = parser.parse_args()

    src, files, size = corpus(args.count, args.big, args.big_mb)
    print(f"corpus: {files} files, {size / MB:.0f} MB ({args.count} small, {args.big} x ~{args.big_mb} MB)", flush=True)
    rows: dict[str, dict[str, Any]] = {}
    for mode in args.modes.split(","):
        out = args.scratch / mode
        shutil.rmtree(out, ignore_errors=True)
        if mode == "pool":
            rows[mode] = run([_asr("batch", str(src), "-o", str(out), "--jobs", "2", "--quiet")])
        elif mode == "dask":
            rows[mode] = run([_asr("batch", str(src), "-o", str(out), "--jobs", "2", "--engine", "dask", "--quiet")])
        elif mode == "shards":
            shards = [_asr("batch", str(src), "-o", str(out), "--shard", f"{k}/2", "--jobs", "1", "-q") for k in (1, 2)]
            rows[mode] = run(shards, then=_asr("batch", "--merge-manifests", "-o", str(out), "--quiet"))
        else:
            raise SystemExit(f"unknown mode {mode!r}")
        rows[mode]["outputs"] = sum(1 for _ in out.rglob("*.asr.jsonl"))
        shutil.rmtree(out, ignore_errors=True)
        print(f"{mode}: {rows[mode]}", flush=True)

    base = rows.get("pool", {}).get("wall_s")
    print("\n| mode | wall s | vs pool | largest process peak RSS MB | process tree peak RSS MB | outputs | exit |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for mode, row in rows.items():
        ratio = f"{row['wall_s'] / base:.2f}x" if base else "-"
        print(
            f"| {mode} | {row['wall_s']:.1f} | {ratio} | {row['largest_process_mb']:.0f} | "
            f"{row['tree_peak_mb']:.0f} | {row['outputs']} | {row['exit']} |"
        )


if __name__ == "__main__":
    main()
