"""Content is data: nothing from a session is executed or used as a path unsafely, outputs stay in
the output folder, symlinks out of a source tree are not followed (asr batch)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import click
import orjson
import pytest
from click.testing import CliRunner
from corpus import LINE_INPUTS
from harness import convert, deadline

from asr_adapters import validate_records
from asr_adapters.cli import main
from asr_adapters.convert import Conversion
from asr_adapters.core.companion import CompanionSkipped, read_companion

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


# -- companion files: a session never makes the converter read other files (issue 21.1, 21.10) --

#: Every place the package's adapters open a file, read one whole or connect to a database. A
#: path an adapter builds from a session's content or location must go through
#: ``core.companion`` (inside an allowed root by real path, a regular file, under a size cap);
#: the only other opens are of the input the user named (``source.open()``, the database file)
#: and the scratch copy of a streamed database. A new open anywhere else fails this test.
_OPENS = re.compile(
    r"(?<![\w.])open\(|\.open\(|read_bytes\(|read_text\(|os\.open\(|sqlite3\.connect\(|\.r?glob\(|\.iterdir\("
)
_ALLOWED_OPENS = {
    ("t3code/adapter.py", 'with source.open() as stream, open(target, "wb") as handle:'),
    ("t3code/db.py", 'connection = sqlite3.connect(_uri(path, mode="ro"'),
    ("t3code/db.py", "connection = sqlite3.connect(_uri(path, **modes), uri=True"),
    ("openclaw/store.py", "return sqlite3.connect("),
    ("t3code/revert.py", 'disk = sqlite3.connect("", '),  # an in-memory scratch table
    # listing a folder is not reading a file; what is listed is opened through core.companion
    ("claude_code/discover.py", 'for path in sorted(folder.glob("agent-*.jsonl")):'),
    ("claude_code/discover.py", 'paths: list[Path] = sorted(folder.rglob("agent-*.jsonl")) if folder.is_dir() else []'),
    ("t3code/v1.py", "entries = sorted(folder.iterdir())"),
    ("openclaw/sidefiles.py", 'for file in sorted(folder.glob("*.json")):'),
    ("t3code/v1.py", 'for path in sorted(folder.glob(f"{glob.escape(attachment_id)}.*")):'),
    ("gemini_cli/siblings.py", 'for other in path.parent.glob(f"session-*{suffix}.json*"):'),
    # batch fingerprints (docs/batch.md): the session file the user named is peeked for plan
    # slugs, and companion folders are listed; nothing listed is read into a stream here
    ("claude_code/discover.py", 'with open(path, "rb") as handle:'),
    ("openclaw/discover.py", 'files += sorted(failed.glob("*.json"))'),
    ("t3code/discover.py", 'files += sorted(p for p in attachments.iterdir() if not p.name.startswith("."))'),
}


def test_adapters_open_derived_paths_only_through_the_companion_helper() -> None:
    hits = []
    for path in sorted((PACKAGE / "adapters").rglob("*.py")):
        relative = path.relative_to(PACKAGE / "adapters").as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.strip()
            if not _OPENS.search(text) or text.startswith("#") or "open_companion(" in text:
                continue
            if not any(relative == file and text.startswith(start) for file, start in _ALLOWED_OPENS):
                hits.append(f"{relative}:{number}: {text}")
    assert not hits, "\n".join(hits)


GOLDEN = Path(__file__).resolve().parents[2] / "golden"
SECRET = "TOP-SECRET-a8f3c1"


def _records(path: Path, agent: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record of every stream, and the diagnostics, converting ``path`` under a deadline."""
    with deadline(20):
        conversion = Conversion(path, agent, as_dicts=True)
        streams = [list(stream.records) for stream in conversion.streams()]
    assert conversion.accounting.balanced(), conversion.accounting.as_dict()
    for records in streams:
        assert not validate_records(records)
    records = [record for records in streams for record in records]
    return records, [d.describe() for d in conversion.accounting.diagnostics]


