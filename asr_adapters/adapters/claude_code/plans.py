"""Plan records from Claude Code's plan tools: TodoWrite, the Task* tools, ExitPlanMode.

Each plan record is a complete snapshot (ASR-222). The TodoWrite list and the task list
are one plan each per agent (one stream), with derived ids; a plan-mode document is named
by its plan file, as the spec's own example does. Revisions name the previous record in
``supersedes``. State kept: the current task list (bounded by the number of tasks).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.companion import CompanionSkipped, Root, read_companion, root
from ...core.lazyre import LazyPattern

_TASK_CREATED = LazyPattern(r"Task #(\S+) created")
#: TaskGet's text result: ``Task #<id>: <subject>``, ``Status: …``, ``Description: …`` lines.
_TASK_GOT = LazyPattern(
    r"\ATask #(\S+): ([^\n]*)(?:\nStatus: ([^\n]*))?(?:\nDescription: (.*?))?(?:\n(?:Blocked by|Blocks):|\Z)", re.S
)
#: Tasks learned from TaskGet but not (yet) in the list, at most.
KNOWN_LIMIT = 1024
_TASK_FIELDS = frozenset({"subject", "status", "owner", "blockedBy", "blocks"})  # a task's own entry fields
STATUSES = frozenset({"pending", "in_progress", "completed"})
REGISTRY = "com.anthropic.claude-code"


def _status(value: Any) -> str:
    if isinstance(value, str) and value in STATUSES:
        return value
    return f"{REGISTRY}/{value if isinstance(value, str) and value else 'unknown'}"


def todo_entries(todos: Any) -> list[dict[str, Any]] | None:
    """TodoWrite items as plan entries: 2.0+ ``{content, status, activeForm}``, 1.0
    ``{id, content, status, priority}``; unknown members are kept after the spec's."""
    if not isinstance(todos, list):
        return None
    entries = []
    for item in todos:
        if not isinstance(item, dict):
            continue
        entry: dict[str, Any] = {}
        if isinstance(item.get("id"), str | int):
            entry["entryId"] = str(item["id"])
        entry["content"] = item["content"] if isinstance(item.get("content"), str) else ""
        entry["status"] = _status(item.get("status"))
        if item.get("priority") in ("high", "medium", "low"):
            entry["priority"] = item["priority"]
        elif "priority" in item:
            entry["priority"] = f"{REGISTRY}/{item['priority']}"
        for key, value in item.items():
            if key not in ("id", "content", "status", "priority"):
                entry[key] = value
        entries.append(entry)
    seen: set[str] = set()
    for entry in entries:  # ASR-236: entry ids unique in one record
        if "entryId" in entry:
            if entry["entryId"] in seen:
                entry[f"{REGISTRY}/id"] = entry.pop("entryId")
            else:
                seen.add(entry["entryId"])
    return entries


