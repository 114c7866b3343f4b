"""The bad-input corpus: each case built at test time from a small golden input.

Nothing here is committed as a binary: a case is a function from the clean input's bytes to
the bad bytes, so the 100 MB line and the JSON nested 100,000 deep exist only in a tmp dir.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
from golden_support import GOLDEN, sql_script

#: One clean input per agent and format; every line case is derived from these.
LINE_INPUTS: dict[str, tuple[str, Path]] = {
    "codex": ("codex", GOLDEN / "codex" / "10-tool-calls-every-kind" / "input.jsonl"),
    "claude-code": ("claude-code", GOLDEN / "claude-code" / "fold-tool-calls" / "input.jsonl"),
    "openclaw": ("openclaw", GOLDEN / "openclaw" / "thinking-tools-status" / "input.jsonl"),
    "gemini-cli": ("gemini-cli", GOLDEN / "gemini-cli" / "jsonl-tool-calls" / "input.jsonl"),
}
#: Single-document inputs (one JSON object, not lines).
DOCUMENT_INPUTS: dict[str, tuple[str, Path]] = {
    "gemini-cli-json": ("gemini-cli", GOLDEN / "gemini-cli" / "json-tool-calls" / "input.json"),
    "codex-json": ("codex", GOLDEN / "codex" / "18-json-g0" / "input.json"),
}
#: SQLite inputs (built from input.sql).
SQLITE_INPUTS: dict[str, tuple[str, Path]] = {
    "openclaw-sqlite": ("openclaw", GOLDEN / "openclaw" / "sqlite-era" / "input.sql"),
    "t3code-v1": ("t3code", GOLDEN / "t3code" / "v1-activities" / "input.sql"),
    "t3code-v2": ("t3code", GOLDEN / "t3code" / "v2-turn-items" / "input.sql"),
}
AGENTS = ("claude-code", "codex", "gemini-cli", "openclaw", "t3code")

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa"
    + bytes(range(256)) * 8
    + b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


@dataclass(frozen=True)
class Bad:
    """The bad bytes and, when the damage is one spot, the 1-based line number of that spot."""

    data: bytes
    line: int | None = None


def lines_of(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def middle(lines: list[bytes]) -> int:
    return max(1, len(lines) // 2)


def insert(lines: list[bytes], at: int, new: bytes) -> Bad:
    """``new`` inserted as line ``at + 1`` (so the lines before it are the clean prefix)."""
    return Bad(b"".join(lines[:at]) + new + b"".join(lines[at:]), at + 1)


def empty(data: bytes) -> Bad:
    return Bad(b"")


def blank(data: bytes) -> Bad:
    return Bad(b"\n  \n\t\r\n\n")


def header_only(data: bytes) -> Bad:
    return Bad(lines_of(data)[0])


def cut_last_line(data: bytes) -> Bad:
    lines = lines_of(data)
    last = lines[-1].rstrip(b"\n")
    return Bad(b"".join(lines[:-1]) + last[: len(last) // 2], len(lines))


def corrupt_middle(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b'{"type": "message", "oops\n')


def _damage(data: bytes, junk: bytes) -> Bad:
    """``junk`` put inside the first string value of the middle line."""
    lines = lines_of(data)
    at = middle(lines)
    line = lines[at]
    i = line.find(b'":"')
    i = line.find(b'": "') + 1 if i < 0 else i
    damaged = line[: i + 3] + junk + line[i + 3 :]
    return Bad(b"".join(lines[:at]) + damaged + b"".join(lines[at + 1 :]), at + 1)


def invalid_utf8(data: bytes) -> Bad:
    return _damage(data, b"\xff\xfe\xc3\x28\xed\xa0\x80")


def nul_bytes(data: bytes) -> Bad:
    return _damage(data, b"\x00\x00")


def nul_line(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b"\x00" * 4096 + b"\n")


def json_array(data: bytes) -> Bad:
    """The whole session as one JSON array (one line), where JSON Lines is expected."""
    return Bad(b"[" + b",".join(line.strip() for line in lines_of(data) if line.strip()) + b"]\n")


def json_array_pretty(data: bytes) -> Bad:
    values = [orjson.loads(line) for line in lines_of(data) if line.strip()]
    return Bad(orjson.dumps(values, option=orjson.OPT_INDENT_2))


def png(data: bytes) -> Bad:
    return Bad(PNG)


def nested_100k(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b'{"type":"x","a":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")


def nested_300(data: bytes) -> Bad:
    """Deeper than orjson writes (255) but within what it reads (1024): an unknown line kept verbatim."""
    lines = lines_of(data)
    return insert(lines, middle(lines), b'{"type":"future_deep","a":' + b"[" * 300 + b"]" * 300 + b"}\n")


def numbers_beyond_64_bits(data: bytes) -> Bad:
    lines = lines_of(data)
    line = (
        b'{"type":"future_numbers","u":18446744073709551616,"i":-9223372036854775809,'
        b'"big":123456789012345678901234567890123}\n'
    )
    return insert(lines, middle(lines), line)


def number_overflow(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b'{"type":"future_numbers","f":1e400}\n')


def duplicate_keys(data: bytes) -> Bad:
    """Every object line gets its first key again at the end, with another value."""
    out = []
    for line in lines_of(data):
        text = line.rstrip(b"\r\n")
        if text.startswith(b"{") and text.endswith(b"}") and len(text) > 2:
            key = text[1 : text.index(b":")]
            text = text[:-1] + b"," + key + b':"duplicate"}'
        out.append(text + b"\n")
    return Bad(b"".join(out))


def future_version(data: bytes) -> Bad:
    """Unknown line types and, on every object line, unknown fields from a later version."""
    out = []
    for line in lines_of(data):
        text = line.rstrip(b"\r\n")
        if text.startswith(b"{") and text.endswith(b"}") and len(text) > 2:
            text = text[:-1] + b',"zzFutureField":{"v":2,"list":[1,"two",null]}}'
        out.append(text + b"\n")
    at = middle(out)
    future = (
        b'{"type":"hologram","timestamp":"2031-01-01T00:00:00.000Z","payload":{"beam":"on"},'
        b'"uuid":"f0000000-0000-4000-8000-000000000001","id":"f1"}\n'
    )
    return insert(out, at, future)


def scalar_lines(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b'1\n"just a string"\nnull\n[]\ntrue\n{}\n')


def crlf(data: bytes) -> Bad:
    return Bad(data.replace(b"\n", b"\r\n"))


def garbage_line_100mb(data: bytes) -> Bad:
    lines = lines_of(data)
    return insert(lines, middle(lines), b"x" * (100 << 20) + b"\n")


LINE_CASES: dict[str, Callable[[bytes], Bad]] = {
    "empty": empty,
    "blank": blank,
    "header-only": header_only,
    "cut-last-line": cut_last_line,
    "corrupt-middle-line": corrupt_middle,
    "invalid-utf8": invalid_utf8,
    "nul-bytes-in-line": nul_bytes,
    "nul-line": nul_line,
    "json-array": json_array,
    "json-array-pretty": json_array_pretty,
    "png": png,
    "nested-100000": nested_100k,
    "nested-300": nested_300,
    "numbers-beyond-64-bits": numbers_beyond_64_bits,
    "number-overflow": number_overflow,
    "duplicate-keys": duplicate_keys,
    "future-version": future_version,
    "scalar-lines": scalar_lines,
    "crlf": crlf,
}

#: Cases with one bad spot: that line is reported and everything before it is kept.
REPORTED = {
    "cut-last-line",
    "corrupt-middle-line",
    "invalid-utf8",
    "nul-bytes-in-line",
    "nul-line",
    "nested-100000",
    "number-overflow",
}


def doc_cut(data: bytes) -> Bad:
    return Bad(data[: len(data) // 2])


def doc_header_only(data: bytes) -> Bad:
    document = orjson.loads(data)
    keep = {k: v for k, v in document.items() if not isinstance(v, list)}
    return Bad(orjson.dumps(keep))


def doc_future(data: bytes) -> Bad:
    document = orjson.loads(data)
    document["zzFutureField"] = {"v": 2}
    for value in document.values():
        if isinstance(value, list):
            value.insert(len(value) // 2, {"type": "hologram", "id": "f1", "zzFutureField": [1, 2]})
            for item in value:
                if isinstance(item, dict):
                    item["zzFutureField"] = True
    return Bad(orjson.dumps(document, option=orjson.OPT_INDENT_2))


def doc_nested(data: bytes) -> Bad:
    return Bad(data.rstrip()[:-1] + b',"zzDeep":' + b"[" * 100_000 + b"]" * 100_000 + b"}")


def doc_nested_300(data: bytes) -> Bad:
    return Bad(data.rstrip()[:-1] + b',"zzDeep":' + b"[" * 300 + b"]" * 300 + b"}")


def doc_invalid_utf8(data: bytes) -> Bad:
    i = data.find(b'": "')
    return Bad(data[: i + 4] + b"\xff\xfe" + data[i + 4 :])


def doc_duplicate_keys(data: bytes) -> Bad:
    text = data.rstrip()
    key = text[text.index(b'"') : text.index(b":")]
    return Bad(text[:-1] + b"," + key + b':"duplicate"}')


def doc_numbers(data: bytes) -> Bad:
    return Bad(data.rstrip()[:-1] + b',"zzNumbers":[18446744073709551616,-9223372036854775809,1e300]}')


def doc_array(data: bytes) -> Bad:
    return Bad(b"[" + data + b"]")


def doc_jsonl(data: bytes) -> Bad:
    """The document's entries as JSON Lines, where one document is expected."""
    document = orjson.loads(data)
    lists = [v for v in document.values() if isinstance(v, list)]
    return Bad(b"".join(orjson.dumps(item) + b"\n" for item in (lists[0] if lists else [document])))


