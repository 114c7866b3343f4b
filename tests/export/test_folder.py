"""`asr export DIR -o OUTDIR`: a folder of ASR streams (a batch archive), one document per session,
subagent streams embedded in their parent's as for a native input, bad streams named and skipped."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main
from asr_adapters.export import export_path

from .test_atif import assert_valid_atif

CASE = GOLDEN / "claude-code" / "subagent-folder"
PARENT = CASE / "expected.asr.jsonl"
(CHILD,) = sorted(CASE.glob("expected.claude-code_*.asr.jsonl"))
EVERY_KIND = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A batch-shaped folder: a session with its subagent beside it, another session, and a file
    that is no ASR stream."""
    folder = tmp_path / "archive"
    (folder / "claude-code" / "parent").mkdir(parents=True)
    (folder / "openclaw").mkdir()
    shutil.copy(PARENT, folder / "claude-code" / "parent.asr.jsonl")
    shutil.copy(CHILD, folder / "claude-code" / "parent" / "agent.asr.jsonl")
    shutil.copy(EVERY_KIND, folder / "openclaw" / "every.asr.jsonl")
    (folder / "claude-code" / "broken.asr.jsonl").write_text('{"not": "a header"}\n')
    (folder / "_manifest.json").write_text("{}\n")  # batch's own files are not streams
    return folder


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["export", *args])


def native_atif() -> dict[str, Any]:
    out = io.StringIO()
    export_path(CASE / "input.jsonl", out)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def test_a_folder_gives_one_document_per_session_with_its_subagents_embedded(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run("--to", "atif", str(archive), "-o", str(out), "--report", str(tmp_path / "report.json"))
    assert result.exit_code == 1  # the broken file
    assert result.stderr == (
        f"asr: error: {archive / 'claude-code' / 'broken.asr.jsonl'}:1: not an ASR stream: "
        "line 1 is not a session header\n"
    )
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == ["claude-code/parent.atif.json", "openclaw/every.atif.json"]
    parent = json.loads((out / "claude-code" / "parent.atif.json").read_text())
    assert_valid_atif(parent)
    assert parent == native_atif(), "the archive's streams export as the native input they came from"
    assert [child["trajectory_id"] for child in parent["subagent_trajectories"]] == [
        json.loads(CHILD.read_text().splitlines()[0])["session"]
    ]
    assert_valid_atif(json.loads((out / "openclaw" / "every.atif.json").read_text()))
    assert json.loads((tmp_path / "report.json").read_text())["trajectories"] == 3


def test_a_subagent_whose_parent_is_not_in_the_folder_is_a_document_of_its_own(tmp_path: Path) -> None:
    folder, out = tmp_path / "in", tmp_path / "out"
    folder.mkdir()
    shutil.copy(CHILD, folder / "agent.asr.jsonl")
    result = run("--to", "atif", str(folder), "-o", str(out))
    assert result.exit_code == 0, result.output
    document = json.loads((out / "agent.atif.json").read_text())
    assert_valid_atif(document)
    assert "subagent_trajectories" not in document


def test_a_child_that_breaks_midway_is_left_out_whole_and_named(archive: Path, tmp_path: Path) -> None:
    child = archive / "claude-code" / "parent" / "agent.asr.jsonl"
    lines = child.read_text().splitlines()
    child.write_text("\n".join([*lines[:3], "{broken", *lines[3:]]) + "\n")
    out = tmp_path / "out"
    result = run("--to", "atif", str(archive), "-o", str(out))
    assert result.exit_code == 1
    errors = result.stderr.splitlines()
    # a stream asr validate rejects is not exported: its first finding is the error (issue 25.11)
    assert f"asr: error: {child}:4: not a valid ASR stream: PROFILE-jsonl: not a JSON line" in errors[1]
    assert errors[1].endswith("(left out of parent.asr.jsonl)")
    parent = json.loads((out / "claude-code" / "parent.atif.json").read_text())
    assert_valid_atif(parent)
    assert "subagent_trajectories" not in parent
    assert parent["steps"] == native_atif()["steps"]


def test_an_otel_folder_export_puts_subagent_traces_in_the_parents_file(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run("--to", "otel", str(archive), "-o", str(out))
    assert result.exit_code == 1 and "broken.asr.jsonl" in result.stderr
    assert sorted(p.name for p in out.rglob("*.otlp.json")) == ["every.otlp.json", "parent.otlp.json"]
    document = json.loads((out / "claude-code" / "parent.otlp.json").read_text())
    native = tmp_path / "native.json"
    assert run("--to", "otel", str(CASE / "input.jsonl"), "-o", str(native)).exit_code == 0
    assert document == json.loads(native.read_text()), "the same spans as from the native input"
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len({span["traceId"] for span in spans}) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "give -o OUTDIR"),
        (["--endpoint", "http://127.0.0.1:4318"], "--endpoint takes one file"),
        (["-o", "x", "--agent", "codex"], "--agent is for one native file"),
    ],
)
def test_folder_usage_errors_exit_2(archive: Path, options: list[str], message: str) -> None:
    to = "otel" if "--endpoint" in options else "atif"
    result = run("--to", to, str(archive), *options)
    assert result.exit_code == 2 and message in result.stderr


def test_a_folder_without_streams_is_one_error(tmp_path: Path) -> None:
    result = run("--to", "atif", str(tmp_path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert result.stderr == f"asr: error: {tmp_path}: no ASR streams (*.asr.jsonl) in this folder\n"


def test_a_parent_that_breaks_midway_writes_no_document_and_says_what_it_held(archive: Path, tmp_path: Path) -> None:
    parent = archive / "claude-code" / "parent.asr.jsonl"
    lines = parent.read_text().splitlines()
    parent.write_text("\n".join([*lines[:2], "[1]", *lines[2:]]) + "\n")
    out = tmp_path / "out"
    result = run("--to", "atif", str(archive), "-o", str(out))
    assert result.exit_code == 1
    line = next(line for line in result.stderr.splitlines() if str(parent) in line)
    assert line.startswith(f"asr: error: {parent}:3: not a valid ASR stream: seq 3 PROFILE-record: a record must be")
    assert line.endswith("(1 embedded streams not written)")
    assert sorted(p.name for p in out.rglob("*") if p.is_file()) == ["every.atif.json"]


@pytest.mark.parametrize(("to", "suffix"), [("atif", ".atif.json"), ("otel", ".otlp.json")])
def test_an_asr_batch_archive_exports_as_its_native_input_does(tmp_path: Path, to: str, suffix: str) -> None:
    """asr batch writes the subagent stream in its parent's folder; exporting the archive gives the
    document the native input gives."""
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(CASE / "input.jsonl", source / "input.jsonl")
    shutil.copytree(CASE / "input", source / "input")
    archive, out = tmp_path / "archive", tmp_path / "out"
    batch = CliRunner().invoke(main, ["batch", str(source), "-o", str(archive), "-q"])
    assert batch.exit_code == 0, batch.output
    result = run("--to", to, str(archive), "-o", str(out))
    assert result.exit_code == 0, result.output
    (document,) = out.rglob(f"*{suffix}")
    native = tmp_path / f"native{suffix}"
    assert run("--to", to, str(CASE / "input.jsonl"), "-o", str(native)).exit_code == 0
    assert json.loads(document.read_text()) == json.loads(native.read_text())
