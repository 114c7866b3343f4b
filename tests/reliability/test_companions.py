"""Companion files read beside a session (Claude Code's subagents/, OpenClaw's sessions.json,
trajectory and cron files, Gemini CLI's siblings): emptied, cut, binary, the wrong JSON type, or
any of their members (two levels deep) given another type. The session still converts (or is one
InputError), every stream valid, the accounting balanced."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from golden_support import GoldenCase, golden_cases

from asr_adapters import validate_records
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import InputError

# heavy: every companion file of every golden case damaged many ways (.ci/run runs -m heavy)
pytestmark = pytest.mark.heavy

NEW_VALUES = (None, 1, "s", [], {})


def companions(case: GoldenCase) -> list[Path]:
    skip = ("expected", "README", "input.")
    return sorted(p for p in case.folder.rglob("*") if p.is_file() and not p.name.startswith(skip))


CASES = [case for case in golden_cases() if case.input.suffix != ".sql" and companions(case)]


def variants(data: bytes) -> Iterator[bytes]:
    yield from (b"", data[: len(data) // 2], b"\x89PNG\r\n\x1a\n\x00", b"[]", b"null", b'{"a": 1}')
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        lines = data.splitlines(keepends=True)  # JSON Lines: retype the members of its first line
        try:
            value = orjson.loads(lines[0]) if lines else None
        except orjson.JSONDecodeError:
            return  # not JSON (a plan's Markdown): the byte-level variants above are enough
        rest = b"".join(lines[1:])
    else:
        rest = b""
    if not isinstance(value, dict):
        return
    for key in list(value)[:6]:
        for new in NEW_VALUES:
            yield orjson.dumps({**value, key: new}) + (b"\n" + rest if rest else b"")
            inner = value[key]
            if isinstance(inner, dict):
                for key2 in list(inner)[:6]:
                    yield orjson.dumps({**value, key: {**inner, key2: new}}) + (b"\n" + rest if rest else b"")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_damaged_companion_files(case: GoldenCase, tmp_path: Path) -> None:
    folder = tmp_path / case.name
    tried = 0
    for companion in companions(case):
        relative = companion.relative_to(case.folder)
        for data in variants(companion.read_bytes()):
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(case.folder, folder)
            (folder / relative).write_bytes(data)
            tried += 1
            try:
                conversion = Conversion(folder / case.input.name, case.agent, as_dicts=True)
                streams = [(s.key, list(s.records)) for s in conversion.streams()]
            except InputError:
                continue
            for key, records in streams:
                findings = [f for f in validate_records(records) if f.is_error]  # warnings: dangling refs
                assert not findings, f"{relative}: {data[:80]!r}: {key}: {findings[0].describe()}"
            assert conversion.accounting.balanced(), (str(relative), conversion.accounting.as_dict())
    assert tried