DOCUMENT_CASES: dict[str, Callable[[bytes], Bad]] = {
    "empty": empty,
    "blank": blank,
    "header-only": doc_header_only,
    "cut": doc_cut,
    "invalid-utf8": doc_invalid_utf8,
    "nul-bytes": lambda data: Bad(data[:20] + b"\x00" + data[20:]),
    "json-array": doc_array,
    "jsonl-instead": doc_jsonl,
    "png": png,
    "nested-100000": doc_nested,
    "nested-300": doc_nested_300,
    "numbers-beyond-64-bits": doc_numbers,
    "duplicate-keys": doc_duplicate_keys,
    "future-version": doc_future,
}


_BUILT: dict[Path, bytes] = {}


def build_sqlite(sql: Path, target: Path, *, wal: bool = False) -> Path:
    """The database ``sql`` builds, at ``target`` (built once per test run, then copied)."""
    if sql not in _BUILT:
        scratch = target.with_name(target.name + ".build")
        with sqlite3.connect(scratch) as connection:
            connection.execute("PRAGMA synchronous=OFF")
            connection.executescript(sql_script(sql))
        connection.close()
        _BUILT[sql] = scratch.read_bytes()
        scratch.unlink()
    target.write_bytes(_BUILT[sql])
    if wal:
        with sqlite3.connect(target) as connection:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.close()
    return target
