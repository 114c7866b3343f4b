"""Earlier outputs a source no longer produces: which ones a batch may remove (issue 25.3).

The manifest is data anyone with the archive can edit, so an entry saying "this source wrote
that output" is not enough to delete a file. An earlier output of a source converted again is
removed only when all of these hold; otherwise it is kept, with a warning saying why:

- no other manifest entry lists it (as read at the start of the run, vanished sources' entries
  included: an output whose source is gone is often the only copy left);
- it is a regular file (never a link or anything else planted at the name);
- its first line is an ASR session header whose ``source.file`` is the name of this source
  file or of a file recorded as read along with it (its subagent transcripts, sidecars): the
  stream says itself that it came from here.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
from collections import Counter
from collections.abc import Iterable
from typing import Any

import orjson

#: The most of an output read to find its header line.
HEAD_BYTES = 1 << 20


def listed_counts(outputs_of: Iterable[list[str]]) -> Counter[str]:
    """How many manifest entries list each output."""
    counts: Counter[str] = Counter()
    for outputs in outputs_of:
        counts.update(set(outputs))
    return counts


def source_names(source: str, companions: Iterable[Iterable[Any]]) -> set[str]:
    """The file names an output of ``source`` may carry as its header's ``source.file``."""
    names = {posixpath.basename(source.replace(os.sep, "/"))}
    for companion in companions:
        path = next(iter(companion), None)
        if isinstance(path, str):
            names.add(posixpath.basename(path.replace(os.sep, "/")))
    return names


def read_head(path: str | os.PathLike[str]) -> bytes | None:
    """The first line of a regular file (not through a link, never waiting on a FIFO); None
    when it is not a regular file or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with contextlib.closing(os.fdopen(fd, "rb")) as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return handle.readline(HEAD_BYTES)
        except OSError:
            return None


def why_kept(relative: str, head: bytes | None, names: set[str], listed: int) -> str | None:
    """None when the earlier output ``relative`` may be removed; else the warning saying why
    it is kept."""
    if listed > 1:
        return f"earlier output {relative} kept: {listed} manifest entries list it"
    if head is None:
        return f"earlier output {relative} kept: it is not a regular file that can be read"
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError:
        header = None
    source = header.get("source") if isinstance(header, dict) and header.get("type") == "session" else None
    file = source.get("file") if isinstance(source, dict) else None
    if not isinstance(file, str):
        return f"earlier output {relative} kept: its first line is not an ASR session header naming its source file"
    if file not in names:
        return f"earlier output {relative} kept: its header names the source file {file}, not this one"
    return None
