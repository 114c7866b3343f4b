"""Growing sessions: convert what was appended since the last call and continue the same streams.

A hook that runs after every turn calls ``convert_incremental(path, state)`` and appends the
returned bytes to its ASR file; the saved state goes with the file. The concatenation of
every call's output equals a full conversion of the final input, byte for byte.

How (generic, correct for any adapter; see ``docs/library.md`` for the trade-off):

- Only complete lines count: input after the last newline is left for the next call.
- The input is converted again from its start, up to that point (no adapter keeps resumable
  state), and the records already written are checked, not re-emitted: the state keeps their
  count and the sha256 of their bytes for every stream. If they no longer match (the input
  was rewritten, not appended, or the adapter revised a record it had written), the result
  says which streams were rewritten and carries them whole, to replace the file's content.
- A record is written only once it is final: an adapter that yields a record before it has
  seen the end of the input produced it from complete lines alone, so more lines cannot
  change it; records yielded after the end was seen (an open fold flushed, a closing status)
  are held back until more input arrives, or until a call with ``final=True`` (the session
  ended, or the caller wants everything now: a later change then comes back as a rewrite).
- Inputs that are not read line by line (SQLite databases, zstd archives, single JSON
  documents) have no final records before ``final=True``; every such call converts the whole
  input.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO

from .convert import Conversion
from .core.source import HEAD_SIZE, SQLITE_MAGIC, ZSTD_MAGIC, Source, zstd_stream
from .outputs import append_bytes, write_whole
from .stream.writer import StreamWriter
from .version import __version__

STATE_VERSION = 1


@dataclass
class StreamState:
    """What was written of one stream: how many records, how many bytes, and their sha256."""

    records: int = 0
    bytes: int = 0
    sha256: str = hashlib.sha256(b"").hexdigest()


@dataclass
class IncrementalState:
    """Saved between calls (``to_dict()`` is JSON; ``from_dict()`` reads it back)."""

    agent: str | None = None
    producer: str = __version__
    offset: int = 0
    input_sha256: str = hashlib.sha256(b"").hexdigest()
    streams: dict[str, StreamState] = field(default_factory=dict)
    main: str | None = None
    final: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "agent": self.agent,
            "producer": self.producer,
            "offset": self.offset,
            "input_sha256": self.input_sha256,
            "main": self.main,
            "final": self.final,
            "streams": {k: vars(v).copy() for k, v in self.streams.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IncrementalState:
        if data.get("version") != STATE_VERSION:
            return cls()  # an unknown state: start over (the result then reports rewrites)
        streams = {
            str(k): StreamState(int(v["records"]), int(v["bytes"]), str(v["sha256"]))
            for k, v in data["streams"].items()
        }
        return cls(
            agent=data.get("agent"),
            producer=str(data.get("producer", "")),
            offset=int(data.get("offset", 0)),
            input_sha256=str(data.get("input_sha256", "")),
            streams=streams,
            main=data.get("main"),
            final=bool(data.get("final", False)),
        )


@dataclass
class IncrementalResult:
    """The bytes to write per stream key, and the state to save for the next call.

    For a key in ``rewritten`` the bytes replace the stream's file; for any other key they are
    appended to it. ``data`` / ``rewrite`` are the same for the main stream.
    """

    state: IncrementalState
    streams: dict[str, bytes] = field(default_factory=dict)
    rewritten: frozenset[str] = frozenset()

    @property
    def data(self) -> bytes:
        return self.streams.get(self.state.main or "", b"")

    @property
    def rewrite(self) -> bool:
        return self.state.main in self.rewritten

    def write(self, path: str | os.PathLike[str], key: str | None = None) -> None:
        """Apply one stream's result to its file: append, or replace it atomically on a rewrite."""
        key = self.state.main if key is None else key
        data = self.streams.get(key or "", b"")
        if key in self.rewritten:  # outputs: an exclusive temporary file renamed into place
            write_whole(Path(path), data, direct=True)
        elif data:
            append_bytes(Path(path), data)


def convert_incremental(
    path: str | os.PathLike[str],
    state: IncrementalState | dict[str, Any] | None = None,
    *,
    agent: str | None = None,
    final: bool = False,
) -> IncrementalResult:
    """Convert what ``path`` gained since ``state`` (None: from the start); see the module doc."""
    if isinstance(state, dict):
        state = IncrementalState.from_dict(state)
    previous = state or IncrementalState(agent=agent)
    if previous.producer != __version__:
        previous = IncrementalState(agent=previous.agent)  # another producer's output: start over
    path = Path(path)
    size = os.stat(path).st_size
    line_based = _line_based(path)
    limit = size if final or not line_based else _last_newline(path, size)
    old_hash, new_hash = _hashes(path, previous.offset, limit)
    input_same = old_hash == previous.input_sha256 and previous.offset <= limit
    if input_same and limit == previous.offset and (previous.final or not final):
        return IncrementalResult(previous)
    if limit == 0 and not final:
        gone = frozenset(previous.streams)
        return IncrementalResult(IncrementalState(agent=previous.agent), dict.fromkeys(gone, b""), gone)
    name = agent or previous.agent
    whole: set[str] = set()
    outcome = _pass(path, limit, size, line_based, name, previous.streams, whole, final)
    while outcome.mismatched - whole:  # streams to carry whole; again if a second pass disagrees
        whole |= outcome.mismatched
        outcome = _pass(path, limit, size, line_based, name, previous.streams, whole, final)
    new_state = IncrementalState(
        agent=outcome.agent,
        offset=limit,
        input_sha256=new_hash,
        streams=outcome.states,
        main=outcome.main,
        final=final,
    )
    return IncrementalResult(new_state, outcome.data, frozenset(outcome.mismatched))


