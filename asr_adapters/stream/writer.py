"""The canonical stream writer: orjson, one record a line, byte-deterministic."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..core.nesting import MAX_NESTING, depth, too_deep_reason
from ..core.nesting import dumps as nested_dumps
from ..model.order import canonical_order

if TYPE_CHECKING:
    from ..model.api import Envelope

_DUMP_OPTIONS = orjson.OPT_APPEND_NEWLINE


def dumps(record: dict[str, Any]) -> bytes:
    """One record as its canonical line (with the newline)."""
    try:
        return orjson.dumps(record, option=_DUMP_OPTIONS)
    except orjson.JSONEncodeError:
        return _slow_dumps(record)


def _slow_dumps(record: Any) -> bytes:
    """The same compact JSON for the few records orjson refuses: data nested deeper than its
    255 levels, or integers beyond 64 bits. Deterministic, so the same input still gives the same
    bytes. A record nested deeper than ``core.nesting.MAX_NESTING`` is refused: no reader of the
    stream could read it back (converters keep their records within it, see ``core.nesting``)."""
    if depth(record) > MAX_NESTING:
        name = record.get("id") if isinstance(record, dict) else None
        raise ValueError(f"record {name or '?'} is {too_deep_reason(MAX_NESTING)}; not written")
    return nested_dumps(record) + b"\n"


class StreamWriter:
    """Writes records to a binary file; numbers the ones that have no ``seq`` yet.

    Records from an adapter arrive numbered and ordered (see ``Emitter``) and are written as
    they are; records built by hand or as pydantic models are numbered and put in canonical
    key order here.
    """

    def __init__(self, dest: IO[bytes]) -> None:
        self._dest = dest
        self.count = 0

    def write(self, record: dict[str, Any] | Envelope) -> None:
        self.count = count = self.count + 1
        if type(record) is not dict:
            from ..model.api import to_dict

            record = to_dict(record)
        if "seq" not in record:
            record = canonical_order({"type": record["type"], "seq": count, "id": f"r{count}", **record})
        self._dest.write(dumps(record))

    def write_all(self, records: Iterable[dict[str, Any] | Envelope]) -> int:
        write = self.write
        out = self._dest.write
        dumps = orjson.dumps
        option = _DUMP_OPTIONS
        for record in records:
            if type(record) is dict and "seq" in record:  # the adapters' path: numbered, ordered
                self.count += 1
                try:
                    line = dumps(record, option=option)
                except orjson.JSONEncodeError:
                    line = _slow_dumps(record)
                out(line)
            else:
                write(record)
        return self.count


def write_jsonl(records: Iterable[dict[str, Any] | Envelope], dest: str | os.PathLike[str] | IO[bytes]) -> int:
    """Write records as an ASR stream to a path or a binary file object; returns the count.
    A path gets the stream whole or keeps what it held (``asr_adapters.outputs``: an exclusive
    temporary file renamed into place; a FIFO or device is written into)."""
    if isinstance(dest, str | os.PathLike):
        from pathlib import Path

        from ..outputs import binary_output

        with binary_output(Path(dest)) as handle:
            return StreamWriter(handle).write_all(records)
    return StreamWriter(dest).write_all(records)
