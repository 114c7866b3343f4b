"""The loss report: what an export carried, mapped approximately, or dropped, per record type and field.

Exporting ASR is a lossy projection; the report says so out loud. Each entry counts how often
one ASR field (``message.content[reasoning]``, ``tool_call.status`` ...) met one outcome, with
one sentence saying how, so a reader knows what the target format does not hold.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

CARRIED = "carried"
APPROXIMATE = "approximate"
DROPPED = "dropped"
OUTCOMES = (CARRIED, APPROXIMATE, DROPPED)


@dataclass
class LossReport:
    """Counts per (record type, field, outcome), and the sentence saying how for each pair."""

    target: str
    version: str
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    how: dict[tuple[str, str, str], str] = field(default_factory=dict)
    records: Counter[str] = field(default_factory=Counter)
    trajectories: int = 0
    #: Notes met together by records of one shape, counted once per record (cheap per record).
    batches: list[tuple[tuple[str, str, str, str], ...]] = field(default_factory=list)
    batch_counts: list[int] = field(default_factory=list)
    groups: dict[tuple[tuple[str, str, str, str], ...], int] = field(default_factory=dict)

    def add_batch(self, notes: tuple[tuple[str, str, str, str], ...]) -> int:
        """Register notes that records of one shape all meet; count them with ``batch_counts[i] += 1``."""
        self.batches.append(notes)
        self.batch_counts.append(0)
        return len(self.batches) - 1

    def counter(self, *notes: tuple[str, str, str, str]) -> int:
        """The index in ``batch_counts`` of a group of notes met together (registered once per
        group): a writer counts a record with ``batch_counts[index] += 1``."""
        known = self.groups.get(notes)
        if known is None:
            known = self.groups[notes] = self.add_batch(notes)
        return known

    def _fold(self) -> None:
        for notes, count in zip(self.batches, self.batch_counts, strict=True):
            for record_type, name, outcome, how in notes:
                key = (record_type, name, outcome)
                self.counts[key] += count
                if how and key not in self.how:
                    self.how[key] = how
        self.batch_counts[:] = [0] * len(self.batches)  # in place: writers hold the list

    def absorb(self, other: LossReport) -> None:
        """Add another report's counts to this one (a folder export sums its documents')."""
        other._fold()
        self.counts.update(other.counts)
        for key, how in other.how.items():
            self.how.setdefault(key, how)
        self.records.update(other.records)
        self.trajectories += other.trajectories

    def note(self, record_type: str, name: str, outcome: str, how: str = "", count: int = 1) -> None:
        key = (record_type, name, outcome)
        known = self.counts.get(key)
        if known is None:
            self.counts[key] = count
            if how:
                self.how[key] = how
        else:
            self.counts[key] = known + count

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data, fields in a fixed order."""
        self._fold()
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for (record_type, name, outcome), count in sorted(self.counts.items()):
            row = rows.setdefault((record_type, name), {"record": record_type, "field": name})
            row[outcome] = count
            if (record_type, name, outcome) in self.how:
                row.setdefault("how", {})[outcome] = self.how[(record_type, name, outcome)]
        return {
            "target": self.target,
            "version": self.version,
            "trajectories": self.trajectories,
            "records": dict(sorted(self.records.items())),
            "fields": [
                {key: row[key] for key in ("record", "field", *OUTCOMES, "how") if key in row} for row in rows.values()
            ],
        }

    def summary(self, fields: bool = True) -> str:
        """For stderr: a line of totals per outcome, then (``fields``) a line for every field not
        carried whole; without them, the line says how to see them when there are some."""
        self._fold()
        totals = Counter({outcome: 0 for outcome in OUTCOMES})
        for (_, _, outcome), count in self.counts.items():
            totals[outcome] += count
        lines = [
            f"asr export: {self.trajectories} trajectory(ies) as {self.target} {self.version}; "
            f"fields carried {totals[CARRIED]}, approximate {totals[APPROXIMATE]}, dropped {totals[DROPPED]}"
        ]
        if not fields:
            lossy = totals[APPROXIMATE] or totals[DROPPED]
            return lines[0] + (" (-v, or --report FILE, lists each field)" if lossy else "")
        for (record_type, name, outcome), count in sorted(self.counts.items()):
            if outcome != CARRIED:
                how = self.how.get((record_type, name, outcome), "")
                lines.append(f"  {outcome:<11} {count:>6}  {record_type}.{name}" + (f": {how}" if how else ""))
        return "\n".join(lines)
