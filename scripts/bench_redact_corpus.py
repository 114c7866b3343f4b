"""What ``--redact`` costs ``asr convert`` on real, distinct sessions (issue 34: at most 2x).

``bench_redact.py`` times inputs built by repeating one sample's lines, whose strings repeat and
hit the scanner's per-run string cache. This times a corpus of distinct sessions instead: per
agent, every shared sample the batch's discovery takes as a session (``batch.scan``: its walk
and sniff, so a Claude Code session's subagent folder goes with its main file, an OpenHands
session is its folder's entry file) and every golden input under ``golden/<agent>/*/`` (an
``input.sql`` built into its database), each converted as ``asr convert FILE -o OUT`` converts
it (``convert_output.to_file``, the output validated as by default and written to a file; an
input with threads and no main stream as ``-o DIR/``), with a fresh ``Redactor`` per file (as one
process per file has). Inputs ``asr convert`` refuses are left out and counted.

All files of one agent are converted in one child process per mode (``plain``, ``--redact``,
``--redact --redact-paths --redact-emails``): imports, one untimed warm-up pass over the files
(the converter's lazy imports) and every redactor built (detect-secrets, the patterns) before
the clock; then CPU time (``time.process_time``) of each of ``--rounds`` passes, the least kept.
``--instructions`` also counts instructions with ``valgrind --tool=callgrind`` (one pass, minus a
child that stops before it): load-independent, where CPU time on a shared machine moves by
10% or more. ``--base DIR`` measures another commit's tree (its ``asr_adapters`` first on the
children's path) beside this one, mode by mode, for a before/after in one run. Timings are
printed here and written up in docs/performance.md, never asserted.

    python scripts/bench_redact_corpus.py                        # every agent, 3 rounds
    python scripts/bench_redact_corpus.py --agents openclaw,claude-code --instructions
    git archive COMMIT | tar -x -C /tmp/base && python scripts/bench_redact_corpus.py --base /tmp/base
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = ("plain", "secrets", "everything")
#: a fixed key: the placeholders (and so the bytes written) the same in every run
KEY = "ab" * 16
_COLLECTED = re.compile(rb"Collected : (\d+)")


def corpus(agents: list[str] | None, samples: Path, golden: Path, scratch: Path) -> dict[str, list[dict[str, Any]]]:
    """Per agent: its inputs, each ``{"path", "agent", "folder", "bytes"}`` (``agent``: the one
    named, or None for a sample, which is detected as ``asr convert`` detects it)."""
    sys.path.insert(0, str(HERE.parent))
    from asr_adapters.batch.scan import sniff, walk

    found: dict[str, list[dict[str, Any]]] = {}
    if samples.is_dir():
        for candidate in walk([samples]):
            adapter, _reason = sniff(candidate.path, candidate.size)
            if adapter is not None:
                found.setdefault(adapter.name, []).append(_entry(candidate.path, None))
    sys.path.insert(0, str(HERE.parent / "tests"))
    from golden_support import GoldenCase, materialize_input

    for agent_dir in sorted(p for p in golden.iterdir() if p.is_dir() and not p.name.startswith("_")):
        for case_dir in sorted(p for p in agent_dir.iterdir() if p.is_dir()):
            inputs = sorted(p for p in case_dir.iterdir() if p.name.startswith("input."))
            if len(inputs) != 1:
                continue
            work = scratch / agent_dir.name / case_dir.name
            work.mkdir(parents=True)
            path = materialize_input(GoldenCase(agent_dir.name, case_dir.name, case_dir), work)
            found.setdefault(agent_dir.name, []).append(_entry(path, agent_dir.name))
    return {agent: entries for agent, entries in sorted(found.items()) if agents is None or agent in agents}


def _entry(path: Path, agent: str | None) -> dict[str, Any]:
    size = sum(p.stat().st_size for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file())
    return {"path": str(path), "agent": agent, "folder": False, "bytes": size}


def _converted(entry: dict[str, Any], redactor: Any, out: Path) -> None:
    """``asr convert PATH -o OUT`` (or ``-o DIR/`` for an input with no main stream)."""
    from asr_adapters.cli import convert_output
    from asr_adapters.convert import Conversion

    path = Path(entry["path"])
    conversion = Conversion(path, entry["agent"], as_dicts=True, redactor=redactor)
    report = convert_output.Report(check=True)
    if entry["folder"]:
        convert_output.to_folder(conversion, out.parent / "folder", path, report)
    else:
        convert_output.to_file(conversion, out, path, report)


def usable(entries: list[dict[str, Any]], out: Path) -> tuple[list[dict[str, Any]], int]:
    """The inputs ``asr convert`` converts (each marked for a folder when it holds threads and
    no main stream), and how many it refuses."""
    from asr_adapters.core.errors import ASRError, UsageProblem

    kept = []
    for entry in entries:
        try:
            _converted(entry, None, out)
        except UsageProblem:
            entry["folder"] = True
            try:
                _converted(entry, None, out)
            except ASRError:
                continue
        except ASRError:
            continue
        kept.append(entry)
    return kept, len(entries) - len(kept)


def _redactor(mode: str) -> Any:
    if mode == "plain":
        return None
    from asr_adapters.redact import Policy, Redactor

    every = mode == "everything"
    return Redactor(Policy.make(paths=every, emails=every))


def child(manifest: Path, mode: str, rounds: int) -> None:
    """In a fresh process: the warm-up pass, then ``rounds`` timed passes; prints each pass's
    CPU seconds (with ``rounds`` 0 none: the redactors of one pass are built and it stops, the
    base a callgrind count subtracts)."""
    import time

    entries = json.loads(manifest.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="asr-bench-redact-corpus-") as scratch:
        out = Path(scratch) / "out.asr.jsonl"
        for entry in entries:  # the converter's lazy imports, and the redaction's
            _converted(entry, _redactor(mode), out)
        for _ in range(rounds or 1):
            redactors = [_redactor(mode) for _ in entries]  # one per file, built before the clock
            if not rounds:  # the base a count subtracts: all but the pass itself
                break
            start = time.process_time()
            for entry, redactor in zip(entries, redactors, strict=True):
                _converted(entry, redactor, out)
            print(time.process_time() - start, flush=True)


def _child_command(manifest: Path, mode: str, rounds: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", str(manifest), mode, str(rounds)]


def _env(checkout: Path) -> dict[str, str]:
    """The child's: ``checkout``'s package first on its path (this one's, or another commit's tree)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout.resolve())
    env["ASR_REDACT_KEY"] = KEY
    env["PYTHONHASHSEED"] = "0"
    return env


