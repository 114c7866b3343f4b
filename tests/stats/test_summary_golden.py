"""``session_summary`` over every golden stream of every agent: its token totals are the sums of
the stream's normalized ``usage``, its tool calls are the stream's distinct calls, and nothing in
a stream makes it fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from asr_adapters.stats import session_summary
from asr_adapters.stream import read_records

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
STREAMS = sorted(p for p in GOLDEN.glob("*/*/expected*.asr.jsonl") if not p.parts[-3].startswith("_"))
MEMBERS = ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens", "reasoningTokens")


def test_every_agent_has_golden_streams() -> None:
    from asr_adapters import registry

    agents = {path.parts[-3] for path in STREAMS}
    assert set(registry.names()) <= agents


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parts[-3]}/{p.parts[-2]}/{p.name}")
def test_summary_totals_are_the_streams_usage_sums(path: Path) -> None:
    records = list(read_records(path))
    sums = dict.fromkeys(MEMBERS, 0)
    call_ids: set[str] = set()
    for record in records:
        if "copiedFrom" in record:  # another session's record, replayed: not this session's usage
            continue
        usage = record.get("usage")
        if isinstance(usage, dict):
            for member in MEMBERS:
                value = usage.get(member)
                if isinstance(value, int) and value > 0:
                    sums[member] += value
        if record.get("type") == "tool_call" and isinstance(record.get("callId"), str):
            call_ids.add(record["callId"])
    summary = session_summary(records)
    tokens = summary.tokens
    got = dict(
        zip(
            MEMBERS, (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning), strict=True
        )
    )
    assert got == sums
    assert {call.call_id for call in summary.tool_calls if call.call_id is not None} >= call_ids
    assert summary.session == records[0].get("session")
    assert summary.records == len(records)
    data = summary.as_dict()
    own = [r for r in records if "copiedFrom" not in r]
    assert data["responses"] >= sum(1 for r in own if isinstance(r.get("usage"), dict))
