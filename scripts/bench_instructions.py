"""Instruction counts (valgrind callgrind) of conversion, validation and start-up, next to the floor.

On a shared machine wall and CPU time move with the neighbours' load; the number of
instructions a process executes does not. This runs each step in a child process under
``valgrind --tool=callgrind`` and reports the counts and their ratios:

- ``convert``: ``asr convert`` of a bench input (``scripts/bench.py`` builds it: the same
  bytes as its table), minus a child that only imports the adapter and converts a one-repetition
  warm-up input (imports and start-up are not counted);
- ``floor``: ``orjson.loads`` + ``orjson.dumps`` of every native line (the issue's floor; for a
  database, ``floor_loads``'s reads plus a dump of each value), minus a child that only
  imports orjson;
- ``floor_out``: ``orjson.loads`` of every native line plus ``orjson.dumps`` of every record
  written (``scripts/bench.py``'s floor);
- ``validate``: ``asr_adapters.validate`` of the written stream, minus a child that validates
  the warm-up stream; ``floor_stream``: loads + dumps of every line of that stream.

``--startup`` instead counts whole processes, start-up included: ``python -c 'import orjson'``
reading a small session (the whole-process floor), ``import asr_adapters``, ``asr convert``
of that session, ``asr <command> --help`` of every command, and the modules each loads.

    python scripts/bench_instructions.py --size-mb 20 --agents codex,claude-code
    python scripts/bench_instructions.py --startup --session golden/claude-code/fold-tool-calls/input.jsonl
    python scripts/bench_instructions.py --python /path/to/other/venv/bin/python ...   # another checkout

Counts are exact for a given build of Python and of the libraries; the ratios are what the
docs report. A 20 MB conversion under valgrind takes a minute or two.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import GOLDEN, MB  # noqa: E402
from benchlib.inputs import build_input, find_sample  # noqa: E402
from benchlib.measure import convert_file, floor_loads, git_commit  # noqa: E402

_COLLECTED = re.compile(rb"Collected : (\d+)")


#: children read compiled modules (as an installed package does): not compiling every module
#: from source in every child, which PYTHONDONTWRITEBYTECODE would make them do
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: where children run: ``python -c`` puts the working folder first on sys.path, and a checkout
#: there would be imported instead of the measured interpreter's package
NEUTRAL = tempfile.gettempdir()


def compile_modules(python: str) -> None:
    """Byte-compile the measured package and these scripts once, before anything is counted."""
    where = subprocess.run(
        [python, "-c", "import asr_adapters, os; print(os.path.dirname(asr_adapters.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where, str(HERE)], env=ENV, check=False)


def instructions(argv: list[str], env: dict[str, str] | None = None) -> int:
    """Instructions a child process executes, start to exit (callgrind's total)."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    done = subprocess.run(command, capture_output=True, env=ENV if env is None else env, check=False, cwd=NEUTRAL)
    found = _COLLECTED.findall(done.stderr)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"{argv}: exit {done.returncode}: {done.stderr[-2000:].decode('utf-8', 'replace')}")
    return int(found[-1])


def child(python: str, *args: str) -> list[str]:
    return [python, str(Path(__file__).resolve()), "--child", *args]


# -- the children ----------------------------------------------------------------------------


def _child(args: list[str]) -> None:
    step = args[0]
    if step == "floor":
        _floor(args[1], Path(args[2]))
    elif step == "floor-out":
        import orjson

        floor_loads(Path(args[2]), args[1])
        dumps = orjson.dumps
        with open(args[3], "rb") as handle:
            for line in handle:
                dumps(orjson.loads(line), option=orjson.OPT_APPEND_NEWLINE)
    elif step == "floor-parse-out":  # the untimed half of floor-out: parsing the written stream
        import orjson

        floor_loads(Path(args[2]), args[1])
        with open(args[3], "rb") as handle:
            for line in handle:
                orjson.loads(line)
    elif step == "convert":  # AGENT WARM [PATH OUT]
        convert_file(Path(args[2]), args[1], os.devnull)
        if len(args) > 3:
            convert_file(Path(args[3]), args[1], args[4])
    elif step == "validate":  # WARM_STREAM [STREAM]
        from asr_adapters.validate import validate

        validate(args[1])
        if len(args) > 2:
            validate(args[2])
    else:
        raise SystemExit(f"unknown child step {step}")


def _floor(agent: str, path: Path) -> None:
    """loads + dumps of every native item: lines, or the values a database or document holds."""
    import orjson

    loads, dumps = orjson.loads, orjson.dumps
    if agent in ("opencode", "t3code", "cline"):
        values: list[Any] = []
        real = orjson.loads

        def keeping(data: Any) -> Any:
            value = real(data)
            values.append(value)
            if len(values) > 1000:
                for kept in values:
                    dumps(kept)
                values.clear()
            return value

        orjson.loads = keeping  # floor_loads reads the store; each value is also dumped
        try:
            floor_loads(path, agent)
        finally:
            orjson.loads = real
        for kept in values:
            dumps(kept)
        return
    with open(path, "rb") as handle:
        for line in handle:
            try:  # noqa: SIM105 - a with-block per line would cost more than the floor's loop
                dumps(loads(line))
            except orjson.JSONDecodeError:
                pass


# -- measurements ----------------------------------------------------------------------------


