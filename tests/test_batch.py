"""Batch conversion: layout, safe names, manifest, parallel determinism, failures, interruption.

The tests run on a toy adapter registered here (a small JSON Lines format), so they do not
depend on any agent's adapter; one end-to-end test runs the real adapters on the golden
inputs when there are any.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters import registry
from asr_adapters.batch import BatchOptions, Filters, run_batch
from asr_adapters.batch.naming import MAX_NAME, output_path, safe_name
from asr_adapters.batch.pool import WORKER_DIED
from asr_adapters.batch.progress import Progress
from asr_adapters.batch.worker import Task, run_task
from asr_adapters.cli import main
from asr_adapters.convert import Conversion
from asr_adapters.core.adapter import Adapter, Context, Emitter, Stream, header
from asr_adapters.core.errors import InputError
from asr_adapters.core.source import Source
from asr_adapters.stream.writer import StreamWriter

TESTS = Path(__file__).resolve().parent

# -- the toy adapter -----------------------------------------------------------------------
#
# Line 1: {"toy": "<session id>", "parent": "<parent id>"?}; then
# {"say": text} a record; {"more": text} folded into the open "say" (closed by the next line
# or the end); {"dup": 1} a duplicate; {"child": id, "says": [...]} a subagent stream written
# after the main one; {"fail": reason} stops the conversion; {"kill": 1} kills the process when
# TOY_KILL=1; {"sleep": seconds} sleeps when TOY_SLOW=1.


class ToyAdapter(Adapter):
    name = "toy"
    registry_name = "dev.asr.toy"
    description = "a toy JSON Lines format for the batch tests"

    def detect(self, source: Source) -> int:
        return 100 if source.head(16).startswith(b'{"toy"') else 0

    def default_homes(self, env: Mapping[str, str]) -> list[Path]:
        home = env.get("TOY_HOME")
        return [Path(home) / "sessions"] if home else []

    def is_session_file(self, path: Path) -> bool:
        return "sidecar" not in path.name and path.suffix != ".txt"

    def companion_files(self, path: Path) -> list[Path]:
        return [path.with_suffix(".notes")]

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        lines = context.json_lines()
        first = next(lines, None)
        if first is None or not isinstance(first[1], dict) or "toy" not in first[1]:
            raise InputError(source.display, "not a toy session", first[0] if first else None)
        context.accounting.folded += 1
        head = first[1]
        key = f"toy:{head['toy']}"
        children: list[tuple[str, list[str]]] = []
        yield Stream(key, self._main(source, context, head, lines, children))
        for child, says in children:
            yield Stream(f"toy:{child}", self._child(source, context, child, head["toy"], says), False, key)

    def _main(
        self,
        source: Source,
        context: Context,
        head: dict[str, Any],
        lines: Iterator[tuple[int, Any]],
        children: list[tuple[str, list[str]]],
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        record = header(
            "toy", str(head["toy"]), agent_version=None, source_format="toy", variant=None, file=source.name
        )
        if head.get("parent"):
            record["parent"] = f"toy:{head['parent']}"
        yield emit(record)
        accounting = context.accounting
        pending: dict[str, Any] | None = None
        for number, item in lines:
            if isinstance(item, dict) and "more" in item and pending is not None:
                pending["data"]["text"] += str(item["more"])
                accounting.folded += 1
                continue
            if pending is not None:
                yield emit(pending)
                pending = None
            if not isinstance(item, dict):
                accounting.vendor += 1
                yield emit(self.vendor("other", item))
            elif "say" in item:
                accounting.records += 1
                pending = {"type": "vendor", "schema": "dev.asr.toy/say", "data": {"text": str(item["say"])}}
            elif "dup" in item:
                accounting.duplicates += 1
            elif "child" in item:
                accounting.folded += 1
                children.append((str(item["child"]), [str(s) for s in item.get("says", [])]))
            elif "fail" in item:
                raise InputError(source.display, str(item["fail"]), number)
            elif "kill" in item:
                accounting.folded += 1
                if os.environ.get("TOY_KILL") == "1":
                    os.kill(os.getpid(), signal.SIGKILL)
            elif "sleep" in item:
                accounting.folded += 1
                if os.environ.get("TOY_SLOW") == "1":
                    time.sleep(float(item["sleep"]))
            else:
                accounting.vendor += 1
                yield emit(self.vendor("other", item))
        if pending is not None:
            yield emit(pending)
        notes = source.path.with_suffix(".notes") if source.path is not None else None
        if notes is not None and notes.is_file():  # a file read along with the session
            yield emit({"type": "vendor", "schema": "dev.asr.toy/notes", "data": notes.read_text()})

    def _child(
        self, source: Source, context: Context, child: str, parent: str, says: list[str]
    ) -> Iterator[dict[str, Any]]:
        emit = Emitter(context.accounting)
        record = header("toy", child, agent_version=None, source_format="toy", variant=None, file=source.name)
        record["parent"] = f"toy:{parent}"
        yield emit(record)
        for text in says:
            yield emit({"type": "vendor", "schema": "dev.asr.toy/say", "data": {"text": text}})


def register_toy() -> None:
    registry._load()
    if "toy" not in registry._ADAPTERS:
        registry._ADAPTERS["toy"] = ToyAdapter()


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def toy_file(path: Path, session: str, *items: Any, parent: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    head: dict[str, Any] = {"toy": session}
    if parent:
        head["parent"] = parent
    lines = [orjson.dumps(head)] + [i if isinstance(i, bytes) else orjson.dumps(i) for i in items]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def full_streams(path: Path) -> dict[str, bytes]:
    """Every stream of one input as a single conversion writes it: {stream key: bytes}."""
    out: dict[str, bytes] = {}
    for stream in Conversion(path, as_dicts=True).streams():
        buffer = io.BytesIO()
        StreamWriter(buffer).write_all(stream.records)
        out[stream.key] = buffer.getvalue()
    return out


def tree(folder: Path, *, skip: tuple[str, ...] = ("_batch.lock",)) -> dict[str, bytes]:
    """Every file under ``folder`` (temporary files of a running batch left out)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.name in skip or path.name.startswith(".asr-tmp-"):
            continue
        try:
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
        except (IsADirectoryError, FileNotFoundError):
            continue
    return found


