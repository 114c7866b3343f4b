"""Where Claude Code keeps transcripts, and which files belong to which session.

Used by batch discovery and to find a session's subagent transcripts; never to parse.
Layouts: ``<home>/projects/<project>/<session>.jsonl``; subagents in
``<project>/<session>/subagents/**/agent-*.jsonl`` (+ ``agent-*.meta.json``), or (2.0.x)
``<project>/agent-*.jsonl`` carrying the parent's ``sessionId``; inline sidechains (1.0.x)
live in the session file itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.companion import CompanionSkipped, check_companion, open_companion, read_companion
from ...core.valueclass import valueclass

#: A subagent's ``.meta.json`` sidecar larger than this is not read.
MAX_META_BYTES = 1 << 20


@valueclass(frozen=True)
class Child:
    """One subagent transcript file of a session."""

    path: Path
    agent_id: str
    meta: dict[str, Any] | None
    meta_path: Path | None


def default_homes(env: Mapping[str, str]) -> list[Path]:
    config = env.get("CLAUDE_CONFIG_DIR")
    if config:
        return [Path(config).expanduser() / "projects"]
    home = env.get("HOME") or env.get("USERPROFILE")
    if not home:
        return []
    return [Path(home) / ".claude" / "projects"]


def head_facts(path: Path, limit: int = 64) -> dict[str, Any]:
    """``sessionId`` / ``agentId`` of the first lines that carry them (cheap peek)."""
    facts: dict[str, Any] = {}
    try:
        handle = open_companion(path, None, None)  # a FIFO or device is not peeked at
        if handle is None:
            return facts
        with handle:
            for number, raw in enumerate(handle):
                if number >= limit:
                    break
                if b'"sessionId"' not in raw:
                    continue
                try:
                    obj = items.parse(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("sessionId"), str):
                    facts.setdefault("sessionId", obj["sessionId"])
                    if isinstance(obj.get("agentId"), str):
                        facts["agentId"] = obj["agentId"]
                        break
                    if obj.get("type") in ("user", "assistant"):
                        break
    except (OSError, CompanionSkipped):
        pass
    return facts


def agent_id_of(path: Path) -> str:
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
    return stem[len("agent-") :] if stem.startswith("agent-") else stem


def is_session_file(path: Path) -> bool:
    """False for subagent transcripts that a parent session file converts with it."""
    name = path.name
    if not name.endswith(".jsonl") or name == "journal.jsonl":
        return False
    if "subagents" in path.parts:
        return False
    if name.startswith("agent-"):
        session = head_facts(path).get("sessionId")
        return not (isinstance(session, str) and (path.parent / f"{session}.jsonl").is_file())
    return True


def children(session_path: Path, session_id: str, skipped: list[tuple[Path, str]] | None = None) -> list[Child]:
    """The subagent transcripts of a session, in a stable order: the session's own
    ``subagents`` folder (recursively), then project-root ``agent-*.jsonl`` files that carry
    this session's id.

    Only regular files whose real path is inside the session's project folder are listed; the
    others (a FIFO, a device, a link out of the folder) go to ``skipped`` with the reason."""
    found: list[Child] = []
    roots = [session_path.parent]
    folder = session_path.parent / session_path.name.removesuffix(".jsonl") / "subagents"
    paths: list[Path] = sorted(folder.rglob("agent-*.jsonl")) if folder.is_dir() else []
    paths += [p for p in _root_agents(session_path.parent).get(session_id, ()) if p != session_path]
    for path in paths:
        try:
            if not check_companion(path, roots):
                continue
        except CompanionSkipped as exc:
            if skipped is not None:
                skipped.append((path, exc.reason))
            continue
        found.append(_child(path))
    return found


_ROOT_CACHE: dict[Path, tuple[int, dict[str, list[Path]]]] = {}


def _root_agents(folder: Path) -> dict[str, list[Path]]:
    """Project-root ``agent-*.jsonl`` files by the session id they carry. Cached per folder
    (until the folder changes), so converting every session of a project peeks each once."""
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return {}
    cached = _ROOT_CACHE.get(folder)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    table: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("agent-*.jsonl")):
        session = head_facts(path).get("sessionId")
        if isinstance(session, str):
            table.setdefault(session, []).append(path)
    if len(_ROOT_CACHE) > 64:
        _ROOT_CACHE.clear()
    _ROOT_CACHE[folder] = (stamp, table)
    return table


def _child(path: Path) -> Child:
    meta_path = path.with_name(path.name.removesuffix(".jsonl") + ".meta.json")
    meta = None
    try:
        data = read_companion(meta_path, [path.parent], MAX_META_BYTES)
    except (OSError, CompanionSkipped):
        return Child(path, agent_id_of(path), None, None)
    if data is None:
        return Child(path, agent_id_of(path), None, None)
    try:  # a lone surrogate escape repaired, as in the transcript (core.items)
        value = items.loads(data)[0]
        meta = value if isinstance(value, dict) else {"value": value}
    except orjson.JSONDecodeError:
        meta = None
    return Child(path, agent_id_of(path), meta, meta_path)


def parent_file(path: Path, session_id: str | None) -> Path | None:
    """The session file a subagent transcript belongs to, when it is where Claude Code puts it."""
    if not session_id:
        return None
    candidates = [(path.parent / f"{session_id}.jsonl", path.parent)]  # the id is content: kept inside
    if path.parent.name == "subagents":
        session_dir = path.parent.parent
        candidates.insert(0, (session_dir.parent / f"{session_dir.name}.jsonl", session_dir.parent))
    for candidate, root in candidates:
        try:
            if candidate != path and check_companion(candidate, [root]):
                return candidate
        except CompanionSkipped:
            continue
    return None


_SLUG = re.compile(rb'"slug"\s*:\s*"([A-Za-z0-9][A-Za-z0-9._-]*)"')
_SLUG_PEEK = 1 << 16


def plan_files(path: Path) -> list[Path]:
    """Where the plan files of the session's slugs (named in its first 64 KB) are looked for
    (``plans.read_plan_file``): ``plans/`` beside the session and ``<home>/plans/``."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SLUG_PEEK)
    except OSError:
        return []
    folder = path.parent
    roots = [folder / "plans"]
    if len(folder.parents) >= 2:
        roots.append(folder.parent.parent / "plans")
    slugs = sorted({m.decode() for m in _SLUG.findall(head)})
    return [root / f"{slug}.md" for slug in slugs for root in roots]
