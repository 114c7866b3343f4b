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
import sys
import time
from pathlib import Path

from benchlib import AGENTS, MB
from benchlib.export import export_rows, memory, print_memory, print_rows
from benchlib.measure import peak_rss_kb


def _child(agent: str, to: str, path: str) -> None:
    from asr_adapters import registry
    from asr_adapters.export import export_path

    registry.get(agent)
    if to == "otel":
        from asr_adapters.export import otel  # noqa: F401 - the SDK import counts in the base
    if path != "-":
        with open(os.devnull, "w", encoding="utf-8") as out:
            export_path(Path(path), out, to=to, agent=agent)
    sys.stdout.write(f"{peak_rss_kb()}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=200)
    parser.add_argument("--agents", default=",".join(AGENTS))
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
        print_rows(export_rows(agents, int(args.size_mb * MB), args.repeat, log))
    if args.rss_mb:
        sizes = [float(x) for x in args.rss_mb.split(",")]
        for agent in agents:
            log(f"{agent}: peak RSS at {sizes} MB")
            print_memory(memory(agent, sizes))


if __name__ == "__main__":
    main()
