"""Claude Code usage totals of our records against ccusage's on the same transcripts.

ccusage (``npx ccusage@18 session --json --offline``) reads a Claude home and reports, per
folder of transcripts, the tokens of each API response once (keyed by ``message.id`` and
``requestId``), taken from the first line of that response it meets. We lay the transcripts
out as a Claude home under a temporary folder (each session file in a project folder of its
own, its ``subagents/`` folder beside it, as Claude Code does), run ccusage there, convert the
same files with ``asr_adapters`` and sum each stream's normalized ``usage``.

What must hold (issue 26):
- input: our ``inputTokens`` (every input token, cached or not) equals ccusage's input +
  cache-read + cache-creation, and our cache parts equal its cache columns;
- output: our ``outputTokens`` is at least ccusage's, and every difference is explained per
  response: ccusage took the first line's running count, we took the response's final count
  (the largest count among its lines, or the parent's recorded total for a subagent's last
  response). The explanation is checked too: the first-line counts we compute ourselves must
  add up to ccusage's own total.

Exit status 0 when all holds, 1 when something does not, 2 when ccusage or the samples are
missing. ``--json`` prints the comparison as JSON.

    python scripts/usage_vs_ccusage.py ../shared/samples/claude-code
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asr_adapters

CCUSAGE = ("npx", "--yes", "ccusage@18", "session", "--json", "--offline")
INPUT_PARTS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


class Unavailable(Exception):
    """ccusage or the samples cannot be had here (a skip, not a failure)."""


@dataclass
class Group:
    """One folder ccusage reports as a session: a main transcript, or a subagents folder."""

    name: str
    files: list[Path] = field(default_factory=list)
    ours: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ccusage: dict[str, int] = field(default_factory=dict)
    first_lines: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    differences: list[dict[str, Any]] = field(default_factory=list)
    partial: int = 0


def session_files(samples: Path) -> list[Path]:
    """The main transcripts of a samples folder (each with its ``<stem>/subagents/`` folder)."""
    return sorted(p for p in samples.glob("*.jsonl") if "NOT-A-SESSION" not in p.name)


def lay_out_home(samples: Path, home: Path) -> None:
    """``home/projects/<stem>/<file>`` and ``home/projects/<stem>/<stem>/subagents/…``."""
    for path in session_files(samples):
        project = home / "projects" / path.stem
        project.mkdir(parents=True)
        shutil.copyfile(path, project / path.name)
        children = samples / path.stem
        if children.is_dir():
            shutil.copytree(children, project / path.stem)
            for copied in (project / path.stem).rglob("*"):
                copied.chmod(0o700 if copied.is_dir() else 0o600)


def run_ccusage(home: Path) -> list[dict[str, Any]]:
    if shutil.which("npx") is None:
        raise Unavailable("npx is not on PATH (ccusage runs from the npm registry)")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home)}
    try:
        done = subprocess.run(CCUSAGE, env=env, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"ccusage did not run: {exc}") from exc
    if done.returncode != 0:
        raise Unavailable(f"ccusage failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    sessions: list[dict[str, Any]] = json.loads(done.stdout)["sessions"]
    return sessions


def _ccusage_name(session: dict[str, Any]) -> str:
    """ccusage names a folder by its last part; a subagents folder by the session above it."""
    if session["sessionId"] == "subagents":
        return f"{session['projectPath'].split('/')[0]}/subagents"
    return str(session["sessionId"])


def json_lines(path: Path) -> Iterator[Any]:
    """The parsed lines of a JSONL file; a line that is not JSON is left out."""
    for raw in path.read_bytes().splitlines():
        try:
            yield json.loads(raw)
        except ValueError:
            continue


def first_line_counts(path: Path) -> dict[str, int]:
    """What ccusage counts: each (message.id, requestId) once, from its first line."""
    totals: dict[str, int] = defaultdict(int)
    seen: set[tuple[Any, Any]] = set()
    for line in json_lines(path):
        message = line.get("message") if isinstance(line, dict) else None
        usage = message.get("usage") if isinstance(message, dict) else None
        if line.get("type") != "assistant" or not isinstance(usage, dict):
            continue
        key = (message.get("id"), line.get("requestId"))
        if key in seen:
            continue
        seen.add(key)
        for name in (*INPUT_PARTS, "output_tokens"):
            value = usage.get(name)
            totals[name] += value if isinstance(value, int) else 0
    return totals


def _line_outputs(path: Path) -> dict[str, tuple[int, int]]:
    """Per request id: the first line's output count (what ccusage took) and the largest."""
    found: dict[str, tuple[int, int]] = {}
    for line in json_lines(path):
        message = line.get("message") if isinstance(line, dict) else None
        usage = message.get("usage") if isinstance(message, dict) else None
        if line.get("type") == "assistant" and isinstance(usage, dict):
            key = str(line.get("requestId") or message.get("id"))
            count = usage.get("output_tokens") if isinstance(usage.get("output_tokens"), int) else 0
            first, most = found.get(key, (count, count))
            found[key] = (first, max(most, count))
    return found