def _plan_session(folder: Path, file_path: str) -> Path:
    """The exit-plan-mode golden case's first six lines, the second ExitPlanMode (no plan text
    in the transcript) naming ``file_path``: the converter may look for the file."""
    lines = (GOLDEN / "claude-code" / "exit-plan-mode" / "input.jsonl").read_bytes().splitlines()[:6]
    last = orjson.loads(lines[5])
    last["toolUseResult"]["filePath"] = file_path
    lines[5] = orjson.dumps(last)
    folder.mkdir(parents=True, exist_ok=True)
    session = folder / "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04.jsonl"
    session.write_bytes(b"\n".join(lines) + b"\n")
    return session


def _last_plan(records: list[dict[str, Any]]) -> dict[str, Any]:
    return [r for r in records if r["type"] == "plan"][-1]


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text(f"-----BEGIN KEY----- {SECRET}\n")
    return secret


@pytest.mark.parametrize("named", ["/proc/self/environ", "/etc/passwd", "SECRET", "RELATIVE"])
def test_a_plan_file_named_outside_the_plans_folder_is_not_read(named: str, tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    home = tmp_path / "home"
    named = {"SECRET": str(secret), "RELATIVE": str(home / "projects" / "p" / "plans" / ".." / ".." / ".." / "..")}.get(
        named, named
    )
    if named.endswith(".."):
        named = f"{named}/secret/id_ed25519"
        (home / "projects" / "p" / "plans").mkdir(parents=True)
    session = _plan_session(home / "projects" / "p", named)
    records, _ = _records(session, "claude-code")
    plan = _last_plan(records)
    assert "content" not in plan
    reason = plan["capture"]["content"]["reason"]
    assert plan["capture"]["content"]["state"] == "absent"
    assert "resolves outside the folders" in reason, reason
    text = orjson.dumps(records).decode()
    assert SECRET not in text and "PATH=" not in text and "root:x:0" not in text


def _plans_file(tmp_path: Path) -> tuple[Path, Path]:
    """A session in Claude Code's layout and the plan file its transcript names (not yet made)."""
    home = tmp_path / "home"
    plan = home / "plans" / "quiet-amber-falcon.md"
    plan.parent.mkdir(parents=True)
    return _plan_session(home / "projects" / "p", str(plan)), plan


def test_a_plan_file_in_the_agents_plans_folder_is_read(tmp_path: Path) -> None:
    session, plan = _plans_file(tmp_path)
    plan.write_text("1. the plan")
    assert _last_plan(_records(session, "claude-code")[0])["content"] == [{"type": "text", "text": "1. the plan"}]
    plan.unlink()  # a link to another file of the same folder is still inside it
    (plan.parent / "real.md").write_text("2. linked")
    plan.symlink_to(plan.parent / "real.md")
    assert _last_plan(_records(session, "claude-code")[0])["content"][0]["text"] == "2. linked"


@pytest.mark.parametrize("kind", ["symlink out", "fifo", "huge", "folder", "socket"])
def test_a_hostile_plan_file_in_the_plans_folder_is_not_read(kind: str, tmp_path: Path) -> None:
    session, plan = _plans_file(tmp_path)
    expected = {
        "symlink out": "outside",
        "fifo": "a FIFO",
        "huge": "larger than",
        "folder": "a directory",
        "socket": "a socket",
    }[kind]
    if kind == "symlink out":
        plan.symlink_to(_secret(tmp_path))
    elif kind == "fifo":
        os.mkfifo(plan)  # opening it for reading would wait for a writer forever
    elif kind == "huge":
        with open(plan, "wb") as handle:  # sparse: 64 GiB claimed, nothing written
            handle.truncate(64 << 30)
    elif kind == "folder":
        plan.mkdir()
    else:
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(str(plan))
        except OSError as exc:  # a socket path longer than the platform allows
            pytest.skip(f"cannot bind a socket at {plan}: {exc}")
    records, _ = _records(session, "claude-code")
    capture = _last_plan(records)["capture"]["content"]
    assert capture["state"] == "absent" and expected in capture["reason"], capture
    assert SECRET not in orjson.dumps(records).decode()


def _subagent_case(tmp_path: Path) -> tuple[Path, Path]:
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "claude-code" / "subagent-folder", case)
    return case / "input.jsonl", case / "input" / "subagents"


