"""How fast and how lean conversion is, next to what orjson alone costs on the same bytes.

For each agent, builds a large input from a real sample (the shared samples in
../shared/samples/<agent>/, or a golden input under golden/<agent>/ when they are absent) by
repeating its lines with fresh ids and shifted timestamps until a target size, then times,
in this one process and side by side:

- floor:    ``orjson.loads`` of every native line (read from the file) plus ``orjson.dumps``
            of every record we write;
- convert:  the library path of ``asr convert``: ``StreamWriter`` over
            ``Conversion(path, agent, as_dicts=True)`` to a file;
- validate: ``asr_adapters.validate`` of the written stream;

and reports convert/floor and validate/floor (CPU time of this process,
``time.process_time``). Peak RSS of a conversion is measured in a child process (``os.wait4``),
next to the input's largest line and a child that only imports the adapter (the fixed
overhead). ``--memory`` adds the RSS of converting 100 MB and 1 GB inputs. The batch part
converts 1000 small sessions (golden inputs with fresh ids, spread over agents) with
``asr batch --jobs 1`` and ``--jobs 2`` (wall time). Built inputs are cached under
bench-data/, keyed by the sample's hash and the parameters; nothing random is used, so two
runs build the same bytes. Timings are reported here, never asserted in tests.

    python scripts/bench.py                      # 200 MB per agent, RSS, batch of 1000
    python scripts/bench.py --quick              # a small smoke run (2 MB, 100 sessions)
    python scripts/bench.py --size-mb 20 --agents codex,openclaw --no-batch --json
    python scripts/bench.py --memory             # also 100 MB and 1 GB RSS runs (slow)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
from benchlib import AGENTS, DATA, MB
from benchlib.batch import asr_batch, build_batch
from benchlib.inputs import Sample, build_input, find_sample
from benchlib.measure import best_of, convert_file, floor_dumps, floor_loads, git_commit, machine, peak_rss_kb

# -- measurements ---------------------------------------------------------------------------------


@dataclass
class Row:
    agent: str
    sample: str
    input_mb: float = 0.0
    lines: int = 0
    largest_line_kb: float = 0.0
    records: int = 0
    build_s: float = 0.0
    floor_cpu_s: float = 0.0  # loads of native lines + dumps of our records (process CPU)
    floor_loads_s: float = 0.0
    floor_dumps_s: float = 0.0
    convert_cpu_s: float = 0.0
    convert_wall_s: float = 0.0
    validate_cpu_s: float = 0.0
    validate_wall_s: float = 0.0
    parse_out_s: float = 0.0  # orjson.loads of every line we wrote (what validating cannot avoid)
    convert_ratio: float = 0.0
    validate_ratio: float = 0.0
    validate_parse_ratio: float = 0.0  # validate / parse_out: against parsing the stream it checks
    findings: int = 0
    duplicates: int = 0
    unreadable: int = 0
    rss_mb: float = 0.0
    base_rss_mb: float = 0.0
    rss_lines: float = 0.0  # (rss - base) / largest line
    note: str = ""


@dataclass
class MemoryRow:
    agent: str
    input_mb: float
    largest_line_kb: float
    rss_mb: float
    base_rss_mb: float
    rss_lines: float
    convert_wall_s: float
    build_s: float


@dataclass
class Report:
    commit: str
    machine: str
    clocks: dict[str, str]
    rows: list[Row] = field(default_factory=list)
    memory: list[MemoryRow] = field(default_factory=list)
    batch: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    export: list[dict[str, Any]] = field(default_factory=list)  # --export (scripts/bench_export.py)


def child_rss(path: Path | None, agent: str) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of a child converting ``path`` to /dev/null (None: imports only).

    The child reports its own high-water mark (``VmHWM``): on Linux a child's ``ru_maxrss``
    starts from the parent's RSS at the fork, which would hide a small child under a big parent.
    """
    args = [sys.executable, str(Path(__file__).resolve()), "--child-convert", agent, str(path or "-")]
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.PIPE)
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"child conversion of {path} failed with status {process.returncode}")
    peak_kb = int(output) if output.strip() else usage.ru_maxrss
    return peak_kb / 1024, time.perf_counter() - start


def _child_convert(agent: str, path: str) -> None:
    from asr_adapters import registry

    registry.get(agent)
    if path != "-":
        convert_file(Path(path), agent, os.devnull)
    sys.stdout.write(f"{peak_rss_kb()}\n")


