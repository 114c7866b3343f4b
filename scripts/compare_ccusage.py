"""``asr stats`` next to ccusage on the same Claude Code home, session by session.

Lays the shared Claude Code samples (``$ASR_SAMPLES/claude-code``, else
``../shared/samples/claude-code``) out as a Claude home in a temporary folder (each sample in
a project folder of its own, its ``subagents/`` beside it as Claude Code keeps them), runs

    CLAUDE_CONFIG_DIR=<home> npx --yes ccusage@18 session --json --offline
    CLAUDE_CONFIG_DIR=<home> asr stats --by session --json

and compares, per sample and in total, the token counts and costs. The two count inputs
differently (docs/stats.md, "Compared with ccusage"): ccusage's ``inputTokens`` is the
uncached input, ours every input token, so ours = ccusage's input + cache creation + cache
read; cache read and cache write must be equal; our output may be larger (ccusage counts a
response's first streamed line, we count its final one). Exit status 0 when those hold,
1 when one does not, 2 when npx or the samples are missing.

    python scripts/compare_ccusage.py            # a table, then the verdict
    python scripts/compare_ccusage.py --json     # the numbers, for the test
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("ASR_SAMPLES") or ROOT.parent / "shared" / "samples") / "claude-code"
CCUSAGE = ["npx", "--yes", "ccusage@18", "session", "--json", "--offline"]
FIELDS = ("input", "cacheRead", "cacheWrite", "output", "cost")


class Missing(Exception):
    """npx or the samples are not there: nothing to compare."""


@dataclass
class Counts:
    input: int = 0  # ccusage: uncached input; ours: every input token
    cacheRead: int = 0
    cacheWrite: int = 0
    output: int = 0
    cost: float = 0.0

    def add(self, other: Counts) -> None:
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Sample:
    name: str
    ccusage: Counts = field(default_factory=Counts)
    ours: Counts = field(default_factory=Counts)
    unpriced_tokens: int = 0

    @property
    def ccusage_all_input(self) -> int:
        """ccusage's input in our definition: uncached + cache creation + cache read."""
        return self.ccusage.input + self.ccusage.cacheWrite + self.ccusage.cacheRead


def lay_out_home(samples: Path, home: Path) -> list[str]:
    """The samples as ``home/projects/<sample>/<sample>.jsonl`` (and ``<sample>/subagents/``)."""
    if not samples.is_dir():
        raise Missing(f"no Claude Code samples at {samples} (set ASR_SAMPLES)")
    names: list[str] = []
    for transcript in sorted(samples.glob("*.jsonl")):
        project = home / "projects" / transcript.stem
        project.mkdir(parents=True)
        shutil.copyfile(transcript, project / transcript.name)
        companions = samples / transcript.stem
        if companions.is_dir():
            shutil.copytree(companions, project / transcript.stem)
        names.append(transcript.stem)
    for path in home.rglob("*"):  # the samples are read-only; the copies need not be
        path.chmod(0o755 if path.is_dir() else 0o644)
    return names


