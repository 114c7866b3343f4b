"""Usage totals of every shared sample, checked against the one definition and the sources.

For each agent's sample files (../shared/samples/<agent>, picked as the tests pick them):
convert, sum the normalized ``usage`` of every session (a stream), and check

- the definition: inputTokens >= cacheReadTokens + cacheWriteTokens, reasoningTokens <=
  outputTokens, totalTokens = inputTokens + outputTokens (summed over a session);
- Codex: the sums equal the rollout's last ``total_token_usage`` (what Codex itself adds up);
- Claude Code: each session's ATIF export carries ``prompt_tokens`` as Harbor's Claude Code
  converter computes them (harbor 0.25.0 ``ClaudeCode._build_metrics``: input_tokens +
  cache_read_input_tokens + cache_creation_input_tokens of a response, once per message.id).

Exit status 0 when all holds, 1 otherwise, 2 when the samples are absent.

    python scripts/usage_totals.py ../shared/samples
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asr_adapters
from asr_adapters.core.usage import MEMBERS, definition_problems
from asr_adapters.export import export_path

#: the agents whose samples are converted (the registered ones that have samples)
AGENTS = ("claude-code", "codex", "openclaw", "gemini-cli", "t3code", "cline", "opencode", "copilot-cli")


def sample_files(samples: Path, agent: str) -> list[Path]:
    """The session files of one agent's samples folder, as tests/golden_support picks them."""
    folder = samples / agent
    if not folder.is_dir():
        return []
    picked = []
    for path in sorted(folder.rglob("*")):
        name = path.name
        if not path.is_file() or not name.endswith((".jsonl", ".json")):
            continue
        if "NOT-A-SESSION" in name or "/subagents/" in str(path) or name.startswith(("sessions-index", "aux-")):
            continue
        picked.append(path)
    return picked


def session_sums(path: Path, agent: str) -> dict[str, dict[str, int]]:
    """Each stream's summed usage (stream key -> member -> sum; ``responses``, ``partial``)."""
    sums: dict[str, dict[str, int]] = {}
    conversion = asr_adapters.convert(path, agent, as_dicts=True)
    for stream in conversion.streams():
        total: dict[str, int] = defaultdict(int)
        for record in stream.records:
            usage = record.get("usage")
            if not isinstance(usage, dict):
                continue
            total["responses"] += 1
            total["partial responses"] += usage.get("partial") is True
            for member in MEMBERS:
                value = usage.get(member)
                if isinstance(value, int):
                    total[member] += value
        sums[stream.key] = dict(total)
    return sums


def json_lines(path: Path) -> Iterator[Any]:
    """The parsed lines of a JSONL file; a line that is not JSON is left out."""
    for raw in path.read_bytes().splitlines():
        try:
            yield json.loads(raw)
        except ValueError:
            continue


def codex_last_total(path: Path) -> dict[str, int] | None:
    """The rollout's last ``token_count`` ``total_token_usage``: Codex's own running sum."""
    last = None
    for line in json_lines(path):
        payload = line.get("payload") if isinstance(line, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "token_count":
            info = payload.get("info")
            if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
                last = info["total_token_usage"]
    return last


#: Codex usage member -> normalized member
CODEX_MEMBERS = (
    ("input_tokens", "inputTokens"),
    ("cached_input_tokens", "cacheReadTokens"),
    ("cache_write_input_tokens", "cacheWriteTokens"),
    ("output_tokens", "outputTokens"),
    ("reasoning_output_tokens", "reasoningTokens"),
    ("total_tokens", "totalTokens"),
)


def harbor_prompt_tokens(files: list[Path]) -> int:
    """Harbor's arithmetic over Claude Code transcripts: per message.id (its last line's usage,
    as Harbor keeps it), input_tokens + cache_read_input_tokens + cache_creation_input_tokens.
    Harbor reads the session file and its subagents together and drops repeated line uuids."""
    last_usage: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for path in files:
        for line in json_lines(path):
            if not isinstance(line, dict) or line.get("type") != "assistant":
                continue
            uuid = line.get("uuid")
            if isinstance(uuid, str):
                if uuid in seen:
                    continue
                seen.add(uuid)
            message = line.get("message")
            if isinstance(message, dict) and message.get("id") and isinstance(message.get("usage"), dict):
                if message.get("model") == "<synthetic>":
                    continue  # a harness-written error: ours carries no usage, Harbor's counts zeros
                last_usage[message["id"]] = message["usage"]
    return sum(
        (u.get("input_tokens") or 0)
        + (u.get("cache_read_input_tokens") or 0)
        + (u.get("cache_creation_input_tokens") or 0)
        for u in last_usage.values()
    )


def atif_prompt_tokens(path: Path) -> int:
    """Our ATIF export of one Claude Code session file: the sum of every step's
    ``prompt_tokens``, the subagents' (embedded in ``subagent_trajectories``) included."""
    out = io.StringIO()
    export_path(path, out)
    return _steps_prompt(json.loads(out.getvalue()))


def _steps_prompt(document: dict[str, Any]) -> int:
    total = sum((step.get("metrics") or {}).get("prompt_tokens") or 0 for step in document.get("steps", []))
    return total + sum(_steps_prompt(child) for child in document.get("subagent_trajectories") or [])


def check(samples: Path) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for agent in AGENTS:
        for path in sample_files(samples, agent):
            sums = session_sums(path, agent)
            for key, total in sums.items():
                problems = definition_problems(total)
                row: dict[str, Any] = {"agent": agent, "file": path.name, "session": key, **total}
                if agent == "codex":
                    expected = codex_last_total(path)
                    if expected is not None:
                        want = {name: expected.get(member, 0) for member, name in CODEX_MEMBERS}
                        got = {name: total.get(name, 0) for name in want}
                        row["codex total_token_usage"] = want
                        if got != want:
                            problems.append(f"sums {got} != the rollout's last total_token_usage {want}")
                row["problems"] = problems
                rows.append(row)
            if agent == "claude-code" and not path.name.startswith("agent-"):
                children = sorted((path.parent / path.stem / "subagents").glob("*.jsonl"))
                harbor = harbor_prompt_tokens([path, *children])
                ours = atif_prompt_tokens(path)
                problems = [] if harbor == ours else [f"ATIF prompt_tokens {ours} != Harbor's {harbor}"]
                rows.append(
                    {
                        "agent": agent,
                        "file": path.name,
                        "session": "ATIF export (all streams)",
                        "ATIF prompt_tokens": ours,
                        "Harbor prompt_tokens": harbor,
                        "problems": problems,
                    }
                )
    return {"ok": all(not row["problems"] for row in rows), "sessions": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", type=Path, help="the shared samples folder (../shared/samples)")
    parser.add_argument("--json", action="store_true", help="print every session's sums as JSON")
    args = parser.parse_args(argv)
    if not args.samples.is_dir():
        print(f"skipped: {args.samples} is absent", file=sys.stderr)
        return 2
    result = check(args.samples)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for row in result["sessions"]:
            mark = "ok " if not row["problems"] else "BAD"
            numbers = {k: v for k, v in row.items() if k not in ("agent", "file", "session", "problems")}
            print(f"{mark} {row['agent']} {row['session']}: {json.dumps(numbers)}")
            for problem in row["problems"]:
                print(f"    {problem}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
