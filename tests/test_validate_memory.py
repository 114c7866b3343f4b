"""Issue 28: what the validator remembers per native id is a 16-byte digest, not a string.

`asr convert` validates its own output, so the validator's per-id state is part of the
conversion's peak RSS. The ids it keeps for references and native-id checks (messageId,
callId, ...) go to ``core.digests.DigestMap``: the memory it holds grows by tens of bytes an
id, not by a dict entry and a Python string each (~228 bytes for the three tables it had).
"""

from __future__ import annotations

import tracemalloc

import pytest

from asr_adapters.validate.stream import StreamValidator

# heavy: streams of many MB under tracemalloc (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy


def _held(ids: int) -> int:
    """Bytes the validator holds after ``ids`` messages, each with its own messageId, and as
    many tool calls."""
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
    small, large = _held(20_000), _held(120_000)
    per_id = (large - small) / 200_000  # 100,000 more of each of the two kinds of id
    # before: ~228 bytes an id (a dict entry and a string in _fields, _owner, _tips each); then
    # each id in two DigestMaps (_fields, _owner: 16 to 32 bytes each with the table's free
    # slots) and 12 bytes a record (_kinds, _forward): about 85-90; now the two maps are one
    # (core.digest_pairs: one entry holds both values): about 49
    assert per_id < 65, per_id