def outputs(folder: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree(folder).items() if k.endswith(".asr.jsonl")}


def batch(sources: list[Path], outdir: Path, **options: Any) -> Any:
    filters = options.pop("filters", Filters())
    return run_batch(BatchOptions(sources=sources, outdir=outdir, filters=filters, **options))


def corpus(root: Path) -> Path:
    """A small archive: sessions in nested folders, a subagent, a forked child, noise files."""
    toy_file(root / "a" / "one.jsonl", "s1", {"say": "hi"}, {"more": " there"}, {"dup": 1}, {"say": "bye"})
    toy_file(root / "a" / "two.jsonl", "s2", {"say": "x"}, {"child": "c1", "says": ["sub"]}, {"say": "y"})
    toy_file(root / "b" / "child.jsonl", "s3", {"say": "forked"}, parent="s1")
    toy_file(root / "b" / "c" / "deep.jsonl", "s4", *[{"say": f"line {i}"} for i in range(20)])
    toy_file(root / "b" / "sidecar.jsonl", "s9", {"say": "not a session of its own"})
    toy_file(root / "b" / "bad-line.jsonl", "s5", {"say": "a"}, b"{not json", {"say": "b"})
    (root / "notes.txt").write_text("hello\n")
    (root / "empty.jsonl").write_bytes(b"")
    (root / "other.json").write_text('{"something": "else"}\n')
    return root


# -- names ---------------------------------------------------------------------------------

HOSTILE = ["../../x", "/etc/passwd", "a\x00b", "x" * 1000, ".", "..", "", "CON", "..\\..\\win", "a/b/../../c", "é"]