@pytest.mark.parametrize("kind", ["fifo", "symlink out", "device"])
def test_a_hostile_subagent_file_is_skipped_with_a_reason(kind: str, tmp_path: Path) -> None:
    session, subagents = _subagent_case(tmp_path)
    planted = subagents / "agent-planted.jsonl"
    if kind == "fifo":
        os.mkfifo(planted)
    elif kind == "device":
        planted.symlink_to("/dev/zero")  # endless: read, it would never end
    else:
        secret = _secret(tmp_path)
        secret.write_text(orjson.dumps({"sessionId": "x", "type": "user", "message": SECRET}).decode() + "\n")
        planted.symlink_to(secret)
    records, diagnostics = _records(session, "claude-code")
    assert SECRET not in orjson.dumps(records).decode()
    assert not any("agent-planted" in r.get("session", "") for r in records)
    assert len([d for d in diagnostics if "agent-planted.jsonl: subagent file skipped" in d]) == 1, diagnostics
    assert any(r.get("session", "").endswith("agent-a1b2c3d4e5f60718") for r in records)  # the real one converts


def test_an_openclaw_header_id_cannot_name_a_trajectory_outside_the_folder(tmp_path: Path) -> None:
    case = GOLDEN / "openclaw" / "header-from-trajectory"
    folder = tmp_path / "a" / "sessions"
    folder.mkdir(parents=True)
    hostile = "../../planted"
    lines = (case / "input.jsonl").read_bytes().splitlines()
    header = orjson.loads(lines[0])
    header["id"] = hostile
    (folder / "input.jsonl").write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    trajectory = (case / "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e.trajectory.jsonl").read_bytes().splitlines()[0]
    planted = orjson.loads(trajectory)
    planted["sessionId"] = hostile
    (tmp_path / "planted.trajectory.jsonl").write_bytes(orjson.dumps(planted) + b"\n")  # where the id points
    records, _ = _records(folder / "input.jsonl", "openclaw")
    assert "telegram" not in orjson.dumps(records[0]).decode()  # the planted key was not read
    (folder / "input.jsonl").rename(folder / "x.jsonl")
    (folder / "planted.trajectory.jsonl").symlink_to(tmp_path / "planted.trajectory.jsonl")
    header["id"] = "planted"  # the same sidecar, linked in from outside: not read either
    (folder / "x.jsonl").write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    assert "telegram" not in orjson.dumps(_records(folder / "x.jsonl", "openclaw")[0][0]).decode()


