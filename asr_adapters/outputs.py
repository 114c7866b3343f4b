# Whole, over 400 lines: the one place every write goes through (tests/reliability/test_safety.py), rules and all.
"""Every file the package writes goes through here, so one set of rules holds for all of them
(``asr convert``, ``asr batch``, ``asr show``, ``asr export``, the library's writers;
``tests/reliability/test_safety.py`` fails on a write anywhere else):

- **Created exclusively.** A new file is created with ``O_CREAT|O_EXCL|O_NOFOLLOW`` under a
  random hidden name beside its final name: a file or link planted at any name is never
  written through.
- **Whole or not at all.** It gets its final name only once complete, by a rename over a name
  that is absent, a regular file or a link (a link is replaced, never followed). A FIFO,
  socket, device or folder is never renamed over; on any failure the temporary file is
  removed and an earlier output is left as it was.
- **A stream the user names is written as a stream.** An output PATH the user named that is
  a character device, a FIFO or a socket (links followed: ``/dev/stdout``, the ``/dev/fd/N``
  of ``>(gzip)``) is written to directly, as stdout is (``-o /dev/null`` discards); any other
  kind of file there (a block device) is refused. Inside an output folder nothing is named
  by the user, so such a file at an output's name is an error, never written to.
- **No link inside an output folder.** Every folder between an output folder and a file in it
  is a real folder: a symbolic link there is refused, never written through (the output
  folder itself may be reached through links: the user named it).
- **Never the input.** An output that is the input (the same file, through links too) is
  refused before anything is written.
- **Removal** unlinks only a regular file or a link, never what a link points to.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from .core.errors import ASRError

if TYPE_CHECKING:  # socket is imported when one is named: most runs never write to one
    import socket

#: Temporary outputs of convert, show and export start with this (hidden; removed on failure).
TEMP_PREFIX = ".asr-convert-"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC


class OutputError(ASRError):
    """An output that cannot be written where the user asked (read-only, full disk, a link)."""


class SameFileError(ASRError):
    """The output named is the input itself."""


class UnusableOutput(ASRError):
    """An output PATH that is neither a file to create or replace nor a stream to write into
    (a block device): a usage error, refused before anything is opened."""


class PipeClosed(Exception):
    """The reader of a stream output (stdout, a FIFO, a socket) went away."""


def describe_os_error(exc: OSError, fallback: str) -> str:
    """One line for an output that could not be written: the file and the system's reason."""
    where = exc.filename if exc.filename is not None else fallback
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{where}: cannot write the output: {reason}"


def as_output_error(exc: OSError, fallback: str | os.PathLike[str]) -> OutputError:
    return OutputError(describe_os_error(exc, os.fspath(fallback)))


def kind_of(mode: int) -> str:
    """What a file is, for messages (``a FIFO``)."""
    for test, name in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"


def refuse_same_file(source: Path | None, target: Path) -> None:
    """Refuse to write ``target`` when it is ``source`` (same inode, whatever the links)."""
    if source is None:
        return
    try:
        same = os.path.samefile(source, target)
    except OSError:  # one of them does not exist: not the same file
        return
    if same:
        raise SameFileError(f"{target}: the output is the input file; choose another output name")


# -- folders ----------------------------------------------------------------------------------


def make_folder(folder: Path, inside: Path | None = None) -> None:
    """Create ``folder`` and its missing parents (``OSError`` when that fails). Below
    ``inside`` (an output folder), every part must be a real folder: a symbolic link is refused
    (``ELOOP``), and so is a file where a folder must be."""
    if inside is None:
        folder.mkdir(parents=True, exist_ok=True)
        return
    inside.mkdir(parents=True, exist_ok=True)
    _walk(inside, folder, create=True)


def checked_folder(inside: Path, folder: Path) -> None:
    """``OSError`` when a part of ``folder`` below ``inside`` is a symbolic link or not a folder
    (parts that do not exist are fine: nothing is created)."""
    _walk(inside, folder, create=False)


def _walk(inside: Path, folder: Path, create: bool) -> None:
    """Every part of ``folder`` below ``inside``, checked a real folder; a missing one is made
    (``create``) or ends the walk."""
    current = inside
    for part in folder.relative_to(inside).parts:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            if not create:
                return
            with contextlib.suppress(FileExistsError):  # made by another process meanwhile
                os.mkdir(current)
            mode = os.lstat(current).st_mode
        if stat.S_ISLNK(mode):
            action = "write through" if create else "use"
            raise OSError(
                errno.ELOOP, f"a symbolic link inside the output folder; refusing to {action} it", str(current)
            )
        if not stat.S_ISDIR(mode):
            raise OSError(errno.ENOTDIR, f"{kind_of(mode)} where a folder of the output must be", str(current))


