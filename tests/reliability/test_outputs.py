"""Outputs never harm what they name (issue 25, items 1, 2 and 5), for every command that writes:
``asr convert``, ``asr show`` (a page, a site), ``asr export`` (a document, a folder).

- A PATH the user names that is a FIFO, a socket or a character device is written to as a
  stream, like stdout, and is still that FIFO, socket or device afterwards; a block device is
  refused (exit 2). Nothing is ever renamed over a file that is not a regular file.
- Inside an output folder, a link planted at a file's name (final or temporary) is never
  written through, a symlinked folder is refused with one error line (exit 3), and a FIFO at a
  file's name is never replaced.
- An output that cannot be written is one ``asr: error:`` line and exit 3, whatever the command.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from harness import deadline

from asr_adapters import outputs
from asr_adapters.cli import main

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
NATIVE = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "input.jsonl"
STREAM = GOLDEN / "codex" / "07-assistant-phase-and-mirrors" / "expected.asr.jsonl"
PRECIOUS = b"precious: must not change"
#: Empty folders for the writers that read one (removed when the tests end)
EMPTY = Path(tempfile.mkdtemp(prefix="asr-test-outputs-"))
for _folder in ("src", "out"):
    (EMPTY / _folder).mkdir()
atexit.register(shutil.rmtree, EMPTY, True)

#: Every command line that writes one file the user names (the target is appended).
FILE_WRITERS: dict[str, list[str]] = {
    "convert": ["convert", str(NATIVE), "-o"],
    "show html": ["show", str(STREAM), "-o"],
    "show markdown": ["show", str(STREAM), "--format", "markdown", "-o"],
    "export atif": ["export", "--to", "atif", str(STREAM), "-o"],
    "export otel": ["export", "--to", "otel", str(STREAM), "-o"],
    "export --report": ["export", "--to", "atif", str(STREAM), "--report"],
    "redact": ["redact", str(STREAM), "-o"],
    "redact --report": ["redact", str(STREAM), "--report"],
    "redact --redact-report": ["redact", str(STREAM), "--redact-report"],
    "convert --redact-report": ["convert", str(NATIVE), "--redact-report"],
    "show --redact-report": ["show", str(STREAM), "--redact-report"],
    "export --redact-report": ["export", "--to", "atif", str(STREAM), "--redact-report"],
    # a command that reads a folder, over an empty one: a report of nothing, the same bytes each run
    # (asr index is not here: it writes its index into the archive, which a full disk fails
    # first, and its -o and --index have no cases either)
    "batch --redact-report": [
        "batch",
        "-j",
        "1",
        "-q",
        str(EMPTY / "src"),
        "-o",
        str(EMPTY / "out"),
        "--redact-report",
    ],
}


def run(args: list[str]) -> tuple[int, str]:
    with deadline(30):  # a writer that opens a planted FIFO would wait forever
        result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stderr


def expected_bytes(name: str, tmp_path: Path) -> bytes:
    """What the command writes to a regular file."""
    target = tmp_path / "reference" / "out"
    code, err = run([*FILE_WRITERS[name], str(target)])
    assert code == 0, err
    return target.read_bytes()


class Collector:
    """Reads whatever arrives on a FIFO or a listening socket, in a thread."""

    def __init__(self, opener: Callable[[], Iterator[bytes]]) -> None:
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(opener,), daemon=True)
        self.thread.start()

    def _read(self, opener: Callable[[], Iterator[bytes]]) -> None:
        self.data = b"".join(opener())

    def result(self) -> bytes:
        self.thread.join(10)
        assert not self.thread.is_alive(), "nothing was written to the FIFO or socket"
        return self.data


def fifo_reader(path: Path) -> Collector:
    os.mkfifo(path)

    def read() -> Iterator[bytes]:
        with open(path, "rb") as handle:
            yield handle.read()

    return Collector(read)


def socket_reader(path: Path) -> Collector:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
    except OSError as exc:  # a socket path longer than the platform allows
        pytest.skip(f"cannot bind a socket at {path}: {exc}")
    listener.listen(1)
    listener.settimeout(10)

    def read() -> Iterator[bytes]:
        with listener, contextlib.suppress(TimeoutError):
            connection, _ = listener.accept()
            with connection:
                while chunk := connection.recv(1 << 16):
                    yield chunk

    return Collector(read)


# -- item 1: a FIFO, socket or device named as the output ----------------------------------


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_a_fifo_named_as_the_output_is_written_to_and_stays_a_fifo(name: str, tmp_path: Path) -> None:
    expected = expected_bytes(name, tmp_path)
    target = tmp_path / "out.fifo"
    reader = fifo_reader(target)
    code, err = run([*FILE_WRITERS[name], str(target)])
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(target).st_mode), "the FIFO was replaced"
    assert reader.result() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo", "reference"]


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_a_socket_named_as_the_output_is_written_to_and_stays_a_socket(name: str, tmp_path: Path) -> None:
    expected = expected_bytes(name, tmp_path)
    target = tmp_path / "out.sock"
    reader = socket_reader(target)
    code, err = run([*FILE_WRITERS[name], str(target)])
    assert code == 0, err
    assert stat.S_ISSOCK(os.lstat(target).st_mode), "the socket was replaced"
    assert reader.result() == expected


def _device(path: Path, kind: int, major: int, minor: int) -> Path:
    try:
        os.mknod(path, kind | 0o666, os.makedev(major, minor))
    except PermissionError:
        pytest.skip("making a device file needs root")
    return path


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_a_character_device_named_as_the_output_is_written_to_and_stays_one(name: str, tmp_path: Path) -> None:
    device = _device(tmp_path / "null", stat.S_IFCHR, 1, 3)  # the null device, in the test's folder
    code, err = run([*FILE_WRITERS[name], str(device)])
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(device).st_mode), "the device was replaced by a file"
    assert os.listdir(tmp_path) == ["null"], "nothing is left beside it"


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_dev_null_stays_the_null_device(name: str) -> None:
    before = os.stat(os.devnull)
    if not stat.S_ISCHR(before.st_mode):
        pytest.fail(f"{os.devnull} was {outputs.kind_of(before.st_mode)} before this test ran: something replaced it")
    # never run the command when the rule would rename over the device (as root, that would
    # replace this machine's /dev/null)
    assert outputs.writes_directly(Path(os.devnull))
    code, err = run([*FILE_WRITERS[name], os.devnull])
    assert code == 0, err
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_a_block_device_named_as_the_output_is_refused(name: str, tmp_path: Path) -> None:
    device = _device(tmp_path / "disk", stat.S_IFBLK, 7, 250)  # a loop device number; never opened
    code, err = run([*FILE_WRITERS[name], str(device)])
    assert code == 2, err
    assert "block device" in err and len(err.splitlines()) == 1
    assert stat.S_ISBLK(os.lstat(device).st_mode)


# -- item 2 and 1: inside an output folder ---------------------------------------------------

#: Every command line that writes a folder (the folder is appended), with its input.
ARCHIVE = "ARCHIVE"
FOLDER_WRITERS: dict[str, list[str]] = {
    "convert -o DIR/": ["convert", str(GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl"), "-o"],
    "show site": ["show", ARCHIVE, "-o"],
    "export atif folder": ["export", "--to", "atif", ARCHIVE, "-o"],
    "export otel folder": ["export", "--to", "otel", ARCHIVE, "-o"],
}


def _archive(tmp_path: Path) -> Path:
    """A batch-shaped archive: a session and its subagent, and another agent's session."""
    case = GOLDEN / "claude-code" / "subagent-folder"
    archive = tmp_path / "archive"
    (archive / "claude-code" / "parent").mkdir(parents=True)
    (archive / "codex").mkdir()
    shutil.copy(case / "expected.asr.jsonl", archive / "claude-code" / "parent.asr.jsonl")
    (child,) = sorted(case.glob("expected.claude-code_*.asr.jsonl"))
    shutil.copy(child, archive / "claude-code" / "parent" / "agent.asr.jsonl")
    shutil.copy(STREAM, archive / "codex" / "one.asr.jsonl")
    return archive


