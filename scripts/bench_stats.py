"""How fast ``asr stats`` is next to ccusage on the same Claude Code home, measured side by side.

Builds a Claude home of ``--sessions`` sessions (10,000 by default) from the shared Claude Code
samples (``$ASR_SAMPLES/claude-code``, else ../shared/samples; the golden Claude Code inputs
when neither is there): each session a copy of one sample, round robin, with fresh session,
message, request and tool ids (so ccusage's de-duplication by message and request id keeps every
copy) and its dates moved by up to 89 days, spread over 50 project folders, subagent
transcripts beside their session as Claude Code keeps them. Nothing random: two runs build the
same bytes; the home is cached under ``--data`` (default bench-data/stats/).

Then, in this one run, each as a user runs it (a child process, wall time from start to exit,
and its CPU time):

- ``npx --yes ccusage@18 session --json --offline``   (CLAUDE_CONFIG_DIR = the home)
- ``asr stats --by session --json``, cold               (the same home, an empty stats cache)
- the same again, warm                                  (its cache from the cold run: what a
                                                         daily run costs when nothing changed)
- ``asr stats ARCHIVE --by session --json --no-cache``  (an ``asr batch`` archive of the home,
                                                         converted once beforehand, not timed)

and reports ccusage's time over ours, checking on the way that both count the same cache
tokens. Before each, every file of the home is read (not timed), so each starts with the
home in the page cache. ``--runs N`` repeats each and keeps the fastest. Timings are reported, never asserted.

    python scripts/bench_stats.py                       # 10,000 sessions
    python scripts/bench_stats.py --sessions 500        # a quick run
    python scripts/bench_stats.py --json docs/bench/stats-run.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("ASR_SAMPLES") or ROOT.parent / "shared" / "samples") / "claude-code"
GENERATOR = 1  # bump when the way the home is built changes
ASR = [sys.executable, "-c", "from asr_adapters.cli import main; main()"]
CCUSAGE = ["npx", "--yes", "ccusage@18", "session", "--json", "--offline"]

_IDS = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|(?:msg|req|toolu)_[0-9A-Za-z]{8,}"
    rb"|agent-a[0-9a-f]{6,17}"
)
_DATES = re.compile(rb"\b(20\d\d-\d\d-\d\d)T")


def _sources() -> list[tuple[Path, Path | None]]:
    """(transcript, its companion folder or None) for every sample session."""
    folder = SAMPLES if SAMPLES.is_dir() else None
    found: list[tuple[Path, Path | None]] = []
    if folder is not None:
        for transcript in sorted(folder.glob("cc-*.jsonl")):
            companions = folder / transcript.stem
            found.append((transcript, companions if companions.is_dir() else None))
    if not found:
        for transcript in sorted((ROOT / "golden" / "claude-code").glob("*/input.jsonl")):
            companions = transcript.parent / "input"
            found.append((transcript, companions if companions.is_dir() else None))
    return found


def _fresh(copy: int) -> Any:
    """A substitution giving every id of copy ``copy`` a new value of the same kind, distinct
    ids staying distinct: a UUID's last 48 bits and an agent id's hex digits moved by a multiple
    of the copy number (a bijection), a message, request or tool id given the copy as a suffix."""
    tag = f"{copy:x}".encode()

    def replace(match: re.Match[bytes]) -> bytes:
        value = match.group(0)
        if value.startswith(b"agent-a"):
            digits = value[7:]
            moved = (int(digits, 16) + copy * 0x9E3779B1) % (16 ** len(digits))
            return b"agent-a" + f"{moved:0{len(digits)}x}".encode()
        if value[8:9] == b"-":  # a UUID
            moved = (int(value[24:], 16) + copy * 0x9E3779B97F4B) % (1 << 48)
            return value[:24] + f"{moved:012x}".encode()
        return value + b"c" + tag if copy else value

    return replace


def _shift(days: int) -> Any:
    cache: dict[bytes, bytes] = {}

    def replace(match: re.Match[bytes]) -> bytes:
        day = match.group(1)
        moved = cache.get(day)
        if moved is None:
            try:
                moved = (date.fromisoformat(day.decode()) + timedelta(days=days)).isoformat().encode()
            except ValueError:
                moved = day
            cache[day] = moved
        return moved + b"T"

    return replace


def build_home(sessions: int, data: Path) -> tuple[Path, int]:
    """The home of ``sessions`` sessions (cached); returns it and its size in bytes."""
    sources = _sources()
    digest = hashlib.sha256(f"{GENERATOR}:{sessions}".encode())
    for transcript, companions in sources:
        digest.update(transcript.read_bytes())
        for path in sorted(companions.rglob("*")) if companions else ():
            if path.is_file():
                digest.update(path.read_bytes())
    home = data / f"claude-home-{sessions}-{digest.hexdigest()[:12]}"
    done = home / ".complete"
    if not done.exists():
        shutil.rmtree(home, ignore_errors=True)
        for copy in range(sessions):
            transcript, companions = sources[copy % len(sources)]
            fresh, shift = _fresh(copy), _shift(copy % 90)
            project = home / "projects" / f"-work-project-{copy % 50:02d}"
            project.mkdir(parents=True, exist_ok=True)
            text = _DATES.sub(shift, _IDS.sub(fresh, transcript.read_bytes()))
            session = _IDS.sub(fresh, transcript.stem.encode()).decode() + f"-{copy:05d}"
            (project / f"{session}.jsonl").write_bytes(text)
            for path in sorted(companions.rglob("*")) if companions else ():
                if path.is_file():
                    target = project / session / path.relative_to(companions)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(_DATES.sub(shift, _IDS.sub(fresh, path.read_bytes())))
        done.write_text("ok\n")
    size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
    return home, size


def fill_page_cache(home: Path) -> None:
    """Read every file of the home, so each command starts with it in the page cache (one that
    ran first would otherwise pay the disk for the next: this machine reclaims the cache)."""
    for path in home.rglob("*"):
        if path.is_file():
            with open(path, "rb") as handle:
                while handle.read(1 << 20):
                    pass


def timed(command: list[str], env: dict[str, str], home: Path | None = None) -> dict[str, Any]:
    """Run ``command``; its wall time, CPU time (user + system of it and its children), output.
    ``home``: its files are read first (``fill_page_cache``), not timed."""
    if home is not None:
        fill_page_cache(home)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return {"wall": wall, "cpu": cpu, "output": json.loads(done.stdout)}


def ccusage_environment(home: Path) -> dict[str, str]:
    """ccusage reads only CLAUDE_CONFIG_DIR when it is set (HOME stays: npx keeps its cache there)."""
    return {**os.environ, "CLAUDE_CONFIG_DIR": str(home)}


def environment(home: Path) -> dict[str, str]:
    """Only the bench home is found: every other agent's home points at nothing."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(home / "no-home")}
    for variable in ("CODEX_HOME", "OPENCLAW_STATE_DIR", "GEMINI_CLI_HOME", "T3CODE_HOME", "COPILOT_HOME"):
        env[variable] = str(home / "no-home" / variable.lower())
    for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "APPDATA", "OPENCODE_DB", "PYTHONDONTWRITEBYTECODE"):
        env.pop(variable, None)
    # compiled modules kept as an installed package keeps them (this machine may forbid writing
    # them beside the sources): without it every run would compile ~1,000 modules first
    env["PYTHONPYCACHEPREFIX"] = str(home.parent / "pycache")
    return env