def add_ours(groups: dict[str, Group], path: Path) -> None:
    """Convert one session file (with its subagents) and sum each stream's usage into the
    group ccusage puts it in; note every response whose output differs from its first line."""
    conversion = asr_adapters.convert(path, "claude-code", as_dicts=True)
    main = groups.setdefault(path.stem, Group(path.stem))
    main.files.append(path)
    for stream in conversion.streams():
        group = main
        child_file: Path | None = None
        for record in stream.records:
            if record["type"] == "session":
                name = record.get("source", {}).get("file", "")
                if name != path.name:  # a subagent transcript of its own
                    group = groups.setdefault(f"{path.stem}/subagents", Group(f"{path.stem}/subagents"))
                    child_file = path.parent / path.stem / "subagents" / name
                    group.files.append(child_file)
                lines = _line_outputs(child_file or path)
                continue
            usage = record.get("usage")
            if not isinstance(usage, dict):
                continue
            for key, value in usage.items():
                if key != "partial":
                    group.ours[key] += value
            group.partial += usage.get("partial") is True
            request = str(record.get("inferenceId") or record.get("messageId"))
            first, most = lines.get(request, (None, None))
            output = usage.get("outputTokens", 0)
            if first is not None and output != first:
                why = "a later line of the response counts more (counts only grow)"
                if most is not None and output > most:
                    why = "a subagent's last response: the parent's recorded total (toolUseResult.usage)"
                group.differences.append(
                    {"request": request, "first line": first, "ours": output, "why": why, "partial": "partial" in usage}
                )


def compare(samples: Path) -> dict[str, Any]:
    if not samples.is_dir() or not session_files(samples):
        raise Unavailable(f"{samples} holds no Claude Code transcripts")
    with tempfile.TemporaryDirectory(prefix="asr-ccusage-") as tmp:
        home = Path(tmp)
        lay_out_home(samples, home)
        reported = run_ccusage(home)
    groups: dict[str, Group] = {}
    for path in session_files(samples):
        add_ours(groups, path)
    for session in reported:
        group = groups.get(_ccusage_name(session))
        if group is not None:
            group.ccusage = session
    for group in groups.values():
        for file in group.files:
            for key, value in first_line_counts(file).items():
                group.first_lines[key] += value
    rows = [_row(group) for group in groups.values()]
    return {"ok": all(row["ok"] for row in rows), "sessions": rows, "totals": _totals(rows)}


def _row(group: Group) -> dict[str, Any]:
    cc = group.ccusage
    cc_input = sum(cc.get(k, 0) for k in ("inputTokens", "cacheReadTokens", "cacheCreationTokens"))
    ours = group.ours
    problems = []
    if not cc:
        problems.append("ccusage reports no such session")
    if ours.get("inputTokens", 0) != cc_input:
        problems.append(f"inputTokens {ours.get('inputTokens', 0)} != ccusage input+cache {cc_input}")
    if ours.get("cacheReadTokens", 0) != cc.get("cacheReadTokens", 0):
        problems.append("cacheReadTokens differ")
    if ours.get("cacheWriteTokens", 0) != cc.get("cacheCreationTokens", 0):
        problems.append("cacheWriteTokens differ")
    if ours.get("inputTokens", 0) < ours.get("cacheReadTokens", 0) + ours.get("cacheWriteTokens", 0):
        problems.append("inputTokens < cacheReadTokens + cacheWriteTokens")
    if ours.get("outputTokens", 0) < cc.get("outputTokens", 0):
        problems.append("outputTokens below ccusage's")
    if group.first_lines.get("output_tokens", 0) != cc.get("outputTokens", 0):
        problems.append("the first-line model does not give ccusage's output total")
    explained = sum(d["ours"] - d["first line"] for d in group.differences)
    if ours.get("outputTokens", 0) - cc.get("outputTokens", 0) != explained:
        problems.append(f"output difference not explained by responses ({explained})")
    return {
        "session": group.name,
        "inputTokens": ours.get("inputTokens", 0),
        "ccusage input+cacheRead+cacheCreation": cc_input,
        "cacheReadTokens": ours.get("cacheReadTokens", 0),
        "cacheWriteTokens": ours.get("cacheWriteTokens", 0),
        "outputTokens": ours.get("outputTokens", 0),
        "ccusage outputTokens": cc.get("outputTokens", 0),
        "responses counted differently": group.differences,
        "partial responses": group.partial,
        "ok": not problems,
        "problems": problems,
    }


def _totals(rows: list[dict[str, Any]]) -> dict[str, int]:
    keys = ("inputTokens", "ccusage input+cacheRead+cacheCreation", "outputTokens", "ccusage outputTokens")
    return {key: sum(row[key] for row in rows) for key in keys}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "samples", type=Path, help="a folder of Claude Code transcripts (../shared/samples/claude-code)"
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = parser.parse_args(argv)
    try:
        result = compare(args.samples)
    except Unavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for row in result["sessions"]:
            mark = "ok " if row["ok"] else "BAD"
            print(
                f"{mark} {row['session']}: input {row['inputTokens']} vs "
                f"{row['ccusage input+cacheRead+cacheCreation']}, "
                f"output {row['outputTokens']} vs {row['ccusage outputTokens']} "
                f"({len(row['responses counted differently'])} responses differ, {row['partial responses']} partial)"
            )
            for problem in row["problems"]:
                print(f"    {problem}")
        print("totals:", json.dumps(result["totals"]))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
