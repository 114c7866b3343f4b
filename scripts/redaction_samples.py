"""How many redactions each kind makes on the shared samples (docs/redaction.md, False positives).

    python scripts/redaction_samples.py [SAMPLES] [--paths] [--emails] [--show N]

Every sample file an adapter claims is converted with redaction (secrets, plus the optional
kinds asked for); the counts per kind go to stdout as JSON. ``--show N`` also prints, per
kind, N of the replaced values in their context, for a person to judge (real secret or
ordinary text). That output quotes the samples: read it, never commit it.
"""

from __future__ import annotations

import argparse
import os
import sys
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
    redactor = Redactor(Policy.make(paths=args.paths, emails=args.emails))
    scanner = redactor._walker.scanner  # the values are read here, for a person to judge
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    original = scanner.placeholder

    def placeholder(kind: str, secret: str) -> str:
        if args.show:
            seen[kind][secret] += 1
        return original(kind, secret)

    scanner.placeholder = placeholder  # type: ignore[method-assign]
    files = Counter[str]()
    for path in sorted(p for p in args.samples.rglob("*") if p.is_file() and not p.name.endswith(".md")):
        try:
            conversion = Conversion(path, as_dicts=True, redactor=redactor)
        except ASRError:  # no adapter claims it (a companion file, another agent's format)
            continue
        try:
            for stream in conversion.streams():
                for _ in stream.records:
                    pass
        except Exception as exc:  # a sample the converter refuses is not counted
            print(f"{path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        files[conversion.adapter.name] += 1
    report = redactor.report()
    report["files"] = dict(files)
    print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    for kind, values in sorted(seen.items()):  # placeholders asked for, distinct values (each counted once)
        print(f"\n## {kind}: {len(values)} distinct")
        for value, count in values.most_common(args.show):
            print(f"  {count:5}  {value[:120]!r}")


if __name__ == "__main__":
    main()
