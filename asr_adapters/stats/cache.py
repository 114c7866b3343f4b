"""What each input summed up to, kept between runs, so a second ``asr stats`` reads only the
sessions that changed.

One SQLite file (``$XDG_CACHE_HOME/asr-adapters/stats.sqlite``, else ``~/.cache/…``): per input
path, its fingerprint and its summaries as JSON (data, never code to load). The
fingerprint holds what the summaries depend on: the input's size and mtime, those of the files
read with it (a Claude Code session's subagent transcripts: the adapter's ``companion_files``,
or for Claude Code the files listed in the session's folders, ``stamps``),
the code (every module of this package, by size and mtime, so a new version or an edited
adapter reads everything again), the price data, the active-time cap and whether costs were
wanted. Only the main process reads and writes it. A cache that cannot be opened or read is
no cache: every input is then read, and nothing is said but one warning.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from ..outputs import kind_of, make_folder
from .inputs import Input
from .prices import Tokens
from .sources import Summarized
from .summary import Response, SessionSummary, Subagent, ToolCall

#: Bump when what a cached entry holds changes shape.
FORMAT = 6
_TABLE = f"entries{FORMAT}"  # a cache written by another format is a table this one never reads
_SNIFFS = f"sniffs{FORMAT}"


def default_path(env: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    base = environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "asr-adapters" / "stats.sqlite"


def code_fingerprint() -> str:
    """The package's modules by name, size and mtime: any change to the code reads everything again."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"{FORMAT}".encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def stamp_of(item: Input, settings: str) -> str | None:
    """An input's fingerprint now (None when it cannot be taken: then it is not cached). Taken
    in the worker that reads it, before reading: a file that changes while it is read is read
    again next time."""
    try:
        stat = os.stat(item.path)
    except OSError:
        return None
    parts: list[Any] = [settings, stat.st_size, stat.st_mtime_ns]
    if item.kind == "native" and item.agent is not None:
        from ..batch.worker import companions
        from .stamps import listed_companions

        parts.append(companions(item.agent, str(item.path), listed_companions(item.agent, item.path)))
    return hashlib.sha256(orjson.dumps(parts)).hexdigest()


def _refuse_unless_regular(path: Path) -> None:
    """``OSError`` when the cache's name is taken by anything but a regular file (a link, a
    FIFO, a device): SQLite would follow or open it; the run goes on without the cache."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(errno.EEXIST, f"is {kind_of(mode)}, not a regular file; not opened", str(path))


class SummaryCache:
    """``annotate(items)`` with what is known of them, ``load(item)`` the cached ``Summarized``
    of an unchanged input, ``put(item, stamp, result)``, ``keep(item, kind, detail)`` a sniff."""

    def __init__(self, path: Path, settings: str) -> None:
        self.path = path
        self.settings = settings  # code, price data, idle cap, pricing on or off
        self.hits = 0
        self.problem: str | None = None
        self._db: sqlite3.Connection | None = None
        self._pending = 0
        self.code = ""
        try:
            make_folder(path.parent)
            _refuse_unless_regular(path)
            self._db = sqlite3.connect(path, timeout=5)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {_TABLE} (path TEXT, settings TEXT, stamp TEXT, data BLOB,"
                " PRIMARY KEY (path, settings))"
            )
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {_SNIFFS} (path TEXT PRIMARY KEY, code TEXT, size INTEGER,"
                " mtime_ns INTEGER, kind TEXT, detail TEXT)"
            )
            code = self.code = settings.split("|", 1)[0]  # another version of the code: never read again
            self._db.execute(f"DELETE FROM {_TABLE} WHERE substr(settings, 1, ?) != ?", (len(code), code))
            self._db.execute(f"DELETE FROM {_SNIFFS} WHERE code != ?", (code,))
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.problem = f"{self.path}: the stats cache is not used: {exc}"
        if self._db is not None:
            self._db.close()
        self._db = None

    def annotate(self, items: Iterable[Input]) -> Iterator[Input]:
        """The inputs with what the cache knows of each: the sniff of an unchanged file, and
        the fingerprint its summaries were taken at (two queries, not two per file), one by
        one as ``items`` gives them."""
        if self._db is None:
            yield from items
            return
        try:
            sniffs = {
                row[0]: (row[1], row[2], str(row[3]), None if row[4] is None else str(row[4]))
                for row in self._db.execute(
                    f"SELECT path, size, mtime_ns, kind, detail FROM {_SNIFFS} WHERE code = ?", (self.code,)
                )
            }
            stamps = {
                row[0]: row[1]
                for row in self._db.execute(f"SELECT path, stamp FROM {_TABLE} WHERE settings = ?", (self.settings,))
            }
        except sqlite3.Error as exc:
            self._fail(exc)
            yield from items
            return
        for item in items:
            known = sniffs.get(item.real)
            sniffed = known[2:] if known is not None and known[:2] == (item.size, item.mtime_ns) else None
            yield item.but(sniffed=sniffed, cached_stamp=stamps.get(item.real))

    def keep(self, item: Input, kind: str, detail: str | None) -> None:
        """Remember what the content of ``item`` (at its size and mtime) was found to be."""
        if self._db is None:
            return
        try:
            self._db.execute(
                f"INSERT OR REPLACE INTO {_SNIFFS} (path, code, size, mtime_ns, kind, detail)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (item.real, self.code, item.size, item.mtime_ns, kind, detail),
            )
        except sqlite3.Error as exc:
            self._fail(exc)

    def load(self, item: Input) -> Summarized | None:
        """The cached summaries of ``item`` (the worker found its fingerprint unchanged)."""
        if self._db is None:
            return None
        try:
            row = self._db.execute(
                f"SELECT data FROM {_TABLE} WHERE path = ? AND settings = ?", (item.real, self.settings)
            ).fetchone()
        except sqlite3.Error as exc:
            self._fail(exc)
            return None
        if row is None:
            return None
        try:
            result = _load(item, orjson.loads(row[0]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, IndexError):
            return None  # not what this version writes: read the input again
        self.hits += 1
        return result

    def put(self, item: Input, stamp: str | None, result: Summarized, packed: bytes | None = None) -> None:
        """Keep ``result`` (``packed``: already as ``pack`` gives it)."""
        if self._db is None or stamp is None or result.error is not None:
            return
        try:
            self._db.execute(
                f"INSERT OR REPLACE INTO {_TABLE} (path, settings, stamp, data) VALUES (?, ?, ?, ?)",
                (item.real, self.settings, stamp, packed if packed is not None else pack(result)),
            )
            self._pending += 1
            if self._pending >= 500:
                self._db.commit()
                self._pending = 0
        except sqlite3.Error as exc:
            self._fail(exc)

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.commit()
            except sqlite3.Error as exc:
                self._fail(exc)
                return
            self._db.close()
            self._db = None


def pack(result: Summarized) -> bytes:
    """A ``Summarized`` as the cache keeps it (JSON)."""
    return orjson.dumps(_dump(result))


def unpack(item: Input, packed: bytes) -> Summarized:
    """``pack``'s bytes back into the ``Summarized`` of ``item``."""
    return _load(item, orjson.loads(packed))


