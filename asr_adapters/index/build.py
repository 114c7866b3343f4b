# Whole, over 400 lines: Builder is one incremental run (fingerprints, transactions, deletions) on one connection.
"""``asr index``: an archive of ASR streams into the index, reading only what changed.

Each stream file is known by its path relative to the archive and its fingerprint (size, mtime,
inode, sha256). A re-run reads a stream again only when its fingerprint changed and its bytes
did too (an ``asr batch`` that rewrites an output with the same bytes costs one hash); a stream
no longer there loses its rows. Streams are indexed in transactions of a few hundred files (or
one big file): a killed run leaves every earlier transaction whole, and the next run indexes
what is missing. Memory holds one record and a few thousand rows at a time, whatever the
stream's size.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ..core.source import BadLine, Source
from ..stream.folders import STREAM_SUFFIXES
from . import schema, store
from .rows import Pending, StreamRows

#: The index's file name inside the archive when no ``-o`` is given.
DEFAULT_NAME = "_index.sqlite"
#: A transaction holds at most this many streams, or this many bytes of them (a bigger stream alone).
BATCH_STREAMS = 256
BATCH_BYTES = 64 << 20
#: Rows (or characters of text) collected, from one stream or several, before they are written.
FLUSH_ROWS = 16384
FLUSH_CHARS = 16 << 20
#: How often (in records) the rows held are counted.
CHECK_EVERY = 512

_INSERTS = {
    table.name: f"INSERT INTO {table.name} ({', '.join(table.names)}) VALUES ({', '.join('?' * len(table.names))})"
    for table in schema.SESSION_TABLES
}
_DELETE_FTS = (
    "INSERT INTO parts_fts (parts_fts, rowid, text) "
    "SELECT 'delete', part_id, text FROM parts WHERE sid = ? AND text IS NOT NULL AND text <> ''"
)
_UPDATE_RESULT = (
    "UPDATE tool_calls SET result_seq = ?, result_ts = ?, result_status = ?, is_error = ?, exit_code = ?, "
    "outcome = ? WHERE sid = ? AND call_id = ? AND result_seq IS NULL"
)
_SESSION_FACTS = (
    "session",
    "agent",
    "agent_version",
    "parent",
    "title",
    "cwd",
    "project",
    "started",
    "ended",
    "models",
    "records",
    "messages",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "total_tokens",
    "cost_usd",
    "unpriced_responses",
    "source_path",
    "size",
    "mtime_ns",
    "inode",
    "sha256",
    "error",
)
_UPDATE_SESSION = f"UPDATE sessions SET {', '.join(f'{c} = ?' for c in _SESSION_FACTS)} WHERE sid = ?"
_COLUMNS = ", ".join(_SESSION_FACTS)
_INSERT_SESSION = f"INSERT INTO sessions ({_COLUMNS}, sid, path) VALUES ({', '.join('?' * (len(_SESSION_FACTS) + 2))})"


@dataclass
class IndexReport:
    """What a run did: streams seen, read, unchanged, removed, unreadable; records read."""

    index: Path
    archive: Path
    streams: int = 0
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    records: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # one line per stream not (wholly) read

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": str(self.index),
            "archive": str(self.archive),
            "streams": self.streams,
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "records": self.records,
            "problems": self.problems,
            "seconds": round(self.seconds, 3),
        }


def stream_files(archive: Path) -> list[str]:
    """Every stream file below ``archive`` as a relative POSIX path, sorted; hidden files and
    folders (temporary outputs) left out, links not followed."""
    found: list[str] = []
    top = os.fspath(archive)
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        relative = os.path.relpath(root, top)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        found.extend(prefix + name for name in files if name.endswith(STREAM_SUFFIXES) and not name.startswith("."))
    return sorted(found)


def default_index(archive: str | os.PathLike[str]) -> Path:
    return Path(archive) / DEFAULT_NAME


class _Hashing(io.RawIOBase):
    """A file read once, its sha256 taken on the way."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._handle.readinto(buffer)  # type: ignore[attr-defined]
        if n:
            self.digest.update(memoryview(buffer)[:n])
        return n or 0

    def drain(self) -> str:
        """Read what the parser left (a stream cut short, a non-stream's rest) and give the digest."""
        while self.read(1 << 20):
            pass
        return self.digest.hexdigest()


