"""The files whose sizes and mtimes go into an input's cache fingerprint, found by listing
folders where that is enough.

The adapter's ``companion_files`` hook names exactly what a conversion reads with a session;
for a Claude Code session it reads heads to do so (the session's id, each subagent's sidecar),
which over ten thousand sessions costs more than a cold run's record scan. A fingerprint may
name more files than are read (a change to one of them only reads the session again), never
fewer, so here a Claude Code session's are listed instead: everything under the session's own
folder (its subagent transcripts and their sidecars, at any depth), every ``agent-*`` file of
its project folder (2.0.x kept subagents there, each naming its session inside), and the plan
files of its slugs (as the adapter names them). Any link in the session's folder, or a
transcript that is itself a subagent's, falls back to the hook.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Project folder -> (its mtime_ns, its ``agent-*`` files): listed once per worker, again when
#: a file is added, removed or renamed there (which changes the folder's mtime).
_ROOT_FILES: dict[str, tuple[int, list[str]]] = {}


def listed_companions(agent: str, path: Path) -> list[str] | None:
    """The files to fingerprint with ``path`` beside it, a superset of what the conversion
    reads; None when only the adapter's hook can say (``batch.worker.companion_paths``)."""
    if agent != "claude-code" or path.name.startswith("agent-") or not path.name.endswith(".jsonl"):
        return None
    own = _tree(str(path)[: -len(".jsonl")])
    if own is None:
        return None
    root = _root_files(str(path.parent))
    if root is None:
        return None
    from ..adapters.claude_code.discover import plan_files

    return sorted({str(path) + "-wal", *own, *root, *(str(p) for p in plan_files(path))})


def _tree(folder: str) -> list[str] | None:
    """Every file under ``folder`` (none when it is not there); None when a link is met."""
    if os.path.islink(folder):
        return None
    found: list[str] = []
    pending = [folder]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            return found  # a file of that name: the adapter looks for a folder only
        except OSError:
            return None
        for entry in entries:
            if entry.is_symlink():
                return None
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            else:
                found.append(entry.path)
    return found


def _root_files(folder: str) -> list[str] | None:
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    cached = _ROOT_FILES.get(folder)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        names = [entry.path for entry in os.scandir(folder) if entry.name.startswith("agent-")]
    except OSError:
        return None
    if len(_ROOT_FILES) > 256:
        _ROOT_FILES.clear()
    _ROOT_FILES[folder] = (mtime, names)
    return names
