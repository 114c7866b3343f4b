"""Issue 25.11 (and 25.22): ``asr show`` and ``asr export`` on ASR streams someone else wrote.

The rule (docs/reliability.md): ``asr show`` shows every line of a stream with the rules it breaks
marked where it is (a line that is not a record, or whose members have the wrong shape, as its
JSON) and summed up at the end; ``asr export`` refuses a stream ``asr validate`` rejects, with its
first finding as the one error line (exit 1). Neither ever prints a traceback. The cases the issue
names are below, then a property over every member of the golden streams.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asr_adapters.cli import main
from asr_adapters.core.nesting import MAX_NESTING
from asr_adapters.core.nesting import dumps as nested_dumps
from asr_adapters.stream.opening import is_asr_file
from asr_adapters.validate import validate

EVERY_KIND = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"
#: Streams whose records the property changes: the hand-made one and one of some agents.
BASES = [
    EVERY_KIND,
    GOLDEN / "codex" / "10-tool-calls-every-kind" / "expected.asr.jsonl",
    GOLDEN / "claude-code" / "todowrite-plan" / "expected.asr.jsonl",
    GOLDEN / "openclaw" / "synthetic-assistants-deliveries" / "expected.asr.jsonl",
]
COMMANDS = [
    ["show"],
    ["show", "--format", "markdown"],
    ["export", "--to", "atif"],
    ["export", "--to", "otel"],
]


def records(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, lines: list[Any]) -> Path:
    path.write_bytes(b"".join((line if isinstance(line, bytes) else nested_dumps(line)) + b"\n" for line in lines))
    return path


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def run(command: list[str], path: Path) -> Any:
    result = CliRunner().invoke(main, [*command, str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{command}: {type(result.exception).__name__}: {result.exception}"
    )
    assert "Traceback" not in result.output
    return result


def check(path: Path) -> None:
    """The rule, for every command, on the stream at ``path``."""
    errors = [f for f in validate(path) if f.is_error]
    stream = is_asr_file(path)
    for command in COMMANDS:
        result = run(command, path)
        if not stream:  # no ASR header: read as a native file, which it is not either
            assert result.exit_code in (0, 1) and len(result.stderr.splitlines()) <= (1 if result.exit_code else 99)
            continue
        if command[0] == "show":
            assert result.exit_code == 0, result.stderr
            page = result.stdout
            summary = 'id="asr-findings"' if len(command) == 1 else "## This stream breaks rules of the ASR format"
            assert "· None" not in page, "a value of the wrong type is not shown as Python's None"
            if errors:
                assert summary in page, "a stream validate rejects is shown with what it breaks marked"
            else:
                assert summary not in page
                assert 'class="rec invalid"' not in page and "not shown as a" not in page, "a valid record fell back"
        elif errors:
            assert result.exit_code == 1, result.output
            (line,) = result.stderr.splitlines()
            first = errors[0]
            assert line.startswith(f"asr: error: {path}") and "not a valid ASR stream" in line
            assert f"{first.rule}: " in line
        else:
            assert result.exit_code == 0, result.stderr
            assert orjson.loads(result.stdout)  # (the standard library stops near 1000 levels)


def changed(index: int, change: dict[str, Any]) -> list[Any]:
    lines = records(EVERY_KIND)
    lines[index] = {**lines[index], **change}
    return lines


#: The streams issue 25.11 names, and a header without ``producer`` (25.22).
NAMED = {
    "origin-list": changed(1, {"origin": ["x"]}),
    "content-true": changed(1, {"content": True}),
    "callId-list": [{**r, "callId": ["x"]} if "callId" in r else r for r in records(EVERY_KIND)],
    "non-object-line": [*records(EVERY_KIND)[:3], [1, 2], *records(EVERY_KIND)[4:]],
    "not-json-line": [*records(EVERY_KIND)[:3], b"{not json", *records(EVERY_KIND)[4:]],
    "nested-990": changed(2, {"extra": nested(990)}),
    "nested-past-the-limit": changed(2, {"extra": nested(MAX_NESTING)}),
    "no-producer": [{k: v for k, v in records(EVERY_KIND)[0].items() if k != "producer"}, *records(EVERY_KIND)[1:]],
    "participants-an-int": changed(0, {"participants": 7, "agent": "codex"}),
    "content-parts-of-every-type": changed(1, {"content": [1, "x", None, [], {"type": ["text"], "text": 5}]}),
}  # fmt: skip


@pytest.mark.parametrize("name", NAMED)
def test_a_stream_someone_else_wrote_is_shown_marked_or_refused_never_a_traceback(name: str, tmp_path: Path) -> None:
    check(write(tmp_path / f"{name}.asr.jsonl", NAMED[name]))


def test_nesting_at_the_limit_is_shown_and_exported(tmp_path: Path) -> None:
    """A record exactly MAX_NESTING levels deep is valid: every command handles it (``show`` used
    to die with RecursionError near 990 levels, ATIF export past orjson's 255)."""
    vendor = next(i for i, r in enumerate(records(EVERY_KIND)) if r["type"] == "vendor")
    path = write(tmp_path / "deep.asr.jsonl", changed(vendor, {"data": nested(MAX_NESTING - 2)}))
    assert validate(path) == []
    check(path)
    page = run(["show"], path).stdout
    assert "[[[" in page and 'id="asr-findings"' not in page


def test_a_header_without_producer_gets_a_true_message(tmp_path: Path) -> None:
    """25.22: show said 'is an ASR stream (asr-adapters output), not a native session log': it
    was not treated as one, then called one. Now it is read as a stream and what it lacks is named."""
    path = write(tmp_path / "s.asr.jsonl", NAMED["no-producer"])
    page = run(["show"], path)
    assert page.exit_code == 0 and "the header needs producer.name" in page.stdout
    assert "asr-adapters output" not in page.output
    exported = run(["export", "--to", "atif"], path)
    assert exported.exit_code == 1 and "PROFILE-header: the header needs producer.name" in exported.stderr


def test_marks_sit_on_the_records_that_break_rules(tmp_path: Path) -> None:
    path = write(tmp_path / "s.asr.jsonl", NAMED["content-true"])
    page = run(["show"], path).stdout
    assert page.count('class="badge fail finding"') >= 1
    start = page.index('id="rec-r2"')
    assert "breaks ASR-200: content must be an array" in page[start : page.index("</article>", start)]
    assert 'id="asr-findings"' in page
    markdown = run(["show", "--format", "markdown"], path).stdout
    assert "> **breaks ASR-200**: content must be an array" in markdown


# -- the property: any member of any record given any other value -------------------------


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip
DEEP = st.integers(0, MAX_NESTING + 30).map(nested)


def slots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(slots(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(slots(item, (*path, index)))
    return found


@settings(
    max_examples=60 * int(os.environ.get("ASR_HYPOTHESIS_SCALE", "1")), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(data=st.data())
def test_any_member_given_any_value_is_shown_marked_or_refused(data: st.DataObject, tmp_path: Path) -> None:
    lines: list[Any] = records(data.draw(st.sampled_from(BASES), label="stream"))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        index = data.draw(st.integers(0, len(lines) - 1), label="record")
        kind = data.draw(st.sampled_from(["member", "member", "member", "line", "deep"]), label="change")
        if kind == "line":
            lines[index] = data.draw(JSON_VALUES | st.just(b"{oops"), label="line")
            continue
        where = slots(lines[index])
        if not where:
            continue
        path = data.draw(st.sampled_from(where), label="member")
        target = lines[index]
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = data.draw(DEEP if kind == "deep" else JSON_VALUES, label="value")
    check(write(tmp_path / "s.asr.jsonl", lines))