def _sha256(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while chunk := handle.read(1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


def _manifest_sources(archive: Path) -> dict[str, str]:
    """Stream path (relative) -> the native source it was converted from, per the batch manifest."""
    from ..batch.manifest import MANIFEST, read_entries

    sources: dict[str, str] = {}
    for source, entry in read_entries(archive / MANIFEST).items():
        for output in entry.outputs:
            sources.setdefault(output, source)
    return sources


def _int64(value: int) -> int | None:
    """A count SQLite can hold (a hostile stream's 10**30 tokens is no count: NULL)."""
    return value if -(1 << 63) <= value < (1 << 63) else None


class Builder:
    """One run over one archive into one open index."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        archive: Path,
        report: IndexReport,
        batch_streams: int = BATCH_STREAMS,
        redactor: Any = None,
    ) -> None:
        self.conn = conn
        #: an ``asr_adapters.redact.Redactor``: every record is redacted before its rows are made
        self.redactor = redactor
        #: every stream is read again, unchanged or not: the index was made with the other
        #: redaction setting (a redacted index keeps no unredacted row, and the reverse)
        self.reread = False
        self.archive = archive
        self.report = report
        self.batch_streams = batch_streams
        self.pending = Pending()
        self.sources = _manifest_sources(archive)
        self.next_part = 0
        self.next_sid = 0
        self._prices: Any = None  # genai-prices' data, loaded at the first stream (stats.prices)

    def _scanner(self) -> Any:
        """The token and cost totals of one stream by the stats summary's rules
        (``stats.totals``): the ones ``asr stats`` reports, not a count of our own."""
        from ..stats.scanner import default_prices
        from ..stats.totals import TotalsScanner

        if self._prices is None:
            self._prices = default_prices()
        return TotalsScanner(self._prices)

    def run(self, paths: list[str], progress: Callable[[int, int], None] | None) -> None:
        known = {row[0] for row in self.conn.execute("SELECT path FROM sessions")}
        wanted = "1" if self.redactor is not None else "0"
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'redacted'").fetchone()
        self.reread = bool(known) and (row[0] if row is not None else "0") != wanted
        if self.redactor is not None:  # rows deleted now leave zeros behind, never their old text
            self.conn.execute("PRAGMA secure_delete = ON")
        gone = sorted(known - set(paths))
        done = 0
        for batch in self._batches(paths):
            with store.transaction(self.conn):
                self.next_part = (self.conn.execute("SELECT max(part_id) FROM parts").fetchone()[0] or 0) + 1
                self.next_sid = (self.conn.execute("SELECT max(sid) FROM sessions").fetchone()[0] or 0) + 1
                for path in batch:
                    self._one(path)
                self._flush()
            done += len(batch)
            if progress is not None:
                progress(done, len(paths))
        if gone:
            with store.transaction(self.conn):
                for path in gone:
                    row = self.conn.execute("SELECT sid FROM sessions WHERE path = ?", (path,)).fetchone()
                    if row is not None:
                        self._delete_rows(row[0])
                        self.conn.execute("DELETE FROM sessions WHERE sid = ?", (row[0],))
                        self.report.removed += 1
        if self.reread and self.redactor is not None:
            # rows an unredacted run wrote are gone from the tables; the full-text index keeps a
            # deleted row's terms until its segments merge, and free pages keep old bytes:
            # merge, then rewrite the file, so no byte of the unredacted index is left
            with store.transaction(self.conn):
                self.conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('optimize')")
            self.conn.execute("VACUUM")
        with store.transaction(self.conn):  # last: a run killed before here is read again whole
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('redacted', ?)", (wanted,))

    def _batches(self, paths: list[str]) -> Iterator[list[str]]:
        batch: list[str] = []
        size = 0
        for path in paths:
            try:
                length = os.lstat(os.path.join(self.archive, path)).st_size
            except OSError:
                length = 0
            if batch and (len(batch) >= self.batch_streams or size + length > BATCH_BYTES):
                yield batch
                batch, size = [], 0
            batch.append(path)
            size += length
        if batch:
            yield batch

    def _one(self, path: str) -> None:
        self.report.streams += 1
        full = os.path.join(self.archive, path)
        try:
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:  # vanished since the walk, or unreadable: its old rows stay
            if exc.errno == errno.ELOOP:
                self.report.problems.append(f"{full}: is a symbolic link; links are not followed")
            elif not isinstance(exc, FileNotFoundError):
                self.report.problems.append(f"{full}: cannot read: {exc.strerror or exc}")
            return
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return
            row = self.conn.execute(
                "SELECT sid, size, mtime_ns, inode, sha256 FROM sessions WHERE path = ?", (path,)
            ).fetchone()
            fingerprint = (info.st_size, info.st_mtime_ns, info.st_ino)
            if row is not None and tuple(row[1:4]) == fingerprint and not self.reread:
                self.report.unchanged += 1
                return
            if row is not None and not self.reread and row[1] == info.st_size and _sha256(handle) == row[4]:
                self.conn.execute(  # touched or rewritten with the same bytes: nothing to read again
                    "UPDATE sessions SET mtime_ns = ?, inode = ? WHERE sid = ?", (info.st_mtime_ns, info.st_ino, row[0])
                )
                self.report.unchanged += 1
                return
            handle.seek(0)
            if row is not None:
                sid = row[0]
                self._delete_rows(sid)
            else:  # a new session's row is written whole once its stream is read
                sid = self.next_sid
                self.next_sid += 1
            self._index(sid, path, handle, fingerprint, new=row is None)

    def _delete_rows(self, sid: int) -> None:
        self.conn.execute(_DELETE_FTS, (sid,))
        for table in schema.SESSION_TABLES:
            self.conn.execute(f"DELETE FROM {table.name} WHERE sid = ?", (sid,))

    def _index(self, sid: int, path: str, handle: IO[bytes], fingerprint: tuple[int, int, int], *, new: bool) -> None:
        reader = _Hashing(handle)
        rows = StreamRows(sid, self.pending)
        scanner = self._scanner()
        pending = self.pending
        redactor = self.redactor
        error: str | None = None
        unreadable = 0
        first = True
        for number, raw in Source(io.BufferedReader(reader, 1 << 16), name=path).lines():
            record: Any = None
            if not isinstance(raw, BadLine):
                try:
                    record = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    reason = f"not JSON: {exc}"
                else:
                    reason = "not a JSON object"
            else:
                reason = raw.reason
            if not isinstance(record, dict):
                unreadable += 1
                error = error or f"line {number}: {reason}"
                first = False
                continue
            if first and record.get("type") != "session":
                error = f"line {number}: not an ASR stream (the first record is not a session header)"
                break
            first = False
            if redactor is not None:
                record = redactor.record(record)
            rows.add(record)
            scanner.observe(record)
            if pending.text_chars > FLUSH_CHARS or (number % CHECK_EVERY == 0 and pending.size() > FLUSH_ROWS):
                self._flush()
        rows.finish()
        if pending.text_chars > FLUSH_CHARS or pending.size() > FLUSH_ROWS:
            self._flush()
        digest = reader.drain()
        if unreadable > 1:
            error = f"{unreadable} unreadable lines; the first: {error}"
        facts = rows.facts
        self.report.indexed += 1
        self.report.records += facts.records
        if error is not None:
            self.report.problems.append(f"{os.path.join(self.archive, path)}: {error}")
        totals = scanner.totals
        tokens = totals.tokens
        priced = totals.priced_by_agent + totals.priced_by_us
        values = [
            facts.session,
            facts.agent,
            facts.agent_version,
            facts.parent,
            facts.title,
            facts.cwd,
            facts.project,
            facts.started,
            facts.ended,
            orjson.dumps(facts.models).decode(),
            facts.records,
            facts.messages,
            *map(_int64, (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, tokens.reasoning)),
            _int64(tokens.input + tokens.output),
            totals.cost if priced or not tokens else None,  # NULL: nothing could be priced
            totals.unpriced,
            self.sources.get(path),
            *fingerprint,
            digest,
            error,
        ]
        if new:
            self.conn.execute(_INSERT_SESSION, [*values, sid, path])
        else:
            self.conn.execute(_UPDATE_SESSION, [*values, sid])

    def _flush(self) -> None:
        """Write the rows held (results that came after their call was written go last)."""
        pending = self.pending
        for table, batch in pending.take():
            if table == "parts":
                fts = []
                for row in batch:
                    row[0] = self.next_part
                    if row[-1]:
                        fts.append((self.next_part, row[-1]))
                    self.next_part += 1
                self.conn.executemany(_INSERTS[table], batch)
                self.conn.executemany("INSERT INTO parts_fts (rowid, text) VALUES (?, ?)", fts)
            else:
                self.conn.executemany(_INSERTS[table], batch)
        if pending.updates:
            self.conn.executemany(_UPDATE_RESULT, pending.updates)
            pending.updates = []


def build_index(
    archive: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    batch_streams: int = BATCH_STREAMS,
    redactor: Any = None,
) -> IndexReport:
    """Index (or bring up to date) every stream under ``archive`` into ``output`` (default
    ``ARCHIVE/_index.sqlite``). Raises ``store.IndexFileError`` for an output that cannot be an
    index and ``outputs.OutputError`` when it cannot be written; a stream that cannot be read
    is one line in ``IndexReport.problems``, never an exception. ``batch_streams``: streams per
    transaction (fewer commit more often, more are faster). ``redactor`` (an
    ``asr_adapters.redact.Redactor``): the rows are made from redacted records, and an index made
    with the other setting is read again whole."""
    started = time.monotonic()
    root = Path(archive)
    if not root.is_dir():
        raise store.IndexFileError(f"{archive}: not a folder of ASR streams")
    root = root.resolve()
    target = Path(output) if output is not None else default_index(root)
    report = IndexReport(index=target, archive=root)
    paths = stream_files(root)
    conn = store.open_for_writing(target, root)
    try:
        Builder(conn, root, report, batch_streams, redactor).run(paths, progress)
    finally:
        store.finish(conn)
    report.seconds = time.monotonic() - started
    return report
