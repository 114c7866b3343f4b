"""Running ``asr convert`` on bad input in-process, with a deadline, and checking its promises."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.core.accounting import OUTCOMES
from asr_adapters.stream.reader import read_records
from asr_adapters.validate import validate


class Hang(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fails the block (instead of hanging the suite) when it runs longer than ``seconds``."""

    def expired(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    code: int
    stderr: str
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] | None = None
    streams: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def converted(self) -> bool:
        return self.code == 0

    @property
    def records(self) -> list[dict[str, Any]]:
        return [record for records in self.streams.values() for record in records]

    def describe(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        return f"converted: {self.stats}"


def convert(path: Path, out: Path, *extra: str, timeout: float = 60) -> Outcome:
    """``asr convert PATH -o OUT/ --stats``, checked: exit 0 or 1, never a traceback; on 1 exactly
    one ``asr: error:`` line; on 0 balanced accounting, one warning line per diagnostic, and every
    stream written passes the validator."""
    out.mkdir(parents=True, exist_ok=True)
    with deadline(timeout):
        result = CliRunner().invoke(main, ["convert", str(path), "-o", f"{out}/", "--stats", *extra])
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {type(result.exception).__name__}: {result.exception}") from result.exception
    assert "Traceback" not in stderr, stderr
    assert result.exit_code in (0, 1), (result.exit_code, stderr)
    lines = stderr.splitlines()
    outcome = Outcome(result.exit_code, stderr)
    if result.exit_code == 1:
        errors = [line for line in lines if line.startswith("asr: error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], stderr
        assert len(lines) == 1, f"an error is one line: {stderr!r}"
        outcome.error = errors[0].removeprefix("asr: error: ")
        return outcome
    outcome.warnings = [line.removeprefix("asr: warning: ") for line in lines if line.startswith("asr: warning: ")]
    outcome.stats = stats = accounting_of(orjson.loads(lines[-1]))
    assert len(outcome.warnings) == len(lines) - 1, stderr
    assert sum(stats[name] for name in OUTCOMES) == stats["native_items"], stats
    omitted = re.search(
        r": (\d+) more warnings not shown \((\d+) in all\)$", outcome.warnings[-1] if outcome.warnings else ""
    )
    if omitted:  # capped: the first ones with their lines, then one line counting the rest
        assert stats["diagnostics"] == int(omitted[2]) == len(outcome.warnings) - 1 + int(omitted[1])
    else:
        assert stats["diagnostics"] == len(outcome.warnings)
    files = sorted(out.rglob("*.asr.jsonl"))
    assert len(files) == stats["streams"] >= 1
    for file in files:
        # warnings (a reference the damaged input no longer resolves) are not broken rules
        findings = [f for f in validate(file) if f.is_error]
        assert not findings, "\n".join(f.describe() for f in findings[:10])
        outcome.streams[file.relative_to(out).as_posix()] = list(read_records(file))
    return outcome


def accounting_of(stats: dict[str, Any]) -> dict[str, Any]:
    """``--stats`` of a conversion into ``-o DIR/`` in the accounting's own names."""
    native = stats["native_items"]
    assert stats["streams_written"] == stats["streams_found"], stats
    return {
        "native_items": native["total"],
        "records": native["converted"],
        "vendor": native["kept_as_vendor"],
        "folded": native["folded"],
        "duplicates": native["duplicates"],
        "unreadable": native["unreadable"],
        "record_types": stats["records_by_type"],
        "diagnostics": stats["warnings"],
        "streams": stats["streams_written"],
    }


CONTENT_KEYS = ("text", "arguments")


def content_strings(records: list[dict[str, Any]]) -> set[str]:
    """The content a reader cares about: text of every content part and tool input strings."""
    found: set[str] = set()

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("native", "data"):
                    walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in CONTENT_KEYS and value:
            found.add(value)

    for record in records:
        walk(record, None)
    return found