# -- files ------------------------------------------------------------------------------------


def naming(exc: OSError, target: str | os.PathLike[str]) -> OSError:
    """``exc`` naming ``target`` (the path the user gave), never the temporary file beside it."""
    return OSError(exc.errno, exc.strerror or str(exc), os.fspath(target))


def create_exclusive(folder: Path, prefix: str = TEMP_PREFIX, suffix: str = ".tmp") -> tuple[Path, IO[bytes]]:
    """A new file in ``folder`` named ``prefix`` + random hex + ``suffix``, created exclusively,
    never through a link (``OSError`` when it cannot be)."""
    while True:
        path = folder / f"{prefix}{os.urandom(8).hex()}{suffix}"
        try:
            fd = os.open(path, _CREATE, 0o666)
        except FileExistsError:  # a random name taken: draw again
            continue
        return path, os.fdopen(fd, "wb")


def replaceable(target: Path) -> None:
    """``OSError`` unless ``target`` is absent, a regular file or a symbolic link: the only
    things a finished output may be renamed over."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EEXIST, f"{kind_of(mode)} is there; refusing to replace it", str(target))


def place(temp: str | os.PathLike[str], target: Path) -> None:
    """Rename a finished temporary file over ``target`` (see ``replaceable``)."""
    try:
        replaceable(target)
        os.replace(temp, target)
    except OSError as exc:
        raise naming(exc, target) from None


def place_new(temp: str | os.PathLike[str], target: Path) -> bool:
    """Give a finished temporary file the name ``target`` only if nothing has it (a hard link
    fails when the name exists, whoever made it meanwhile); False, the temp kept, if taken."""
    try:
        os.link(temp, target)
    except FileExistsError:
        return False
    os.unlink(temp)
    return True


def remove_file(path: str | os.PathLike[str]) -> bool:
    """Remove a regular file or a link (never what it points to, never anything else); whether
    something was removed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        return False
    os.unlink(path)
    return True


def writes_directly(target: Path) -> bool:
    """Whether an output PATH the user named is a stream to write into (a character device,
    FIFO or socket, links followed) rather than a file to create or replace. A block device is
    ``UnusableOutput``."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # absent, a dangling link (replaced, not followed), or not reachable
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return True
    if stat.S_ISBLK(mode):
        raise UnusableOutput(f"{target}: is a block device; refusing to write an output onto it")
    return False


class Sink(io.BufferedIOBase):
    """A binary output whose write errors are ``OutputError`` naming it (never mistaken for the
    input's), and a reader going away from a stream output is ``PipeClosed``."""

    def __init__(self, handle: IO[bytes], name: str, stream: bool = False) -> None:
        super().__init__()
        self._handle = handle
        self.name = name
        self._stream = stream

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        try:
            return self._handle.write(data)
        except OSError as exc:
            raise self._error(exc) from None

    def flush(self) -> None:
        if self._handle.closed:
            return
        try:
            self._handle.flush()
        except OSError as exc:
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> Exception:
        if self._stream and isinstance(exc, BrokenPipeError | ConnectionResetError):
            return PipeClosed()
        return as_output_error(exc, self.name)


class PendingFile:
    """A temporary file beside ``target``; ``commit`` renames it into place, ``discard`` removes it."""

    direct = False

    def __init__(self, target: Path, prefix: str = TEMP_PREFIX) -> None:
        self.target = target
        try:
            self.temp, self.handle = create_exclusive(target.parent, prefix)
        except OSError as exc:
            raise naming(exc, target) from None
        self.sink = Sink(self.handle, str(target))

    def finish(self) -> None:
        """Everything on disk (a full disk or a size limit shows here), the name still temporary."""
        if not self.handle.closed:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()

    def place(self) -> None:
        place(self.temp, self.target)

    def commit(self) -> None:
        self.finish()
        self.place()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


class DirectFile:
    """A character device, FIFO or socket the user named, written into like stdout: what was
    written before a failure stays written (there is no file to keep whole)."""

    direct = True

    def __init__(self, target: Path) -> None:
        self.target = target
        self._socket: socket.socket | None = None
        if stat.S_ISSOCK(os.stat(target).st_mode):
            import socket

            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._socket.connect(os.fspath(target))
            except OSError as exc:
                self._socket.close()
                raise OSError(exc.errno, f"cannot connect to the socket: {exc.strerror or exc}", str(target)) from None
            self.handle: IO[bytes] = self._socket.makefile("wb")
        else:  # a FIFO waits here for its reader, as the shell's `> fifo` does
            self.handle = os.fdopen(os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | _CLOEXEC), "wb")
        self.sink = Sink(self.handle, str(target), stream=True)

    def finish(self) -> None:
        if not self.handle.closed:
            self.handle.flush()
            self.handle.close()
        if self._socket is not None:
            self._socket.close()

    def place(self) -> None:
        pass

    def commit(self) -> None:
        self.finish()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()
        if self._socket is not None:
            self._socket.close()


