"""Where OpenClaw keeps sessions, and which files there are sessions of their own.

Never used while parsing. State directories, newest name first: ``$OPENCLAW_STATE_DIR``,
``~/.openclaw``, then the older names ``~/.moltbot``, ``~/.clawdbot`` and ``~/.clawdis``.
Sessions live in ``<state>/agents/<agentId>/sessions/`` (file era, through 2026.7.1; the
earliest builds used ``<state>/sessions/``) and in
``<state>/agents/<agentId>/agent/openclaw-agent.sqlite`` (SQLite era, 2026.7.2+).

Archive-suffix policy (what ``is_session_file`` answers):

========================================  =====  =============================================
file                                      taken  why
========================================  =====  =============================================
``<id>.jsonl``, ``<id>-topic-<n>.jsonl``  yes    the live transcript (a forum topic's own one)
``<id>.jsonl.reset.<ts>``                 yes    a generation archived by ``/new``, ``/reset`` or
                                                 rollover: real history found nowhere else
``<id>.jsonl.deleted.<ts>``               yes    archived by ``sessions.delete`` or cleanup:
                                                 real history found nowhere else
``….<reason>.<ts>.zst``, ``<id>.jsonl.zst``  yes  compressed archives (2026.7): read decompressed
``<id>.checkpoint.<uuid>.jsonl``          no     a pre-compaction copy of the live file, same
                                                 session id: a duplicate of it
``<id>.jsonl.bak-<pid>-<ms>``, ``.bak.``  no     copies taken before a repair or a rewrite:
                                                 duplicates of the live file
``<id>.jsonl.lock``                       no     a write lock
``*.trajectory.jsonl``, ``*.trajectory-path.json``  no  run-trace sidecars, not transcripts
``sessions.json`` (+ ``.bak``, caches)    no     the index, read beside a transcript
``openclaw-agent.sqlite``                 yes    every session of one agent (SQLite era)
========================================  =====  =============================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ...core.items import first_value
from ...core.source import Source
from . import sidefiles
from .index import from_key, load_index, lookup, trajectory_key

STATE_DIR_NAMES = (".openclaw", ".moltbot", ".clawdbot", ".clawdis")
SQLITE_NAME = "openclaw-agent.sqlite"

_ARCHIVE = re.compile(r"\.jsonl(?:\.(?:reset|deleted)\.[^/]+)?(?:\.zst)?\Z")
_SKIPPED = re.compile(r"\.checkpoint\.[^./]+\.jsonl(?:\.zst)?\Z|\.jsonl\.bak|\.jsonl\.lock\Z|\.trajectory\.jsonl\Z")


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """The state directories to search, honouring ``OPENCLAW_STATE_DIR`` (and older variables)."""
    homes: list[Path] = []
    for variable in ("OPENCLAW_STATE_DIR", "MOLTBOT_STATE_DIR", "CLAWDBOT_STATE_DIR"):
        value = env.get(variable)
        if value:
            homes.append(Path(value).expanduser())
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        homes.extend(Path(home) / name for name in STATE_DIR_NAMES)
    return list(dict.fromkeys(homes))  # each once, in order


def is_session_file(path: Path) -> bool:
    """Whether ``path`` is a session input of its own, by the archive-suffix policy above.

    Inside a state directory only files in a ``sessions`` folder are transcripts: the cron
    run logs (``cron/runs/*.jsonl``), logs and the agent's workspace hold other JSONL files.
    A loose folder given to ``asr batch`` is judged by the file names alone.
    """
    name = path.name
    if name == SQLITE_NAME:
        return True
    if name.startswith("sessions.json") or _SKIPPED.search(name) or _ARCHIVE.search(name) is None:
        return False
    if path.parent.name == "sessions":
        return True
    return not any(part in STATE_DIR_NAMES or part == "agents" for part in path.parts[:-1])


def companion_files(path: Path) -> list[Path]:
    """Files read along with ``path`` (batch re-converts it when one of them changes): a
    database's ``-wal``; beside a transcript the index ``sessions.json``, the run-trace sidecar
    ``<sessionId>.trajectory.jsonl``, the failed deliveries in ``<state>/delivery-queue/failed``
    and the cron run log ``<state>/cron/runs/<jobId>.jsonl`` of a cron session (its job named
    by the session key or by a ``[cron:<jobId> …]`` prompt in the transcript's first bytes)."""
    if path.name == SQLITE_NAME:
        return [path.with_name(path.name + "-wal")]
    files = [path.parent / "sessions.json"]
    session_id, jobs = _head_facts(path)
    files.append(path.parent / f"{session_id}.trajectory.jsonl")
    info = lookup(load_index(path), session_id)
    key = info.key if info is not None else None
    if key is None and (traced := trajectory_key(path, session_id)) is not None:
        key = from_key(traced).key
    state = sidefiles.state_dir(path)
    if key:
        failed = state / "delivery-queue" / "failed"
        if failed.is_dir():
            files += sorted(failed.glob("*.json"))
        if ":cron:" in key:
            jobs.add(key.split(":cron:", 1)[1].split(":", 1)[0])
    files += [state / "cron" / "runs" / f"{job}.jsonl" for job in sorted(jobs) if _JOB_ID.fullmatch(job)]
    return files


_JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_CRON_PROMPT = re.compile(rb"\[cron:([A-Za-z0-9][A-Za-z0-9._-]*)")


def _head_facts(path: Path) -> tuple[str, set[str]]:
    """The session id the adapter gives the transcript (its header's ``id``, else the name's
    stem) and the cron jobs its first bytes name."""
    try:
        head = Source(path).head()
    except (OSError, ValueError):
        head = b""
    jobs = {match.decode() for match in _CRON_PROMPT.findall(head)}
    first = first_value(head)
    if isinstance(first, dict) and first.get("type") == "session" and isinstance(first.get("id"), str):
        return str(first["id"]), jobs
    return path.name.split(".", 1)[0], jobs