@dataclass
class _Outcome:
    agent: str
    main: str | None
    data: dict[str, bytes]
    states: dict[str, StreamState]
    mismatched: set[str]


class _Sink:
    def __init__(self) -> None:
        self.chunk = b""

    def write(self, data: bytes) -> int:
        self.chunk = data
        return len(data)


def _pass(
    path: Path,
    limit: int,
    size: int,
    line_based: bool,
    agent: str | None,
    old: dict[str, StreamState],
    whole: set[str],
    final: bool,
) -> _Outcome:
    """One conversion of the first ``limit`` bytes: the records past what ``old`` says was
    written (every final record for the keys in ``whole``), and the keys whose written
    records no longer match."""
    source = _BoundedSource(path, limit, line_based, size)
    conversion = Conversion(source, agent, as_dicts=True)
    data: dict[str, bytes] = {}
    states: dict[str, StreamState] = {}
    mismatched: set[str] = set()
    main: str | None = None
    for stream in conversion.streams():
        key = stream.key
        if main is None and stream.main:
            main = key
        before = StreamState() if key in whole else old.get(key, StreamState())
        sink = _Sink()
        writer = StreamWriter(sink)  # type: ignore[arg-type]
        digest = hashlib.sha256()
        out = io.BytesIO()
        count = written = 0
        matched = before.records == 0
        holding = False
        for record in stream.records:
            holding = holding or (source.end_seen and not final)
            if holding and count >= before.records:
                continue  # not final yet; drained so the streams after it are reached
            writer.write(record)
            chunk = sink.chunk
            count += 1
            written += len(chunk)
            digest.update(chunk)
            if count > before.records:
                out.write(chunk)
            elif count == before.records:
                matched = digest.hexdigest() == before.sha256 and written == before.bytes
        if not matched:
            mismatched.add(key)
        if key in whole:
            mismatched.add(key)
        states[key] = StreamState(count, written, digest.hexdigest())
        data[key] = out.getvalue()
    for key, before in old.items():
        if key not in states and before.records:
            mismatched.add(key)  # a stream written before is gone: its file is emptied
            data[key] = b""
            states[key] = StreamState()
    return _Outcome(conversion.adapter.name, main, data, states, mismatched)


def _line_based(path: Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(16)
    return not head.startswith(ZSTD_MAGIC) and head != SQLITE_MAGIC


def _last_newline(path: Path, size: int) -> int:
    """The offset just past the last ``\\n`` in the file (0 when there is none)."""
    block = 1 << 16
    with open(path, "rb") as handle:
        end = size
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            index = chunk.rfind(b"\n")
            if index >= 0:
                return start + index + 1
            end = start
    return 0


def _hashes(path: Path, old: int, new: int) -> tuple[str, str]:
    """sha256 of the first ``old`` bytes and of the first ``new`` bytes, in one read."""
    digest = hashlib.sha256()
    found: dict[int, str] = {}
    done = 0
    with open(path, "rb") as handle:
        for stop in sorted({old, new}):
            while done < stop:
                chunk = handle.read(min(1 << 20, stop - done))
                if not chunk:
                    break
                digest.update(chunk)
                done += len(chunk)
            if done == stop:
                found[stop] = digest.hexdigest()
    return found.get(old, ""), found.get(new, "")


class _Limited(io.RawIOBase):
    """The first ``limit`` bytes of a file."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self._raw = raw
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: min(len(buffer), self._left)]
        n = self._raw.readinto(view)  # type: ignore[attr-defined]
        self._left -= n or 0
        return n or 0

    def close(self) -> None:
        self._raw.close()
        super().close()


class _BoundedSource(Source):
    """A path source whose lines stop at ``limit`` bytes, noting when the adapter has seen the end.

    ``end_seen`` turns true when the line iterator is exhausted, when the whole content is read
    at once or the raw stream is opened (single-document formats: these see the file up to
    ``size``, a torn last line included, and nothing they give is final before ``final=True``),
    and from the start for inputs not read by line.
    """

    def __init__(self, path: Path, limit: int, line_based: bool, size: int) -> None:
        super().__init__(path)
        self.limit = limit
        self.size = max(size, limit)
        self.end_seen = not line_based

    def raw_head(self, size: int = HEAD_SIZE) -> bytes:
        assert self.path is not None
        with open(self.path, "rb") as handle:
            return handle.read(min(size, self.limit))

    def head(self, size: int = HEAD_SIZE) -> bytes:
        if not self.compressed:
            return self.raw_head(size)
        with self._bounded() as stream:
            return stream.read(size)

    def _bounded(self, limit: int | None = None) -> BinaryIO:
        assert self.path is not None
        limit = self.limit if limit is None else limit
        raw = io.BufferedReader(_Limited(open(self.path, "rb"), limit), 1 << 16)  # noqa: SIM115
        if self.compressed:  # under the core's ratio and size caps (a bomb is one error)
            return zstd_stream(raw, str(self.path))
        return raw

    def open(self) -> BinaryIO:
        self.end_seen = True
        return self._bounded(self.size)

    def lines(self) -> Iterator[tuple[int, bytes]]:
        with self._bounded() as stream:
            number = 0
            for line in stream:
                number += 1
                if line.endswith(b"\n"):
                    line = line[:-1]
                    if line.endswith(b"\r"):
                        line = line[:-1]
                if not line or line.isspace():
                    continue
                yield number, line
        self.end_seen = True

    def read_all(self) -> bytes:
        self.end_seen = True
        with self._bounded(self.size) as stream:
            return stream.read()