def _dump(result: Summarized) -> dict[str, Any]:
    return {
        "children": result.children,
        "warnings": result.warnings,
        "warningCount": result.warning_count,
        "summaries": [_dump_summary(s) for s in result.summaries],
    }


def _load(item: Input, data: dict[str, Any]) -> Summarized:
    result = Summarized(item)
    result.children = {str(k): str(v) for k, v in data["children"].items()}
    result.warnings = [str(w) for w in data["warnings"]]
    result.warning_count = int(data["warningCount"])
    result.summaries = [_load_summary(s) for s in data["summaries"]]
    return result


_HEADER = (
    "session", "agent", "agent_version", "title", "cwd", "parent", "file", "first_ts", "last_ts", "first_prompt",
    "opened_by",
)  # fmt: skip
_NUMBERS = ("first_time", "last_time", "active_seconds", "records", "copied_records", "errors")


def _dump_summary(summary: SessionSummary) -> dict[str, Any]:
    data: dict[str, Any] = {name: getattr(summary, name) for name in (*_HEADER, *_NUMBERS)}
    data["responses"] = [
        [r.record, r.ts, r.time, r.model, r.tokens.input, r.tokens.cache_read, r.tokens.cache_write,
         r.tokens.output, r.tokens.reasoning, r.has_usage, r.partial, r.cost, r.cost_by, r.priced_as,
         r.tokens.cache_write_1h, r.input_known]
        for r in summary.responses
    ]  # fmt: skip
    data["calls"] = [
        [c.call_id, c.name, c.ts, c.time, c.outcome, c.status, c.is_error, c.exit_code, c.result_ts, c.model]
        for c in summary.tool_calls
    ]
    data["prompts"] = summary.prompt_times
    data["unattributed"] = summary.unattributed_times
    data["reportsFrom"] = summary.reports_from
    data["subagents"] = [[s.session, s.agent_type, s.description, s.call_id] for s in summary.subagents]
    data["activity"] = [[start, end] for start, end in summary.activity]
    return data


def _load_summary(data: dict[str, Any]) -> SessionSummary:
    summary = SessionSummary(**{name: data[name] for name in (*_HEADER, *_NUMBERS)})
    summary.responses = [
        Response(
            r[0], r[1], r[2], r[3], Tokens(r[4], r[5], r[6], r[7], r[8], r[14]), r[9], r[10], r[11], r[12], r[13], r[15]
        )
        for r in data["responses"]
    ]
    summary.tool_calls = [ToolCall(*c) for c in data["calls"]]
    summary.prompt_times = list(data["prompts"])
    summary.unattributed_times = list(data["unattributed"])
    summary.reports_from = [str(s) for s in data["reportsFrom"]]
    summary.subagents = [Subagent(*s) for s in data["subagents"]]
    summary.activity = [(float(start), float(end)) for start, end in data["activity"]]
    return summary
