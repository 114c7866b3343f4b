"""Opening a companion file safely: one whose path an adapter built from a session's content
or location (a plan file, a subagent transcript, ``sessions.json``, an attachment).

Session files are untrusted: a transcript that names ``/proc/self/environ`` or a symlink to
``~/.ssh/id_ed25519`` must not put that file into a record, and a FIFO planted as a subagent file
must not hang the run. So every such open goes through ``open_companion``: the path must
resolve (symlinks followed, by real path) inside one of the roots the adapter allows, be a
regular file, and be no larger than a cap. A root is anchored at the session's own folder
(``Root``: its real path, then the companion folder under it as written), so a companion folder
planted as a link out of it (``plans -> ~/.ssh``) is refused rather than becoming the root.
Anything else is ``CompanionSkipped`` with a reason
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
from .valueclass import valueclass

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


@valueclass(frozen=True)
class Root:
    """A folder companions may be read from. ``base`` is the session's own folder as the user
    named it: its real path is taken (a link the user gave, or one above the session, is the
    user's). ``below`` is a companion folder under it (``plans``, ``cron/runs``, ``attachments``),
    taken as written: when it is a link that leads out of ``base`` it is refused, so a planted
    ``plans -> ~/.ssh`` cannot widen what may be read."""

    base: Path
    below: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        """The folder as written (where its files are looked for)."""
        return self.base.joinpath(*self.below)

    def real(self) -> Path | None:
        """The folder's real path, or None when it is a link out of ``base``'s real path."""
        base = _real(self.base)
        if not self.below:
            return base
        folder = _real(base.joinpath(*self.below))
        return folder if folder == base or folder.is_relative_to(base) else None


def root(base: Path, *below: str) -> Root:
    """The companion folder ``below`` (as written) under the session's own folder ``base``."""
    return Root(base, tuple(below))


def _roots(roots: Iterable[Root | Path]) -> list[Root]:
    return [r if isinstance(r, Root) else Root(r) for r in roots]


def linked_out(folder: Root) -> str | None:
    """Why the companion folder may not be read at all (it is a link out of the session's
    folder), or None: for adapters that list a folder before reading its files."""
    if folder.below and os.path.lexists(folder.path) and folder.real() is None:
        where = "/".join(folder.below)
        return f"{where} is a link to {_real(folder.path)}, outside the session's folder {_real(folder.base)}"
    return None


def inside(path: Path, roots: Iterable[Root | Path]) -> bool:
    """Whether ``path``'s real path (every symlink resolved) lies inside one of ``roots``'s (a
    ``Path`` is a ``Root`` of its own: its real path); under ``links_followed`` its written path
    inside a root's written path is enough."""
    return _outside(path, _roots(roots)) is None


def _outside(path: Path, roots: list[Root]) -> str | None:
    """None when ``path`` may be read under ``roots``; else why not."""
    real = _real(path)
    for folder in roots:
        allowed = folder.real()
        if allowed is not None and (real == allowed or real.is_relative_to(allowed)):
            return None
    if _LINKS_FOLLOWED.get():
        written = Path(os.path.abspath(path))
        if any(written.is_relative_to(os.path.abspath(folder.path)) for folder in roots):
            return None
    written = Path(os.path.abspath(path))
    for folder in roots:  # a companion folder linked out: say so, not only that it is outside
        if written.is_relative_to(os.path.abspath(folder.path)) and (reason := linked_out(folder)):
            return f"{reason}: refused"
    return OUTSIDE


OUTSIDE = "resolves outside the folders this session's files may be read from"


def check_companion(path: Path, roots: Iterable[Root | Path] | None, limit: int | None = None) -> bool:
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
    if roots is not None and (reason := _outside(path, _roots(roots))) is not None:
        raise CompanionSkipped(path, reason)
    if not stat.S_ISREG(info.st_mode):
        raise CompanionSkipped(path, f"{_kind(info.st_mode)}, not a regular file")
    if limit is not None and info.st_size > limit:
        raise CompanionSkipped(path, f"{info.st_size} bytes, larger than the {limit}-byte limit")
    return True


def open_companion(
    path: Path, roots: Iterable[Root | Path] | None, limit: int | None = MAX_COMPANION_BYTES
) -> BinaryIO | None:
    """``path`` opened for reading, or None when it does not exist.

    Raises ``CompanionSkipped`` when it resolves outside ``roots`` (None: a path discovery
    listed, not one taken from file content: no root to stay in), is not a regular file
    (a FIFO, device, socket or folder: opened without blocking and refused, never read), or is
    larger than ``limit`` bytes (None: no limit, for files read a line at a time)."""
    if roots is not None and (reason := _outside(path, _roots(roots))) is not None:
        if not os.path.lexists(path):
            return None
        raise CompanionSkipped(path, reason)
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


def read_head(path: Path, size: int) -> bytes | None:
    """Up to ``size`` bytes from the start of a file discovery listed (no root to stay in; a
    FIFO or device is refused, never read); None when it is gone or may not be read."""
    try:
        handle = open_companion(path, None, limit=None)
    except (CompanionSkipped, OSError):
        return None
    if handle is None:
        return None
    with handle:
        return handle.read(size)


def read_companion(path: Path, roots: Iterable[Root | Path] | None, limit: int = MAX_COMPANION_BYTES) -> bytes | None:
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