def cpu_seconds(checkout: Path, manifest: Path, mode: str, rounds: int) -> list[float]:
    done = subprocess.run(
        _child_command(manifest, mode, rounds), capture_output=True, text=True, env=_env(checkout), check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{mode}: exit {done.returncode}: {done.stderr[-2000:]}")
    return [float(line) for line in done.stdout.split()]


def instructions(checkout: Path, manifest: Path, mode: str, rounds: int) -> int:
    """Instructions of a child, start to exit (callgrind's total); the tree byte-compiled first,
    or the first child counted would compile every module from source."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "asr_adapters")], check=False)
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*command, *_child_command(manifest, mode, rounds)], capture_output=True, env=_env(checkout), check=False
    )
    found = _COLLECTED.findall(done.stderr)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"{mode}: exit {done.returncode}: {done.stderr[-2000:].decode('utf-8', 'replace')}")
    return int(found[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--agents", help="comma-separated (default: every agent with an input)")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes per child; the least is kept")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind callgrind)")
    parser.add_argument("--checkout", type=Path, default=HERE.parent, help="the tree whose asr_adapters is measured")
    parser.add_argument("--base", type=Path, help="also measure this tree (another commit's), interleaved with it")
    default_samples = os.environ.get("ASR_SAMPLES") or str(HERE.parent.parent / "shared" / "samples")
    parser.add_argument("--samples", type=Path, default=Path(default_samples))
    parser.add_argument("--golden", type=Path, default=HERE.parent / "golden")
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1], int(args.child[2]))
        return
    os.environ["ASR_REDACT_KEY"] = KEY
    trees = [("base", args.base), ("this", args.checkout)] if args.base else [("this", args.checkout)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="asr-bench-redact-corpus-") as scratch:
        agents = args.agents.split(",") if args.agents else None
        found = corpus(agents, args.samples, args.golden, Path(scratch) / "golden")
        for agent, entries in found.items():
            kept, refused = usable(entries, Path(scratch) / "out.asr.jsonl")
            if not kept:
                print(f"{agent}: no input asr convert converts ({refused} refused)", file=sys.stderr)
                continue
            manifest = Path(scratch) / f"{agent}.json"
            manifest.write_text(json.dumps(kept), encoding="utf-8")
            facts = {"files": len(kept), "refused": refused, "mb": round(sum(e["bytes"] for e in kept) / (1 << 20), 2)}
            measured = {label: {"agent": agent, "tree": label, **facts} for label, _ in trees}
            for mode in MODES:  # the trees side by side, mode by mode, as the load moves
                for label, tree in trees:
                    row = measured[label]
                    row[f"{mode}_s"] = round(min(cpu_seconds(tree, manifest, mode, args.rounds)), 3)
                    if args.instructions:
                        base = instructions(tree, manifest, mode, 0)
                        row[f"{mode}_gi"] = round((instructions(tree, manifest, mode, 1) - base) / 1e9, 3)
            for row in measured.values():
                for unit in ("s", "gi") if args.instructions else ("s",):
                    for mode in MODES[1:]:
                        row[f"{mode}_ratio_{unit}"] = round(row[f"{mode}_{unit}"] / row[f"plain_{unit}"], 2)
                rows.append(row)
                if not args.json:
                    print(_line(row, len(trees) > 1), flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))


def _line(row: dict[str, Any], trees: bool) -> str:
    text = (
        f"{row['agent']:12}" + (f" {row['tree']:4}" if trees else "") + f" {row['files']:3} files {row['mb']:6.2f} MB"
        f"  convert {row['plain_s']:6.3f} s  --redact {row['secrets_s']:6.3f} s ({row['secrets_ratio_s']:.2f}x)"
        f"  + paths, e-mails {row['everything_s']:6.3f} s ({row['everything_ratio_s']:.2f}x)"
    )
    if "plain_gi" in row:
        text += (
            f"  | Ginstr {row['plain_gi']:.3f} / {row['secrets_gi']:.3f} ({row['secrets_ratio_gi']:.2f}x)"
            f" / {row['everything_gi']:.3f} ({row['everything_ratio_gi']:.2f}x)"
        )
    return text + (f"  [{row['refused']} refused]" if row["refused"] else "")


if __name__ == "__main__":
    main()
