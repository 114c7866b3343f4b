"""Identical copies of one session in a batch (issue 32 item 6): the same bytes at two paths
(a home backed up inside itself) are converted once, and the manifest names the copy."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from test_batch import batch, full_streams, outputs, register_toy, toy_file

from asr_adapters import registry


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def manifest(out: Path) -> dict[str, dict[str, object]]:
    return orjson.loads((out / "_manifest.json").read_bytes())["sources"]


def home_with_backup(root: Path) -> tuple[Path, Path]:
    original = toy_file(root / "a" / "one.jsonl", "s1", {"say": "hi"}, {"child": "kid", "says": ["x"]})
    toy_file(root / "a" / "two.jsonl", "s2", {"say": "other"})
    copy = root / "backup" / "a" / "one.jsonl"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(original.read_bytes())
    return original, copy


def test_a_copy_is_converted_once_and_named_in_the_manifest(toy: None, tmp_path: Path) -> None:
    original, copy = home_with_backup(tmp_path / "src")
    out = tmp_path / "out"
    summary = batch([tmp_path / "src"], out, jobs=1)
    assert (summary.converted, summary.copies, summary.failed) == (2, 1, 0)
    assert sorted(outputs(out)) == ["toy/s1.asr.jsonl", "toy/s1/kid.asr.jsonl", "toy/s2.asr.jsonl"]
    assert outputs(out)["toy/s1.asr.jsonl"] == full_streams(original)["toy:s1"]
    sources = manifest(out)
    entry = sources[os.path.realpath(copy)]
    assert entry["same_as"] == os.path.realpath(original) and entry["outputs"] == []
    assert entry["sha256"] == sources[os.path.realpath(original)]["sha256"]
    assert "same_as" not in sources[os.path.realpath(original)]
    assert summary.as_dict()["copies"] == 1 and "1 identical copies" in summary.describe()
    # a re-run changes nothing and still knows the copy
    again = batch([tmp_path / "src"], out, jobs=2)
    assert (again.converted, again.copies, again.skipped) == (0, 1, 2)
    assert manifest(out) == sources


def test_a_copy_that_stops_being_identical_is_converted_on_its_own(toy: None, tmp_path: Path) -> None:
    original, copy = home_with_backup(tmp_path / "src")
    out = tmp_path / "out"
    batch([tmp_path / "src"], out, jobs=1)
    toy_file(original, "s1", {"say": "hi, grown"}, {"child": "kid", "says": ["x"]})  # the copy is now older
    summary = batch([tmp_path / "src"], out, jobs=1)
    assert (summary.converted, summary.copies) == (2, 0)
    entry = manifest(out)[os.path.realpath(copy)]
    assert "same_as" not in entry and len(entry["outputs"]) == 2
    written = outputs(out)
    assert written["toy/s1.asr.jsonl"] == full_streams(original)["toy:s1"]
    assert full_streams(copy)["toy:s1"] in written.values()


def test_a_copy_whose_companions_differ_is_no_copy(toy: None, tmp_path: Path) -> None:
    """The toy adapter reads ``<name>.notes`` with a session: the same bytes beside other notes
    make other records, so both are converted."""
    original, copy = home_with_backup(tmp_path / "src")
    original.with_suffix(".notes").write_text("mine")
    copy.with_suffix(".notes").write_text("the backup's")
    summary = batch([tmp_path / "src"], tmp_path / "out", jobs=1)
    assert (summary.converted, summary.copies) == (3, 0)
    copy.with_suffix(".notes").write_text("mine")  # now the same file with the same companion
    again = batch([tmp_path / "src"], tmp_path / "out", jobs=1)
    assert (again.converted, again.copies) == (0, 1)
    assert len(outputs(tmp_path / "out")) == 3  # the copy's earlier outputs are removed


def test_copies_of_a_file_that_fails_fail_with_it(toy: None, tmp_path: Path) -> None:
    bad = toy_file(tmp_path / "src" / "a" / "bad.jsonl", "s9", {"say": "x"}, {"fail": "broken here"})
    (tmp_path / "src" / "b").mkdir()
    (tmp_path / "src" / "b" / "bad.jsonl").write_bytes(bad.read_bytes())
    summary = batch([tmp_path / "src"], tmp_path / "out", jobs=1)
    assert (summary.converted, summary.copies, summary.failed) == (0, 0, 2)
    rows = [orjson.loads(line) for line in (tmp_path / "out" / "_errors.jsonl").read_bytes().splitlines()]
    assert any("same bytes as" in row["reason"] and row["path"].endswith("b/bad.jsonl") for row in rows), rows


def _two_sessions(tmp_path: Path, same_bytes: bool) -> tuple[Path, Path]:
    """Two Claude Code sessions of the same size: the same bytes, or one id's last digit changed."""
    golden = Path(__file__).parent.parent / "golden" / "claude-code" / "fold-tool-calls" / "input.jsonl"
    text = golden.read_text(encoding="utf-8")
    src = tmp_path / "src" / "project"
    src.mkdir(parents=True)
    first = src / "11111111-1111-4111-8111-111111111111.jsonl"
    second = src / "22222222-2222-4222-8222-222222222222.jsonl"
    first.write_text(text, encoding="utf-8")
    session = "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"
    second.write_text(text if same_bytes else text.replace(session, session[:-1] + "5"), encoding="utf-8")
    assert first.stat().st_size == second.stat().st_size
    assert (first.read_bytes() == second.read_bytes()) is same_bytes
    return first, second