@pytest.mark.parametrize("kind", ["fifo", "symlink out"])
def test_a_hostile_openclaw_sessions_json_is_skipped_with_a_reason(kind: str, tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(GOLDEN / "openclaw" / "header-index-telegram-direct", case)
    index = case / "sessions.json"
    if kind == "fifo":
        index.unlink()
        os.mkfifo(index)
    else:
        outside = tmp_path / "elsewhere.json"
        index.rename(outside)
        index.symlink_to(outside)
    records, diagnostics = _records(case / "input.jsonl", "openclaw")
    assert [d for d in diagnostics if "sessions.json: session index skipped" in d], diagnostics
    assert "5550001" not in orjson.dumps(records[0]).decode() or kind == "fifo"


def test_the_companion_helper_refuses_what_is_not_a_regular_file_inside_its_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok").write_bytes(b"fine")
    (root / "link-in").symlink_to(root / "ok")
    (root / "link-out").symlink_to(_secret(tmp_path))
    (root / "zero").symlink_to("/dev/zero")
    os.mkfifo(root / "fifo")
    assert read_companion(root / "ok", [root]) == b"fine"
    assert read_companion(root / "link-in", [root]) == b"fine"
    assert read_companion(root / "absent", [root]) is None
    refused = [("link-out", "outside"), ("fifo", "FIFO"), ("zero", "outside"), ("../secret/id_ed25519", "outside")]
    for name, reason in refused:
        with pytest.raises(CompanionSkipped, match=reason):
            read_companion(root / name, [root])
    with pytest.raises(CompanionSkipped, match="character device"):
        read_companion(Path("/dev/zero"), [Path("/dev")])
    with pytest.raises(CompanionSkipped, match="larger than the 3-byte limit"):
        read_companion(root / "ok", [root], 3)
    with pytest.raises(CompanionSkipped, match="outside"):
        read_companion(Path("/proc/self/environ"), [root])


# -- writers: every file the package writes goes through asr_adapters/outputs.py (issue 25) --
#
# ``outputs`` holds the rules (exclusive creation, no link followed, never renamed over what is
# not a regular file, no linked folder inside an output folder, a stream the user names written
# into). The scan finds every call anywhere else in the package that could create, replace,
# remove or write a file by name, so a new writer module (an index, a stats report) fails here
# until it uses ``outputs`` or is reviewed into the short list below. It reads the package's
# syntax trees: no module list to keep up to date.

#: Calls on ``os`` / ``shutil`` / ``tempfile`` that change the file system.
_FS_CALLS = {
    "os": {
        "replace", "rename", "renames", "link", "symlink", "unlink", "remove", "removedirs", "mkdir",
        "makedirs", "rmdir", "truncate", "mkfifo", "mknod", "chmod", "chown", "utime",
    },
    "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "rmtree", "make_archive", "chown"},
    "tempfile": {
        "mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile", "TemporaryDirectory",
    },
}  # fmt: skip
#: ``pathlib.Path`` methods that change the file system (``rename``/``replace`` with one argument:
#: ``str.replace`` takes two).
_PATH_METHODS = {"write_bytes", "write_text", "mkdir", "touch", "unlink", "rmdir", "symlink_to", "hardlink_to", "chmod"}
#: fsspec file-system methods that write or remove objects (called on something named ``*fs``).
_FS_METHODS = {"pipe_file", "pipe", "put_file", "put", "cp_file", "copy", "mv", "rm_file", "rm", "touch", "makedirs"}
_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}

