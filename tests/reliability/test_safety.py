"""Content is data: nothing from a session is executed or used as a path unsafely, outputs stay in
the output folder, symlinks out of a source tree are not followed (asr batch)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

import orjson
import pytest
from click.testing import CliRunner
from corpus import LINE_INPUTS
from harness import convert

from asr_adapters.cli import main

PACKAGE = Path(__file__).resolve().parents[2] / "asr_adapters"
MARKER = "/tmp/asr-reliability-executed"
HOSTILE_IDS = ["../../../../escaped", "/etc/passwd", "a/b/../../c", "..", ".hidden", "$(touch${IFS}" + MARKER + ")"]
#: Ids no session reference can hold as they are (the profile's grammar has no whitespace or '#'):
#: core.refs.session_ref percent-encodes them.
UNREFERENCEABLE = ["with space", "a#b", "100%"]


def test_the_package_never_executes_or_unpickles() -> None:
    """No eval/exec, no shell, no pickle/marshal anywhere in the package."""
    pattern = re.compile(
        r"(?<![.\w])(eval|exec|compile|__import__)\(|os\.system|subprocess|shell=True|pickle|marshal|yaml\.load"
    )
    hits = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and not line.lstrip().startswith("#")
    ]
    assert not hits, hits


def _all_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


@pytest.mark.parametrize("name", list(LINE_INPUTS))
@pytest.mark.parametrize("hostile", HOSTILE_IDS + UNREFERENCEABLE)
def test_hostile_session_id_stays_in_the_output_folder(name: str, hostile: str, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    work = tmp_path / "work"
    first = convert(clean, work / "first", "--agent", agent)
    session_id = first.records[0]["session"].split(":", 1)[1]
    escaped = orjson.dumps(hostile)[1:-1]
    data = clean.read_bytes().replace(session_id.encode(), escaped)
    data += orjson.dumps({"type": "x", "text": f"$(touch {MARKER}) `touch {MARKER}` __import__('os')"}) + b"\n"
    source = work / "in" / "session.jsonl"
    source.parent.mkdir(parents=True)
    source.write_bytes(data)
    before = _all_files(tmp_path)
    out = work / "deep" / "out"
    outcome = convert(source, out, "--agent", agent)
    new = _all_files(tmp_path) - before
    assert new and all(path.startswith("work/deep/out/") for path in new), new
    for path in new:
        relative = Path(path).relative_to("work/deep/out")
        assert relative.parts[0] == agent and len(relative.parts) <= 3, relative  # as batch names them
        assert not any(part.startswith(".") for part in relative.parts), relative
    assert not os.path.exists(MARKER)
    if outcome.converted:  # the id is kept, percent-encoded where a reference cannot hold it (core.refs)
        assert unquote(outcome.records[0]["session"].split(":", 1)[1]) == hostile


def _batch(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["batch", *args, "-j", "1", "-q"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def _session(tmp_path: Path, folder: str, name: str) -> Path:
    _, clean = LINE_INPUTS["codex"]
    path = tmp_path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(clean.read_bytes())
    return path


def test_batch_does_not_follow_a_symlinked_folder_out_of_the_tree(tmp_path: Path) -> None:
    _session(tmp_path, "outside", "rollout-2026-05-11T08-26-55-019e1625-0000-7000-8000-000000000010.jsonl")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    out = tmp_path / "out"
    _batch(str(tmp_path / "src"), "-o", str(out))
    assert not list(out.rglob("*.asr.jsonl")), list(out.rglob("*"))


def test_batch_does_not_follow_a_symlinked_file_out_of_the_tree(tmp_path: Path) -> None:
    outside = _session(tmp_path, "outside", "rollout-2026-05-11T08-26-55-019e1625-0000-7000-8000-000000000010.jsonl")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / outside.name).symlink_to(outside)
    out = tmp_path / "out"
    _batch(str(tmp_path / "src"), "-o", str(out))
    assert not list(out.rglob("*.asr.jsonl")), list(out.rglob("*"))
    _batch(str(tmp_path / "src"), "-o", str(out), "--follow-symlinks")  # unless asked
    assert len(list(out.rglob("*.asr.jsonl"))) == 1


def test_batch_converts_a_symlink_inside_the_tree_once(tmp_path: Path) -> None:
    real = _session(tmp_path, "src/a", "rollout-2026-05-11T08-26-55-019e1625-0000-7000-8000-000000000010.jsonl")
    (tmp_path / "src" / "b").mkdir()
    (tmp_path / "src" / "b" / real.name).symlink_to(real)
    out = tmp_path / "out"
    code, err = _batch(str(tmp_path / "src"), "-o", str(out))
    assert code == 0, err
    assert len(list(out.rglob("*.asr.jsonl"))) == 1