def best(runs: int, command: list[str], env: dict[str, str], home: Path | None = None) -> dict[str, Any]:
    results = [timed(command, env, home) for _ in range(runs)]
    return min(results, key=lambda r: r["wall"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data" / "stats")
    parser.add_argument("--jobs", type=int, default=None, help="asr stats --jobs (default: its own, the CPU count)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each command; the fastest is kept")
    parser.add_argument("--no-archive", action="store_true", help="skip the archive run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if shutil.which("npx") is None:
        print("bench_stats: npx is not installed (ccusage runs through npx)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    home, size = build_home(args.sessions, args.data)
    origin = SAMPLES if SAMPLES.is_dir() else ROOT / "golden" / "claude-code"  # as _sources() picks
    print(f"home: {args.sessions} sessions, {size / 1e6:.0f} MB of transcripts ({time.perf_counter() - started:.0f} s),"
          f" copies of {len(_sources())} sessions of {origin} (set ASR_SAMPLES to the shared samples)")  # fmt: skip
    env = environment(home)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    ours_command = [*ASR, "stats", "--by", "session", "--json", "--no-progress", *jobs]
    empty = args.data / "empty-home"
    (empty / "projects").mkdir(parents=True, exist_ok=True)
    timed(CCUSAGE, ccusage_environment(empty))  # npx resolves ccusage once, not timed
    timed([*ASR, "stats", "--json", "--no-progress"], environment(empty))  # and Python compiles ours once
    theirs = best(args.runs, CCUSAGE, ccusage_environment(home), home)
    cache = args.data / "stats-cache"
    env["XDG_CACHE_HOME"] = str(cache)
    colds = []
    for _ in range(args.runs):
        shutil.rmtree(cache, ignore_errors=True)  # cold: nothing kept from an earlier run
        colds.append(timed(ours_command, env, home))
    ours = min(colds, key=lambda r: r["wall"])
    warm = best(args.runs, ours_command, env, home)
    result: dict[str, Any] = {
        "sessions": args.sessions,
        "bytes": size,
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "ccusage": {"wall": theirs["wall"], "cpu": theirs["cpu"]},
        "asr": {"wall": ours["wall"], "cpu": ours["cpu"], "jobs": args.jobs},
        "ratio_wall": theirs["wall"] / ours["wall"],
        "ratio_cpu": theirs["cpu"] / ours["cpu"],
        "asr_warm": {"wall": warm["wall"], "cpu": warm["cpu"]},
        "ratio_warm_wall": theirs["wall"] / warm["wall"],
    }
    t, o = theirs["output"]["totals"], ours["output"]["totals"]
    result["same_cache_tokens"] = (t["cacheReadTokens"], t["cacheCreationTokens"]) == (
        o["cacheReadTokens"],
        o["cacheWriteTokens"],
    )
    print(f"ccusage   {theirs['wall']:7.1f} s wall  {theirs['cpu']:7.1f} s CPU")
    print(f"asr stats {ours['wall']:7.1f} s wall  {ours['cpu']:7.1f} s CPU   cold ({result['ratio_wall']:.2f}x faster)")
    ratio = result["ratio_warm_wall"]
    print(f"asr stats {warm['wall']:7.1f} s wall  {warm['cpu']:7.1f} s CPU   warm ({ratio:.2f}x faster)")
    if not args.no_archive:
        archive = args.data / f"{home.name}-archive"
        if not (archive / "_manifest.json").exists():
            timed([*ASR, "batch", str(home / "projects"), "-o", str(archive), "--json", "-q"], env)
        archive_command = [
            *ASR,
            "stats",
            str(archive),
            "--by",
            "session",
            "--json",
            "--no-progress",
            "--no-cache",
            *jobs,
        ]
        from_archive = best(args.runs, archive_command, env)
        result["asr_archive"] = {"wall": from_archive["wall"], "cpu": from_archive["cpu"]}
        result["ratio_archive_wall"] = theirs["wall"] / from_archive["wall"]
        print(f"asr stats {from_archive['wall']:7.1f} s wall  {from_archive['cpu']:7.1f} s CPU   over the archive"
              f" ({result['ratio_archive_wall']:.2f}x faster)")  # fmt: skip
    print("cache tokens:", "the same in both" if result["same_cache_tokens"] else f"DIFFER: ccusage {t}, asr {o}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