def open_output(target: Path, source: Path | None = None, inside: Path | None = None) -> PendingFile | DirectFile:
    """The output ``target``: refused when it is ``source``; a stream the user named written
    directly; else a temporary file beside it (its folder made, below ``inside`` without
    links). OS failures are ``OutputError`` naming the output."""
    refuse_same_file(source, target)
    try:
        if inside is None and writes_directly(target):
            return DirectFile(target)
        make_folder(target.parent, inside)
        replaceable(target)  # checked again before the rename; failing now spares the work
        return PendingFile(target)
    except OSError as exc:
        raise as_output_error(exc, target) from exc


def commit(output: PendingFile | DirectFile) -> None:
    try:
        output.commit()
    except BrokenPipeError:
        raise PipeClosed from None
    except OSError as exc:
        raise as_output_error(exc, output.target) from exc


@contextlib.contextmanager
def binary_output(target: Path, source: Path | None = None, inside: Path | None = None) -> Iterator[IO[bytes]]:
    """A binary output written whole or not at all (see the module doc)."""
    output = open_output(target, source, inside)
    try:
        yield cast(IO[bytes], output.sink)
        commit(output)
    except BaseException:
        output.discard()
        raise


@contextlib.contextmanager
def text_output(target: Path, source: Path | None = None, inside: Path | None = None) -> Iterator[IO[str]]:
    """A UTF-8 text output with ``\n`` line ends, written whole or not at all (``asr show -o``,
    ``asr export -o``, each page and document of a folder output)."""
    output = open_output(target, source, inside)
    text = io.TextIOWrapper(output.sink, encoding="utf-8", newline="\n")
    try:
        yield text
        text.flush()
        text.detach()
        commit(output)
    except BaseException:
        with contextlib.suppress(ValueError, OSError, ASRError, PipeClosed):
            text.detach()
        output.discard()
        raise


def write_whole(
    target: Path, data: bytes, *, prefix: str = TEMP_PREFIX, inside: Path | None = None, direct: bool = False
) -> None:
    """``data`` as the whole content of ``target``, replaced at once or left as it was
    (``OSError`` otherwise). ``direct``: a stream the user named is written into."""
    if direct and writes_directly(target):
        stream = DirectFile(target)
        try:
            stream.handle.write(data)
            stream.finish()
        finally:
            stream.discard()
        return
    make_folder(target.parent, inside)
    replaceable(target)
    pending = PendingFile(target, prefix)
    try:
        pending.handle.write(data)
        pending.handle.close()  # a batch's manifest is not fsynced (docs/batch.md)
        pending.place()
    except BaseException:
        pending.discard()
        raise


def open_lock_file(path: Path) -> IO[bytes]:
    """A lock file, created when absent, never through a link, never truncated (``asr batch``'s
    ``_batch.lock``: only its ``flock`` matters)."""
    return os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644), "r+b")


def append_bytes(target: Path, data: bytes) -> None:
    """``data`` added at the end of the file the caller keeps (``IncrementalResult.write``)."""
    with open(target, "ab") as handle:
        handle.write(data)


# -- standard output --------------------------------------------------------------------------

#: 128 + SIGPIPE, what `cat` gives when `| head` stops reading.
EXIT_PIPE_CLOSED = 141


def pipe_closed() -> None:
    """The reader of stdout went away: exit quietly with 141, and keep Python's own flush at
    exit from printing a second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test runner's buffer)
        pass
    sys.exit(EXIT_PIPE_CLOSED)


@contextlib.contextmanager
def text_stdout() -> Iterator[IO[str]]:
    """stdout as UTF-8 text with ``\n`` line ends (``asr show``, ``asr export``); a reader that
    goes away (``| head``) ends the command quietly with 141."""
    stream = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    try:
        yield stream
        stream.flush()
    except BrokenPipeError:
        pipe_closed()
    finally:
        with contextlib.suppress(ValueError, OSError):
            stream.detach()
