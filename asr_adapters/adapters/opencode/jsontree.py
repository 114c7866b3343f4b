"""A session of OpenCode's JSON trees (the global ``storage/`` tree and the older per-project
one): the info file is the entry; its message, part and todo files are read beside it through
``core.companion`` (inside the tree by real path, regular files, capped)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.adapter import Context
from ...core.companion import CompanionSkipped, Root, read_companion, root
from ...core.source import MAX_DOCUMENT_BYTES
from .discover import Tree, json_files
from .store import NativeMessage, parse_object, parse_stored, with_ids

FORMAT = "opencode-json"


class JsonSession:
    """One session of a JSON tree (``tree`` None: an info file with no tree found beside it)."""

    format = FORMAT

    def __init__(self, info: dict[str, Any], tree: Tree | None, file: str, context: Context) -> None:
        self.tree = tree
        self.file = file
        self.context = context
        session_id = tree.session_id if tree is not None else info.get("id")
        self.info = with_ids(info, id=session_id) if isinstance(session_id, str) else info
        self.variant = "info-only" if tree is None else ("copied-" if tree.loose else "") + tree.kind
        if tree is None:
            context.warn(None, "no storage tree beside the session file: only the session info is converted")

    def _name(self, path: Path) -> str:
        root = self.tree.root if self.tree is not None else path.parent
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name

    def _bytes(self, path: Path) -> bytes | None:
        """A file of the tree through ``core.companion``; None (counted unreadable, with a
        warning) when it may not or cannot be read."""
        tree = self.tree
        assert tree is not None
        # the tree the session file sits in, by real path; or a copied tree's folder beside it,
        # taken as written (``storage`` linked to another store is refused)
        allowed: Root | Path = root(tree.root.parent, tree.root.name) if tree.loose else tree.root
        try:
            data = read_companion(path, [allowed], MAX_DOCUMENT_BYTES)
        except CompanionSkipped as exc:
            reason: str = exc.reason
        except OSError as exc:
            reason = f"unreadable ({exc.strerror or exc})"
        else:
            if data is not None:
                return data
            reason = "gone before it was read"
        self.context.accounting.unreadable += 1
        self.context.warn(None, f"{self._name(path)}: {reason}; skipped")
        return None

    def _read(self, path: Path) -> dict[str, Any] | None:
        """One file of the tree, parsed; counted as a native item (unreadable when it fails)."""
        self.context.accounting.native_items += 1
        data = self._bytes(path)
        return parse_object(data, self._name(path), self.context) if data is not None else None

    def messages(self) -> Iterator[NativeMessage]:
        tree = self.tree
        if tree is None:
            return
        session_id = tree.session_id
        for path in json_files(tree.messages):
            info = self._read(path)
            message_id = path.stem
            parts: list[dict[str, Any]] = []
            for part_path in json_files(tree.parts(message_id)):
                part = self._read(part_path)
                if part is not None:
                    parts.append(with_ids(part, id=part_path.stem, sessionID=session_id, messageID=message_id))
            if info is None:
                if parts:  # the parts of an unreadable message still say something
                    yield NativeMessage({"id": message_id, "sessionID": session_id}, parts, outcome_due=False)
                continue
            yield NativeMessage(with_ids(info, id=message_id, sessionID=session_id), parts)

    def todos(self) -> tuple[list[Any] | None, int | None]:
        """The todo file's list; the file keeps no time of its own (placed at the end)."""
        return self._todo_list(), None

    def _todo_list(self) -> list[Any] | None:
        tree = self.tree
        if tree is None or tree.todo is None or not tree.todo.is_file():
            return None
        self.context.accounting.native_items += 1
        data = self._bytes(tree.todo)
        if data is None:
            return None
        value = parse_stored(data, f"todo/{tree.todo.name}", self.context, list)
        return value if isinstance(value, list) else None
