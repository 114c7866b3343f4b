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
    unique: list[Path] = []
    for path in homes:
        if path not in unique:
            unique.append(path)
    return unique


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
