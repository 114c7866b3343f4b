"""Issue 28: what the validator remembers per native id is a 16-byte digest, not a string.

`asr convert` validates its own output, so the validator's per-id state is part of the
conversion's peak RSS. The ids it keeps for references and native-id checks (messageId,
callId, ...) go to ``core.digests.DigestMap``: the memory it holds grows by tens of bytes an
id, not by a dict entry and a Python string each (~228 bytes for the three tables it had).
"""

from __future__ import annotations

import tracemalloc

import pytest

from asr_adapters.validate.references import ID_LIMIT
from asr_adapters.validate.stream import StreamValidator

# heavy: streams of many MB under tracemalloc (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy


def _held(ids: int) -> int:
    """Bytes the validator holds (traced by Python: not SQLite's own, once ids move to disk)
    after ``ids`` messages, each with its own messageId, and as many tool calls."""
    tracemalloc.start()
    try:
        validator = StreamValidator()
        base = tracemalloc.get_traced_memory()[0]
        header = {"type": "session", "seq": 1, "id": "r1", "session": "x:1"}
        validator.add({**header, "agent": {"name": "x"}, "producer": {"name": "p"}})
        seq = 1
        for n in range(ids):
            seq += 1
            validator.add({"type": "message", "seq": seq, "id": f"r{seq}", "messageId": f"message-{n:012d}"})
            seq += 1
            validator.add({"type": "tool_call", "seq": seq, "id": f"r{seq}", "callId": f"call_{n:024d}"})
        held = tracemalloc.get_traced_memory()[0] - base
        validator.finish()
        return held
    finally:
        tracemalloc.stop()


def test_per_id_state_is_a_digest_not_a_string() -> None:
    assert ID_LIMIT is not None and ID_LIMIT > 20_000  # both sizes held in memory
    small, large = _held(2_000), _held(20_000)
    per_id = (large - small) / 36_000  # 18,000 more of each of the two kinds of id
    # before: ~228 bytes an id (a dict entry and a string in _fields, _owner, _tips each); then
    # each id in two DigestMaps (_fields, _owner: 16 to 32 bytes each with the table's free
    # slots) and 12 bytes a record (_kinds, _forward): about 85-90 from 20,000 to 120,000;
    # then the two maps were one (core.digest_pairs: one entry holds both values): about 49
    # there, and about 121 from 2,000 to 20,000 (the table's growth, 4 MiB tables made early);
    # now a record's type is one byte (_kinds), _forward holds only the targets of revisions
    # and the tables are sized for ID_LIMIT: about 15
    assert per_id < 40, per_id


def test_what_the_check_holds_stops_growing_past_its_limit() -> None:
    """Past ``ID_LIMIT`` ids a table's older ids move to disk (issue 28: the check's peak RSS
    flat from 100 MB to 1 GB): what stays in memory grows by one byte a record (its type)."""
    assert ID_LIMIT is not None and 2 * ID_LIMIT < 60_000
    small, large = _held(60_000), _held(180_000)
    per_record = (large - small) / 240_000  # 120,000 more messages and as many tool calls
    # before (a 196,608-id limit, a list of types and an array of positions): about 30.5
    # bytes a record; now about 0.9
    assert per_record < 3, per_record
