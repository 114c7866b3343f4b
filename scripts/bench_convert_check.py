"""What ``asr convert``'s own check of its output costs (issue 25.22).

``asr convert`` feeds every record it writes to the validator (``StreamValidator.add``) as it is
written, and fails instead of exiting 0 when the stream ends with an error finding. This times
the command's real path (``convert_output.to_file``) on one built input per agent, with the check
and without it (``--no-check``), each in a fresh child process (CPU time of the
conversion, imports left out; peak RSS of the child), least of ``--repeat`` runs, and prints
checked/unchecked. Inputs are the ones ``scripts/bench.py`` builds (cached under bench-data/).
Timings are reported here, never asserted in tests.

    python scripts/bench_convert_check.py                 # 20 MB per agent, 3 runs each
    python scripts/bench_convert_check.py --size-mb 200 --agents codex,claude-code --repeat 1
"""

from __future__ import annotations

import orjson
from benchlib import MB
from benchlib.child import arguments, per_agent, row_of

MODES = ("unchecked", "checked")
CHILD = """
import resource, sys, time
from pathlib import Path
from asr_adapters.cli import convert_output
from asr_adapters.convert import Conversion
path, agent = Path(sys.argv[1]), sys.argv[2]
start = time.process_time()
conversion = Conversion(path, agent, as_dicts=True, select=sys.argv[5] or None)
report = convert_output.Report(check=sys.argv[3] == "checked")  # what --no-check turns off
convert_output.to_file(conversion, Path(sys.argv[4]), path, report)
cpu = time.process_time() - start
print(cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    args = arguments(__doc__).parse_args()
    rows = []
    chosen = args.agents.split(",")
    for agent, built, measured in per_agent(
        CHILD, chosen, int(args.size_mb * MB), MODES, args.repeat, prefix="asr-bench-check-"
    ):
        (plain, plain_rss), (checked, checked_rss) = measured["unchecked"], measured["checked"]
        row = row_of(
            agent,
            built,
            unchecked_s=plain,
            checked_s=checked,
            ratio=checked / plain,
            unchecked_rss_mb=plain_rss,
            checked_rss_mb=checked_rss,
        )
        rows.append(row)
        if not args.json:
            print(
                f"{agent:12} {row['mb']:7.1f} MB  convert {plain:7.2f} s  with the check {checked:7.2f} s"
                f"  ({row['ratio']:.2f}x)  peak RSS {plain_rss:.0f} -> {checked_rss:.0f} MB"
            )
    if args.json:
        print(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