def measure_agent(agent: str, size: int, python: str, log: Any) -> dict[str, Any]:
    sample = find_sample(agent)
    if sample is None:
        return {"agent": agent, "note": "no sample"}
    built = build_input(sample, size)
    warm = build_input(sample, 1)
    row: dict[str, Any] = {"agent": agent, "sample": sample.name, "input_mb": round(built.bytes / MB, 1)}
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as scratch:
        out = Path(scratch) / "out.asr.jsonl"
        warm_out = Path(scratch) / "warm.asr.jsonl"
        subprocess.run(child(python, "convert", agent, str(warm.path), str(warm.path), str(warm_out)), check=True)
        log(f"{agent}: convert ({row['input_mb']} MB) under callgrind")
        setup = instructions(child(python, "convert", agent, str(warm.path)))
        converting = instructions(child(python, "convert", agent, str(warm.path), str(built.path), str(out)))
        row["convert"] = converting - setup
        log(f"{agent}: floors")
        base = instructions([python, "-c", "import orjson"])
        row["floor"] = instructions(child(python, "floor", agent, str(built.path))) - base
        out_floor = instructions(child(python, "floor-out", agent, str(built.path), str(out)))
        parse_out = instructions(child(python, "floor-parse-out", agent, str(built.path), str(out)))
        loads_only = instructions(child(python, "floor-parse-out", agent, str(built.path), os.devnull))
        row["floor_out"] = out_floor - parse_out + loads_only - base  # loads native + dumps records
        log(f"{agent}: validate")
        validating = instructions(child(python, "validate", str(warm_out), str(out)))
        row["validate"] = validating - instructions(child(python, "validate", str(warm_out)))
        row["floor_stream"] = instructions(child(python, "floor", "codex", str(out))) - base
        row["stream_mb"] = round(out.stat().st_size / MB, 1)
    row["convert/floor"] = round(row["convert"] / row["floor"], 2)
    row["convert/floor_out"] = round(row["convert"] / row["floor_out"], 2)
    row["validate/floor_stream"] = round(row["validate"] / row["floor_stream"], 2)
    return row


def measure_startup(python: str, session: Path, asr: str, log: Any) -> dict[str, Any]:
    """Whole processes: start-up, imports and a small conversion, next to the whole-process floor."""
    env = ENV
    floor_code = (
        "import orjson, sys\n"
        "for line in open(sys.argv[1], 'rb'):\n"
        "    line.strip() and orjson.dumps(orjson.loads(line))\n"
    )
    session = session.resolve()
    # a regular file, never os.devnull: asr convert of a checkout older than outputs.py's device
    # rule renames its temporary file over the output name, and as root that replaces /dev/null
    scratch = tempfile.mkdtemp(prefix="bench-instr-")
    out = os.path.join(scratch, "out.asr.jsonl")
    subprocess.run([asr, "convert", str(session), "-o", out], env=env, check=True, capture_output=True, cwd=NEUTRAL)
    result: dict[str, Any] = {"session": str(session), "session_kb": round(session.stat().st_size / 1024, 1)}
    log("startup: floor and conversion")
    result["python_floor"] = instructions([python, "-c", floor_code, str(session)], env)
    result["convert"] = instructions([python, asr, "convert", str(session), "-o", out], env)
    result["convert/floor"] = round(result["convert"] / result["python_floor"], 2)
    result["import_asr_adapters"] = instructions([python, "-c", "import asr_adapters"], env)
    result["python_bare"] = instructions([python, "-c", "pass"], env)
    commands: dict[str, Any] = {}
    for command in ("convert", "validate", "show", "export", "batch", "discover", "schema", "agents"):
        log(f"startup: asr {command} --help")
        count = instructions([python, asr, command, "--help"], env)
        modules = _modules(python, asr, [command, "--help"], env)
        commands[command] = {"instructions": count, **modules}
    commands["convert FILE"] = {
        "instructions": result["convert"],
        **_modules(python, asr, ["convert", str(session), "-o", out], env),
    }
    shutil.rmtree(scratch, ignore_errors=True)
    result["commands"] = commands
    return result


_WATCHED = (
    "asr_adapters.adapters",
    "asr_adapters.batch",
    "asr_adapters.batch.runner",
    "asr_adapters.view",
    "asr_adapters.export",
    "asr_adapters.validate",
    "jinja2",
    "markdown_it",
    "multiprocessing",
    "pydantic",
)


_RECORD_MODULES = (
    "import atexit, runpy, sys\n"
    "listing = sys.argv[1]\n"
    "def record():\n"
    "    with open(listing, 'w') as out:\n"
    "        out.write('\\n'.join(sorted(sys.modules)))\n"
    "atexit.register(record)\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _modules(python: str, asr: str, args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """How many modules the command has imported when it exits, and which of the heavy ones."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as listing:
        command = [python, "-c", _RECORD_MODULES, listing.name, asr, *args]
        subprocess.run(command, capture_output=True, env=env, check=False, cwd=NEUTRAL)
        names = listing.read().split()
    ours = [name for name in names if name.startswith("asr_adapters")]
    heavy = sorted(
        {watched for watched in _WATCHED for name in names if name == watched or name.startswith(watched + ".")}
    )
    return {"modules": len(names), "asr_modules": len(ours), "loads": heavy}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=20)
    parser.add_argument("--agents", default="codex,claude-code")
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter (venv) whose asr_adapters is measured"
    )
    parser.add_argument("--startup", action="store_true", help="whole-process counts of start-up and small conversions")
    parser.add_argument("--session", type=Path, help="the small session of --startup")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.python = os.path.abspath(args.python)  # children run elsewhere (NEUTRAL); a venv's link kept
    if args.child:
        _child(args.child)
        return

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report: dict[str, Any] = {"commit": git_commit(), "python": args.python}
    compile_modules(args.python)
    if args.startup:
        session = args.session or GOLDEN / "claude-code" / "fold-tool-calls" / "input.jsonl"
        asr = str(Path(args.python).parent / "asr")
        report["startup"] = measure_startup(args.python, session, asr, log)
    else:
        size = int(args.size_mb * MB)
        report["rows"] = [measure_agent(a.strip(), size, args.python, log) for a in args.agents.split(",") if a.strip()]
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
