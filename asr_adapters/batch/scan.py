"""Finding candidate files under folders, filtering them, and telling whose they are.

The walk is deterministic (sorted), does not follow symlinked folders, and never enters
``.git``, ``node_modules`` or ``__pycache__`` folders or the batch's own output folder (by
real path). Only regular files are candidates: FIFOs, sockets and devices are reported.
Whose a file is, is decided by the adapters' content sniff (``registry.detect``), then the
claiming adapter's ``is_session_file`` says whether it is a session of its own.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISBLK, S_ISCHR, S_ISDIR, S_ISFIFO, S_ISREG, S_ISSOCK

from .. import registry
from ..core.adapter import Adapter
from ..core.errors import UnknownAgentError
from ..core.source import Source

SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})
TEMP_PREFIX = ".asr-tmp-"

# Reasons a file is not converted (the keys of ``unclaimed_reasons`` in the summary).
NO_ADAPTER = "no adapter claims it"
AMBIGUOUS = "several adapters claim it equally"
NOT_SESSION = "part of another input, not a session of its own"
NO_SESSION_NAME = "no agent keeps sessions under this name"
EMPTY = "empty file"
UNREADABLE = "unreadable"
SNIFF_FAILED = "detection failed"
NOT_REGULAR = "not a regular file"
BROKEN_LINK = "a link to nothing"
TEMP_NAME = "a temporary file of a batch (.asr-tmp)"
# Folders left out (``skipped_folders`` in the summary)
UNREADABLE_FOLDER = "unreadable folder"
LINK_LOOP = "folder reached again through a link"


@dataclass(frozen=True)
class Candidate:
    """A file found under a root: its absolute path, the root and the path relative to it."""

    path: Path
    root: Path
    relative: str
    size: int
    mtime_ns: int
    explicit: bool = False  # named as a source itself, not found under a folder
    real: str = ""  # os.path.realpath(path), computed once by the walk (an object's URL for a remote one)
    etag: str = ""  # an object's ETag or generation (a remote source)


@dataclass
class Filters:
    """``--agent``, ``--since`` (epoch seconds), ``--include`` / ``--exclude`` globs."""

    agents: list[str] = field(default_factory=list)
    since: float | None = None
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)

    def by_path(self, candidate: Candidate) -> bool:
        """Whether the file passes the path and date filters (the agent filter comes after the sniff)."""
        names = (candidate.relative, candidate.path.name, candidate.path.as_posix())
        if self.include and not any(fnmatch.fnmatchcase(n, g) for g in self.include for n in names):
            return False
        if any(fnmatch.fnmatchcase(n, g) for g in self.exclude for n in names):
            return False
        return self.since is None or candidate.mtime_ns / 1e9 >= self.since

    def by_agent(self, agent: str) -> bool:
        return not self.agents or agent in self.agents


def walk(
    roots: Iterable[Path],
    skip: Iterable[Path] = (),
    follow_symlinks: bool = False,
    report: Callable[[Path, str, bool], None] | None = None,
) -> Iterator[Candidate]:
    """Every regular file under the roots (a root may be a file), each once, in sorted order.

    Symlinks that lead out of their root (a linked folder, or a linked file whose target is
    elsewhere) are followed only with ``follow_symlinks``: a session folder must not make
    the batch read whatever a link inside it points to. Folders and files are compared by
    real path: ``skip`` (the output folder) is left out however it is reached, and a folder
    reached again through a link is not walked twice (two links to a parent cannot loop).
    What is left out for a reason the user should hear of goes to ``report(path, reason,
    is_folder)``: FIFOs, sockets and devices, unreadable folders and files, broken links,
    link loops."""
    tell = report or (lambda _path, _reason, _folder: None)
    skipped = [os.path.realpath(p) for p in skip]
    seen: set[str] = set()
    walked: set[str] = set()
    for root in roots:
        root = Path(os.path.abspath(root))
        if not root.is_dir():
            yield from _one(root, root.parent, seen, skipped, tell, explicit=True)
            continue

        def unreadable(error: OSError, top: Path = root) -> None:
            tell(Path(error.filename or top), f"{UNREADABLE_FOLDER}: {error.strerror or error}", True)

        for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=follow_symlinks):
            here = Path(folder)
            real = os.path.realpath(here)
            if real in walked or _under(real, skipped):
                if real in walked:
                    tell(here, LINK_LOOP, True)
                dirs[:] = []
                continue
            walked.add(real)
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                if name.startswith(TEMP_PREFIX):  # another batch's, in flight or left by a kill
                    tell(here / name, TEMP_NAME, False)
                    continue
                path = here / name
                quick = _plain(path, real, root, seen, skipped)
                if quick is not None:
                    if quick is not _SEEN:
                        yield quick
                    continue
                yield from _one(path, root, seen, skipped, tell, follow_symlinks=follow_symlinks)


#: What ``_plain`` returns for a file already found (or in a folder left out).
_SEEN = Candidate(Path(), Path(), "", 0, 0)


def _plain(path: Path, folder_real: str, root: Path, seen: set[str], skipped: list[str]) -> Candidate | None:
    """The candidate of a regular file that is not a link, from one ``lstat`` (its real path is
    its folder's, already resolved, and its name): what ``_one`` finds with a ``realpath`` (a
    ``lstat`` per part of the path) and a ``stat``, at a tenth of the cost over a home of ten
    thousand sessions. None for anything else (a link, a FIFO, a file gone): ``_one`` decides."""
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):
        return None
    real = os.path.join(folder_real, path.name)
    if real in seen or _under(real, skipped):
        return _SEEN
    seen.add(real)
    top = str(root)
    relative = str(path)[len(top) + (0 if top.endswith(os.sep) else 1) :]
    if os.sep != "/":
        relative = relative.replace(os.sep, "/")  # as ``PurePath.as_posix`` gives it
    return Candidate(path, root, relative, stat.st_size, stat.st_mtime_ns, False, real)


def _under(real: str, folders: list[str]) -> bool:
    return any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)


def _one(
    path: Path,
    root: Path,
    seen: set[str],
    skipped: list[str],
    tell: Callable[[Path, str, bool], None],
    explicit: bool = False,
    follow_symlinks: bool = False,
) -> Iterator[Candidate]:
    real = os.path.realpath(path)
    if real in seen or _under(real, skipped):
        return
    if not explicit and not follow_symlinks and os.path.islink(path):
        inside = os.path.realpath(root)
        if os.path.commonpath([real, inside]) != inside:
            return  # a link out of the tree: not followed unless asked
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        tell(path, BROKEN_LINK if os.path.islink(path) else UNREADABLE, False)
        return
    except OSError:
        tell(path, UNREADABLE, False)
        return
    if not S_ISREG(stat.st_mode):
        if not S_ISDIR(stat.st_mode):
            tell(path, _special(stat.st_mode), False)
        return
    seen.add(real)
    relative = path.relative_to(root).as_posix() if path != root else path.name
    yield Candidate(path, root, relative, stat.st_size, stat.st_mtime_ns, explicit, real)


def _special(mode: int) -> str:
    """Why a FIFO, socket or device is never opened (a FIFO would block the batch forever)."""
    if S_ISFIFO(mode):
        return NOT_REGULAR + " (a FIFO)"
    if S_ISSOCK(mode):
        return NOT_REGULAR + " (a socket)"
    if S_ISCHR(mode) or S_ISBLK(mode):
        return NOT_REGULAR + " (a device)"
    return NOT_REGULAR


def sniff(path: Path, size: int | None = None, *, explicit: bool = False) -> tuple[Adapter | None, str | None]:
    """(the adapter whose session file this is, None) or (None, the reason it is not converted).

    A file named explicitly (not found under a folder) is not asked ``is_session_file``: the
    user chose it."""
    reason = prefilter(path, size, explicit=explicit)
    if reason is not None:
        return None, reason
    return sniff_content(path, explicit=explicit)


def prefilter(path: Path, size: int | None = None, *, explicit: bool = False) -> str | None:
    """Why the file is not converted without opening it (empty; no agent keeps sessions under
    its name), or None: the cheap half of ``sniff``, done by the batch's main process."""
    if size == 0:
        return EMPTY
    if not explicit and not _any_session_name(path):
        return NO_SESSION_NAME  # not opened: a workspace full of other files costs a stat each
    return None


def sniff_content(path: Path, *, explicit: bool = False) -> tuple[Adapter | None, str | None]:
    """The half of ``sniff`` that opens the file (done by the batch's workers, and by the
    driver for sources of equal size, which ``copies.find_copies`` hashes)."""
    try:
        adapter = registry.detect(Source(path))  # its head is read once for every adapter
    except UnknownAgentError as exc:
        return None, AMBIGUOUS if "could be" in str(exc) else NO_ADAPTER
    except OSError:
        return None, UNREADABLE
    except Exception:
        return None, SNIFF_FAILED
    try:
        if not explicit and not adapter.is_session_file(path):
            return None, NOT_SESSION
    except Exception:
        return None, SNIFF_FAILED
    return adapter, None


def _any_session_name(path: Path) -> bool:
    """Whether some adapter would take ``path`` as a session of its own (the claiming adapter
    is asked again after the sniff; this only saves opening files no agent could own)."""
    for adapter in registry.all_adapters():
        try:
            if adapter.is_session_file(path):
                return True
        except Exception:
            return True  # let the sniff and the claiming adapter decide
    return False