def run_ccusage(home: Path) -> dict[str, Any]:
    if shutil.which("npx") is None:
        raise Missing("npx is not installed (ccusage runs through npx)")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home)}
    done = subprocess.run(CCUSAGE, env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise Missing(f"ccusage failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def run_asr(home: Path) -> dict[str, Any]:
    """``asr stats --by session --json`` over the Claude home (no PATH: the homes ``asr
    discover`` finds, every other agent's pointed at a folder that does not exist), in a child
    process as a user runs it."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(home / "no-home")}
    for variable in ("CODEX_HOME", "OPENCLAW_STATE_DIR", "GEMINI_CLI_HOME", "T3CODE_HOME", "COPILOT_HOME"):
        env[variable] = str(home / "no-home" / variable.lower())
    for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "APPDATA", "OPENCODE_DB"):
        env.pop(variable, None)
    command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", "stats", "--by", "session", "--json"]
    command += ["--timezone", "UTC"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"asr stats failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def _ours(row: dict[str, Any]) -> Counts:
    return Counts(row["inputTokens"], row["cacheReadTokens"], row["cacheWriteTokens"], row["outputTokens"], row["cost"])


def compare(samples: Path = SAMPLES) -> dict[str, Any]:
    """Both tools over the same home; per sample and in total."""
    with tempfile.TemporaryDirectory(prefix="asr-ccusage-") as tmp:
        home = Path(tmp) / "claude"
        names = lay_out_home(samples, home)
        theirs = run_ccusage(home)
        ours_all = run_asr(home)
        by_sample: dict[str, Sample] = {name: Sample(name) for name in names}
        for session in theirs.get("sessions", []):
            # ccusage names a "session" by the folder a transcript is in: the sample's project
            # folder, or "subagents" under <sample>/<sample>/ for its subagent transcripts
            name = session["sessionId"]
            if name == "subagents":
                name = Path(session.get("projectPath", "")).name
            sample = by_sample.setdefault(name, Sample(name))
            sample.ccusage.add(
                Counts(
                    session["inputTokens"],
                    session["cacheReadTokens"],
                    session["cacheCreationTokens"],
                    session["outputTokens"],
                    session["totalCost"],
                )
            )
        sys.path.insert(0, str(ROOT))  # this checkout's asr_adapters, installed or not
        from asr_adapters.stats import report

        for name in names:  # per sample in this process (the total above ran as a user runs it)
            data = report(home / "projects" / name, by="session", timezone="UTC").total.as_dict(UTC)
            by_sample[name].ours = _ours(data)
            by_sample[name].unpriced_tokens = data["unpricedTokens"]
    total = Sample("total")
    for sample in by_sample.values():
        total.ccusage.add(sample.ccusage)
    total.ours = _ours(ours_all["totals"])
    total.unpriced_tokens = ours_all["totals"]["unpricedTokens"]
    return {
        "samples": [_as_dict(s) for s in by_sample.values()],
        "total": _as_dict(total),
        "ccusageTotals": theirs.get("totals"),
        "asrTotals": ours_all["totals"],
        "verdict": verdict(total),
    }


def _as_dict(sample: Sample) -> dict[str, Any]:
    return {
        "name": sample.name,
        "ccusage": asdict(sample.ccusage),
        "ours": asdict(sample.ours),
        "ccusageAllInput": sample.ccusage_all_input,
        "unpricedTokens": sample.unpriced_tokens,
    }


def verdict(total: Sample) -> list[str]:
    """The done-when of issue 29, as failures (empty when all hold)."""
    problems = []
    if total.ours.input != total.ccusage_all_input:
        problems.append(f"input {total.ours.input} != ccusage input+cache {total.ccusage_all_input}")
    if total.ours.cacheRead != total.ccusage.cacheRead:
        problems.append(f"cache read {total.ours.cacheRead} != ccusage {total.ccusage.cacheRead}")
    if total.ours.cacheWrite != total.ccusage.cacheWrite:
        problems.append(f"cache write {total.ours.cacheWrite} != ccusage cache creation {total.ccusage.cacheWrite}")
    if total.ours.output < total.ccusage.output:
        problems.append(f"output {total.ours.output} < ccusage {total.ccusage.output}")
    return problems


def _print(result: dict[str, Any]) -> None:
    head = f"{'sample':58} {'input (all)':>21} {'cache read':>19} {'cache write':>17} {'output':>15} {'cost $':>19}"
    print(head)
    print(
        f"{'':58} {'ccusage/asr':>21} {'ccusage/asr':>19} {'ccusage/asr':>17} {'ccusage/asr':>15} {'ccusage/asr':>19}"
    )
    for sample in [*result["samples"], result["total"]]:
        c, o = sample["ccusage"], sample["ours"]
        print(
            f"{sample['name'][:58]:58} {sample['ccusageAllInput']:>10}/{o['input']:<10}"
            f" {c['cacheRead']:>9}/{o['cacheRead']:<9} {c['cacheWrite']:>8}/{o['cacheWrite']:<8}"
            f" {c['output']:>7}/{o['output']:<7} {c['cost']:>9.5f}/{o['cost']:<9.5f}"
            + (f"  ({sample['unpricedTokens']} tokens unpriced)" if sample["unpricedTokens"] else "")
        )
    problems = result["verdict"]
    print("\nverdict:", "the totals agree as docs/stats.md says" if not problems else "; ".join(problems))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--samples", type=Path, default=SAMPLES, help="the Claude Code samples folder")
    args = parser.parse_args()
    try:
        result = compare(args.samples)
    except Missing as exc:
        print(f"compare_ccusage: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)
    return 1 if result["verdict"] else 0


if __name__ == "__main__":
    sys.exit(main())
