"""What a batch did: counts by outcome, agent and reason (``asr batch`` prints it, ``--json``
on stdout)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..core.accounting import MAX_DIAGNOSTICS
from .homes import Home

if TYPE_CHECKING:
    from .worker import Result

ERRORS = "_errors.jsonl"
#: How many files not converted the summary lists by name (all are counted).
MAX_UNCLAIMED_LISTED = 1000


def errors_name(shard: str = "") -> str:
    """``_errors.jsonl``, or a shard's own ``_errors.shard-K-of-N.jsonl``."""
    return f"_errors.{shard}.jsonl" if shard else ERRORS


@dataclass
class AgentCounts:
    converted: int = 0
    skipped: int = 0
    failed: int = 0
    streams: int = 0
    records: int = 0


@dataclass
class Summary:
    converted: int = 0
    skipped: int = 0
    failed: int = 0
    unclaimed: int = 0
    unclaimed_reasons: Counter[str] = field(default_factory=Counter)
    #: each file not converted and why (``{"path", "reason"}``), the first ``MAX_UNCLAIMED_LISTED``
    unclaimed_files: list[dict[str, str]] = field(default_factory=list)
    filtered: int = 0
    other_shards: int = 0
    shard: str = ""
    skipped_folders: Counter[str] = field(default_factory=Counter)
    gone: int = 0
    streams: int = 0
    records: int = 0
    bytes: int = 0
    warnings: int = 0
    #: the warning rows written to ``_errors.jsonl`` (every source's, converted now or before)
    warnings_in_errors_file: int = 0
    agents: dict[str, AgentCounts] = field(default_factory=dict)
    record_types: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    #: sources that are identical copies of another (batch.copies): recorded, not converted again
    copies: int = 0
    vendor: int = 0
    seconds: float = 0.0
    outdir: str = ""
    roots: list[str] = field(default_factory=list)
    homes: list[Home] = field(default_factory=list)

    def count_unclaimed(self, path: str, reason: str, key: str | None = None) -> None:
        """A file not converted: counted under ``key`` (default ``reason``), listed with ``reason``."""
        self.unclaimed += 1
        self.unclaimed_reasons[key or reason] += 1
        if len(self.unclaimed_files) < MAX_UNCLAIMED_LISTED:
            self.unclaimed_files.append({"path": path, "reason": reason})

    def agent(self, name: str) -> AgentCounts:
        return self.agents.setdefault(name, AgentCounts())

    def count_converted(self, result: Result, counts: AgentCounts) -> None:
        """A converted source's streams, records and accounting, here and in its agent's counts."""
        self.converted += 1
        counts.converted += 1
        streams = len(result.streams)
        records = sum(o.records for o in result.streams)
        self.streams += streams
        self.records += records
        counts.streams += streams
        counts.records += records
        accounting = result.accounting
        self.record_types.update(accounting.get("record_types", {}))
        self.duplicates += int(accounting.get("duplicates", 0))
        self.vendor += int(accounting.get("vendor", 0))
        # result.diagnostics holds the first MAX_DIAGNOSTICS of the conversion's (plus the batch's
        # own, e.g. companions not fetched); the accounting's total counts the ones left out
        omitted = max(0, int(accounting.get("diagnostics", 0)) - MAX_DIAGNOSTICS)
        self.warnings += len(result.diagnostics) + omitted

    @property
    def errors_file(self) -> str:
        if "://" in self.outdir:  # an object store's URL
            return f"{self.outdir.rstrip('/')}/{errors_name(self.shard)}"
        return str(Path(self.outdir) / errors_name(self.shard))

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "converted": self.converted,
            "skipped": self.skipped,
            "failed": self.failed,
            "unclaimed": self.unclaimed,
            "unclaimed_reasons": dict(sorted(self.unclaimed_reasons.items())),
            "unclaimed_files": self.unclaimed_files,
            "filtered": self.filtered,
            "shard": self.shard or None,
            "other_shards": self.other_shards,
            "skipped_folders": dict(sorted(self.skipped_folders.items())),
            "gone": self.gone,
            "streams": self.streams,
            "records": self.records,
            "bytes": self.bytes,
            "warnings": self.warnings,
            "warnings_in_errors_file": self.warnings_in_errors_file,
            "agents": {name: vars(self.agents[name]) for name in sorted(self.agents)},
            "record_types": dict(sorted(self.record_types.items())),
            "duplicates": self.duplicates,
            "copies": self.copies,
            "vendor": self.vendor,
            "seconds": round(self.seconds, 3),
            "outdir": self.outdir,
            "roots": self.roots,
            "errors_file": self.errors_file,
        }

    def describe(self) -> str:
        parts = [f"converted {self.converted}", f"skipped {self.skipped} unchanged", f"failed {self.failed}"]
        text = ", ".join(parts) + f" ({self.streams} streams, {self.records} records) in {self.seconds:.1f} s"
        if self.copies:
            text += f"; {self.copies} identical copies of another source recorded in the manifest, not converted"
        if self.failed:
            text += f"; errors in {self.errors_file}"
        if self.warnings_in_errors_file:
            text += f"; {self.warnings_in_errors_file} warnings in {self.errors_file}"
        if self.unclaimed:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.unclaimed_reasons.items()))
            text += f"; {self.unclaimed} files not converted ({reasons})"
        if self.filtered:
            text += f"; {self.filtered} filtered out"
        if self.skipped_folders:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped_folders.items()))
            text += f"; folders not walked: {reasons}"
        return text


def print_json(summary: Summary, stream: IO[bytes]) -> None:
    stream.write(orjson.dumps(summary.as_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    stream.flush()
