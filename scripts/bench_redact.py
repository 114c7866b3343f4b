"""What ``--redact`` costs ``asr convert`` (issue 34: at most 2x convert without it).

This times the command's real path (``convert_output.to_file``, the output checked as by default)
on one built input per agent, without redaction, with ``--redact`` (secrets) and with
``--redact --redact-paths --redact-emails``, each in a fresh child process (CPU time of the
conversion, imports left out: the redaction modules' import, detect-secrets and compiling the
patterns, once per process, is printed apart; peak RSS of the child), least of ``--repeat``
runs, and prints the ratios to the unredacted run. Inputs are the ones ``scripts/bench.py`` builds from the
shared samples (cached under bench-data/). Timings are reported here, never asserted in tests.

Those inputs repeat a sample's lines, so most of their strings hit the scanner's per-run string
cache and the ratios here flatter the redaction: ``bench_redact_corpus.py`` measures it on
distinct real sessions (every shared sample and golden input), which is the figure issue 34's
target is judged by (docs/performance.md).

    python scripts/bench_redact.py                 # 20 MB per agent, 3 runs each
    python scripts/bench_redact.py --size-mb 5 --agents codex,claude-code --repeat 1
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
from benchlib import DATA, MB
from benchlib.child import arguments, per_agent, row_of

MODES = ("plain", "secrets", "everything")
CHILD = """
import resource, sys, time
import sys
from pathlib import Path
from asr_adapters.cli import convert_output
from asr_adapters.convert import Conversion
path, agent = Path(sys.argv[1]), sys.argv[2]
if sys.argv[3] != "plain":  # imported before the clock starts, as the converter's modules are
    imported = time.process_time()
    from asr_adapters.redact import Policy, Redactor
    import asr_adapters.redact.detectors, asr_adapters.redact.scan  # detect-secrets, the patterns
    print("import", time.process_time() - imported, file=sys.stderr)
start = time.process_time()
redactor = None
if sys.argv[3] != "plain":
    every = sys.argv[3] == "everything"
    redactor = Redactor(Policy.make(paths=every, emails=every))
conversion = Conversion(path, agent, as_dicts=True, select=sys.argv[5] or None, redactor=redactor)
report = convert_output.Report(check=True)
convert_output.to_file(conversion, Path(sys.argv[4]), path, report)
cpu = time.process_time() - start
print(cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    parser = arguments(__doc__)
    parser.set_defaults(agents="codex,claude-code,openclaw,gemini-cli,t3code,cline,opencode,copilot-cli,pi,qwen-code")
    parser.add_argument("--data", type=Path, default=DATA, help="where the built inputs are kept")
    args = parser.parse_args()
    rows = []
    imported: list[float] = []  # the redaction import's CPU time, per redacting child
    chosen = args.agents.split(",")
    for agent, built, measured in per_agent(
        CHILD,
        chosen,
        int(args.size_mb * MB),
        MODES,
        args.repeat,
        prefix="asr-bench-redact-",
        folder=args.data,
        imported=imported,
    ):
        plain, plain_rss = measured["plain"]
        secrets, secrets_rss = measured["secrets"]
        everything, _ = measured["everything"]
        row = row_of(
            agent,
            built,
            convert_s=plain,
            redact_s=secrets,
            ratio=secrets / plain,
            redact_all_s=everything,
            ratio_all=everything / plain,
            convert_rss_mb=plain_rss,
            redact_rss_mb=secrets_rss,
        )
        rows.append(row)
        if not args.json:
            print(
                f"{agent:12} {row['mb']:7.1f} MB  convert {plain:7.2f} s  --redact {secrets:7.2f} s"
                f" ({row['ratio']:.2f}x)  + paths, e-mails {everything:7.2f} s ({row['ratio_all']:.2f}x)"
                f"  peak RSS {plain_rss:.0f} -> {secrets_rss:.0f} MB"
            )
    if imported:
        print(f"redaction import (not in the figures): {min(imported):.2f} s CPU", file=sys.stderr)
    if args.json:
        print(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
