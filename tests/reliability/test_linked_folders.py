"""A companion folder beside a session that is a symlink out of it (issue 25, item 6).

The "inside this folder" check resolved the companion folder itself, so a planted link
``plans -> ~/.ssh`` made ``~/.ssh`` the allowed folder: a private key became a plan's text.
OpenClaw's ``cron/runs`` and ``delivery-queue/failed``, a copied OpenCode tree's ``storage``
(another store's messages) and T3 Code's ``attachments`` (the hash and size of an outside
file) leaked the same way, in ``asr convert`` and in ``asr batch`` without ``--follow-symlinks``.

The allowed root is the real path of the session's own folder; a companion folder under it that
is a link out of it is refused with a counted warning. Each case plants such a link to a folder
holding a secret file and checks that the secret's bytes, its sha256 and its size appear in no
output, neither from ``asr convert -o DIR/`` nor from ``asr batch`` (any file of its archive).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from corpus import build_sqlite
from golden_support import GOLDEN
from harness import convert

from asr_adapters.cli import main

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY----- linked-folder-secret-5c1e "
#: A size no output holds by chance (a prime number of bytes).
SIZE = 104_729


def _secret_folder(tmp_path: Path, name: str) -> Path:
    """A folder outside every case holding ``name``: the secret, ``SIZE`` bytes."""
    folder = tmp_path / "outside"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes((SECRET * (SIZE // len(SECRET) + 1))[:SIZE])
    return folder


def _leaks(folder: Path, secret: Path) -> list[str]:
    """Where the secret's bytes, hash or size appear in the files under ``folder``."""
    data = secret.read_bytes()
    marks = {b"secret bytes": SECRET.strip()[:40], b"sha256": hashlib.sha256(data).hexdigest().encode()}
    marks[b"size"] = str(len(data)).encode()
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        content = path.read_bytes()
        found += [f"{path}: {what.decode()}" for what, mark in marks.items() if mark in content]
    return found


# -- the cases: (build the session with its linked folder) -> (path to convert, secret) --------


def _claude_plans_beside(tmp_path: Path) -> tuple[Path, Path, str]:
    """``<project>/plans -> outside``: the plan the transcript names lies in it (under a name
    that is not the session's slug, so batch discovery does not list it among the companions)."""
    project = tmp_path / "case" / "home" / "projects" / "p"
    session = _plan_session(project, project / "plans" / "id_ed25519")
    outside = _secret_folder(tmp_path, "id_ed25519")
    (project / "plans").symlink_to(outside, target_is_directory=True)
    return session, outside / "id_ed25519", "claude-code"


def _claude_plans_of_the_home(tmp_path: Path) -> tuple[Path, Path, str]:
    """``<home>/plans -> outside`` (Claude Code's own plans folder), found by the session's slug."""
    home = tmp_path / "case" / "home"
    session = _plan_session(home / "projects" / "p", None)
    outside = _secret_folder(tmp_path, "quiet-amber-falcon.md")
    (home / "plans").symlink_to(outside, target_is_directory=True)
    return session, outside / "quiet-amber-falcon.md", "claude-code"


def _plan_session(project: Path, named: Path | None) -> Path:
    lines = (GOLDEN / "claude-code" / "exit-plan-mode" / "input.jsonl").read_bytes().splitlines()[:6]
    last = orjson.loads(lines[5])
    if named is None:
        last["toolUseResult"].pop("filePath", None)
    else:
        last["toolUseResult"]["filePath"] = str(named)
    lines[5] = orjson.dumps(last)
    project.mkdir(parents=True, exist_ok=True)
    session = project / "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04.jsonl"
    session.write_bytes(b"\n".join(lines) + b"\n")
    return session


def _openclaw_cron_runs(tmp_path: Path) -> tuple[Path, Path, str]:
    case = GOLDEN / "openclaw" / "cron-run-delivery"
    folder = tmp_path / "case" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(case / "input.jsonl", folder / "input.jsonl")
    (run_log,) = (case / "cron" / "runs").iterdir()
    outside = _secret_folder(tmp_path, "placeholder")
    (outside / "placeholder").unlink()
    lines = [orjson.loads(line) for line in run_log.read_bytes().splitlines()]
    for line in lines:
        line["deliveryError"] = SECRET.decode()
    secret = outside / run_log.name
    secret.write_bytes(b"\n".join(map(orjson.dumps, lines)) + b"\n")
    (folder / "cron").mkdir()
    (folder / "cron" / "runs").symlink_to(outside, target_is_directory=True)
    return folder / "input.jsonl", secret, "openclaw"


def _openclaw_delivery_queue(tmp_path: Path) -> tuple[Path, Path, str]:
    case = GOLDEN / "openclaw" / "synthetic-assistants-deliveries"
    folder = tmp_path / "case" / "sessions"
    folder.mkdir(parents=True)
    for name in ("input.jsonl", "sessions.json"):
        shutil.copy(case / name, folder / name)
    entry = case / "delivery-queue" / "failed" / "7d9e2f10-3c4b-4a5d-9e6f-7a8b9c0d1e2f.json"
    outside = _secret_folder(tmp_path, "placeholder")
    (outside / "placeholder").unlink()
    value = orjson.loads(entry.read_bytes())
    value["lastError"] = SECRET.decode()
    secret = outside / entry.name
    secret.write_bytes(orjson.dumps(value))
    (folder / "delivery-queue").mkdir()
    (folder / "delivery-queue" / "failed").symlink_to(outside, target_is_directory=True)
    return folder / "input.jsonl", secret, "openclaw"


