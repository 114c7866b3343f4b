"""How many redactions each kind makes on the shared samples (docs/redaction.md, False positives).

    python scripts/redaction_samples.py [SAMPLES] [--paths] [--emails] [--show N]

Every sample file an adapter claims is converted with redaction (secrets, plus the optional
kinds asked for; a sample written as SQL is made the database it describes first); the counts
per agent and kind go to stdout as JSON. ``--show N`` also prints, per
kind, N of the replaced values in their context, for a person to judge (real secret or
ordinary text). That output quotes the samples: read it, never commit it.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import orjson

from asr_adapters.convert import Conversion
from asr_adapters.core.errors import ASRError
from asr_adapters.redact import Policy, Redactor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = Path(os.environ.get("ASR_SAMPLES") or Path(__file__).resolve().parents[2] / "shared" / "samples")
    parser.add_argument("samples", nargs="?", type=Path, default=default)
    parser.add_argument("--paths", action="store_true")
    parser.add_argument("--emails", action="store_true")
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    if not args.samples.is_dir():
        sys.exit(f"{args.samples}: no samples folder")
    policy = Policy.make(paths=args.paths, emails=args.emails)
    redactors: dict[str, Redactor] = {}  # per agent, one policy (one key): the counts per agent
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    agents_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    files = Counter[str]()
    with tempfile.TemporaryDirectory(prefix="asr-redaction-samples-") as scratch:
        for path in sorted(p for p in args.samples.rglob("*") if p.is_file() and not p.name.endswith(".md")):
            agent = path.relative_to(args.samples).parts[0]
            source = _database(path, Path(scratch)) if path.suffix == ".sql" else path
            if source is None:
                continue
            try:
                conversion = Conversion(source, as_dicts=True)
            except ASRError:  # no adapter claims it (a companion file, another agent's format)
                continue
            name = conversion.adapter.name
            if name != agent:  # another agent's sample that an adapter's detection takes
                print(f"{path}: claimed by the {name} adapter; counted under {agent}/{name}", file=sys.stderr)
                name = f"{agent}/{name}"
            redactor = redactors.get(name) or redactors.setdefault(name, _watched(policy, name, seen, agents_of))
            conversion.redactor = redactor
            try:
                for stream in conversion.streams():
                    for _ in stream.records:
                        pass
            except Exception as exc:  # a sample the converter refuses is not counted
                print(f"{path}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            files[name] += 1
    per_agent = {}
    for agent, redactor in sorted(redactors.items()):
        report = redactor.report()
        if report["records"]:
            per_agent[agent] = {k: report[k] for k in ("records", "recordsRedacted", "redactions", "byKind")}
    totals: Counter[str] = Counter()
    for report in per_agent.values():
        totals.update(report["byKind"])
    out = {"files": dict(files), "byKind": dict(sorted(totals.items())), "agents": per_agent}
    print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
    if not args.show:
        return
    for kind, values in sorted(seen.items()):  # placeholders asked for, distinct values (each counted once)
        print(f"\n## {kind}: {len(values)} distinct")
        for value, count in values.most_common(args.show):
            agents = ",".join(sorted(agents_of[(kind, value)]))
            print(f"  {count:5}  {agents:24}  {value[:120]!r}")


def _watched(
    policy: Policy, agent: str, seen: dict[str, Counter[str]], agents_of: dict[tuple[str, str], set[str]]
) -> Redactor:
    """A redactor whose placeholders note the values they replace (read here, for a person)."""
    redactor = Redactor(policy)
    scanner = redactor._walker.scanner
    original = scanner.placeholder

    def placeholder(kind: str, secret: str) -> str:
        seen[kind][secret] += 1
        agents_of[(kind, secret)].add(agent)
        return original(kind, secret)

    scanner.placeholder = placeholder  # type: ignore[method-assign]
    return redactor


def _database(script: Path, scratch: Path) -> Path | None:
    """A shared sample written as SQL (T3 Code's) as the SQLite database the adapter reads."""
    database = scratch / (script.stem + ".sqlite")
    connection = sqlite3.connect(database)
    try:
        connection.executescript(script.read_text(encoding="utf-8"))
        connection.commit()
    except sqlite3.Error as exc:
        print(f"{script}: not a database script: {exc}", file=sys.stderr)
        return None
    finally:
        connection.close()
    return database


if __name__ == "__main__":
    main()