#: Reviewed writes outside ``outputs``: (file, function, call) -> why it is safe.
_ALLOWED_WRITES = {
    # anonymous scratch files: no name anyone can plant or read
    ("cli/convert_output.py", "_write_main", "tempfile.TemporaryFile"): "scratch, unnamed",
    ("cli/convert_output.py", "to_stdout", "tempfile.TemporaryFile"): "scratch, unnamed",
    ("export/folder.py", "_spool", "tempfile.TemporaryFile"): "scratch, unnamed",
    ("export/__init__.py", "export_streams", "tempfile.TemporaryFile"): "scratch, unnamed",
    ("adapters/copilot_cli/groups.py", "Groups._move_to_disk", "tempfile.TemporaryFile"): "scratch, unnamed",
    ("core/spool.py", "RecordSpool.append", "tempfile.TemporaryFile"): "scratch, unnamed",
    # a private scratch folder (mkdtemp: 0700, a fresh random name) for the page show --open opens
    ("view/browse.py", "show_at", "tempfile.mkdtemp"): "private scratch folder",
    # databases: SQLite opens them itself, after the checks that refuse links and non-files
    ("index/store.py", "_connect", "sqlite3.connect"): "the index (_check_path: a regular file, not a link)",
    ("index/store.py", "open_for_reading", "sqlite3.connect"): "mode=ro URI",
    ("stats/cache.py", "SummaryCache.__init__", "sqlite3.connect"): "the stats cache (a regular file, not a link)",
    # a private scratch folder (mkdtemp: 0700, a fresh random name) for a database given as a stream
    ("adapters/t3code/adapter.py", "_database_path", "tempfile.mkdtemp"): "private scratch folder",
    ("adapters/t3code/adapter.py", "_database_path", "open(w)"): "inside its own mkdtemp folder",
    ("adapters/t3code/adapter.py", "_database_path", "os.chmod"): "its own scratch copy, made read-only",
    ("adapters/t3code/adapter.py", "T3CodeAdapter.streams", "shutil.rmtree"): "its own mkdtemp folder",
    # a private scratch copy of a database whose -wal has no -shm (core.sqlite_snapshot): read
    # there, so nothing is created beside the source; removed when the connection closes
    ("core/sqlite_snapshot.py", "_copy_with_log", "tempfile.mkdtemp"): "private scratch folder",
    ("core/sqlite_snapshot.py", "_copy_with_log", "shutil.copyfile"): "into its own mkdtemp folder",
    ("core/sqlite_snapshot.py", "_copy_with_log", "shutil.rmtree"): "its own mkdtemp folder",
    ("core/sqlite_snapshot.py", "open_snapshot", "shutil.rmtree"): "its own mkdtemp folder",
    ("core/sqlite_limits.py", "GuardedConnection.close", "shutil.rmtree"): "its own mkdtemp folder",
    # not a path: a method of the same name on another object
    ("adapters/claude_code/tools.py", "ToolMixin._after_result", "Path.replace"): "the task list's replace",
    # reading: flags not visible to the scan
    ("core/companion.py", "open_companion", "os.open"): "O_RDONLY | O_NONBLOCK (+ O_NOFOLLOW)",
    ("core/sqlite_snapshot.py", "open_snapshot", "sqlite3.connect"): "mode=ro (+ immutable) URI",
    # object stores (batch/remote.py): no links or special files there; staged, then copied
    ("batch/remote.py", "RemoteOut.write", "fs.pipe_file"): "one PUT, whole or nothing",
    ("batch/remote.py", "RemoteOut.place", "fs.cp_file"): "server-side copy of a staged upload",
    ("batch/remote.py", "RemoteOut.place", "fs.rm_file"): "the staged upload",
    ("batch/remote.py", "RemoteOut.remove", "fs.rm_file"): "a stale output (batch.stale's rules)",
    ("batch/remote.py", "RemoteOut.sweep", "fs.rm_file"): "staged uploads under OUT/.asr-tmp/",
    ("batch/remote.py", "spool_file", "tempfile.mkstemp"): "exclusive, private (0600) spool file",
    ("batch/remote.py", "spool_file", "os.fdopen(w)"): "the fd mkstemp made",
    ("batch/remote.py", "upload", "fs.put_file"): "to a fresh staging name",
    ("batch/remote.py", "upload", "os.unlink"): "its own spool file",
    ("batch/remote.py", "upload", "fs.rm_file"): "its own staged objects",
    ("batch/remote.py", "discard", "os.unlink"): "its own spool files",
    ("batch/remote.py", "discard", "fs.rm_file"): "its own staged objects",
    ("batch/remote.py", "fetched", "tempfile.mkdtemp"): "private spool folder for a download",
    ("batch/remote.py", "fetched", "Path.mkdir"): "inside its own mkdtemp folder",
    ("batch/remote.py", "fetched", "shutil.rmtree"): "its own mkdtemp folder",
}  # fmt: skip


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _write_mode(call: ast.Call, position: int) -> bool:
    modes = [kw.value for kw in call.keywords if kw.arg == "mode"]
    if len(call.args) > position:
        modes.append(call.args[position])
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+") for m in modes)


def _what_it_writes(call: ast.Call) -> str | None:
    """What a call writes (``os.replace``, ``open(w)``, ``Path.mkdir``, …), None when it does not."""
    func = call.func
    name = _dotted(func)
    if isinstance(func, ast.Name) and func.id == "open":
        return "open(w)" if _write_mode(call, 1) else None
    if not isinstance(func, ast.Attribute):
        return None
    owner, attr = _dotted(func.value), func.attr
    if owner in _FS_CALLS and attr in _FS_CALLS[owner]:
        return name
    if name == "os.open":
        names = {
            n.attr if isinstance(n, ast.Attribute) else n.value if isinstance(n, ast.Constant) else getattr(n, "id", "")
            for n in ast.walk(call.args[1])
        }
        flags = {name for name in names if isinstance(name, str) and name.startswith("O_")}
        return "os.open" if flags & _WRITE_FLAGS or not flags else None  # no flag named: not known to read
    if name == "os.fdopen":
        return "os.fdopen(w)" if _write_mode(call, 1) else None
    if name == "sqlite3.connect":
        text = ast.unparse(call)
        in_memory = call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value in ("", ":memory:")
        read_only = re.search(r"mode=['\"]?ro\b|[?&]mode=ro|immutable", text) is not None
        return None if in_memory or read_only else "sqlite3.connect"
    if attr == "open":
        return "open(w)" if _write_mode(call, 0) or _write_mode(call, 1) else None
    if owner == "self":  # a method of the class itself, not a path's
        return None
    if attr in _PATH_METHODS:
        return f"Path.{attr}"
    if attr in ("rename", "replace") and len(call.args) == 1 and not call.keywords:
        return f"Path.{attr}"
    if attr in _FS_METHODS and owner.split(".")[-1].endswith("fs"):
        return f"fs.{attr}"
    return None


