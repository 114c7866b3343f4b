"""Compaction and branch summaries: harness text that replaces history in the context
(docs/format.md, Compaction)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .inbound import HARNESS

_ENVELOPE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})


class SummaryMixin:
    """Needs the mapper's ``adapter``, ``records_of``, ``parent_of``, ``_parent``, ``_ids`` and ``_tail``."""

    if TYPE_CHECKING:
        adapter: Any
        records_of: Any
        parent_of: Any
        _parent: str | None

        def _ids(self, record: dict[str, Any], eid: str, derived: bool) -> dict[str, Any]: ...

        def _tail(self, record: dict[str, Any]) -> None: ...

    def _summary(self, eid: str, derived: bool, base: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
        """A compaction or branch summary: harness text that replaces history in the context."""
        record: dict[str, Any] = {"type": "message", **base}
        self._ids(record, eid, derived)
        record["author"], record["origin"] = HARNESS
        # no audience: the entry does not say who saw the summary (ASR-204; issue 27.16)
        summary = item.get("summary")
        record["content"] = [{"type": "text", "text": summary}] if isinstance(summary, str) else []
        capture: dict[str, Any] = {}
        if not isinstance(summary, str):
            capture["content"] = {"state": "absent", "reason": "no summary stored"}
        capture["role"] = {"state": "absent", "reason": "the provider role is chosen per request"}
        record["capture"] = capture
        self._tail(record)
        if item["type"] == "compaction":
            record["summaryOf"] = "compaction"
            record["compaction"] = self._replaced(item)
        else:  # a summary of the branch left behind: not a spec or profile kind
            record["summaryOf"] = f"{self.adapter.registry_name}/{item['type']}"
        for key, value in item.items():
            if key not in _ENVELOPE_KEYS and key != "summary":
                record[key] = value
        return record

    def _replaced(self, item: dict[str, Any]) -> dict[str, Any]:
        """``compaction.through``: pi keeps the entries from ``firstKeptEntryId`` (v1:
        ``firstKeptEntryIndex``, an index into the file's entries) to the compaction in context,
        so the summary replaces the path ending at the entry before the first kept one; with
        no kept entry, the path ending at the compaction's parent."""
        first = item.get("firstKeptEntryId")
        index = item.get("firstKeptEntryIndex")
        if not isinstance(first, str) and type(index) is int and index >= 0:
            first = f"L{index + 1}"  # v1 ids are derived from line numbers (the header is line 1)
        if isinstance(first, str) and first in self.records_of:
            before = self.parent_of.get(first)
            return {"through": f"r{before}"} if before is not None else {}
        return {"through": self._parent} if self._parent is not None else {}