def test_safe_names_cannot_escape_and_stay_distinct() -> None:
    names = [safe_name(i) for i in HOSTILE]
    for name in names:
        assert name and not name.startswith(".")
        assert "/" not in name and "\\" not in name and "\x00" not in name
        assert len(name) <= MAX_NAME
        assert set(name) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-~")
    assert len(set(names)) == len(names)
    assert safe_name("019a4d2c-1b2f-7c3d-8e9f-0a1b2c3d4e5f") == "019a4d2c-1b2f-7c3d-8e9f-0a1b2c3d4e5f"
    assert output_path("toy", "../../x", "../p") == f"toy/{safe_name('../p')}/{safe_name('../../x')}.asr.jsonl"
    # a child id that repeats its parent's is named by the rest, in the parent's folder
    assert output_path("claude-code", "p1/agent-a1", "p1") == "claude-code/p1/agent-a1.asr.jsonl"
    assert output_path("toy", "p1/../../x", "p1") == f"toy/p1/{safe_name('../../x')}.asr.jsonl"
    assert output_path("toy", "p1/", "p1") == f"toy/p1/{safe_name('p1/')}.asr.jsonl"


CASES = ["sess", "Sess", "SESS", "sEsS", "x" * 200, "X" * 200, "con", "CON"]


def _folded_unique(names: list[str]) -> bool:
    return len({name.casefold() for name in names}) == len(names)


def test_names_are_unique_under_case_folding() -> None:
    """Issue 25.21: ids that differ only in case get names that differ under case folding
    (macOS and Windows file systems fold case), checked by the names on any file system."""
    names = [safe_name(i) for i in CASES]
    assert _folded_unique(names), names
    assert safe_name("sess") == "sess"  # an id with no upper-case letter keeps its name
    paths = [output_path("toy", child, parent) for parent in ("P", "p") for child in ("Kid", "kid")]
    assert _folded_unique(paths) and _folded_unique([p.rsplit("/", 1)[0] for p in paths[::2]]), paths


