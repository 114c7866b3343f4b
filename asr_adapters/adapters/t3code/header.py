"""The ``session`` header of one thread, from a few small filtered queries.

Header facts: the thread (``thread.created`` and later titles), its project (``project.*``
events, or the projection row), the provider sessions it used (``thread.session-set`` in V1,
``provider-session.attached`` / ``provider-thread.updated`` in V2) and the resume cursor that
locates the native Codex rollout or Claude Code transcript (``provider_session_runtime``).
"""

from __future__ import annotations

from typing import Any

from ...core.adapter import header as core_header
from ...core.refs import session_ref
from ...core.timestamps import from_iso, stamp
from .db import Database
from .state import REGISTRY, obj

#: thread settings the header states as they stood at the first user message
SETTINGS = ("branch", "worktreePath", "modelSelection", "runtimeMode", "interactionMode")

#: V2 ``thread.created`` members the header states elsewhere (``id`` is the session, ``title``,
#: ``createdAt`` the ``ts``, ``projectId`` the project, ``lineage``'s parent and relationship,
#: ``activeProviderThreadId`` a provider session's ``active``); the rest is kept under the
#: registry namespace
_V2_MAPPED = ("id", "title", "createdAt", "projectId", "historyOrigin", "lineage", "activeProviderThreadId", *SETTINGS)
_LINEAGE_MAPPED = ("parentThreadId", "relationshipToParent")


def _v2_kept(payload: dict[str, Any]) -> dict[str, Any]:
    """The members of a V2 ``thread.created`` no header field states (nulls left out)."""
    kept = {k: v for k, v in payload.items() if k not in _V2_MAPPED and v is not None}
    lineage = {k: v for k, v in obj(payload.get("lineage")).items() if k not in _LINEAGE_MAPPED and v is not None}
    if lineage:
        kept = {**kept, "lineage": lineage}
    return kept


#: T3 driver name -> our agent short name, for session references to native transcripts.
DRIVERS = {"codex": "codex", "claudeAgent": "claude-code", "claude": "claude-code"}


def _native_session(driver: Any, native_id: Any) -> str | None:
    agent = DRIVERS.get(driver) if isinstance(driver, str) else None
    if agent is None or not isinstance(native_id, str) or not native_id:
        return None
    return session_ref(agent, native_id)


def _cursor_session(provider: Any, cursor: Any) -> str | None:
    """Codex cursors hold the Codex thread id; Claude cursors hold the Claude session in ``resume``."""
    if not isinstance(cursor, dict):
        return None
    if provider == "codex":
        return _native_session("codex", cursor.get("threadId"))
    if provider in ("claudeAgent", "claude"):
        return _native_session("claudeAgent", cursor.get("resume"))
    return None


