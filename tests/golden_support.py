"""The golden harness: cases under golden/<agent>/<case>/ and a syrupy extension for them.

A case holds one entry input named ``input.*`` (``input.sql`` is built into a SQLite
database first), any support files beside it, a one-line ``README.md``, and the expected
streams: ``expected.asr.jsonl`` for the main stream and ``expected.<stream>.asr.jsonl`` for
each other stream (subagents, threads). ``pytest --snapshot-update`` rewrites them; read
every changed line before committing.
"""

from __future__ import annotations

import io
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from asr_adapters.batch.naming import stream_file_name
from asr_adapters.convert import Conversion
from asr_adapters.stream.writer import StreamWriter

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
#: Real session files, one folder per agent: $ASR_SAMPLES, else ../shared/samples beside the clone
#: (CI has it; a user's clone has not, and the tests that read them skip saying so).
SHARED_SAMPLES = Path(os.environ.get("ASR_SAMPLES") or ROOT.parent / "shared" / "samples")


@dataclass(frozen=True)
class GoldenCase:
    agent: str
    name: str
    folder: Path

    @property
    def id(self) -> str:
        return f"{self.agent}/{self.name}"

    @property
    def input(self) -> Path:
        inputs = sorted(p for p in self.folder.iterdir() if p.name.startswith("input."))
        if len(inputs) != 1:
            raise AssertionError(f"{self.folder}: needs exactly one input.* file, has {inputs}")
        return inputs[0]

    def expected_files(self) -> list[Path]:
        return sorted(self.folder.glob("expected*.asr.jsonl"))


def golden_cases(agent: str | None = None) -> list[GoldenCase]:
    cases = []
    if not GOLDEN.is_dir():
        return cases
    for agent_dir in sorted(p for p in GOLDEN.iterdir() if p.is_dir() and not p.name.startswith("_")):
        if agent is not None and agent_dir.name != agent:
            continue
        for case_dir in sorted(p for p in agent_dir.iterdir() if p.is_dir()):
            if any(p.name.startswith("input.") for p in case_dir.iterdir()):
                cases.append(GoldenCase(agent_dir.name, case_dir.name, case_dir))
    return cases


def sql_script(path: Path) -> str:
    """An ``input.sql`` with its ``-- include: <file>`` lines replaced by the files they name
    (relative to it), so cases share one copy of a schema instead of repeating it."""
    parts = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("-- include:"):
            included = (path.parent / line.removeprefix("-- include:").strip()).resolve()
            if GOLDEN.resolve() not in included.parents:
                raise AssertionError(f"{path}: includes {included}, outside golden/")
            parts.append(sql_script(included))
        else:
            parts.append(line)
    return "".join(parts)


def materialize_input(case: GoldenCase, scratch: Path) -> Path:
    """The path to convert: the input itself, or a database built from ``input.sql``."""
    path = case.input
    if path.name == "input.sql":
        database = scratch / "input.sqlite"
        connection = sqlite3.connect(database)
        try:  # a scratch database: no need to wait for the disk after every statement
            connection.execute("PRAGMA synchronous=OFF")
            connection.executescript(sql_script(path))
            connection.commit()
        finally:
            connection.close()
        return database
    return path


def convert_case(case: GoldenCase, scratch: Path) -> tuple[dict[str, bytes], Conversion]:
    """Every stream of a case, as ``{snapshot basename: bytes}``."""
    conversion = Conversion(materialize_input(case, scratch), case.agent, as_dicts=True)
    outputs: dict[str, bytes] = {}
    for stream in conversion.streams():
        buffer = io.BytesIO()
        StreamWriter(buffer).write_all(stream.records)
        name = "expected" if stream.main else "expected." + stream_file_name(stream.key).removesuffix(".asr.jsonl")
        if name in outputs:
            raise AssertionError(f"{case.id}: two streams named {name}")
        outputs[name] = buffer.getvalue()
    return outputs, conversion


def golden_extension(case: GoldenCase, basename: str) -> type[SingleFileSnapshotExtension]:
    """A syrupy extension that keeps one stream of one case at its golden path."""
    folder = str(case.folder)

    class GoldenStream(SingleFileSnapshotExtension):
        _write_mode = WriteMode.BINARY
        file_extension = "asr.jsonl"

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return folder

        @classmethod
        def discovery_dirname(cls, *, test_location: Any) -> str:
            return folder

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            return basename

        @classmethod
        def get_file_basename(cls, *, test_location: Any, index: Any) -> str:
            return basename

        def is_snapshot_location(self, *, location: str) -> bool:
            name = Path(location).name
            return name.startswith("expected") and name.endswith(".asr.jsonl")

    return GoldenStream


def shared_samples(agent: str) -> list[Path]:
    """Real session files under ../shared/samples/<agent>, the way the before-stop check picks them."""
    folder = SHARED_SAMPLES / agent
    if not folder.is_dir():
        return []
    picked = []
    for path in sorted(folder.rglob("*")):
        name = path.name
        if not path.is_file() or not name.endswith((".jsonl", ".json")):
            continue
        if name.endswith(".settings.json"):  # a Droid transcript's sidecar, read with it
            continue
        if "NOT-A-SESSION" in name or "/subagents/" in str(path) or name.startswith(("sessions-index", "aux-")):
            continue
        picked.append(path)
    return picked
