"""Convert every golden case and every shared sample into one folder, to compare two commits.

A change meant to be output-neutral (a faster duplicate check, one head read for detection)
is checked by running this before and after it and comparing the folders::

    python scripts/convert_all.py /tmp/before        # at the commit before the change
    python scripts/convert_all.py /tmp/after         # after it
    diff -r /tmp/before /tmp/after && echo identical

What it writes, deterministically (no times, no absolute paths):

- ``golden/<agent>/<case>/``: every stream of the case converted with its agent named, as
  the golden test converts it (``<stream>.asr.jsonl``), and ``accounting.json`` (the
  outcome counts and every diagnostic).
- ``samples/<relative path>/``: for every file under the shared samples folder
  (``../shared/samples`` beside the repository, or ``--samples DIR``), the same for the
  agent detection picks, when it picks one.
- ``detection.tsv``: for every golden input and every sample file, the agent detection
  picks or the error it gives (one line each), so a change of detection shows as a line.
- ``batch/``: ``asr batch`` of the golden folder and of the samples folder (``--jobs 1``),
  its streams and its ``_errors.jsonl`` with the run's own folder names replaced; the
  manifest (sizes, times) is left out. Batch output names carry a hash of the source's path:
  run both checkouts over the same golden folder (``--golden``) for the names to match.

``--no-batch`` skips the batch runs; ``--only golden|samples`` limits the inputs; ``--limit 2``
keeps at most two entries of per-id state in memory, so everything older is read back from disk
(the output must be the same). ``--redact secrets`` (``asr convert --redact``) or ``--redact
everything`` (``--redact --redact-paths --redact-emails``) redacts every conversion, a fresh
redactor per input as one ``asr convert`` per file has, under a fixed key (``ASR_REDACT_KEY``, or
a constant one) so that two checkouts give the same placeholders; each input's ``redaction.json``
is its report. ``--plant SEED`` first plants made-up secrets in every input, golden and sample
(tests/redact/corpus.py: every kind, in every disguise), so that ``--redact`` has secrets to
find in real text: a change to the redaction's speed is checked with both.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # golden_support: how the golden test builds each input

from golden_support import GOLDEN, GoldenCase, golden_cases, materialize_input  # noqa: E402

from asr_adapters import registry  # noqa: E402
from asr_adapters.batch.naming import stream_file_name  # noqa: E402
from asr_adapters.convert import Conversion  # noqa: E402
from asr_adapters.core.errors import ASRError  # noqa: E402
from asr_adapters.core.source import Source  # noqa: E402
from asr_adapters.stream.writer import StreamWriter  # noqa: E402

#: ``../shared/samples`` beside the clone (as CI has it), the folder ``ASR_SAMPLES`` names,
#: or ``../../shared/samples`` (a clone in a folder of worktrees)
DEFAULT_SAMPLES = next(
    (
        Path(p)
        for p in (
            os.environ.get("ASR_SAMPLES"),
            ROOT.parent / "shared" / "samples",
            ROOT.parent.parent / "shared" / "samples",
        )
        if p and Path(p).is_dir()
    ),
    ROOT.parent / "shared" / "samples",
)


#: ``--redact``: the policy's options (paths, e-mails), or None for no redaction
_REDACT: list[bool] = []
#: the key ``--redact`` uses when ``ASR_REDACT_KEY`` is not set: the same placeholders every run
_FIXED_KEY = "ab" * 16


def _redactor() -> Any:
    """A fresh redactor (one ``asr convert`` per input has one), or None without ``--redact``."""
    if not _REDACT:
        return None
    from asr_adapters.redact import Policy, Redactor

    return Redactor(Policy.make(paths=_REDACT[0], emails=_REDACT[0]))


def write_conversion(path: Path, agent: str | None, out: Path) -> str:
    """Every stream of ``path`` (agent named, or detected when None) under ``out``; returns
    the agent used or the error, one line."""
    out.mkdir(parents=True, exist_ok=True)
    redactor = _redactor()
    try:
        conversion = Conversion(path, agent, as_dicts=True, redactor=redactor)
        used = conversion.adapter.name
        names: dict[str, int] = {}
        for stream in conversion.streams():
            buffer = io.BytesIO()
            StreamWriter(buffer).write_all(stream.records)
            name = ("main." if stream.main else "") + stream_file_name(stream.key)
            names[name] = names.get(name, 0) + 1
            if names[name] > 1:
                name = f"{names[name]}.{name}"
            if buffer.getvalue():
                (out / name).write_bytes(buffer.getvalue())
    except ASRError as exc:
        (out / "error.txt").write_text(_relative(str(exc)) + "\n", encoding="utf-8")
        return f"error: {_relative(str(exc))}"
    accounting = conversion.accounting
    report = accounting.as_dict()
    report["agent"] = used
    report["diagnostic_lines"] = [_relative(d.describe()) for d in accounting.diagnostics]
    (out / "accounting.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if redactor is not None:
        (out / "redaction.json").write_text(json.dumps(redactor.report(), indent=1) + "\n", encoding="utf-8")
    return used


def detected(path: Path) -> str:
    try:
        return registry.detect(Source(path)).name
    except ASRError as exc:
        return f"error: {_relative(str(exc))}"


_PREFIXES: list[tuple[str, str]] = []


def _relative(text: str) -> str:
    """Messages name inputs by path: the same path under either checkout reads the same."""
    for prefix, name in _PREFIXES:
        text = text.replace(prefix, name)
    return " ".join(text.split())


#: ``--plant SEED``: the seed, or None for the inputs as they are
_PLANT: list[int] = []


def _planted(case: GoldenCase, target: Path) -> GoldenCase:
    """``case`` copied into ``target`` with secrets planted (``--plant``), or ``case`` itself."""
    if not _PLANT:
        return case
    from redact.corpus import plant_case  # tests/redact: the planted corpus of the leak test

    plant_case(case, target, _PLANT[0] + sum(map(ord, case.id)))
    return GoldenCase(case.agent, case.name, target)


def golden(out: Path, detection: list[str], scratch: Path) -> None:
    for case in golden_cases():
        work = scratch / case.agent / case.name
        work.mkdir(parents=True, exist_ok=True)
        path = materialize_input(_planted(case, work / "planted"), work)
        write_conversion(path, case.agent, out / "golden" / case.agent / case.name)
        detection.append(f"golden/{case.id}\t{detected(path)}")


def samples(folder: Path, out: Path, detection: list[str]) -> None:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix == ".md":
            continue
        relative = path.relative_to(folder).as_posix()
        agent = detected(path)
        detection.append(f"samples/{relative}\t{agent}")
        if not agent.startswith("error: "):
            write_conversion(path, None, out / "samples" / relative)


def batch(source: Path, out: Path, name: str) -> None:
    target = out / "batch" / name
    with tempfile.TemporaryDirectory(prefix="convert-all-") as scratch:
        archive = Path(scratch) / "archive"
        command = [
            sys.executable,
            "-c",
            "from asr_adapters.cli import main; main()",
            "batch",
            str(source),
            "-o",
            str(archive),
        ]
        # this checkout's package, not whichever one the interpreter has installed
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
        if _REDACT:
            command += ["--redact", *(["--redact-paths", "--redact-emails"] if _REDACT[0] else [])]
        done = subprocess.run([*command, "--jobs", "1", "--quiet", "--json"], capture_output=True, check=False, env=env)
        summary = json.loads(done.stdout or b"{}")
        for key in ("elapsed_s", "seconds", "started", "finished"):
            summary.pop(key, None)
        target.mkdir(parents=True, exist_ok=True)
        (target / "exit.txt").write_text(f"{done.returncode}\n", encoding="utf-8")
        for path in sorted(archive.rglob("*")):
            if not path.is_file() or path.name in ("_manifest.json", "_batch.lock"):
                continue
            relative = path.relative_to(archive)
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            if path.name == "_errors.jsonl":
                text = path.read_text(encoding="utf-8").replace(str(source), f"<{name}>")
                (target / relative).write_text(text.replace(str(archive), "<archive>"), encoding="utf-8")
            else:
                shutil.copyfile(path, target / relative)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (emptied first)")
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES, help="the shared samples folder")
    parser.add_argument(
        "--golden", type=Path, default=GOLDEN, help="the golden folder the batch run reads (default: this checkout's)"
    )
    parser.add_argument("--no-batch", action="store_true", help="skip the asr batch runs")
    parser.add_argument("--only", choices=("golden", "samples"), help="convert only these inputs")
    parser.add_argument(
        "--limit",
        type=int,
        help="keep at most N entries of per-id state in memory (core.spill, core.digests), so that "
        "the rest moves to disk: the output must not change",
    )
    parser.add_argument(
        "--redact",
        choices=("secrets", "everything"),
        help="redact every conversion: secrets (--redact), or everything (also --redact-paths --redact-emails), "
        "under ASR_REDACT_KEY or a fixed key",
    )
    parser.add_argument("--plant", type=int, metavar="SEED", help="plant made-up secrets in every input first")
    args = parser.parse_args()
    if args.plant is not None:
        _PLANT[:] = [args.plant]
    if args.redact:
        os.environ.setdefault("ASR_REDACT_KEY", _FIXED_KEY)
        _REDACT[:] = [args.redact == "everything"]
    if args.limit:
        from asr_adapters.core import digests, spill

        spill.DEFAULT_LIMIT = digests.DEFAULT_LIMIT = args.limit
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    detection: list[str] = []
    with tempfile.TemporaryDirectory(prefix="convert-all-") as scratch:
        sample_folder = args.samples
        if _PLANT and args.only != "golden" and args.samples.is_dir():
            sample_folder = _planted(GoldenCase("samples", "", args.samples), Path(scratch) / "samples").folder
        _PREFIXES[:] = [
            (str(GOLDEN) + "/", "golden/"),
            (str(args.samples) + "/", "samples/"),
            (str(sample_folder) + "/", "samples/"),
            (scratch + "/", ""),
        ]
        if args.only != "samples":
            golden(out, detection, Path(scratch))
        if args.only != "golden":
            if args.samples.is_dir():
                samples(sample_folder, out, detection)
            else:
                print(f"no samples folder at {args.samples}: samples skipped", file=sys.stderr)
    (out / "detection.tsv").write_text("\n".join(detection) + "\n", encoding="utf-8")
    if not args.no_batch:
        if args.only != "samples":
            batch(args.golden, out, "golden")
        if args.only != "golden" and args.samples.is_dir():
            batch(args.samples, out, "samples")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
