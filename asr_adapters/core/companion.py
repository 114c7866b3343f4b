"""Opening a companion file safely: one whose path an adapter built from a session's content
or location (a plan file, a subagent transcript, ``sessions.json``, an attachment).

Session files are untrusted: a transcript that names ``/proc/self/environ`` or a symlink to
``~/.ssh/id_ed25519`` must not put that file into a record, and a FIFO planted as a subagent file
must not hang the run. So every such open goes through ``open_companion``: the path must
resolve (symlinks followed, by real path) inside one of the roots the adapter allows, be a
regular file, and be no larger than a cap. Anything else is ``CompanionSkipped`` with a reason
the adapter reports (docs/reliability.md, "Companion files").
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from .accounting import Accounting, Diagnostic

#: Default cap for a companion file read whole (an index, a plan, a sidecar).
MAX_COMPANION_BYTES = 64 << 20

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


class CompanionSkipped(Exception):
    """A companion file that exists but may not be read; ``reason`` says why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _describe(path: Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"{_kind(mode)}, not a regular file"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


#: Set by ``asr batch --follow-symlinks``: the user asked for links inside the walked folders to
#: be followed, so a companion whose *written* path lies inside a root is read even where a
#: link in that path leads elsewhere. Off everywhere else (convert, the library).
_LINKS_FOLLOWED: ContextVar[bool] = ContextVar("asr_companion_links_followed", default=False)


@contextlib.contextmanager
def links_followed(enabled: bool) -> Iterator[None]:
    """Within this block, companions reached through symlinks under a root may be read."""
    token = _LINKS_FOLLOWED.set(enabled)
    try:
        yield
    finally:
        _LINKS_FOLLOWED.reset(token)


def inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path``'s real path (every symlink resolved) lies inside one of ``roots``'s;
    under ``links_followed`` its written path inside a root's written path is enough."""
    roots = list(roots)
    real = _real(path)
    if any(real == root or real.is_relative_to(root) for root in map(_real, roots)):
        return True
    if _LINKS_FOLLOWED.get():
        written = Path(os.path.abspath(path))
        return any(written.is_relative_to(os.path.abspath(root)) for root in roots)
    return False


def check_companion(path: Path, roots: Iterable[Path] | None, limit: int | None = None) -> bool:
    """Whether ``path`` may be read (True), does not exist (False), or raise ``CompanionSkipped``.

    For files handed on by path (a subagent transcript read as its own source)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if isinstance(exc, NotADirectoryError):
            return False
        raise CompanionSkipped(path, f"cannot read: {exc.strerror or exc}") from exc
    if roots is not None and not inside(path, roots):
        raise CompanionSkipped(path, "resolves outside the folders this session's files may be read from")
    if not stat.S_ISREG(info.st_mode):
        raise CompanionSkipped(path, f"{_kind(info.st_mode)}, not a regular file")
    if limit is not None and info.st_size > limit:
        raise CompanionSkipped(path, f"{info.st_size} bytes, larger than the {limit}-byte limit")
    return True


def open_companion(
    path: Path, roots: Iterable[Path] | None, limit: int | None = MAX_COMPANION_BYTES
) -> BinaryIO | None:
    """``path`` opened for reading, or None when it does not exist.

    Raises ``CompanionSkipped`` when it resolves outside ``roots`` (None: a path discovery
    listed, not one taken from file content: no root to stay in), is not a regular file
    (a FIFO, device, socket or folder: opened without blocking and refused, never read), or is
    larger than ``limit`` bytes (None: no limit, for files read a line at a time)."""
    if roots is not None and not inside(path, roots):
        if not os.path.lexists(path):
            return None
        raise CompanionSkipped(path, "resolves outside the folders this session's files may be read from")
    real = _real(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(real, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # a socket cannot be opened at all: say what it is
        raise CompanionSkipped(path, _describe(real) or f"cannot read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CompanionSkipped(path, f"{_kind(info.st_mode)}, not a regular file")
        if limit is not None and info.st_size > limit:
            raise CompanionSkipped(path, f"{info.st_size} bytes, larger than the {limit}-byte limit")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_companion(path: Path, roots: Iterable[Path] | None, limit: int = MAX_COMPANION_BYTES) -> bytes | None:
    """The whole of ``path`` (see ``open_companion``); a file that grew past ``limit`` while
    read is refused too."""
    handle = open_companion(path, roots, limit)
    if handle is None:
        return None
    with handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise CompanionSkipped(path, f"larger than the {limit}-byte limit")
    return data


def report_skip(accounting: Accounting, exc: CompanionSkipped, what: str) -> None:
    """A skipped companion as one counted warning: ``FILE: <what> skipped: <reason>``."""
    accounting.diagnostics.append(Diagnostic(str(exc.path), None, f"{what} skipped: {exc.reason}"))
