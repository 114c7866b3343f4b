"""Output files of ``asr convert``: nothing appears under a final name until it is complete.

Every output is written to a temporary file created exclusively beside its final name
(``O_CREAT|O_EXCL|O_NOFOLLOW``, a random name: a planted file or link is never written
through), then renamed over the final name on success; on any failure the temporary file is
removed and an existing output is left as it was. ``os.replace`` replaces a link at the final
name, never the file it points to. An output that is the input (the same file, through links
too) is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .core.errors import ASRError

#: Temporary outputs start with this (hidden; removed on failure).
TEMP_PREFIX = ".asr-convert-"


class OutputError(ASRError):
    """An output that cannot be written where the user asked (read-only, full disk, a link)."""


class SameFileError(ASRError):
    """The output named is the input itself."""


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


def make_folder(folder: Path, inside: Path | None = None) -> None:
    """Create ``folder`` and its missing parents; below ``inside`` (an output folder the user
    named), refuse a folder that is a symbolic link rather than write through it."""
    if inside is not None:
        current = inside
        for part in folder.relative_to(inside).parts:
            current = current / part
            if current.is_symlink():
                raise OutputError(f"{current}: is a symbolic link; refusing to write through it")
    folder.mkdir(parents=True, exist_ok=True)


class PendingFile:
    """A temporary file beside ``target``; ``commit`` renames it into place, ``discard`` removes it."""

    def __init__(self, target: Path) -> None:
        self.target = target
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        while True:
            self.temp = target.parent / f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp"
            try:
                fd = os.open(self.temp, flags, 0o666)
            except FileExistsError:  # a random name taken: draw again
                continue
            break
        self.handle: IO[bytes] = os.fdopen(fd, "wb")

    def finish(self) -> None:
        """Everything on disk (a full disk or a size limit shows here), the name still temporary."""
        if not self.handle.closed:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()

    def place(self) -> None:
        os.replace(self.temp, self.target)

    def commit(self) -> None:
        self.finish()
        self.place()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


def describe_os_error(exc: OSError, fallback: str) -> str:
    """One line for an output that could not be written: the file and the system's reason."""
    where = exc.filename if exc.filename is not None else fallback
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{where}: cannot write the output: {reason}"


@contextlib.contextmanager
def text_output(target: Path, source: Path | None = None) -> Iterator[IO[str]]:
    """A text file written whole or not at all (``asr show -o``, ``asr export -o``): refused when
    it is the input, missing parent folders created, an exclusive temp beside it renamed on
    success and removed on any failure."""
    refuse_same_file(source, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    pending = PendingFile(target)
    text = io.TextIOWrapper(pending.handle, encoding="utf-8", newline="\n")
    try:
        yield text
        text.flush()
        text.detach()
        pending.commit()
    except BaseException:
        with contextlib.suppress(ValueError, OSError):
            text.detach()
        pending.discard()
        raise


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
