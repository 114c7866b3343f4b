"""How much the record model's hot path costs over bare orjson.

Writes N typical records through the adapters' path (Emitter: numbering and canonical key
order, then StreamWriter: orjson to a file) and, in the same run, ``orjson.dumps`` of the
equivalent plain dicts to the same kind of file, and prints the ratio. "Typical" records are
the ones we actually write for the shared Codex samples (../shared/samples/codex), cycled to
N; without the samples, a fixed set of six small records stands in. Timings are reported
here, never asserted in tests.

    python scripts/bench_writer.py [--records 1000000] [--small]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import orjson

from asr_adapters.core.accounting import Accounting
from asr_adapters.core.adapter import Emitter
from asr_adapters.stream.writer import StreamWriter

TEMPLATES: list[dict[str, Any]] = [
    {
        "type": "message",
        "ts": "2026-05-11T08:27:20.100Z",
        "turnId": "019e9625-806b-7343-9798-a7ca2de29a04",
        "messageId": "message@L3",
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
                "author": "harness",
                "origin": "injected",
            },
            {"type": "text", "text": "Fix the failing parser test." * 4, "author": "human", "origin": "prompt"},
        ],
        "idSource": "derived",
    },
    {
        "type": "message",
        "ts": "2026-05-11T08:27:25.001Z",
        "turnId": "019e9625-806b-7343-9798-a7ca2de29a04",
        "messageId": "msg_0001",
        "role": "assistant",
        "author": "model",
        "phase": "final",
        "content": [{"type": "text", "text": "The parser rejects empty input. " * 8}],
        "model": "gpt-5.5",
    },
    {
        "type": "message",
        "ts": "2026-05-11T08:27:24.101Z",
        "messageId": "rs_0001",
        "role": "assistant",
        "author": "model",
        "content": [
            {
                "type": "reasoning",
                "visibility": "summary",
                "summary": ["**Checking the empty path**"],
                "opaque": {"format": "openai.encrypted_content", "data": "gAAAAAB" + "x" * 400},
            }
        ],
    },
    {
        "type": "tool_call",
        "ts": "2026-05-11T08:28:00.000Z",
        "callId": "call_A",
        "name": "exec_command",
        "input": {"cmd": "cargo test -p parser", "workdir": "/work/acme-app", "yield_time_ms": 1000},
    },
    {
        "type": "tool_result",
        "ts": "2026-05-11T08:28:02.501Z",
        "callId": "call_A",
        "content": [{"type": "text", "text": "Process exited with code 1\nOutput:\n" + "test ok\n" * 30}],
    },
    {
        "type": "vendor",
        "ts": "2026-05-11T08:28:02.600Z",
        "schema": "com.openai.codex/event_msg/token_count",
        "data": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 22539, "output_tokens": 10}}},
    },
]


SAMPLES = Path(__file__).resolve().parent.parent.parent / "shared" / "samples" / "codex"


def sample_templates() -> list[dict[str, Any]]:
    """The records we write for the shared Codex samples, without their numbers."""
    import asr_adapters

    templates = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        for record in asr_adapters.convert(path, "codex", as_dicts=True):
            templates.append({k: v for k, v in record.items() if k not in ("seq", "id")})
    return templates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--small", action="store_true", help="use the six small built-in records")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the least CPU time of each side counts")
    args = parser.parse_args()
    count = args.records
    templates = TEMPLATES if args.small or not SAMPLES.is_dir() else sample_templates()
    source = "six small built-in records" if templates is TEMPLATES else f"{len(templates)} sample records"
    # The adapters' shape: seq/id placeholders right after type (core.adapter.start).
    unnumbered = []
    plain = []
    for n in range(count):
        template = templates[n % len(templates)]
        unnumbered.append({"type": template["type"], "seq": 0, "id": "", **template})
        plain.append({"type": template["type"], "seq": n + 1, "id": f"r{n + 1}", **template})
    dumps = orjson.dumps
    option = orjson.OPT_APPEND_NEWLINE

    floor = ours = float("inf")
    for _ in range(args.repeat):  # least CPU of N: other load on the machine only adds
        fresh = [dict(record) for record in unnumbered]  # the emitter numbers records in place
        with open(os.devnull, "wb") as sink:
            start = time.process_time()
            for record in plain:
                sink.write(dumps(record, option=option))
            floor = min(floor, time.process_time() - start)
        with open(os.devnull, "wb") as sink:
            emit = Emitter(Accounting())
            writer = StreamWriter(sink)
            start = time.process_time()
            writer.write_all(emit(record) for record in fresh)
            ours = min(ours, time.process_time() - start)

    size = sum(len(dumps(r)) for r in plain[: len(templates)]) / min(len(templates), count)
    print(f"records: {count:,} ({source}, {size:,.0f} bytes each on average)")
    print(f"orjson.dumps of plain dicts: {floor:.3f} s CPU")
    print(f"Emitter + StreamWriter:      {ours:.3f} s CPU")
    print(f"ratio: {ours / floor:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