def folder_command(name: str, tmp_path: Path, out: Path) -> list[str]:
    args = FOLDER_WRITERS[name]
    if ARCHIVE in args:
        archive = tmp_path / "archive"
        if not archive.exists():
            _archive(tmp_path)
        args = [str(archive) if arg == ARCHIVE else arg for arg in args]
    return [*args, f"{out}/"]


def written_files(name: str, tmp_path: Path) -> list[Path]:
    """The files the command writes into a fresh folder (relative to it)."""
    probe = tmp_path / "probe"
    code, err = run(folder_command(name, tmp_path, probe))
    assert code == 0, err
    return sorted(p.relative_to(probe) for p in probe.rglob("*") if p.is_file())


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "victim.txt"
    outside.parent.mkdir()
    outside.write_bytes(PRECIOUS)
    return outside


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_links_planted_at_every_name_in_an_output_folder_are_not_written_through(name: str, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    files = written_files(name, tmp_path)
    out = tmp_path / "out"
    for relative in files:  # the final name and every fixed temporary name a writer has used
        for planted in (relative, relative.with_name(relative.name + ".part")):
            (out / planted).parent.mkdir(parents=True, exist_ok=True)
            (out / planted).symlink_to(outside)
    code, err = run(folder_command(name, tmp_path, out))
    assert code == 0, err
    assert outside.read_bytes() == PRECIOUS
    for relative in files:
        assert not (out / relative).is_symlink() and (out / relative).stat().st_size > 0
    assert not [p for p in out.rglob("*") if p.name.startswith(outputs.TEMP_PREFIX)]


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_symlinked_folder_inside_an_output_folder_is_refused(name: str, tmp_path: Path) -> None:
    files = written_files(name, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    linked = next(relative.parts[0] for relative in files if len(relative.parts) > 1)
    (out / linked).symlink_to(elsewhere, target_is_directory=True)
    code, err = run(folder_command(name, tmp_path, out))
    assert code == 3, err
    assert err.startswith("asr: error: ") and len(err.splitlines()) == 1, err
    assert "symbolic link" in err
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_fifo_at_a_name_inside_an_output_folder_is_never_replaced(name: str, tmp_path: Path) -> None:
    files = written_files(name, tmp_path)
    out = tmp_path / "out"
    planted = out / files[-1]
    planted.parent.mkdir(parents=True)
    os.mkfifo(planted)
    code, err = run(folder_command(name, tmp_path, out))
    assert code == 3, err
    assert "FIFO" in err and len(err.splitlines()) == 1, err
    assert stat.S_ISFIFO(os.lstat(planted).st_mode)


# -- item 5: an output that cannot be written is exit 3, one line ----------------------------


def _limited(args: list[str]) -> tuple[int, str]:
    """``asr ARGS`` in a child process whose writes fail past 200 bytes (``RLIMIT_FSIZE``): a
    full disk, for every file the command writes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))

    command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", *args]
    done = subprocess.run(command, capture_output=True, preexec_fn=limit, timeout=120, check=False)
    return done.returncode, done.stderr.decode()


@pytest.mark.parametrize("name", list(FILE_WRITERS))
def test_an_unwritable_file_output_is_one_line_and_exit_3(name: str, tmp_path: Path) -> None:
    target = tmp_path / "out"
    code, err = _limited([*FILE_WRITERS[name], str(target)])
    assert code == 3, err
    assert len(err.splitlines()) == 1 and err.startswith("asr: error: ") and "cannot write the output" in err, err
    assert not target.exists()


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_an_unwritable_output_folder_is_one_line_and_exit_3(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, err = _limited(folder_command(name, tmp_path, out))
    assert code == 3, err
    assert len(err.splitlines()) == 1 and err.startswith("asr: error: ") and "cannot write the output" in err, err


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_file_where_an_output_folder_must_be_is_one_line_and_exit_3(name: str, tmp_path: Path) -> None:
    files = written_files(name, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / files[0].parts[0]).write_bytes(PRECIOUS)
    code, err = run(folder_command(name, tmp_path, out))
    assert code == 3, err
    assert len(err.splitlines()) == 1 and err.startswith("asr: error: "), err
    assert (out / files[0].parts[0]).read_bytes() == PRECIOUS


# -- asr batch: the same rules, a source whose output cannot be written fails (exit 1) ---------


def _sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(GOLDEN / "claude-code" / "subagent-folder", src / "project")
    shutil.copy(NATIVE, src / "rollout-2026-05-11T08-26-55-019e1625-0000-7000-8000-000000000010.jsonl")
    return src


#: ``asr batch`` (the sources and the folder appended).
BATCH_WRITER = ["batch", "-j", "1", "-q", "-o"]


def _batch(src: Path, out: Path) -> tuple[int, list[dict[str, object]]]:
    code, _ = run([*BATCH_WRITER[:-1], str(src), "-o", str(out)])
    errors = out / "_errors.jsonl"
    rows = [orjson.loads(line) for line in errors.read_bytes().splitlines()] if errors.exists() else []
    return code, [row for row in rows if row["severity"] == "error"]


def _batch_outputs(tmp_path: Path) -> tuple[Path, list[Path]]:
    src = _sources(tmp_path)
    probe = tmp_path / "probe"
    assert _batch(src, probe) == (0, [])
    return src, sorted(p.relative_to(probe) for p in probe.rglob("*.asr.jsonl"))


def test_batch_never_writes_through_links_planted_at_its_names(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    src, files = _batch_outputs(tmp_path)
    out = tmp_path / "out"
    for relative in [*files, Path("_manifest.json"), Path("_errors.jsonl")]:
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        (out / relative).symlink_to(outside)
    assert _batch(src, out) == (0, [])
    assert outside.read_bytes() == PRECIOUS
    assert all(not (out / relative).is_symlink() for relative in files)


def test_batch_never_replaces_a_fifo_at_an_output_name(tmp_path: Path) -> None:
    src, files = _batch_outputs(tmp_path)
    out = tmp_path / "out"
    planted = out / files[-1]
    planted.parent.mkdir(parents=True)
    os.mkfifo(planted)
    code, errors = _batch(src, out)
    assert code == 1 and len(errors) == 1 and "a FIFO is there; refusing to replace it" in str(errors[0]["reason"])
    assert stat.S_ISFIFO(os.lstat(planted).st_mode)


def test_batch_refuses_any_symlinked_folder_inside_outdir(tmp_path: Path) -> None:
    src, files = _batch_outputs(tmp_path)
    out = tmp_path / "out"
    (out / "elsewhere-inside").mkdir(parents=True)
    (out / files[0].parts[0]).symlink_to(out / "elsewhere-inside", target_is_directory=True)
    code, errors = _batch(src, out)
    assert code == 1 and errors and all("symbolic link inside the output folder" in str(e["reason"]) for e in errors)
    assert list((out / "elsewhere-inside").iterdir()) == []


# -- item 21: names unique under case folding, for the writers that mirror an archive's names ---


@pytest.mark.parametrize("name", ["show site", "export atif folder", "export otel folder"])
def test_mirrored_names_differing_only_in_case_stay_apart_under_folding(name: str, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    for stem in ("codex/One", "codex/one", "Codex/one"):  # one file on macOS or Windows, three here
        (archive / stem).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(STREAM, archive / f"{stem}.asr.jsonl")
    out = tmp_path / "out"
    code, err = run([*FOLDER_WRITERS[name][:-2], str(archive), "-o", str(out)])
    assert code == 0, err
    written = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != "index.html"]
    assert len(written) == 3 and len({w.casefold() for w in written}) == 3, written


# -- the library's writers: the same rules --------------------------------------------------


def test_write_jsonl_to_a_path_is_whole_or_nothing_and_never_through_a_planted_temp(tmp_path: Path) -> None:
    from asr_adapters import read_records, write_jsonl

    records = list(read_records(STREAM))
    target = tmp_path / "out.asr.jsonl"
    target.write_bytes(PRECIOUS)

    def broken() -> Iterator[dict[str, object]]:
        yield from records[:2]
        raise RuntimeError("the source failed midway")

    with pytest.raises(RuntimeError):
        write_jsonl(broken(), target)
    assert target.read_bytes() == PRECIOUS, "a failed write left a torn file under the name"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.asr.jsonl"]
    reader = fifo_reader(tmp_path / "fifo")
    assert write_jsonl(records, tmp_path / "fifo") == len(records)
    assert reader.result() == STREAM.read_bytes() and stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)


def test_an_incremental_rewrite_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    from asr_adapters.incremental import IncrementalResult, IncrementalState

    outside = _outside(tmp_path)
    target = tmp_path / "session.asr.jsonl"
    target.write_bytes(b"old\n")
    for name in (f".{target.name}.partial", f"{target.name}.part"):  # fixed temporary names
        (tmp_path / name).symlink_to(outside)
    state = IncrementalState(main="toy:s")
    IncrementalResult(state, {"toy:s": b"new\n"}, frozenset({"toy:s"})).write(target)
    assert target.read_bytes() == b"new\n" and not target.is_symlink()
    assert outside.read_bytes() == PRECIOUS
    IncrementalResult(state, {"toy:s": b"more\n"}).write(target)  # an append adds to the file
    assert target.read_bytes() == b"new\nmore\n"


# -- the index: a SQLite database is never a stream ---------------------------------------------

#: Command lines that write (or open) an index the user names; ``{archive}`` is a folder holding
#: one stream, ``{folder}`` the Parquet folder (the index path is appended).
INDEX_WRITERS: dict[str, list[str]] = {
    "index -o": ["index", "{archive}", "-o"],
    "index parquet --index": ["index", "{archive}", "--format", "parquet", "-o", "{folder}", "--index"],
    "search --index": ["search", "anything", "--index"],
}


def _index_command(name: str, tmp_path: Path, target: Path) -> list[str]:
    archive = tmp_path / "archive"
    archive.mkdir(exist_ok=True)
    shutil.copyfile(STREAM, archive / "s.asr.jsonl")
    values = {"{archive}": str(archive), "{folder}": str(tmp_path / "parquet")}
    return [values.get(arg, arg) for arg in INDEX_WRITERS[name]] + [str(target)]


def _special_files(tmp_path: Path) -> Iterator[tuple[str, Path, Callable[[int], bool]]]:
    """A FIFO, a listening socket, the null device, a block device and a link to a precious file,
    each with the test that it is still what it was."""
    os.mkfifo(tmp_path / "fifo")
    yield "FIFO", tmp_path / "fifo", stat.S_ISFIFO
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / "sock"))
        listener.listen()
        yield "socket", tmp_path / "sock", stat.S_ISSOCK
    with contextlib.suppress(PermissionError):
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        yield "character device", tmp_path / "null", stat.S_ISCHR
        os.mknod(tmp_path / "disk", stat.S_IFBLK | 0o666, os.makedev(7, 250))
        yield "block device", tmp_path / "disk", stat.S_ISBLK
    outside = tmp_path / "precious"
    outside.write_bytes(PRECIOUS)
    (tmp_path / "link").symlink_to(outside)
    yield "symbolic link", tmp_path / "link", stat.S_ISLNK


@pytest.mark.parametrize("name", list(INDEX_WRITERS))
def test_an_index_named_as_a_fifo_socket_device_or_link_is_refused_and_left_alone(name: str, tmp_path: Path) -> None:
    """An index is a database (opened, locked, rewritten in place): a stream target cannot hold
    one, and a link is never written through. Refused with one line, exit 2, before anything is
    opened (a FIFO opened would block forever)."""
    seen = []
    for kind, target, still in _special_files(tmp_path):
        seen.append(kind)
        code, err = run(_index_command(name, tmp_path, target))
        assert code == 2, (kind, err)
        assert err.startswith("asr: error: ") and len(err.splitlines()) == 1, (kind, err)
        assert str(target) in err, (kind, err)
        assert still(os.lstat(target).st_mode), f"the {kind} was replaced"
    assert (tmp_path / "precious").read_bytes() == PRECIOUS
    assert not (tmp_path / "parquet").exists(), "nothing is written when the index is refused"
    assert {"FIFO", "socket", "symbolic link"} <= set(seen)


def test_parquet_files_are_never_written_through_planted_links(tmp_path: Path) -> None:
    outside = tmp_path / "precious"
    outside.write_bytes(PRECIOUS)
    folder = tmp_path / "parquet"
    folder.mkdir()
    (folder / "sessions.parquet").symlink_to(outside)
    code, err = run(_index_command("index parquet --index", tmp_path, tmp_path / "index.sqlite"))
    assert code == 0, err
    assert outside.read_bytes() == PRECIOUS
    assert not (folder / "sessions.parquet").is_symlink() and (folder / "sessions.parquet").stat().st_size > 0


def test_a_parquet_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "parquet").symlink_to(elsewhere, target_is_directory=True)
    code, err = run(_index_command("index parquet --index", tmp_path, tmp_path / "index.sqlite"))
    assert code == 2, err
    assert "symbolic link" in err and list(elsewhere.iterdir()) == []


#: ``asr index``'s redaction report: an ordinary output file, beside an index written into
#: ``{archive}`` (so not among FILE_WRITERS, whose full-disk case would fail the index first)
INDEX_REPORT = ["index", "{archive}", "-q", "--redact", "--redact-report"]


def test_the_index_redaction_report_follows_the_output_rules(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copyfile(STREAM, archive / "s.asr.jsonl")
    args = [str(archive) if arg == "{archive}" else arg for arg in INDEX_REPORT]
    reader = fifo_reader(tmp_path / "fifo")
    code, err = run([*args, str(tmp_path / "fifo")])
    assert code == 0, err
    assert b'"redactions"' in reader.result() and stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)
    outside = _outside(tmp_path)
    (tmp_path / "link").symlink_to(outside)
    code, err = run([*args, str(tmp_path / "link")])
    assert code == 0, err
    assert outside.read_bytes() == PRECIOUS and not (tmp_path / "link").is_symlink()
    with contextlib.suppress(PermissionError):
        os.mknod(tmp_path / "disk", stat.S_IFBLK | 0o666, os.makedev(7, 250))
        code, err = run([*args, str(tmp_path / "disk")])
        assert code == 2 and "block device" in err and len(err.splitlines()) == 1, err


#: Every command line these tests write with; ``test_safety`` checks that every output option
#: of every ``asr`` command is among them.
WRITER_COMMANDS = [
    *FILE_WRITERS.values(),
    *FOLDER_WRITERS.values(),
    BATCH_WRITER,
    INDEX_REPORT,
    *INDEX_WRITERS.values(),
]
