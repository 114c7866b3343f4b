"""Golden ATIF exports and loss reports (golden/_export/<case>.*): read every changed line."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from golden_support import GOLDEN
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from asr_adapters.export import export_path

FOLDER = GOLDEN / "_export"
CASES = {
    "every-record-kind": GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl",
    "codex-tool-calls-every-kind": GOLDEN / "codex" / "10-tool-calls-every-kind" / "expected.asr.jsonl",
    "codex-reasoning-visibility": GOLDEN / "codex" / "08-reasoning-visibility" / "expected.asr.jsonl",
    "claude-code-subagent-folder": GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl",
    "claude-code-usage-normalized": GOLDEN / "claude-code" / "usage-normalized" / "expected.asr.jsonl",
}


def golden_file(name: str, suffix: str) -> type[SingleFileSnapshotExtension]:
    """Keeps a snapshot as golden/_export/<name>.<suffix>.json."""

    class GoldenExport(SingleFileSnapshotExtension):
        _write_mode = WriteMode.TEXT
        file_extension = "json"

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return str(FOLDER)

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            return f"{name}.{suffix}"

    return GoldenExport


@pytest.mark.parametrize("name", sorted(CASES))
def test_export_golden(name: str, snapshot: Any) -> None:
    out = io.StringIO()
    report = export_path(CASES[name], out)
    document = json.dumps(json.loads(out.getvalue()), indent=2, ensure_ascii=False) + "\n"
    assert snapshot(extension_class=golden_file(name, "atif")) == document
    assert snapshot(extension_class=golden_file(name, "report")) == json.dumps(report.as_dict(), indent=2) + "\n"


def test_every_golden_export_file_has_a_case() -> None:
    names = {path.name.split(".")[0] for path in Path(FOLDER).glob("*.json")}
    assert names == set(CASES)