def build(db: Database, thread_id: str, file: str) -> dict[str, Any]:
    v1 = db.v1_fact_events(thread_id)
    v2 = db.v2_fact_events(thread_id)
    created: dict[str, Any] = {}
    entry: dict[str, Any]
    title: Any = None
    at: Any = None
    sessions: list[dict[str, Any]] = []
    seen: set[tuple[Any, Any]] = set()
    first_message = db.first_user_message(thread_id) if v1 else None
    for sequence, kind, occurred, payload in v1:
        if not isinstance(payload, dict):
            continue
        if kind == "thread.created" and not created:
            created = dict(payload)
            title = payload.get("title")
            at = payload.get("createdAt") or occurred
        elif kind in ("thread.meta-updated", "thread.runtime-mode-set", "thread.interaction-mode-set"):
            if isinstance(payload.get("title"), str):
                title = payload["title"]
            if created and (first_message is None or sequence < first_message):
                # settings changed before the first message are where the thread's work began
                created.update({k: payload[k] for k in SETTINGS if k in payload})
        elif kind == "thread.session-set" and isinstance(payload.get("session"), dict):
            session = payload["session"]
            key: tuple[Any, Any] = (session.get("providerName"), session.get("providerInstanceId"))
            named = isinstance(key[0], str) and isinstance(key[1], str | None)  # else no header fact
            if named and key not in seen:
                seen.add(key)
                entry = {"provider": key[0]}
                if key[1] is not None:
                    entry["instance"] = key[1]
                sessions.append(entry)
    lineage: dict[str, Any] = {}
    history_origin: Any = None
    v2_created: dict[str, Any] | None = None
    v2_only = not created
    first_v2_message = db.v2_first_user_message(thread_id) if v2_only else None
    for sequence, kind, payload in v2:
        if not isinstance(payload, dict):
            continue
        if kind == "thread.created":
            if v2_created is None:
                v2_created = payload
            if not created:
                created = dict(payload)
                at = payload.get("createdAt")
            title = title or payload.get("title")
            lineage = obj(payload.get("lineage"))
            history_origin = payload.get("historyOrigin")
        elif kind.startswith("thread."):
            if kind == "thread.metadata-updated" and isinstance(payload.get("title"), str):
                title = payload["title"]
            if v2_only and created and (first_v2_message is None or sequence < first_v2_message):
                # a V2 thread event carries the whole thread: its settings before the first
                # message are where the thread's work began (later ones are on the runs)
                created.update({k: payload[k] for k in SETTINGS if k in payload})
        elif kind == "provider-session.attached":
            entry = {
                "provider": payload.get("driver"),
                "instance": payload.get("providerInstanceId"),
                "providerSessionId": payload.get("id"),
            }
            sessions.append({k: v for k, v in entry.items() if v is not None})
        elif kind == "provider-thread.updated":
            ref = obj(payload.get("nativeThreadRef"))
            native = _native_session(payload.get("driver"), ref.get("nativeId"))
            entry = {
                "provider": payload.get("driver"),
                "instance": payload.get("providerInstanceId"),
                "providerThreadId": payload.get("id"),
                "nativeThreadId": ref.get("nativeId"),
                "session": native,
            }
            entry = {k: v for k, v in entry.items() if v is not None}
            if entry not in sessions:
                sessions.append(entry)
    active = v2_created.get("activeProviderThreadId") if v2_created is not None else None
    if isinstance(active, str) and active:
        # the provider thread T3 names active at the thread's creation (docs/agents/t3code.md)
        holder = next((s for s in sessions if s.get("providerThreadId") == active), None)
        if holder is None:
            sessions.append({"providerThreadId": active, "active": True})
        else:
            holder["active"] = True
    runtime = db.runtime_row(thread_id)
    if runtime is not None:
        native = _cursor_session(runtime["provider"], runtime["resumeCursor"])
        entry = {k: v for k, v in runtime.items() if v is not None}
        if native is not None:
            entry["session"] = native
        for existing in sessions:
            if existing.get("provider") == runtime["provider"] and "resumeCursor" not in existing:
                existing.update({k: v for k, v in entry.items() if k not in existing})
                break
        else:
            sessions.append(entry)
    variant = "v1+v2" if v1 and v2 else ("v2" if v2 else "v1")
    record = core_header(
        "t3code", thread_id, agent_version=None, source_format="t3code-state-sqlite", variant=variant, file=file
    )
    stamp(record, from_iso(at))
    if isinstance(title, str):
        record["title"] = title
    project = _project(db, created.get("projectId"))
    cwd = created.get("worktreePath") or (project or {}).get("workspaceRoot")
    if isinstance(cwd, str):
        record["cwd"] = cwd
    parent = lineage.get("parentThreadId")
    if isinstance(parent, str) and lineage.get("relationshipToParent") in ("fork", "subagent"):
        record["parent"] = session_ref("t3code", parent)
    if project is not None:
        record["project"] = project
    for name in SETTINGS:
        if created.get(name) is not None:
            record[name] = created[name]
    if lineage.get("relationshipToParent"):
        record["relationshipToParent"] = lineage["relationshipToParent"]
    if history_origin is not None:
        record["historyOrigin"] = history_origin
    if sessions:
        record["providerSessions"] = sessions
    kept = _v2_kept(v2_created) if v2_created is not None else {}
    if kept:
        record[REGISTRY] = kept
    return record


def _project(db: Database, project_id: Any) -> dict[str, Any] | None:
    """The project's header facts, read once per project (many threads share one)."""
    if not isinstance(project_id, str):
        return None
    cached = db.projects.get(project_id)
    if cached is not None:
        return dict(cached)
    project: dict[str, Any] = {"projectId": project_id}
    for _kind, payload in db.project_events(project_id):
        if not isinstance(payload, dict):
            continue
        for key in ("title", "workspaceRoot", "deletedAt"):
            if payload.get(key) is not None:
                project[key] = payload[key]
    if len(project) == 1:
        row = db.project_row(project_id)
        if row is not None:
            project.update({k: v for k, v in row.items() if v is not None})
    db.projects[project_id] = project
    return dict(project)
