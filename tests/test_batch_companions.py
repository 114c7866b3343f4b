"""Batch notices every input a stream depends on (issue 16.3).

Every file a golden case keeps beside its input (OpenClaw's sessions.json, trajectory sidecar,
failed deliveries and cron run log; Claude Code's subagents and plan files; …) is taken away
after a first batch, or added after a first batch without it: the next incremental run must
give exactly the outputs of a fresh run on the changed folder. A companion the adapter reads
but does not declare (``companion_files`` in its ``discover.py``) leaves the archive stale.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from golden_support import GoldenCase, golden_cases
from test_batch import batch, outputs

from asr_adapters import registry


def beside(case: GoldenCase) -> list[Path]:
    skip = ("expected", "README", "input.")
    return sorted(p for p in case.folder.rglob("*") if p.is_file() and not p.name.startswith(skip))


CASES = [(case, file) for case in golden_cases() if case.input.suffix != ".sql" for file in beside(case)]


def copy(case: GoldenCase, folder: Path) -> Path:
    shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
    return folder / case.input.name


@pytest.mark.parametrize("case, file", CASES, ids=[f"{c.id}:{f.relative_to(c.folder)}" for c, f in CASES])
@pytest.mark.parametrize("change", ["removed", "added"])
def test_a_changed_companion_makes_the_next_run_equal_a_fresh_one(
    case: GoldenCase, file: Path, change: str, tmp_path: Path
) -> None:
    relative = file.relative_to(case.folder)
    session = copy(case, tmp_path / "src" / case.name)
    companion = session.parent / relative
    if change == "added":
        companion.unlink()
    out = tmp_path / "out"
    first = batch([session], out, jobs=1)
    assert first.converted == 1, first.as_dict()
    if change == "removed":
        companion.unlink()
    else:
        companion.write_bytes(file.read_bytes())
    batch([session], out, jobs=1)
    fresh = tmp_path / "fresh"
    batch([session], fresh, jobs=1)
    assert outputs(out) == outputs(fresh), f"{relative} {change}: the archive kept the old conversion"


def test_golden_companions_present_or_skip() -> None:
    if not CASES:
        pytest.skip("no golden case keeps files beside its input")
    assert {case.agent for case, _file in CASES} <= set(registry.names())


def test_a_t3code_attachment_that_appears_later_reconverts_the_database(tmp_path: Path) -> None:
    from golden_support import GOLDEN
    from test_batch import build_sqlite

    script = GOLDEN / "t3code" / "v1-two-threads" / "input.sql"
    if not script.exists():
        pytest.skip("golden/t3code/v1-two-threads is missing")
    src = tmp_path / "src"
    src.mkdir()
    database = src / "state.sqlite"
    build_sqlite(script, database)
    out = tmp_path / "out"
    batch([database], out, jobs=1)
    (src / "attachments").mkdir()
    (src / "attachments" / "thread-a-7f1c.png").write_bytes(b"\x89PNG fake")  # the image the row names
    again = batch([database], out, jobs=1)
    assert again.converted == 1
    fresh = tmp_path / "fresh"
    batch([database], fresh, jobs=1)
    assert outputs(out) == outputs(fresh)
    assert b"sha256:" in b"".join(outputs(out).values())