def measure_agent(
    agent: str, sample: Sample, size: int, scratch: Path, log: Callable[[str], None], repeat: int = 1
) -> Row:
    from asr_adapters.validate import validate

    row = Row(agent, sample.name)
    log(f"{agent}: building {size / MB:.0f} MB from {sample.name}")
    built = build_input(sample, size)
    row.input_mb = built.bytes / MB
    row.lines = built.lines
    row.largest_line_kb = built.largest_line / 1024
    row.build_s = built.seconds
    out = scratch / f"{agent}.asr.jsonl"
    # Warm up on one repetition of the sample: imports, compiled patterns and caches are not timed.
    warm = build_input(sample, 1)
    convert_file(warm.path, agent, out)
    validate(out)
    log(f"{agent}: floor, convert, validate ({built.path.name})")
    row.floor_loads_s = best_of(repeat, lambda: floor_loads(built.path, agent))[2]
    row.convert_cpu_s, row.convert_wall_s, (records, counts) = best_of(
        repeat, lambda: convert_file(built.path, agent, out)
    )
    row.records = records
    row.duplicates = counts.get("duplicates", 0)
    row.unreadable = counts.get("unreadable", 0)
    row.floor_dumps_s, row.parse_out_s = min(floor_dumps(out) for _ in range(max(1, repeat)))
    row.floor_cpu_s = row.floor_loads_s + row.floor_dumps_s
    row.validate_cpu_s, row.validate_wall_s, findings = best_of(repeat, lambda: validate(out))
    row.findings = len(findings)
    row.convert_ratio = row.convert_cpu_s / row.floor_cpu_s
    row.validate_ratio = row.validate_cpu_s / row.floor_cpu_s
    row.validate_parse_ratio = row.validate_cpu_s / row.parse_out_s if row.parse_out_s else 0.0
    out.unlink()
    log(f"{agent}: peak RSS in a child")
    row.base_rss_mb, _ = child_rss(None, agent)
    row.rss_mb, _ = child_rss(built.path, agent)
    row.rss_lines = max(0.0, row.rss_mb - row.base_rss_mb) * MB / built.largest_line
    return row


def measure_memory(agent: str, sample: Sample, size: int, log: Callable[[str], None]) -> MemoryRow:
    log(f"{agent}: building {size / MB:.0f} MB for the RSS run")
    built = build_input(sample, size)
    log(f"{agent}: converting {built.bytes / MB:.0f} MB in a child")
    base, _ = child_rss(None, agent)
    rss, wall = child_rss(built.path, agent)
    return MemoryRow(
        agent,
        built.bytes / MB,
        built.largest_line / 1024,
        rss,
        base,
        max(0.0, rss - base) * MB / built.largest_line,
        wall,
        built.seconds,
    )


def measure_batch(count: int, scratch: Path, log: Callable[[str], None]) -> dict[str, Any]:
    log(f"batch: building {count} sessions")
    source, total = build_batch(count)
    result: dict[str, Any] = {"sessions": count, "input_mb": total / MB}
    for jobs in (1, 2):
        log(f"batch: --jobs {jobs}")
        outdir = scratch / f"batch-jobs{jobs}"
        wall, cpu, status = asr_batch(source, outdir, jobs)
        written = sum(1 for _ in outdir.rglob("*.asr.jsonl"))
        result[f"jobs{jobs}"] = {"wall_s": wall, "cpu_s": cpu, "exit": status, "streams": written}
        shutil.rmtree(outdir, ignore_errors=True)
    result["speedup"] = result["jobs1"]["wall_s"] / result["jobs2"]["wall_s"]
    return result


# -- report ---------------------------------------------------------------------------------------

CLOCKS = {
    "floor, convert, validate, parse(out)": "time.process_time() of this process (user + system CPU)",
    "convert wall, validate wall": "time.perf_counter()",
    "RSS": "ru_maxrss of a child process (os.wait4), MB",
    "batch": "time.perf_counter() around the asr batch child (wall); cpu: the child's and its workers' CPU",
    "memory runs": "wall time of the child conversion",
}


