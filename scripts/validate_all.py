"""``asr validate`` over every golden stream, streams broken on purpose, and converted samples, to
compare two commits (a change to the validator's memory must not change a verdict or a message).

    python scripts/validate_all.py /tmp/before --root /tmp/old --streams /tmp/conv/samples  # a checkout before
    python scripts/validate_all.py /tmp/after --streams /tmp/conv/samples                  # this one
    diff -r /tmp/before /tmp/after && echo identical

For each tree (``golden/``, ``broken/`` made here from the golden streams, and ``--streams``, e.g.
``scripts/convert_all.py``'s ``samples/``) it writes the output and exit status of ``asr validate``
in text and ``--format json``, each with and without ``--strict``, once as shipped and once with
every id map's in-memory limits forced to 3 (``--limit``), so that their tables and disks are used
on every stream. The broken streams are deterministic: records duplicated (renumbered, with and
without ``supersedes``/``copiedFrom``), shuffled, reversed, dropped, given odd ids and random
``supersedes``/``parent``; one stream of 700 records of 300 types, one of revision chains.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: run in the child: the id maps' limits forced low (the names exist at the commits compared, or are set unused)
TINY = (
    "import asr_adapters.core.digests as d, asr_adapters.validate.references as r\n"
    "d.DEFAULT_LIMIT = 3; d.DEFAULT_RECENT = 2; r.ID_LIMIT = 3; r.ID_RECENT = 2\n"
)
CHILD = (
    "import sys\n{tiny}from asr_adapters.cli import main\nsys.argv = ['asr', *sys.argv[1:]]\nmain(prog_name='asr')\n"
)


def _numbered(records: list[Any]) -> list[Any]:
    return [{**r, "seq": n, "id": f"r{n}"} if isinstance(r, dict) else r for n, r in enumerate(records, 1)]


def _broken(records: list[Any], rng: random.Random) -> dict[str, list[Any]]:
    head, body = records[:1], records[1:]
    shuffled = body[:]
    rng.shuffle(shuffled)
    odd = [
        {**r, "id": f"r{n + 7}" if n % 4 == 0 else f"x{n}" if n % 5 == 0 else r["id"]} for n, r in enumerate(records, 1)
    ]
    refs = []
    for n, r in enumerate(records, 1):
        r = dict(r)
        if n > 2 and n % 3 == 0:
            r["supersedes"] = f"r{rng.randint(1, len(records) + 3)}"
        if n > 2 and n % 7 == 0:
            r["parent"] = f"r{rng.randint(1, len(records) + 3)}"
        refs.append(r)
    revised = _numbered(records + [dict(r) for r in body])
    for n in range(len(records), len(revised)):
        key = "supersedes" if n % 2 else "copiedFrom" if n % 3 else None
        if key:
            revised[n][key] = f"r{n - len(records) + 2}"
    return {
        "dup": _numbered(records + body),
        "dup2": _numbered(records + body + body),
        "dup-revised": revised,
        "shuffle": head + shuffled,
        "shuffle-renumbered": _numbered(head + shuffled),
        "drop3": _numbered([r for n, r in enumerate(records) if n % 3 != 2]),
        "reversed": _numbered(head + body[::-1]),
        "odd-ids": odd,
        "refs": refs,
    }


def _made(rng: random.Random) -> dict[str, list[Any]]:
    header = {
        "type": "session",
        "seq": 1,
        "id": "r1",
        "session": "x:1",
        "agent": {"name": "x"},
        "producer": {"name": "p"},
    }
    kinds = [header]
    for n in range(2, 700):
        kind = rng.choice(["message", "tool_call", f"x.k{n % 320}", f"y.{n}", "delivery", "tool_result"])
        r: dict[str, Any] = {"type": kind, "seq": n, "id": f"r{n}" if n % 37 else f"q{n}"}
        field = {"message": "messageId", "tool_call": "callId", "tool_result": "callId"}.get(kind)
        if field:
            r[field] = f"{field[0]}{rng.randint(1, 150)}"
        if kind == "delivery":
            r["message"] = f"r{rng.randint(1, 720)}"
        for every, key, top in ((3, "supersedes", n + 5), (5, "parent", n + 5), (11, "copiedFrom", n)):
            if n % every == 0:
                r[key] = f"r{rng.randint(1, top)}"
        kinds.append(r)
    chains = [header]
    for n in range(2, 2000):
        r = {"type": "message", "seq": n, "id": f"r{n}", "messageId": f"m{n % 9}"}
        if n > 10 and n % 4:
            r["supersedes"] = f"r{n - rng.choice([9, 18, 1, 2])}"
        chains.append(r)
    return {"many-types": kinds, "chains": chains}


def write_broken(golden: Path, out: Path) -> None:
    out.mkdir(parents=True)
    for path in sorted(golden.rglob("*.asr.jsonl")):
        try:
            records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        except ValueError:
            continue
        if not records or not all(isinstance(r, dict) for r in records):
            continue
        name = "__".join(path.relative_to(golden).parts)
        for tag, broken in _broken(records, random.Random(name)).items():
            (out / f"{name}.{tag}.asr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in broken))
    for tag, made in _made(random.Random(7)).items():
        (out / f"zz-{tag}.asr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in made))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder to write (emptied first)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose asr_adapters and golden/ run")
    parser.add_argument("--streams", type=Path, action="append", default=[], help="another folder of streams")
    args = parser.parse_args()
    root = args.root.resolve()
    shutil.rmtree(args.out, ignore_errors=True)
    write_broken(root / "golden", args.out / "_broken")
    trees = {"golden": root / "golden", "broken": args.out / "_broken"}
    trees.update({f"streams{n}": folder for n, folder in enumerate(args.streams)})
    for name, folder in trees.items():
        for fmt in ("text", "json"):
            for strict in ([], ["--strict"]):
                for limit, tiny in (("", ""), (".limit3", TINY)):
                    done = subprocess.run(
                        [
                            sys.executable,
                            "-c",
                            CHILD.format(tiny=tiny),
                            "validate",
                            "--format",
                            fmt,
                            *strict,
                            str(folder),
                        ],
                        capture_output=True,
                        text=True,
                        cwd=root,  # its asr_adapters first on the path
                    )
                    text = (done.stdout + done.stderr).replace(str(folder), name)
                    (args.out / f"{name}.{fmt}{''.join(strict)}{limit}.out").write_text(f"{text}rc={done.returncode}\n")
    shutil.rmtree(args.out / "_broken")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