def test_a_batch_of_ids_differing_only_in_case_writes_names_unique_under_folding(toy: None, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    for index, session in enumerate(CASES):
        toy_file(src / f"s{index}.jsonl", session, {"say": "hi"}, {"child": "Kid", "says": ["a"]}, {"child": "kid"})
    summary = batch([src], out, jobs=1)
    assert summary.failed == 0 and summary.streams == 3 * len(CASES)
    names = sorted(outputs(out))
    assert len(names) == 3 * len(CASES) and _folded_unique(names), names
    code = CliRunner().invoke(main, ["convert", str(src / "s1.jsonl"), "-o", f"{tmp_path / 'one'}/"]).exit_code
    converted = sorted(outputs(tmp_path / "one"))
    assert code == 0 and len(converted) == 3 and _folded_unique(converted), converted


def test_hostile_session_ids_stay_inside_outdir(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    for index, session in enumerate(HOSTILE):
        toy_file(src / f"h{index}.jsonl", session, {"say": "hostile"}, {"child": "../../../escaped", "says": ["x"]})
    out = tmp_path / "deep" / "out"
    summary = batch([src], out, jobs=1)
    assert summary.failed == 0 and summary.converted == len(HOSTILE)
    # nothing was written outside OUTDIR, every output is a file directly in the layout
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert all(p.startswith(("src/", "deep/out/")) for p in written), written
    files = outputs(out)
    assert len(files) == 2 * len(HOSTILE)
    for relative in files:
        parts = relative.split("/")
        assert parts[0] == "toy" and len(parts) in (2, 3)
        assert all(part and part not in (".", "..") and not part.startswith(".") for part in parts)


# -- layout and content --------------------------------------------------------------------


def test_layout_content_and_summary(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    out = tmp_path / "out"
    summary = batch([src], out, jobs=1)
    files = outputs(out)
    assert sorted(files) == [
        "toy/s1.asr.jsonl",
        "toy/s1/s3.asr.jsonl",
        "toy/s2.asr.jsonl",
        "toy/s2/c1.asr.jsonl",
        "toy/s4.asr.jsonl",
        "toy/s5.asr.jsonl",
    ]
    assert files["toy/s1.asr.jsonl"] == full_streams(src / "a" / "one.jsonl")["toy:s1"]
    two = full_streams(src / "a" / "two.jsonl")
    assert files["toy/s2.asr.jsonl"] == two["toy:s2"]
    assert files["toy/s2/c1.asr.jsonl"] == two["toy:c1"]
    assert summary.converted == 5 and summary.failed == 0 and summary.skipped == 0
    assert summary.streams == 6
    assert summary.unclaimed == 4
    assert dict(summary.unclaimed_reasons) == {
        "empty file": 1,
        "no adapter claims it": 1,  # other.json: opened, sniffed, nobody's
        "no agent keeps sessions under this name": 1,  # notes.txt: not even opened
        "part of another input, not a session of its own": 1,  # the sidecar
    }
    assert summary.duplicates == 1
    assert summary.record_types["vendor"] == summary.records - summary.streams
    assert summary.warnings == 1  # the unreadable line, reported but not a failure
    errors = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
    assert errors == [
        {
            "path": str((src / "b" / "bad-line.jsonl").resolve()),
            "line": 3,
            "reason": errors[0]["reason"],
            "agent": "toy",
            "severity": "warning",
        }
    ]
    assert not [p for p in out.rglob(".asr-tmp-*")]


def test_same_session_in_two_sources_gets_two_stable_names(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    toy_file(src / "a.jsonl", "same", {"say": "first copy"})
    toy_file(src / "b.jsonl", "same", {"say": "second copy"})
    out = tmp_path / "out"
    batch([src], out, jobs=1)
    first = outputs(out)
    assert len(first) == 2 and first["toy/same.asr.jsonl"] == full_streams(src / "a.jsonl")["toy:same"]
    # a re-run after b changed keeps a's name and b's tagged name
    toy_file(src / "b.jsonl", "same", {"say": "second copy, grown"}, {"say": "more"})
    batch([src], out, jobs=1)
    second = outputs(out)
    assert sorted(second) == sorted(first)
    assert second["toy/same.asr.jsonl"] == first["toy/same.asr.jsonl"]


# -- incremental re-runs -------------------------------------------------------------------


def test_rerun_skips_unchanged_and_converts_changed(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    out = tmp_path / "out"
    first = batch([src], out, jobs=1)
    before = tree(out)
    again = batch([src], out, jobs=1)
    assert (again.converted, again.skipped, again.failed) == (0, first.converted, 0)
    assert tree(out) == before

    deep = src / "b" / "c" / "deep.jsonl"
    with open(deep, "ab") as handle:
        handle.write(b'{"say": "appended"}\n')
    grown = batch([src], out, jobs=1)
    assert (grown.converted, grown.skipped) == (1, first.converted - 1)
    assert outputs(out)["toy/s4.asr.jsonl"] == full_streams(deep)["toy:s4"]

    os.utime(src / "a" / "one.jsonl", ns=(1, 1))  # mtime only: the content hash says unchanged
    touched = batch([src], out, jobs=1)
    assert (touched.converted, touched.skipped) == (0, first.converted)
    assert batch([src], out, jobs=1).skipped == first.converted  # and the manifest learnt the new mtime

    (out / "toy" / "s2" / "c1.asr.jsonl").unlink()  # a missing output is written again
    assert batch([src], out, jobs=1).converted == 1
    assert tree(out) == {**before, **{k: v for k, v in tree(out).items() if k.startswith("_")}, **outputs(out)}

    forced = batch([src], out, jobs=1, force=True)
    assert (forced.converted, forced.skipped) == (first.converted, 0)

    manifest = orjson.loads((out / "_manifest.json").read_bytes())
    for entry in manifest["sources"].values():
        entry["producer"] = "0.0.0-older"
    (out / "_manifest.json").write_bytes(orjson.dumps(manifest))
    assert batch([src], out, jobs=1).converted == first.converted  # a new producer version re-converts


def test_a_changed_companion_file_reconverts_its_session(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    path = toy_file(src / "a.jsonl", "with-notes", {"say": "x"})
    notes = path.with_suffix(".notes")
    notes.write_text("first")
    out = tmp_path / "out"
    assert batch([src], out, jobs=1).converted == 1
    assert batch([src], out, jobs=1).skipped == 1
    notes.write_text("second, longer")
    again = batch([src], out, jobs=1)
    assert (again.converted, again.skipped) == (1, 0)
    assert b"second, longer" in outputs(out)["toy/with-notes.asr.jsonl"]


def test_a_source_that_vanished_since_the_walk_is_gone_not_failed(tmp_path: Path) -> None:
    result = run_task(Task(str(tmp_path / "moved-away.jsonl"), "toy", str(tmp_path / "out")))
    assert result.status == "vanished"


def test_changed_source_with_new_session_id_replaces_its_old_output(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    path = toy_file(src / "a.jsonl", "old-id", {"say": "x"})
    out = tmp_path / "out"
    batch([src], out, jobs=1)
    toy_file(path, "new-id", {"say": "x"}, {"say": "y"})
    batch([src], out, jobs=1)
    assert sorted(outputs(out)) == ["toy/new-id.asr.jsonl"]


# -- failures and parallelism --------------------------------------------------------------


def test_failing_source_among_good_ones(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    toy_file(src / "broken.jsonl", "s6", {"say": "fine"}, {"say": "still fine"}, {"fail": "the log is cut here"})
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(src), "-o", str(out), "--jobs", "2", "--json", "--quiet"])
    assert result.exit_code == 1, result.output
    summary = orjson.loads(result.stdout)
    assert (summary["converted"], summary["failed"]) == (5, 1)
    for key in ("converted", "skipped", "failed", "agents", "record_types", "duplicates", "vendor", "seconds"):
        assert key in summary
    assert summary["agents"]["toy"]["failed"] == 1
    errors = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
    failures = [e for e in errors if e["severity"] == "error"]
    assert failures == [
        {
            "path": str((src / "broken.jsonl").resolve()),
            "line": 4,
            "reason": "the log is cut here",
            "agent": "toy",
            "severity": "error",
        }
    ]
    assert not (out / "toy" / "s6.asr.jsonl").exists()
    assert not [p for p in out.rglob(".asr-tmp-*")]
    # the failed source is tried again on the next run (it is not in the manifest)
    again = CliRunner().invoke(main, ["batch", str(src), "-o", str(out), "--json", "--quiet"])
    assert orjson.loads(again.stdout)["failed"] == 1 and orjson.loads(again.stdout)["skipped"] == 5


def test_jobs_1_and_jobs_2_give_identical_outputs(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    for index in range(12):
        toy_file(src / "many" / f"{index:02d}.jsonl", f"m{index % 9}", *[{"say": f"{index}-{j}"} for j in range(index)])
    toy_file(src / "broken.jsonl", "s6", {"fail": "no"})
    one, two = tmp_path / "one", tmp_path / "two"
    first = batch([src], one, jobs=1)
    second = batch([src], two, jobs=2)
    varying = {"seconds": 0, "outdir": "", "errors_file": ""}
    assert first.as_dict() | varying == second.as_dict() | varying
    assert tree(one) == tree(two)
    assert len(outputs(one)) == 6 + 12 and first.failed == 1


def test_killed_worker_then_clean_rerun(toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = corpus(tmp_path / "src")
    many = [{"say": f"line {i} " + "x" * 200} for i in range(200)]
    toy_file(src / "poison.jsonl", "poison", *many, {"kill": 1}, {"say": "after"})
    reference = tmp_path / "reference"
    batch([src], reference, jobs=1)

    monkeypatch.setenv("TOY_KILL", "1")
    out = tmp_path / "out"
    summary = batch([src], out, jobs=2)
    assert summary.failed == 1 and summary.converted == 5
    errors = [orjson.loads(line) for line in (out / "_errors.jsonl").read_bytes().splitlines()]
    assert [e["reason"] for e in errors if e["severity"] == "error"] == [WORKER_DIED]
    assert "toy/poison.asr.jsonl" not in outputs(out)  # nothing half-written under a final name
    assert not [p for p in out.rglob(".asr-tmp-*")]
    for name, data in outputs(out).items():
        assert data == outputs(reference)[name]

    monkeypatch.delenv("TOY_KILL")
    rerun = batch([src], out, jobs=2)
    assert (rerun.converted, rerun.skipped, rerun.failed) == (1, 5, 0)
    assert tree(out) == tree(reference)


def test_chunks_of_many_sources_give_the_same_outputs_and_a_killer_fails_alone(
    toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enough sources that workers get chunks of several, sessions shared across chunks (the
    walk's first keeps the plain name), unclaimed and filtered files among them, and a source
    that kills its worker in the middle of a chunk: only that one fails."""
    src = tmp_path / "src"
    for index in range(90):
        items = [{"say": f"{index}-{j}"} for j in range(index % 5)]
        toy_file(src / f"{index:02d}" / "s.jsonl", f"m{index % 23}", *items)
        if index % 10 == 3:
            (src / f"{index:02d}" / "other.json").write_text('{"something": "else"}\n')
            (src / f"{index:02d}" / "sidecar.jsonl").write_bytes(b'{"toy": "x"}\n')
    toy_file(src / "60" / "poison.jsonl", "poison", {"say": "a"}, {"kill": 1}, {"say": "b"})
    only = Filters(exclude=["*/77/*"])
    reference, one, two = tmp_path / "reference", tmp_path / "one", tmp_path / "two"
    expected = batch([src], reference, jobs=1, filters=only)
    assert (expected.converted, expected.failed, expected.filtered, expected.unclaimed) == (90, 0, 1, 18)
    in_chunks = batch([src], one, jobs=2, filters=only)
    varying = {"seconds": 0, "outdir": "", "errors_file": ""}
    assert in_chunks.as_dict() | varying == expected.as_dict() | varying
    assert tree(one) == tree(reference)

    monkeypatch.setenv("TOY_KILL", "1")  # jobs=2 only: in the main process it would kill the tests
    killed = batch([src], two, jobs=2, filters=only)
    assert (killed.converted, killed.failed, killed.filtered, killed.unclaimed) == (89, 1, 1, 18)
    errors = [orjson.loads(line) for line in (two / "_errors.jsonl").read_bytes().splitlines()]
    assert [(e["reason"], e["agent"]) for e in errors if e["severity"] == "error"] == [(WORKER_DIED, "toy")]
    for name, data in outputs(two).items():
        assert data == outputs(reference)[name]
    assert not [p for p in two.rglob(".asr-tmp-*")]
    monkeypatch.delenv("TOY_KILL")
    rerun = batch([src], two, jobs=2, filters=only)
    assert (rerun.converted, rerun.skipped, rerun.failed) == (1, 89, 0)
    assert tree(two) == tree(tmp_path / "reference")


RUNNER = """
import sys
sys.path.insert(0, {tests!r})
from test_batch import register_toy
register_toy()
from asr_adapters.cli import main
main()
"""


def test_batch_killed_at_any_moment_leaves_whole_outputs_and_a_rerun_finishes(toy: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    for index in range(30):  # 3 s of sleeping on 2 workers: the kill comes long before the end
        toy_file(src / f"{index:02d}.jsonl", f"slow{index}", {"say": "a"}, {"sleep": 0.2}, {"say": "b"})
    reference = tmp_path / "reference"
    batch([src], reference, jobs=2)
    expected = outputs(reference)

    script = tmp_path / "run_asr.py"
    script.write_text(RUNNER.format(tests=str(TESTS)))
    out = tmp_path / "out"
    command = [sys.executable, str(script), "batch", str(src), "-o", str(out), "--jobs", "2", "--quiet"]
    process = subprocess.Popen(command, start_new_session=True, env={**os.environ, "TOY_SLOW": "1"})
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(outputs(out) if out.exists() else {}) < 3:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    partial = outputs(out)
    assert 0 < len(partial) < len(expected)
    for name, data in partial.items():
        assert data == expected[name], name  # every output there is whole

    finished = subprocess.run(command, capture_output=True, check=False)
    assert finished.returncode == 0, finished.stderr
    assert outputs(out) == expected
    assert not [p for p in out.rglob(".asr-tmp-*")]


# -- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        [],  # no source and no --discover
        ["SRC", "--agent", "no-such-agent"],
        ["SRC", "--since", "yesterday-ish"],
        ["SRC/missing"],
        ["SRC", "--jobs", "0"],
    ],
)
def test_usage_errors_exit_2(toy: None, tmp_path: Path, arguments: list[str]) -> None:
    src = corpus(tmp_path / "src")
    arguments = [a.replace("SRC", str(src)) for a in arguments]
    result = CliRunner().invoke(main, ["batch", *arguments, "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output


def test_output_folder_that_is_a_file_is_a_usage_error(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    (tmp_path / "out").write_text("")
    result = CliRunner().invoke(main, ["batch", str(src), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2


def test_a_second_batch_on_the_same_folder_is_refused(toy: None, tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl")
    src = corpus(tmp_path / "src")
    out = tmp_path / "out"
    out.mkdir()
    with open(out / "_batch.lock", "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = CliRunner().invoke(main, ["batch", str(src), "-o", str(out)])
    assert result.exit_code == 2 and "another asr batch" in result.output
    assert CliRunner().invoke(main, ["batch", str(src), "-o", str(out), "-q"]).exit_code == 0


def test_filters(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    os.utime(src / "a" / "one.jsonl", (1_000_000_000, 1_000_000_000))
    runner = CliRunner()

    def run(*extra: str) -> dict[str, Any]:
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        result = runner.invoke(main, ["batch", str(src), "-o", str(out), "--json", "-q", "-j", "1", *extra])
        assert result.exit_code == 0, result.output
        return dict(orjson.loads(result.stdout))

    assert run("--agent", "toy")["converted"] == 5
    assert run("--agent", "codex")["converted"] == 0 if "codex" in registry.names() else True
    assert run("--since", "2020-01-01")["converted"] == 4
    assert run("--since", "3650d")["converted"] == 4
    assert run("--include", "a/*")["converted"] == 2
    assert run("--exclude", "*/c/*", "--exclude", "two.jsonl")["converted"] == 3


def test_json_summary_and_human_summary(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    result = CliRunner().invoke(main, ["batch", str(src), "-o", str(tmp_path / "out"), "--json", "-j", "1"])
    assert result.exit_code == 0
    summary = orjson.loads(result.stdout)
    assert summary["agents"] == {"toy": {"converted": 5, "skipped": 0, "failed": 0, "streams": 6, "records": 34}}
    assert summary["record_types"] == {"session": 6, "vendor": 28}
    assert summary["vendor"] == 0 and summary["duplicates"] == 1
    assert "converted 5, skipped 0 unchanged, failed 0" in result.stderr
    assert "4 files not converted" in result.stderr


def test_progress_lines() -> None:
    log = io.StringIO()
    progress = Progress(log, tty=False, interval=0)
    progress.start(2, 2_000_000)
    progress.advance(1_000_000)
    progress.advance(1_000_000)
    progress.finish()
    lines = log.getvalue().splitlines()
    assert lines[-1].startswith("asr batch: 2/2 sessions (100%)") and "MB/s" in lines[-1] and "ETA" in lines[-1]
    screen = io.StringIO()
    bar = Progress(screen, tty=True)
    bar.start(1, 10)
    bar.advance(10)
    bar.finish()
    assert screen.getvalue().startswith("\r[") and screen.getvalue().endswith("\n")


# -- the real adapters, end to end ---------------------------------------------------------


def build_sqlite(script: Path, target: Path) -> None:
    """A database from an SQL script, built in memory (no fsync per statement) then saved."""
    from golden_support import sql_script

    memory = sqlite3.connect(":memory:")
    memory.executescript(sql_script(script))
    disk = sqlite3.connect(target)
    memory.backup(disk)
    disk.close()
    memory.close()


def _golden_cases() -> list[Any]:
    from golden_support import golden_cases

    return [case for case in golden_cases() if case.expected_files()]


def test_real_adapters_on_golden_inputs(tmp_path: Path) -> None:
    cases = _golden_cases()
    if not cases:
        pytest.skip("no golden cases with expected streams yet")
    src = tmp_path / "golden"
    inputs = []
    for case in cases:
        folder = src / case.agent / case.name
        shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("expected*", "README.md"))
        sql = folder / "input.sql"
        if sql.exists():  # built from the case itself: its schema include is relative to golden/
            build_sqlite(case.folder / "input.sql", folder / "input.sqlite")
            sql.unlink()
        inputs += [p for p in sorted(folder.iterdir()) if p.name.startswith("input.")]
    out = tmp_path / "out"
    summary = batch(inputs, out, jobs=2)  # files named explicitly: their names need not look like sessions
    produced = outputs(out)
    contents = set(produced.values())
    missing = []
    for case in cases:
        for expected in case.expected_files():
            if expected.read_bytes() not in contents:
                missing.append(f"{case.id}/{expected.name}")
    assert not missing, f"streams not produced by the batch: {missing}; summary {summary.as_dict()}"
    assert {name.split("/")[0] for name in produced} <= set(registry.names())


def test_the_summary_counts_warnings_and_lists_files_not_converted(tmp_path: Path) -> None:
    """Before: the summary line said nothing of the warnings written to ``_errors.jsonl``, and
    neither ``--json`` nor ``-v`` named the files not converted (only counts by reason; issue #32
    item 6)."""
    from asr_adapters.cli import main

    src = tmp_path / "src"
    src.mkdir()
    native = Path(__file__).parent.parent / "golden" / "codex" / "10-tool-calls-every-kind" / "input.jsonl"
    (src / "rollout-2025-01-01T00-00-00-0123.jsonl").write_bytes(native.read_bytes() + b"not json\n")
    (src / "empty.jsonl").write_bytes(b"")
    (src / "other.jsonl").write_bytes(b'{"a": 1}\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(src), "-o", str(out), "-j", "1", "--json", "-v"])
    assert result.exit_code == 0, result.stderr
    *listed, line = result.stderr.strip().splitlines()
    assert f"; 1 warnings in {out / '_errors.jsonl'}" in line
    assert listed == [
        f"asr batch: not converted: {src / 'empty.jsonl'}: empty file",
        f"asr batch: not converted: {src / 'other.jsonl'}: no adapter claims it",
    ]
    summary = orjson.loads(result.stdout)
    assert summary["warnings_in_errors_file"] == 1 == len((out / "_errors.jsonl").read_bytes().splitlines())
    assert summary["unclaimed_files"] == [
        {"path": str(src / "empty.jsonl"), "reason": "empty file"},
        {"path": str(src / "other.jsonl"), "reason": "no adapter claims it"},
    ]
    quiet = CliRunner().invoke(main, ["batch", str(src), "-o", str(tmp_path / "again"), "-j", "1"])
    assert "not converted:" not in quiet.stderr  # listed only with -v
