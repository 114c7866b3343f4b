"""What ``--redact`` costs ``asr convert`` (issue 34: at most 2x convert without it).

This times the command's real path (``cli_convert.to_file``, the output checked as by default)
on one built input per agent, without redaction, with ``--redact`` (secrets) and with
``--redact --redact-paths --redact-emails``, each in a fresh child process (CPU time of the
conversion, imports left out: the redaction modules' import, detect-secrets and compiling the
patterns, once per process, is printed apart; peak RSS of the child), least of ``--repeat``
runs, and prints the ratios to the unredacted run. Inputs are the ones ``scripts/bench.py`` builds from the
shared samples (cached under bench-data/). Timings are reported here, never asserted in tests.

    python scripts/bench_redact.py                 # 20 MB per agent, 3 runs each
    python scripts/bench_redact.py --size-mb 5 --agents codex,claude-code --repeat 1
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench  # noqa: E402 - the input builder of scripts/bench.py

CHILD = """
import resource, sys, time
from pathlib import Path
from asr_adapters import cli_convert
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
report = cli_convert.Report(check=True)
cli_convert.to_file(conversion, Path(sys.argv[4]), path, report)
cpu = time.process_time() - start
print(cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


IMPORTED: list[float] = []  # the redaction import's CPU time, per redacting child


def run(path: Path, agent: str, mode: str, dest: Path, thread: str) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), agent, mode, str(dest), thread],
        capture_output=True,
        check=True,
        text=True,
    )
    cpu, rss = done.stdout.split()
    IMPORTED.extend(float(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("import "))
    return float(cpu), float(rss)


def thread_of(path: Path, agent: str) -> str:
    """A database input holds threads and no main stream: convert its first one."""
    from asr_adapters.convert import Conversion

    if agent not in ("t3code", "opencode"):
        return ""
    keys = Conversion(path, agent, as_dicts=True).keys
    return keys[0].split(":", 1)[1] if keys else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=20)
    parser.add_argument(
        "--agents", default="codex,claude-code,openclaw,gemini-cli,t3code,cline,opencode,copilot-cli,pi,qwen-code"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--data", type=Path, default=bench.DATA, help="where the built inputs are kept")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="asr-bench-redact-") as scratch:
        dest = Path(scratch) / "out.asr.jsonl"
        for agent in args.agents.split(","):
            sample = bench.find_sample(agent)
            if sample is None:
                print(f"{agent}: no sample", file=sys.stderr)
                continue
            built = bench.build_input(sample, int(args.size_mb * bench.MB), args.data)
            thread = thread_of(built.path, agent)
            measured = {}
            for mode in ("plain", "secrets", "everything"):
                runs = [run(built.path, agent, mode, dest, thread) for _ in range(args.repeat)]
                measured[mode] = (min(cpu for cpu, _ in runs), max(rss for _, rss in runs))
            plain, plain_rss = measured["plain"]
            secrets, secrets_rss = measured["secrets"]
            everything, _ = measured["everything"]
            rows.append(
                {
                    "agent": agent,
                    "mb": round(built.bytes / bench.MB, 1),
                    "convert_s": round(plain, 3),
                    "redact_s": round(secrets, 3),
                    "ratio": round(secrets / plain, 3),
                    "redact_all_s": round(everything, 3),
                    "ratio_all": round(everything / plain, 3),
                    "convert_rss_mb": round(plain_rss, 1),
                    "redact_rss_mb": round(secrets_rss, 1),
                }
            )
            row = rows[-1]
            if not args.json:
                print(
                    f"{agent:12} {row['mb']:7.1f} MB  convert {plain:7.2f} s  --redact {secrets:7.2f} s"
                    f" ({row['ratio']:.2f}x)  + paths, e-mails {everything:7.2f} s ({row['ratio_all']:.2f}x)"
                    f"  peak RSS {plain_rss:.0f} -> {secrets_rss:.0f} MB"
                )
    if IMPORTED:
        print(f"redaction import (not in the figures): {min(IMPORTED):.2f} s CPU", file=sys.stderr)
    if args.json:
        print(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
