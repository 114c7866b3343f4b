"""``asr index`` and ``asr search`` at scale (issue 30): sessions indexed per second, search
latency over 10,000 sessions, the database's size per million records, and peak memory on one
large session.

The corpus: ``--count`` small sessions (golden inputs with fresh ids, as scripts/bench.py builds
them, cached under bench-data/), converted once by ``asr batch``; and one large Codex stream of
``--big-mb`` MB (a shared sample or golden input grown as bench.py grows it). Measured:

- ``build``: a fresh index of the whole archive in a child process: wall and CPU seconds
  (``os.wait4``), sessions/s and records/s by CPU, peak RSS;
- ``re-run``: the same index again with nothing changed;
- ``one grown``: one session's stream replaced by a longer one, then the re-run;
- ``search``: each query of QUERIES through the library (``run_search``, the index opened per
  call, as ``asr search`` does) ``--repeat`` times: median and 95th percentile in ms; and the
  ``asr search`` command itself (process start included) a few times;
- ``size``: the index's bytes per million records;
- ``large``: a fresh index of the one large stream: wall, CPU and peak RSS against the stream's
  size (bounded memory: a large session is never held whole).

Timings are reported, never asserted in tests.

    python scripts/bench_index.py                    # 10,000 sessions, a 200 MB stream
    python scripts/bench_index.py --count 2000 --big-mb 50
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import DATA, MB  # noqa: E402
from benchlib.batch import build_batch  # noqa: E402
from benchlib.inputs import build_input, find_sample  # noqa: E402

MB = MB
ASR = [sys.executable, "-c", "from asr_adapters.cli import main; main()"]
BUILD = "import sys; from asr_adapters.index import build_index; build_index(sys.argv[1], sys.argv[2])"

#: (label, query, extra search options): rare and common words, a phrase, filters, no text.
QUERIES = [
    ("common word", "parser", {}),
    ("common word, person only", "parser", {"authors": ["human"]}),
    ("phrase", '"failing parser test"', {}),
    ("prefix", "pars*", {}),
    ("two words OR", "cargo OR pytest", {}),
    ("absent word", "zstd", {}),
    ("no match", "xylophonequartz", {}),
    ("failed tool calls, no text", "", {"failed": True}),
    ("tool filter", "test", {"tools": ["Bash"]}),
    ("newest first", "test", {"newest_first": True}),
]


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def child(args: list[str]) -> tuple[float, float, int]:
    """Run ``args``; wall seconds, CPU seconds (user + system) and peak RSS in KB (``wait4``)."""
    started = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{args}: failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def archive_of(count: int) -> tuple[Path, int, int]:
    """The batch archive of ``count`` small sessions (converted once): folder, streams, records."""
    src, _total = build_batch(count)
    archive = DATA / f"index-archive-{src.name}"
    if not (archive / ".complete").is_file():
        shutil.rmtree(archive, ignore_errors=True)
        subprocess.run([*ASR, "batch", str(src), "-o", str(archive), "-q", "--jobs", "2"], check=True)
        (archive / ".complete").write_text("")
    streams = list(archive.rglob("*.asr.jsonl"))
    return archive, len(streams), sum(lines(p) for p in streams)


def lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def large_stream(big_mb: int) -> tuple[Path, int]:
    """A folder holding one large stream converted from a grown Codex input, and its records."""
    sample = find_sample("codex")
    if sample is None:
        raise SystemExit("no Codex sample or golden input to build the large session from")
    built = build_input(sample, big_mb * MB)
    folder = DATA / f"index-large-{big_mb}"
    stream = folder / "codex" / "large.asr.jsonl"
    if not stream.is_file():
        stream.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([*ASR, "convert", str(built.path), "-o", str(stream)], check=True)
    return folder, lines(stream)


def timed_search(index: Path, repeat: int) -> list[tuple[str, float, float, float, int]]:
    """Per query: median wall ms, its 95th percentile, median CPU ms (what the search itself costs
    on a shared machine, where wall time also counts waiting for a core), records shown."""
    from asr_adapters.index.search import Search, run_search

    rows = []
    for label, query, options in QUERIES:
        walls, cpus = [], []
        hits = 0
        for _ in range(repeat):
            started, cpu = time.perf_counter(), time.process_time()
            hits = len(run_search(index, Search(text=query, **options)))  # type: ignore[arg-type]
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
        walls.sort()
        rows.append((label, statistics.median(walls), walls[int(len(walls) * 0.95) - 1], statistics.median(cpus), hits))
    return rows


def reference_ms() -> float:
    """How fast this machine is right now: the median ms of one fixed pure-Python loop (about
    20 ms on an idle core of a 2020s laptop), printed beside the timings to read them by."""
    times = []
    for _ in range(5):
        started = time.perf_counter()
        sum(range(1_000_000))
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--big-mb", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()

    archive, streams, records = archive_of(args.count)
    work = DATA / "index-work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    index = work / "index.sqlite"
    print(f"archive: {streams} streams, {records} records, {folder_size(archive) / MB:.1f} MB")

    wall, cpu, rss = child([sys.executable, "-c", BUILD, str(archive), str(index)])
    size = index.stat().st_size
    print(
        f"build:    {wall:.2f} s wall, {cpu:.2f} s CPU; {streams / cpu:,.0f} sessions/s and {records / cpu:,.0f} "
        f"records/s by CPU ({streams / wall:,.0f} sessions/s wall); peak RSS {rss / 1024:.0f} MB"
    )
    print(f"size:     {size / MB:.1f} MB, {size / records * 1e6 / MB:,.0f} MB per million records")
    wall, cpu, rss = child([sys.executable, "-c", BUILD, str(archive), str(index)])
    print(f"re-run:   {wall:.2f} s wall, {cpu:.2f} s CPU, nothing changed")

    victim = sorted(archive.rglob("*.asr.jsonl"))[0]
    saved = work / "saved.asr.jsonl"
    shutil.copy2(victim, saved)
    try:
        data = victim.read_bytes()
        victim.write_bytes(data + b"".join(data.splitlines(keepends=True)[1:]))  # the same records again, after
        wall, cpu, rss = child([sys.executable, "-c", BUILD, str(archive), str(index)])
        print(f"one grown: {wall:.2f} s wall, {cpu:.2f} s CPU")
    finally:
        shutil.copy2(saved, victim)
        child([sys.executable, "-c", BUILD, str(archive), str(index)])

    print(f"search over {streams} sessions (library, index opened per call, {args.repeat} runs):")
    print(f"  (reference: sum(range(1e6)) takes {reference_ms():.0f} ms on this machine now)")
    results = timed_search(index, args.repeat)
    for label, median, p95, cpu, hits in results:
        print(f"  {label:28} median {median:7.1f} ms  p95 {p95:7.1f} ms  CPU {cpu:7.1f} ms  ({hits} shown)")
    print(
        f"  median over the queries: {statistics.median(r[1] for r in results):.1f} ms wall, "
        f"{statistics.median(r[3] for r in results):.1f} ms CPU"
    )
    cli = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([*ASR, "search", "parser", "--index", str(index)], stdout=subprocess.DEVNULL, check=True)
        cli.append((time.perf_counter() - started) * 1000)
    print(f"  asr search parser (the command, process start included): median {statistics.median(cli):.0f} ms")

    folder, big_records = large_stream(args.big_mb)
    stream_mb = folder_size(folder) / MB
    big_index = work / "large.sqlite"
    wall, cpu, rss = child([sys.executable, "-c", BUILD, str(folder), str(big_index)])
    print(
        f"large:    one {stream_mb:.0f} MB stream ({big_records} records): {wall:.1f} s wall, {cpu:.1f} s CPU, "
        f"peak RSS {rss / 1024:.0f} MB; index {big_index.stat().st_size / MB:.0f} MB"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
