"""``asr batch --merge-manifests OUTDIR``: fold the shards' manifests into the main one.

N machines each run ``asr batch … --shard K/N`` on one OUTDIR; each writes its own
``_manifest.shard-K-of-N.json`` and ``_errors.shard-K-of-N.jsonl``. The merge (under the
exclusive batch lock, so no shard is running) adds every shard's entries to
``_manifest.json`` (a shard's entry replaces the main one's: it is newer), drops sources that
no longer exist, writes one ``_errors.jsonl`` and removes the shard files, so a later
unsharded run sees what is done.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..outputs import remove_file
from .atomic import atomic_write_bytes
from .lock import BatchUsageError, locked
from .manifest import MANIFEST, read_entries, write_entries
from .summary import ERRORS

_SHARD_FILE = re.compile(r"^_(manifest|errors|batch)\.(shard-\d+-of-\d+)\.(json|jsonl|lock)$")


@dataclass
class MergeSummary:
    shards: int
    sources: int
    gone: int

    def describe(self) -> str:
        return f"merged {self.shards} shard manifests: {self.sources} sources recorded, {self.gone} gone"


def merge_manifests(outdir: str | os.PathLike[str]) -> MergeSummary:
    folder = Path(os.path.abspath(outdir))
    if not folder.is_dir():
        raise BatchUsageError(f"{folder} is not a folder")
    with locked(folder):
        files = sorted(
            (m.group(2), m.group(1), folder / m.group(0)) for m in map(_SHARD_FILE.match, os.listdir(folder)) if m
        )
        entries = read_entries(folder / MANIFEST)
        shards = sorted({shard for shard, kind, _path in files if kind == "manifest"})
        for _shard, kind, path in files:
            if kind == "manifest":
                entries.update(read_entries(path))
        gone = [source for source in entries if not os.path.exists(source)]
        for source in gone:
            del entries[source]
        rows: list[dict[str, Any]] = []
        seen: set[bytes] = set()
        for _shard, kind, path in files:
            if kind == "errors":
                for row in _failures(path):  # each shard's failures and what its walk left out
                    key = orjson.dumps(row, option=orjson.OPT_SORT_KEYS)
                    if key not in seen:
                        seen.add(key)
                        rows.append(row)
        for source in sorted(entries):
            entry = entries[source]
            for warning in entry.warnings:
                row = {"path": source, "line": warning.get("line"), "reason": warning.get("reason")}
                rows.append(row | {"agent": entry.agent, "severity": "warning"})
        write_entries(folder / MANIFEST, entries)
        atomic_write_bytes(folder / ERRORS, b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows))
        for _shard, _kind, path in files:
            with contextlib.suppress(OSError):
                remove_file(path)
    return MergeSummary(len(shards), len(entries), len(gone))


def _failures(path: Path) -> list[dict[str, Any]]:
    """The rows of a shard's errors file that are not a manifest entry's warnings."""
    rows = []
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(row, dict) and (row.get("severity") == "error" or row.get("agent") is None):
            rows.append(row)
    return rows