def _opencode_copied_storage(tmp_path: Path) -> tuple[Path, Path, str]:
    """A session file kept beside a copied ``storage/`` tree that is a link to another store."""
    case = GOLDEN / "opencode" / "json-global-tree"
    other = tmp_path / "outside-store"
    shutil.copytree(case / "storage", other / "storage")
    session_id = orjson.loads((case / "input.json").read_bytes())["id"]
    part = next(p for p in sorted((other / "storage" / "part").rglob("prt_*.json")) if b'"text"' in p.read_bytes())
    value = orjson.loads(part.read_bytes())
    value["text"] = SECRET.decode()
    part.write_bytes(orjson.dumps(value))
    folder = tmp_path / "case" / "copy"
    folder.mkdir(parents=True)
    shutil.copy(case / "input.json", folder / f"{session_id}.json")
    (folder / "storage").symlink_to(other / "storage", target_is_directory=True)
    return folder / f"{session_id}.json", part, "opencode"


def _t3code_attachments(tmp_path: Path) -> tuple[Path, Path, str]:
    folder = tmp_path / "case" / "t3"
    folder.mkdir(parents=True)
    database = build_sqlite(GOLDEN / "t3code" / "v1-user-text-parts" / "input.sql", folder / "state.sqlite")
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT payload_json FROM orchestration_events").fetchall()
    connection.close()
    ids = [a["id"] for (text,) in rows for a in (orjson.loads(text).get("attachments") or []) if "id" in a]
    outside = _secret_folder(tmp_path, f"{ids[0]}.png")
    (folder / "attachments").symlink_to(outside, target_is_directory=True)
    return database, outside / f"{ids[0]}.png", "t3code"


CASES: dict[str, Callable[[Path], tuple[Path, Path, str]]] = {
    "claude-code plans/ beside the session": _claude_plans_beside,
    "claude-code <home>/plans/": _claude_plans_of_the_home,
    "openclaw cron/runs/": _openclaw_cron_runs,
    "openclaw delivery-queue/failed/": _openclaw_delivery_queue,
    "opencode copied storage/": _opencode_copied_storage,
    "t3code attachments/": _t3code_attachments,
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_companion_folder_linked_out_is_refused_with_a_warning(name: str, tmp_path: Path) -> None:
    session, secret, agent = CASES[name](tmp_path)
    out = tmp_path / "out"
    got = convert(session, out, "--agent", agent)
    assert got.converted, got.error
    assert not _leaks(out, secret), _leaks(out, secret)
    assert any("link to" in w and "outside the session's folder" in w for w in got.warnings), got.warnings
    assert got.records and got.records[0]["type"] == "session"


@pytest.mark.parametrize("name", list(CASES))
def test_batch_does_not_read_a_linked_companion_folder(name: str, tmp_path: Path) -> None:
    """Without ``--follow-symlinks``: no byte, hash or size of the secret in any file of the archive."""
    _session, secret, _agent = CASES[name](tmp_path)
    archive = tmp_path / "archive"
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "case"), "-o", str(archive)])
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    assert not _leaks(archive, secret), _leaks(archive, secret)


def test_a_companion_folder_linked_inside_the_session_folder_is_read(tmp_path: Path) -> None:
    """A link that stays inside the session's folder (``plans -> ./my-plans``) is the user's own
    arrangement: read, as before."""
    project = tmp_path / "home" / "projects" / "p"
    session = _plan_session(project, project / "plans" / "quiet-amber-falcon.md")
    (project / "my-plans").mkdir()
    (project / "my-plans" / "quiet-amber-falcon.md").write_text("1. a linked plan")
    (project / "plans").symlink_to(project / "my-plans", target_is_directory=True)
    got = convert(session, tmp_path / "out", "--agent", "claude-code")
    plans = [r for r in got.records if r["type"] == "plan"]
    assert plans[-1]["content"] == [{"type": "text", "text": "1. a linked plan"}]


def test_the_session_folder_named_through_a_link_is_the_users(tmp_path: Path) -> None:
    """The user may name the session through a link (``~/work -> /data/work``): its real path is
    the root, so the plans beside it are read."""
    project = tmp_path / "data" / "projects" / "p"
    _plan_session(project, None)
    (project / "plans").mkdir()
    (project / "plans" / "quiet-amber-falcon.md").write_text("1. the plan")
    (tmp_path / "link").symlink_to(tmp_path / "data", target_is_directory=True)
    session = tmp_path / "link" / "projects" / "p" / "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04.jsonl"
    got = convert(session, tmp_path / "out", "--agent", "claude-code")
    plans = [r for r in got.records if r["type"] == "plan"]
    assert plans[-1]["content"] == [{"type": "text", "text": "1. the plan"}]


def test_batch_reads_claude_codes_own_plans_folder_outside_the_walked_projects(tmp_path: Path) -> None:
    """Walking ``<home>/projects``, the plan in ``<home>/plans`` is not read through a link: batch
    used to fail every such session ("reads … through a link that leads out of …")."""
    home = tmp_path / "home"
    _plan_session(home / "projects" / "p", None)
    (home / "plans").mkdir()
    (home / "plans" / "quiet-amber-falcon.md").write_text("1. the home plan")
    archive = tmp_path / "archive"
    result = CliRunner().invoke(main, ["batch", str(home / "projects"), "-o", str(archive)])
    assert result.exit_code == 0, result.output
    (stream,) = archive.rglob("*.asr.jsonl")
    assert b"1. the home plan" in stream.read_bytes()
