"""Atomic output: a temporary file in the target's folder, renamed into place by the driver.

Every file operation is ``asr_adapters.outputs``'s (exclusive creation, no link followed,
never renamed over what is not a regular file, no symbolic link as a folder inside OUTDIR);
this module adds batch's temporary names, which carry a shard's tag so a shard sweeps only its
own, and the check that a name read from the manifest stays inside OUTDIR.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO

from .. import outputs
from .scan import TEMP_PREFIX


def open_temp(outdir: Path, relative: str, tag: str = "") -> tuple[Path, IO[bytes]]:
    """A new temporary file beside ``outdir/relative`` (its folders made, none a link)."""
    if not is_relative_name(relative):
        raise OSError(errno.EPERM, f"{relative!r} is not a path inside the output folder")
    folder = (outdir / relative).parent
    outputs.make_folder(folder, outdir)
    return outputs.create_exclusive(folder, TEMP_PREFIX + tag, suffix="")


def atomic_write_bytes(target: Path, data: bytes, tag: str = "") -> None:
    outputs.write_whole(target, data, prefix=TEMP_PREFIX + tag)


def sweep_temps(outdir: Path, tag: str = "") -> int:
    """Remove temporary files a killed batch left under ``outdir`` (with ``tag``, only those of
    that shard: other shards may be writing theirs); how many."""
    removed = 0
    prefix = TEMP_PREFIX + tag
    for folder, _dirs, files in os.walk(outdir):
        for name in files:
            if name.startswith(prefix):
                try:
                    removed += outputs.remove_file(os.path.join(folder, name))
                except OSError:
                    continue
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
    """``outdir/relative``, checked to stay inside ``outdir``: a plain relative name, and no
    folder of it below ``outdir`` a symbolic link (``outputs.checked_folder``). A name read from
    the manifest is data, not an instruction: nothing is deleted or replaced outside OUTDIR, nor
    through a link inside it (``OSError`` otherwise)."""
    if not is_relative_name(relative):
        raise OSError(errno.EPERM, f"{relative!r} is not a path inside the output folder")
    target = outdir / relative
    outputs.checked_folder(outdir, target.parent)
    return target
