"""The batch manifest: what each source was when it was last converted, and what it became.

``OUTDIR/_manifest.json`` maps each source's absolute path to its agent, size, mtime (ns),
sha256 of its bytes, the producer version that converted it and its outputs (paths relative
to OUTDIR). It is rewritten atomically (temporary file, then rename), so a killed batch
leaves either the old or the new manifest, never half of one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .atomic import atomic_write_bytes, is_relative_name
from .remote import RemoteOut, is_url

MANIFEST = "_manifest.json"
FORMAT = "asr-adapters/batch-manifest"
VERSION = 1
MAX_WARNINGS = 100


@dataclass
class Entry:
    agent: str
    size: int
    mtime_ns: int
    sha256: str
    producer: str
    outputs: list[str] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)  # {line, reason}, the first MAX_WARNINGS
    companions: list[list[Any]] = field(default_factory=list)  # [path, size, mtime_ns] of files read with it
    etag: str = ""  # a source on an object store: its ETag or generation when converted
    same_as: str = ""  # an identical copy (batch.copies): the source converted for it (no outputs)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "agent": self.agent,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "sha256": self.sha256,
            "producer": self.producer,
            "outputs": self.outputs,
        }
        if self.warnings:
            data["warnings"] = self.warnings
        if self.companions:
            data["companions"] = self.companions
        if self.etag:
            data["etag"] = self.etag
        if self.same_as:
            data["same_as"] = self.same_as
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        return cls(
            agent=str(data["agent"]),
            size=int(data["size"]),
            mtime_ns=int(data["mtime_ns"]),
            sha256=str(data["sha256"]),
            producer=str(data["producer"]),
            outputs=[str(o) for o in data.get("outputs", [])],
            warnings=[dict(w) for w in data.get("warnings", [])],
            companions=[list(c) for c in data.get("companions", [])],
            etag=str(data.get("etag") or ""),
            same_as=str(data.get("same_as") or ""),
        )


def shard_manifest(shard: str) -> str:
    """The file name of a shard's manifest (``_manifest.shard-2-of-4.json``)."""
    return f"_manifest.{shard}.json"


def read_entries(path: Path) -> dict[str, Entry]:
    """The entries of a manifest file; {} when it is missing, unreadable or not ours (every
    source is then converted again, which is always safe). An entry naming a path outside
    OUTDIR is dropped: the manifest is data, not instructions."""
    try:
        return parse_entries(path.read_bytes())
    except OSError:
        return {}


def parse_entries(raw: bytes | None) -> dict[str, Entry]:
    """The entries of a manifest's bytes (see ``read_entries``)."""
    try:
        data = orjson.loads(raw) if raw is not None else None
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        return {}
    sources = data.get("sources")
    entries: dict[str, Entry] = {}
    for source, entry in (sources if isinstance(sources, dict) else {}).items():
        try:
            loaded = Entry.from_dict(entry)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if (os.path.isabs(source) or is_url(source)) and all(is_relative_name(o) for o in loaded.outputs):
            entries[source] = loaded
    return entries


def encode_entries(entries: dict[str, Entry]) -> bytes:
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "sources": {k: entries[k].as_dict() for k in sorted(entries)},
    }
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n"


def write_entries(path: Path, entries: dict[str, Entry], tag: str = "") -> None:
    atomic_write_bytes(path, encode_entries(entries), tag)


class Manifest:
    """What is known of every source. A shard's run (``shard``: ``shard-K-of-N``) reads the
    main manifest and its own shard's, and writes only its own shard's file, with the
    sources it converted (``asr batch --merge-manifests`` folds the shards into the main one)."""

    def __init__(self, outdir: Path, shard: str = "", out: RemoteOut | None = None) -> None:
        self.path = outdir / (shard_manifest(shard) if shard else MANIFEST)
        self.out = out  # the output folder on an object store: the manifest is one object there
        self.shard = shard
        self.sources: dict[str, Entry] = {}
        self.mine: set[str] = set()  # a shard's own sources (written to its file)
        self.dirty = False

    @classmethod
    def load(cls, outdir: Path, shard: str = "", out: RemoteOut | None = None) -> Manifest:
        manifest = cls(outdir, shard, out)
        manifest.sources = manifest._read(MANIFEST)
        if shard:
            own = manifest._read(manifest.path.name)
            manifest.sources.update(own)
            manifest.mine = set(own)
        return manifest

    def save(self) -> None:
        keys = self.mine if self.shard else self.sources.keys()
        entries = {k: self.sources[k] for k in keys if k in self.sources}
        if self.out is not None:
            self.out.write(self.path.name, encode_entries(entries))
        else:
            write_entries(self.path, entries, f"{self.shard}-" if self.shard else "")
        self.dirty = False

    def _read(self, name: str) -> dict[str, Entry]:
        if self.out is not None:
            return parse_entries(self.out.read(name))
        return read_entries(self.path.parent / name)

    def set(self, source: str, entry: Entry) -> None:
        self.sources[source] = entry
        self.mine.add(source)
        self.dirty = True

    def drop(self, source: str) -> None:
        self.mine.discard(source)
        if self.sources.pop(source, None) is not None:
            self.dirty = True

    def claims(self, exists: Callable[[str], bool] = os.path.exists) -> dict[str, str]:
        """Output path -> the source that owns it, for sources that still exist."""
        owners: dict[str, str] = {}
        for source, entry in self.sources.items():
            if exists(source):
                for output in entry.outputs:
                    owners.setdefault(output, source)
        return owners