def _counting_detect(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    detected: list[str] = []
    real_detect = registry.detect

    def counting(source: object) -> object:
        detected.append(str(getattr(source, "path", source)))
        return real_detect(source)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "detect", counting)
    return detected


def test_a_source_the_copy_check_sniffed_is_not_sniffed_again_by_its_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Sources of equal bytes are sniffed by the driver (a copy must be of the same agent); the
    agent it found goes with the original to its worker, so its head is read and every agent
    asked once, not twice."""
    first, second = _two_sessions(tmp_path, same_bytes=True)
    detected = _counting_detect(monkeypatch)
    summary = batch([tmp_path / "src"], tmp_path / "out", jobs=1)
    assert (summary.converted, summary.copies, summary.failed) == (1, 1, 0)
    assert sorted(detected) == sorted([str(first), str(second)])


def test_sources_of_equal_size_and_other_bytes_are_sniffed_by_their_workers_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Same size, other bytes: no copies, so the driver only hashes them (a home of many
    same-size sessions would otherwise be sniffed one by one before any worker starts, and
    ``--jobs 2`` wait for it); each is sniffed once, by its worker."""
    from asr_adapters.batch.copies import find_copies
    from asr_adapters.batch.worker import Item

    first, second = _two_sessions(tmp_path, same_bytes=False)
    items = [Item(str(path), str(path), explicit=False) for path in (first, second)]
    sniffed: dict[str, tuple[str, int, int]] = {}
    sizes = {str(path): path.stat().st_size for path in (first, second)}
    assert find_copies(items, sizes, {}, (), sniffed) == {} and sniffed == {}
    detected = _counting_detect(monkeypatch)
    summary = batch([tmp_path / "src"], tmp_path / "out", jobs=1)
    assert (summary.converted, summary.copies, summary.failed) == (2, 0, 0)
    assert sorted(detected) == sorted([str(first), str(second)])


def test_a_source_changed_after_the_copy_check_sniffed_it_is_sniffed_again(tmp_path: Path) -> None:
    """The driver's verdict holds only while the file keeps the stamp it had then: one that
    became another agent's session, or no one's, is judged anew by its worker."""
    from asr_adapters.batch.worker import Item, run_item

    golden = Path(__file__).parent.parent / "golden"
    codex = (golden / "codex" / "03-user-message-parts" / "input.jsonl").read_bytes()
    path = tmp_path / "11111111-1111-4111-8111-111111111111.jsonl"
    path.write_bytes((golden / "claude-code" / "fold-tool-calls" / "input.jsonl").read_bytes())
    stamp = path.stat()
    sniffed = ("claude-code", stamp.st_size, stamp.st_mtime_ns)
    item = Item(str(path), str(path), explicit=True, sniffed=sniffed)
    assert run_item(item, str(tmp_path / "same")).agent == "claude-code"
    path.write_bytes(codex)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    assert run_item(item, str(tmp_path / "other")).agent == "codex"
    path.write_bytes(b"hello world\n")
    result = run_item(item, str(tmp_path / "none"))
    assert (result.agent, result.status) == ("", "unclaimed")
