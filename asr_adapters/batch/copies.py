"""Identical copies of one session in a batch: the same bytes at two paths (a home backed up
inside itself, a session copied into a project) are converted once.

Two sources are copies when their bytes hash the same and so do their companion files (the
files an adapter reads with a session, compared by their path relative to the session's
folder): the same bytes beside other subagent transcripts make other records, so they are no
copies. Only sources of equal size are hashed, by the driver, before the workers start, and
only those of equal hashes are sniffed and have their companions hashed there. The first in
walk order (or one the manifest already holds unchanged) is converted; each copy's manifest
entry names it (``same_as``) and lists no outputs. A copy is looked at again on every run, so
one that stops being identical is converted on its own.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .scan import sniff
from .worker import Item, companions

_BLOCK = 1 << 20


@dataclass(frozen=True)
class Copy:
    """``source`` holds the same bytes and companions as ``original`` (whose conversion stands
    for both)."""

    source: str
    original: str
    agent: str
    sha256: str
    size: int
    mtime_ns: int
    companions: tuple[tuple[str, int, int], ...]  # (path, size, mtime_ns) as ``worker.companions``


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


Stamps = tuple[tuple[str, int, int], ...]


def _fingerprint(agent: str, source: str, sha256: str) -> tuple[str, tuple[tuple[str, str], ...], Stamps]:
    """The source's hash, its companions' (relative path, hash), and their stamps."""
    stamps = companions(agent, source)
    folder = os.path.dirname(source)
    read = tuple(sorted((os.path.relpath(path, folder), file_sha256(path)) for path, _size, _mtime in stamps))
    return sha256, read, stamps


def find_copies(
    items: Sequence[Item],
    sizes: Mapping[str, int],
    kept: Mapping[str, tuple[str, str, int]],
    agents: Sequence[str] = (),
    sniffed: dict[str, tuple[str, int, int]] | None = None,
) -> dict[str, Copy]:
    """The items (walk order) that are copies of an earlier item or of a source ``kept``
    unchanged from the manifest (source -> (agent, sha256, size)): {copy's source: Copy}.
    ``agents``: the --agent filter (a source it leaves out is no one's original). Remote
    sources are never compared (their bytes are not here). ``sniffed`` receives, for each item
    sniffed here, the agent it was claimed for and its size and mtime before the sniff (source
    -> (agent, size, mtime_ns)), for its worker (``worker.Item.sniffed``)."""
    by_size: dict[int, list[str]] = defaultdict(list)
    for source, (_agent, _sha, size) in kept.items():
        by_size[size].append(source)
    for item in items:
        if "://" not in item.source:
            by_size[sizes[item.source]].append(item.source)
    paths = {item.source: item for item in items}
    found: dict[str, Copy] = {}
    for size, same_size in by_size.items():
        if len(same_size) < 2 or not any(s in paths for s in same_size):
            continue
        sources = _same_bytes(same_size, paths, kept)
        if not any(s in paths for s in sources):
            continue
        seen: dict[tuple[str, str, tuple[tuple[str, str], ...]], str] = {}
        for source in sources:  # kept sources first, then items in walk order
            try:
                if source in paths:
                    item = paths[source]
                    stamp = os.stat(item.path)
                    adapter, _reason = sniff(Path(item.path), size, explicit=item.explicit)
                    if adapter is None or (agents and adapter.name not in agents):
                        continue
                    if sniffed is not None:
                        sniffed[source] = (adapter.name, stamp.st_size, stamp.st_mtime_ns)
                    agent, sha256 = adapter.name, file_sha256(source)
                    mtime_ns = os.stat(source).st_mtime_ns
                else:
                    agent, sha256, _size = kept[source]
                sha, read, stamps = _fingerprint(agent, source, sha256)
            except OSError:
                continue  # the worker meets it and says why
            key = (agent, sha, read)
            original = seen.setdefault(key, source)
            if original != source and source in paths:
                found[source] = Copy(source, original, agent, sha256, size, mtime_ns, stamps)
    return found


def _same_bytes(
    sources: Sequence[str], paths: Mapping[str, Item], kept: Mapping[str, tuple[str, str, int]]
) -> list[str]:
    """Of sources of one size (in their order), those whose bytes hash the same as another's:
    only these can be a copy or an original, so only these are sniffed and have their
    companions read (a batch of many same-size sessions that are no copies pays one hash each,
    in the driver, and its workers sniff them in parallel)."""
    by_sha: dict[str, list[str]] = defaultdict(list)
    for source in sources:
        if source in paths:
            try:
                by_sha[file_sha256(source)].append(source)
            except OSError:
                continue  # the worker meets it and says why
        else:
            by_sha[kept[source][1]].append(source)
    twins = {source for group in by_sha.values() if len(group) > 1 for source in group}
    return [source for source in sources if source in twins]
