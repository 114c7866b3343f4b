"""Where OpenCode keeps its sessions, and which file is a session's entry.

Used by batch conversion and for locating a session's companions, never for the mapping
itself. OpenCode uses the XDG layout on every OS (Windows included): its data folder is
``$XDG_DATA_HOME/opencode``, by default ``~/.local/share/opencode``. Three stores live there:

- the SQLite database ``opencode.db`` (``opencode-<channel>.db`` for other release channels;
  ``OPENCODE_DB`` names another file), every session of every project;
- the global JSON tree ``storage/`` (``session/<projectID>/<ses>.json``, ``message/<ses>/``,
  ``part/<msg>/``, ``todo/<ses>.json``), left in place after OpenCode imported it into the
  database;
- the oldest per-project JSON tree ``project/<slug>/storage/session/`` (``info/<ses>.json``,
  ``message/<ses>/``, ``part/<ses>/<msg>/``), copied into the global tree by OpenCode.

A session kept in several stores is converted once, from the newest store: the database,
then the global tree, then the per-project tree (``is_session_file``).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

from ...core.valueclass import valueclass

DB_NAME = "opencode.db"
G1, G0 = "global-tree", "project-tree"


def data_dirs(env: Mapping[str, str]) -> list[Path]:
    """``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode`` (every OS)."""
    xdg = env.get("XDG_DATA_HOME", "").strip()
    if xdg:
        return [Path(xdg).expanduser() / "opencode"]
    home = env.get("HOME") or env.get("USERPROFILE")
    return [Path(home) / ".local" / "share" / "opencode"] if home else []


#: the database ``OPENCODE_DB`` names in the environment discovery was last given: a session it
#: holds is converted from it, not from a JSON tree of any home (``newer_store_has``)
_NAMED_DATABASES: set[Path] = set()


def named_database(env: Mapping[str, str]) -> Path | None:
    """The database ``OPENCODE_DB`` names, when it is an absolute path."""
    override = env.get("OPENCODE_DB", "").strip()
    if override and override != ":memory:" and os.path.isabs(os.path.expanduser(override)):
        return Path(override).expanduser()
    return None


def default_homes(env: Mapping[str, str]) -> list[Path]:
    """The data folder (database and both JSON trees), and the folder of the database that
    ``OPENCODE_DB`` names when it is an absolute path elsewhere."""
    homes = data_dirs(env)
    named = named_database(env)
    _NAMED_DATABASES.clear()  # the environment of the latest discovery, not every earlier one
    if named is not None:
        _NAMED_DATABASES.add(named)
        if named.parent not in homes:
            homes.append(named.parent)
    return homes


def is_database_name(name: str) -> bool:
    return name == DB_NAME or (name.startswith("opencode-") and name.endswith(".db"))


@valueclass(frozen=True)
class Tree:
    """Where a JSON session's files are: its generation and the folders of its messages and
    parts (``parts(message id)`` is the folder of one message's parts)."""

    kind: str  # G1 or G0
    session_id: str
    root: Path  # the folder every file of the session must resolve inside
    messages: Path
    part_base: Path
    todo: Path | None
    #: a session file kept beside a copy of its tree, not in OpenCode's own layout
    loose: bool = False

    def parts(self, message_id: str) -> Path:
        return self.part_base / message_id

    def data_dir(self) -> Path | None:
        """The OpenCode data folder holding this tree (None for a loose copy)."""
        if self.loose:
            return None
        if self.kind == G1:
            return self.root.parent
        if self.kind == G0:
            return self.root.parents[3]  # <data>/project/<slug>/storage/session
        return None


def tree_of(path: Path, body_id: object = None) -> Tree | None:
    """The tree a session info file belongs to, from its position:
    ``storage/session/<projectID>/<ses>.json`` (global tree),
    ``project/<slug>/storage/session/info/<ses>.json`` (per-project tree), or a file kept
    beside a copy of the tree (``storage/`` or ``session/`` next to it; the session id then
    comes from the file name when it is an OpenCode id, else from the body)."""
    stem = path.stem
    parent = path.parent
    if parent.parent.name == "session" and parent.parent.parent.name == "storage" and parent.name != "info":
        root = parent.parent.parent
        return Tree(G1, stem, root, root / "message" / stem, root / "part", root / "todo" / f"{stem}.json")
    if parent.name == "info" and parent.parent.name == "session":
        root = parent.parent
        return Tree(G0, stem, root, root / "message" / stem, root / "part" / stem, None)
    session_id = stem if stem.startswith("ses_") else body_id if isinstance(body_id, str) and body_id else None
    if session_id is None:
        return None
    if os.path.isdir(parent / "storage"):
        root = parent / "storage"
        todo = root / "todo" / f"{session_id}.json"
        return Tree(G1, session_id, root, root / "message" / session_id, root / "part", todo, loose=True)
    if os.path.isdir(parent / "session"):
        root = parent / "session"
        return Tree(G0, session_id, root, root / "message" / session_id, root / "part" / session_id, None, loose=True)
    return None


def json_files(folder: Path) -> list[Path]:
    """The ``*.json`` files of a folder in name order (ids sort by creation), leaving out
    OpenCode's ``*.tmp`` leftovers of interrupted writes. Listing only: files are read through
    ``core.companion``."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    names = sorted(e.name for e in entries if e.name.endswith(".json") and not e.name.startswith("."))
    return [folder / name for name in names]


@lru_cache(maxsize=16)
def database_session_ids(database: str, mtime_ns: int) -> frozenset[str]:
    """The session ids in an OpenCode database (cached per file version)."""
    from ...core.sqlite_limits import StoreRefused, check_schema
    from ...core.sqlite_snapshot import open_snapshot

    try:
        connection = open_snapshot(Path(database), timeout=1.0)
    except (sqlite3.Error, OSError, StoreRefused):
        return frozenset()
    try:  # as the conversion reads it (a view named session is refused, the work bounded): a
        # database refused here fails with its reason when it is converted itself
        if "session" not in check_schema(connection, database, {"session": {"id"}}):
            return frozenset()
        return frozenset(row[0] for row in connection.execute("SELECT id FROM session"))
    except (sqlite3.Error, StoreRefused):
        return frozenset()
    finally:
        connection.close()


def _databases(data: Path) -> Iterator[Path]:
    try:
        entries = list(os.scandir(data))
    except OSError:
        return
    for entry in sorted(entries, key=lambda e: e.name):
        if is_database_name(entry.name) and entry.is_file():
            yield data / entry.name


def newer_store_has(tree: Tree) -> bool:
    """Whether a newer store holds this session: a database of the same data folder or the one
    ``OPENCODE_DB`` names (in this environment or one discovery was given), for both JSON
    trees; the global tree, for the per-project tree."""
    data = tree.data_dir()
    if data is None:
        return False
    named = set(_NAMED_DATABASES)
    from_environment = named_database(os.environ)
    if from_environment is not None:
        named.add(from_environment)
    for database in [*_databases(data), *sorted(named)]:
        try:
            mtime = database.stat().st_mtime_ns
        except OSError:
            continue
        if tree.session_id in database_session_ids(str(database), mtime):
            return True
    if tree.kind == G0:
        sessions = data / "storage" / "session"
        try:
            projects = [e.name for e in os.scandir(sessions) if e.is_dir()]
        except OSError:
            projects = []
        return any(os.path.isfile(sessions / p / f"{tree.session_id}.json") for p in projects)
    return False


def is_session_file(path: Path) -> bool:
    """A database, or a session info file of a JSON tree whose session no newer store holds.
    Message, part, todo and project files are read with their session, never on their own."""
    name = path.name
    if is_database_name(name):
        return True
    if not name.endswith(".json"):
        return False
    tree = tree_of(path)
    if tree is None or tree.loose:
        return False
    return not newer_store_has(tree)


def companion_files(path: Path) -> list[Path]:
    """A database's ``-wal``; a JSON session's message, part and todo files, and the databases
    beside its tree (a session that appears in one is converted from there)."""
    if is_database_name(path.name):
        wal = path.with_name(path.name + "-wal")
        return [wal] if wal.exists() else []
    tree = tree_of(path)
    if tree is None:
        return _copied_tree_files(path)
    files: list[Path] = []
    for message in json_files(tree.messages):
        files.append(message)
        files += json_files(tree.parts(message.stem))
    if tree.todo is not None and tree.todo.is_file():
        files.append(tree.todo)
    data = tree.data_dir()
    if data is not None:
        files += list(_databases(data))
    return files


def _copied_tree_files(path: Path) -> list[Path]:
    """Every JSON file of a tree copied beside a session file whose name is not its id (the
    id is in the body, which discovery does not read): more than the session reads, never less."""
    files: list[Path] = []
    for name in ("storage", "session"):
        root = path.parent / name
        if os.path.isdir(root):
            for folder, _dirs, names in sorted(os.walk(root)):
                files += [Path(folder) / n for n in sorted(names) if n.endswith(".json")]
    return files