def print_table(report: Report) -> None:
    print(f"commit {report.commit}; {report.machine}")
    header = (
        f"{'agent':<12} {'MB':>6} {'lines':>8} {'max line':>9} {'records':>8} {'floor s':>8} {'convert s':>9} "
        f"{'validate s':>10} {'conv/floor':>10} {'val/floor':>9} {'val/parse':>9} "
        f"{'RSS MB':>7} {'base MB':>7} {'over/line':>9}"
    )
    print(header)
    for r in report.rows:
        if r.note:
            print(f"{r.agent:<12} {r.note}")
            continue
        print(
            f"{r.agent:<12} {r.input_mb:>6.1f} {r.lines:>8} {r.largest_line_kb:>7.1f}KB {r.records:>8} "
            f"{r.floor_cpu_s:>8.2f} {r.convert_cpu_s:>9.2f} {r.validate_cpu_s:>10.2f} {r.convert_ratio:>9.2f}x "
            f"{r.validate_ratio:>8.2f}x {r.validate_parse_ratio:>8.2f}x "
            f"{r.rss_mb:>7.1f} {r.base_rss_mb:>7.1f} {r.rss_lines:>9.1f}"
        )
    for r in report.rows:
        if r.findings or r.unreadable:
            print(f"{r.agent}: {r.findings} validator findings, {r.unreadable} unreadable native lines (see --json)")
    for m in report.memory:
        print(
            f"memory {m.agent:<12} {m.input_mb:>7.0f} MB, largest line {m.largest_line_kb:.1f} KB: "
            f"RSS {m.rss_mb:.0f} MB (base {m.base_rss_mb:.0f} MB, {m.rss_lines:.1f} largest lines over it), "
            f"convert {m.convert_wall_s:.0f} s, build {m.build_s:.0f} s"
        )
    b = report.batch
    if b:
        print(
            f"batch {b['sessions']} sessions ({b['input_mb']:.1f} MB): --jobs 1 {b['jobs1']['wall_s']:.1f} s, "
            f"--jobs 2 {b['jobs2']['wall_s']:.1f} s wall; jobs1/jobs2 {b['speedup']:.2f}x "
            f"(streams {b['jobs1']['streams']}/{b['jobs2']['streams']}, exit {b['jobs1']['exit']}/{b['jobs2']['exit']})"
        )
    if report.export:  # --export: asr export (ATIF, OTLP/JSON file) next to convert, same inputs
        from benchlib.export import print_rows

        print("export: CPU seconds, best of --repeat; target export/convert <= 1.5x")
        print_rows(report.export)
    print("targets: convert/floor <= 3x (codex, claude-code, openclaw, gemini-cli, ", end="")
    print("cline, copilot-cli, opencode); ", end="")
    print("validate/floor <= 2x; ", end="")
    print("jobs1/jobs2 >= 1.7x; RSS a fixed overhead plus a small multiple of the largest line")
    print(
        f"clocks: floor/convert/validate = process CPU (time.process_time); batch = wall; took {report.seconds:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=200, help="input size per agent (default 200)")
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated (default: all)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 MB inputs, 100 batch sessions")
    parser.add_argument("--memory", action="store_true", help="also the RSS of converting 100 MB and 1 GB inputs")
    parser.add_argument("--memory-mb", default="100,1024", help="sizes for --memory (default 100,1024)")
    parser.add_argument("--batch", type=int, default=1000, help="sessions for the batch run (0: skip)")
    parser.add_argument("--no-batch", action="store_true", help="skip the batch run")
    parser.add_argument("--repeat", type=int, help="time each step N times, keep the least CPU (default 1; 3 quick)")
    parser.add_argument("--sample", action="append", default=[], metavar="AGENT=PATH", help="build from this file")
    parser.add_argument("--show", metavar="JSON", type=Path, help="print the table of a saved --json report")
    parser.add_argument(
        "--export", action="store_true", help="also asr export (ATIF and OTel) vs convert (scripts/bench_export.py)"
    )
    parser.add_argument("--child-convert", nargs=2, metavar=("AGENT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_convert:
        _child_convert(*args.child_convert)
        return
    if args.show:
        saved = orjson.loads(args.show.read_bytes())
        saved["rows"] = [
            Row(**{k: v for k, v in row.items() if k in Row.__dataclass_fields__}) for row in saved["rows"]
        ]
        saved["memory"] = [MemoryRow(**row) for row in saved["memory"]]
        print_table(Report(**saved))
        return
    if args.quick:
        args.size_mb = min(args.size_mb, 2)
        args.batch = min(args.batch, 100)
        args.memory_mb = "4,16"
    repeat = args.repeat or (3 if args.quick or args.size_mb < 50 else 1)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in agents if a not in AGENTS]
    if unknown:
        parser.error(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
    overrides = {}
    for item in args.sample:
        agent, _, path = item.partition("=")
        overrides[agent] = Path(path)

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    report = Report(git_commit(), machine(), CLOCKS)
    started = time.perf_counter()
    size = int(args.size_mb * MB)
    scratch = DATA / f"tmp-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        for agent in agents:
            sample = find_sample(agent, overrides)
            if sample is None:
                report.rows.append(Row(agent, "", note="not measured: no shared sample and no golden input"))
                continue
            try:
                report.rows.append(measure_agent(agent, sample, size, scratch, log, repeat))
            except Exception as exc:  # one adapter failing does not lose the others' numbers
                log(f"{agent}: failed: {type(exc).__name__}: {exc}")
                report.rows.append(Row(agent, sample.name, note=f"failed: {type(exc).__name__}: {exc}"))
        if args.memory:
            for agent in agents:
                sample = find_sample(agent, overrides)
                for mb in (float(x) for x in args.memory_mb.split(",")):
                    if sample is not None:
                        report.memory.append(measure_memory(agent, sample, int(mb * MB), log))
        if args.export:
            from benchlib.export import export_rows  # export/convert per agent, both formats, one run

            report.export = export_rows(agents, size, repeat, log)
        if args.batch and not args.no_batch:
            report.batch = measure_batch(args.batch, scratch, log)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(asdict(report), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
