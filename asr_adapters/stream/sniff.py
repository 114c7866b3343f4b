"""Telling an ASR stream (our own output) from a native session log by its first line."""

from __future__ import annotations

import orjson

_BOM = b"\xef\xbb\xbf"


def is_asr_stream(head: bytes) -> bool:
    """Whether ``head`` (an input's first bytes) starts an ASR stream: its first line is a
    ``session`` header numbered 1 that names a session and an agent. No native format writes
    such a line (OpenClaw's ``session`` header has no ``seq``), so converting it again as a
    Claude Code or Gemini CLI file is refused instead of producing a stream of vendor records."""
    first = head.removeprefix(_BOM).lstrip().split(b"\n", 1)[0].rstrip(b"\r")
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:  # a header longer than the head: judge by its canonical start
        return first.startswith((b'{"type":"session","seq":1,"id":', b'{"type": "session", "seq": 1, "id":'))
    return (
        type(value) is dict
        and value.get("type") == "session"
        and value.get("seq") == 1
        and isinstance(value.get("session"), str)
        and isinstance(value.get("agent"), dict)
    )