class _Writes(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scope: list[str] = []
        self.found: list[tuple[int, str, str]] = []

    def _nested(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _nested

    def visit_Call(self, node: ast.Call) -> None:
        what = _what_it_writes(node)
        if what is not None:
            self.found.append((node.lineno, ".".join(self.scope) or "<module>", what))
        self.generic_visit(node)


def _package_writes() -> list[tuple[str, int, str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        visitor = _Writes()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += [(relative, line, scope, what) for line, scope, what in visitor.found]
    return found


def test_every_file_the_package_writes_goes_through_outputs() -> None:
    """Writes outside ``asr_adapters/outputs.py`` are only the reviewed ones; use ``outputs``
    (``binary_output``, ``text_output``, ``write_whole``, ``open_output``, ``make_folder``,
    ``place``, ``remove_file``) for a new one."""
    writes = _package_writes()
    assert any(file == "outputs.py" for file, *_ in writes), "the scan no longer sees outputs' own writes"
    stray = [
        f"{file}:{line}: {what} in {scope}"
        for file, line, scope, what in writes
        if file != "outputs.py" and (file, scope, what) not in _ALLOWED_WRITES
    ]
    assert not stray, "writes that bypass asr_adapters/outputs.py:\n" + "\n".join(stray)
    seen = {(file, scope, what) for file, _, scope, what in writes}
    assert not set(_ALLOWED_WRITES) - seen, f"allowed writes no longer there: {set(_ALLOWED_WRITES) - seen}"


def test_the_writer_scan_sees_every_kind_of_write() -> None:
    """The scan itself: each way of writing a file is found (a scan that finds nothing passes
    every package)."""
    source = """
def writer(p, q, fs, text):
    open(p, "w"); open(p, mode="ab"); p.open("wb"); p.write_text("x"); p.write_bytes(b""); p.mkdir()
    p.replace(q); p.rename(q); p.unlink(); p.symlink_to(q); os.replace(p, q); os.unlink(p)
    os.open(p, os.O_WRONLY | os.O_CREAT); shutil.rmtree(p); tempfile.mkstemp(); sqlite3.connect(p)
    fs.pipe_file(p, b""); self.fs.rm_file(p)
    open(p); open(p, "rb"); p.open(); text.replace("a", "b"); os.open(p, os.O_RDONLY)
    sqlite3.connect("file:x?mode=ro", uri=True); sqlite3.connect(""); queue.put(1); webbrowser.open(p)
"""
    visitor = _Writes()
    visitor.visit(ast.parse(source))
    assert len(visitor.found) == 18, visitor.found


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


def test_every_output_option_of_every_command_has_writer_cases() -> None:
    """Each option of an ``asr`` command that names a path to write (a ``click.Path`` or a
    writable ``click.File``) is run by ``tests/reliability/test_outputs.py`` against FIFOs,
    sockets, devices, planted links and full disks: a new command that writes (``asr index -o``,
    ``asr stats -o``) fails here until its command line is added there."""
    from test_outputs import WRITER_COMMANDS

    missing = []
    for path, command in _commands(main):
        for param in command.params:
            writes = isinstance(param.type, click.Path) or (
                isinstance(param.type, click.File) and set(param.type.mode) & set("wax+")
            )
            if not isinstance(param, click.Option) or not writes:
                continue
            if not any(tuple(line[: len(path)]) == path and line[-1] in param.opts for line in WRITER_COMMANDS):
                missing.append(f"asr {' '.join(path)} {'/'.join(param.opts)}")
    assert not missing, "output options with no writer cases in test_outputs.py: " + ", ".join(missing)
