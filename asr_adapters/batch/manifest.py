"""The batch manifest: what each source was when it was last converted, and what it became.

``OUTDIR/_manifest.json`` maps each source's absolute path to its agent, size, mtime (ns),
sha256 of its bytes, the producer version that converted it and its outputs (paths relative
to OUTDIR). It is rewritten atomically (temporary file, then rename), so a killed batch
leaves either the old or the new manifest, never half of one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .atomic import atomic_write_bytes, is_relative_name

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
        )


class Manifest:
    def __init__(self, outdir: Path) -> None:
        self.path = outdir / MANIFEST
        self.sources: dict[str, Entry] = {}
        self.dirty = False

    @classmethod
    def load(cls, outdir: Path) -> Manifest:
        manifest = cls(outdir)
        try:
            data = orjson.loads(manifest.path.read_bytes())
        except FileNotFoundError:
            return manifest
        except (OSError, orjson.JSONDecodeError):
            return manifest  # unreadable: every source is converted again, which is always safe
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
            return manifest
        for source, entry in (data.get("sources") or {}).items():
            try:
                loaded = Entry.from_dict(entry)
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            if not os.path.isabs(source) or not all(is_relative_name(o) for o in loaded.outputs):
                continue  # data, not instructions: an entry naming a path outside OUTDIR is dropped
            manifest.sources[source] = loaded
        return manifest

    def save(self) -> None:
        payload = {
            "format": FORMAT,
            "version": VERSION,
            "sources": {k: self.sources[k].as_dict() for k in sorted(self.sources)},
        }
        atomic_write_bytes(self.path, orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        self.dirty = False

    def set(self, source: str, entry: Entry) -> None:
        self.sources[source] = entry
        self.dirty = True

    def drop(self, source: str) -> None:
        if self.sources.pop(source, None) is not None:
            self.dirty = True

    def claims(self) -> dict[str, str]:
        """Output path -> the source that owns it, for sources that still exist."""
        owners: dict[str, str] = {}
        for source, entry in self.sources.items():
            if os.path.exists(source):
                for output in entry.outputs:
                    owners.setdefault(output, source)
        return owners
