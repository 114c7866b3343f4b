"""Atomic output: write a temporary file in the target's folder, then rename it into place."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
from pathlib import Path
from typing import IO

from .scan import TEMP_PREFIX

_counter = itertools.count()


def temp_path(folder: Path, tag: str = "") -> Path:
    """A fresh temporary name in ``folder`` (hidden; swept by the next batch if left behind).
    ``tag``: the shard writing it (``shard-2-of-4-``), so a shard sweeps only its own."""
    return folder / f"{TEMP_PREFIX}{tag}{os.getpid()}-{next(_counter)}"


def open_temp(folder: Path, tag: str = "") -> tuple[Path, IO[bytes]]:
    """A new temporary file in ``folder`` (made when missing: the folder is only made when the
    first open says it is not there, so a batch does not pay a ``mkdir`` for every output)."""
    while True:
        path = temp_path(folder, tag)
        try:
            return path, open(path, "xb")
        except FileExistsError:  # left by a killed process with the same pid
            continue
        except FileNotFoundError:
            folder.mkdir(parents=True, exist_ok=True)
            return path, open(path, "xb")


def atomic_write_bytes(target: Path, data: bytes, tag: str = "") -> None:
    path, handle = open_temp(target.parent, tag)
    try:
        with handle:
            handle.write(data)
        os.replace(path, target)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise


def sweep_temps(outdir: Path, tag: str = "") -> int:
    """Remove temporary files a killed batch left under ``outdir`` (with ``tag``, only those of
    that shard: other shards may be writing theirs); how many."""
    removed = 0
    prefix = TEMP_PREFIX + tag
    for folder, _dirs, files in os.walk(outdir):
        for name in files:
            if name.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
                    removed += 1
    return removed


def is_relative_name(relative: str) -> bool:
    """Whether ``relative`` is a plain ``a/b/c`` path: not absolute, no ``..``, ``.`` or empty
    part, no backslash or NUL (what a manifest written by us holds, and nothing else)."""
    if not isinstance(relative, str) or not relative or "\0" in relative or "\\" in relative:
        return False
    if relative.startswith("/") or (len(relative) > 1 and relative[1] == ":"):
        return False
    return all(part not in ("", ".", "..") for part in relative.split("/"))


def inside(outdir: Path, relative: str) -> Path:
    """``outdir/relative``, checked to stay inside ``outdir``: a plain relative name whose
    folder, links resolved, is ``outdir`` or below it. A name read from the manifest is data,
    not an instruction: nothing is deleted or replaced outside OUTDIR (``OSError`` otherwise)."""
    if not is_relative_name(relative):
        raise OSError(errno.EPERM, f"{relative!r} is not a path inside the output folder")
    target = outdir / relative
    root = os.path.realpath(outdir)
    folder = os.path.realpath(target.parent)
    if os.path.commonpath([root, folder]) != root:
        raise OSError(errno.EPERM, f"{target.parent} leads out of the output folder (a link to {folder})")
    return target