class TaskList:
    """The Task* tools' list as the transcript reveals it, in creation order.

    Every change writes the whole list again (a plan record is a snapshot), so each task's
    entry is kept once built and rebuilt only when that task changes, or, for a task with
    ``blockedBy``, when a task is added or removed (its ``blockedBy`` names only listed tasks).
    """

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self._entries: dict[str, dict[str, Any]] = {}  # task id -> its entry, while valid
        self._blocked: set[str] = set()  # ids of tasks holding a blockedBy member
        #: What TaskGet told of tasks this stream did not create (another agent's, in a team):
        #: an update of such a task starts from it instead of an unknown subject.
        self.known: dict[str, dict[str, Any]] = {}

    def learn(self, result: Any, text: str) -> None:
        """A TaskGet result: the task's subject, status and description, as recorded."""
        task = result.get("task") if isinstance(result, dict) else None
        facts: dict[str, Any] = {}
        if isinstance(task, dict) and isinstance(task.get("id"), str | int):
            task_id = str(task["id"])
            facts = {k: task[k] for k in ("subject", "status", "description", "owner") if k in task}
        else:
            match = _TASK_GOT.match(text)
            if match is None:
                return
            task_id = match.group(1)
            facts["subject"] = match.group(2)
            if match.group(3) is not None:
                facts["status"] = match.group(3)
            if match.group(4) is not None:
                facts["description"] = match.group(4)
        if task_id in self.known or len(self.known) < KNOWN_LIMIT:
            self.known[task_id] = facts

    def complete(self) -> bool:
        """Whether every listed task's subject is known: a plan snapshot is written only then
        (an update of a task the stream never saw created or read gives no invented entry)."""
        return all(isinstance(task.get("subject"), str) for task in self.tasks.values())

    def _changed(self, task_id: str) -> None:
        self._entries.pop(task_id, None)
        if "blockedBy" in self.tasks.get(task_id, ()):
            self._blocked.add(task_id)

    def _listed(self, changed: str | None = None) -> None:
        """Task ``changed`` was added or removed (None: any): entries whose ``blockedBy``
        may name it are stale (it names only listed tasks)."""
        tasks = self.tasks
        for task_id in self._blocked:
            named = tasks[task_id].get("blockedBy") if task_id in tasks else None
            if changed is None or not isinstance(named, list) or changed in named:
                self._entries.pop(task_id, None)

    def create(self, call_input: dict[str, Any], result: Any, text: str) -> bool:
        task_id = None
        if isinstance(result, dict) and isinstance(result.get("task"), dict):
            task_id = result["task"].get("id")
        if task_id is None:
            match = _TASK_CREATED.search(text)
            task_id = match.group(1) if match else None
        if task_id is None:
            return False
        task: dict[str, Any] = {"subject": call_input.get("subject", ""), "status": "pending"}
        for key in ("description", "activeForm", "metadata"):
            if key in call_input:
                task[key] = call_input[key]
        task_id = str(task_id)
        new = task_id not in self.tasks
        self.tasks[task_id] = task
        self._changed(task_id)
        if new:
            self._listed(task_id)
        return True

    def update(self, call_input: dict[str, Any]) -> bool:
        task_id = call_input.get("taskId")
        if not isinstance(task_id, str | int):
            return False
        task_id = str(task_id)
        if call_input.get("status") == "deleted":
            if self.tasks.pop(task_id, None) is None:
                return False
            self._entries.pop(task_id, None)
            self._blocked.discard(task_id)
            self._listed(task_id)
            return True
        new = task_id not in self.tasks
        task = self.tasks.get(task_id)
        if task is None:  # another agent's task: what TaskGet told of it, else nothing known
            task = self.tasks[task_id] = dict(self.known.get(task_id, {}))
        for key in ("status", "owner", "subject", "description", "activeForm", "metadata"):
            if key in call_input:
                task[key] = call_input[key]
        for other in call_input.get("addBlockedBy") or ():
            task.setdefault("blockedBy", [])
            if str(other) not in task["blockedBy"]:
                task["blockedBy"].append(str(other))
        for other in call_input.get("addBlocks") or ():
            blocked = self.tasks.get(str(other))
            if blocked is not None:
                blocked.setdefault("blockedBy", [])
                if task_id not in blocked["blockedBy"]:
                    blocked["blockedBy"].append(task_id)
                self._changed(str(other))
        self._changed(task_id)
        if new:
            self._listed(task_id)
        return True

    def replace(self, listed: Any) -> bool:
        """A TaskList result: the list as the tool returned it; descriptions we knew stay."""
        if not isinstance(listed, list):
            return False
        fresh: dict[str, dict[str, Any]] = {}
        for item in listed:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str | int):
                continue
            task = dict(self.tasks.get(str(item["id"]), {}))
            for key, value in item.items():
                if key != "id":
                    task[key] = value
            fresh[str(item["id"])] = task
        if fresh == self.tasks:
            return False
        self.tasks = fresh
        self._entries.clear()
        self._blocked = {task_id for task_id, task in fresh.items() if "blockedBy" in task}
        return True

    def entries(self) -> list[dict[str, Any]]:
        """The list as plan entries. An unchanged task's entry is the same dict in every
        snapshot (records are written, never changed, once emitted)."""
        cache = self._entries
        return [cache.get(task_id) or self._entry(task_id) for task_id in self.tasks]

    def _entry(self, task_id: str) -> dict[str, Any]:
        task = self.tasks[task_id]
        entry: dict[str, Any] = {
            "entryId": task_id,
            "content": task.get("subject") if isinstance(task.get("subject"), str) else "",
            "status": _status(task.get("status")),
        }
        if isinstance(task.get("owner"), str) and task["owner"]:
            entry["owner"] = task["owner"]
        tasks = self.tasks
        blocked = [b for b in task.get("blockedBy") or () if b in tasks and b != task_id]
        if blocked:
            entry["blockedBy"] = blocked
        for key, value in task.items():
            if key not in _TASK_FIELDS:
                entry[key] = value
        self._entries[task_id] = entry
        return entry


#: How the reason for a plan file that exists but may not be read begins.
REFUSED = "plan file not read: "
#: A plan file larger than this is not read (plans are a few KB of markdown).
MAX_PLAN_BYTES = 16 << 20


def plan_roots(session_path: Path) -> list[Root]:
    """The folders a session's plan files may be read from: ``plans/`` beside the session file,
    and Claude Code's own ``<home>/plans/`` for ``<home>/projects/<project>/<session>.jsonl``
    (or a subagent file under ``<project>/<session>/subagents/``). Each is a ``plans`` folder
    under the real path of the folder that holds it: a ``plans`` that is a link out is refused."""
    folder = session_path.parent
    roots = [root(folder, "plans")]
    for ancestor in (folder, *folder.parents):
        if ancestor.name == "subagents":  # <project>/<session>/subagents/**: the session's project
            folder = ancestor.parent.parent
            break
    if len(folder.parents) >= 2:
        roots.append(root(folder.parent.parent, "plans"))
    return roots


def read_plan_file(
    named: str | None, slug: str | None, session_path: Path | None
) -> tuple[str | None, str | None, str]:
    """The plan file's text, the path it was read from, and why not when it was not.

    Looked for at the path the transcript names, else by name in the plan folders
    (``plan_roots``). A transcript is untrusted: a file is read only when its real path is
    inside one of those folders, it is a regular file and no larger than ``MAX_PLAN_BYTES``
    (core.companion). Never fails: ``(None, None, reason)`` when nothing may be read."""
    candidates: list[Path] = []
    name = None
    if named:
        candidates.append(Path(named))
        name = Path(named).name
    elif slug:
        name = f"{slug}.md"
    if session_path is None:
        return None, None, "plan file not found (the transcript was not read from a file)"
    roots = plan_roots(session_path)
    if name and name not in (".", ".."):
        candidates += [folder.path / name for folder in roots]
    reason = "plan file not found"
    for path in candidates:
        try:
            data = read_companion(path, roots, MAX_PLAN_BYTES)
        except CompanionSkipped as exc:
            reason = f"{REFUSED}{exc.reason}"
            continue
        if data is None:
            continue
        try:
            return data.decode("utf-8"), str(path), ""
        except UnicodeDecodeError:
            reason = "plan file not read: not UTF-8 text"
    return None, None, reason
