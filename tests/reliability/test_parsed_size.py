"""One item's parsed size is bounded, not only its bytes (issue 25, item 12).

JSON of tiny values costs about 30 times its size once parsed (``[[],[],…]``: an empty list is
about 88 bytes), so a line well under the 256 MiB line limit took gigabytes: under a memory
limit the process died (MemoryError, or SIGSEGV with no message). Each case runs ``asr convert``
in a child process limited to ``MEMORY`` of address space (``limited.run_limited``); the item
would take more than that parsed, so only the bound keeps the run alive: the item is one
unreadable item naming the reason, and everything around it converts.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from corpus import LINE_INPUTS, build_sqlite
from golden_support import GOLDEN
from limited import one_error, run_limited

#: Address space of the child. orjson reserves about 12 times a line's size while it parses it
#: (most of it never touched), so a 42 MB line needs about 600 MiB of address space even as one
#: string; parsed as 14 M tiny values it needs more than 1.2 GB resident on top of that.
MEMORY = 1280 << 20
#: Empty lists: 3 bytes each on disk, about 88 parsed; 14 M of them need about 1.2 GB parsed.
TINY = b"[]," * 14_000_000 + b"[]"
REASON = "more than the 1073741824-byte limit for one item"

#: A line of each line agent holding TINY where its native items hold data.
HUGE_LINES = {
    "codex": b'{"timestamp":"2026-05-11T08:28:00.000Z","type":"event_msg","payload":{"type":"x","v":[' + TINY + b"]}}",
    "claude-code": b'{"type":"x","uuid":"u-huge","v":[' + TINY + b"]}",
    "openclaw": b'{"type":"custom","id":"huge","v":[' + TINY + b"]}",
    "gemini-cli": b'{"type":"info","id":"huge","v":[' + TINY + b"]}",
}


def _stats(result: object) -> dict[str, int]:
    stderr = result.stderr.decode()  # type: ignore[attr-defined]
    return orjson.loads(stderr.strip().splitlines()[-1])["native_items"]


@pytest.mark.heavy  # lines of many MB (.ci/run runs -m heavy)
@pytest.mark.parametrize("agent", sorted(HUGE_LINES))
def test_a_line_of_tiny_values_is_one_unreadable_line_under_a_memory_limit(agent: str, tmp_path: Path) -> None:
    _, clean = LINE_INPUTS[agent]
    lines = clean.read_bytes().splitlines(keepends=True)
    at = len(lines) // 2
    path = tmp_path / clean.name
    path.write_bytes(b"".join([*lines[:at], HUGE_LINES[agent] + b"\n", *lines[at:]]))
    out = tmp_path / "out.asr.jsonl"
    result = run_limited("convert", str(path), "--agent", agent, "-o", str(out), "--stats", memory=MEMORY)
    stderr = result.stderr.decode()
    assert result.returncode == 0, (result.returncode, stderr[-2000:])
    assert f"{path}:{at + 1}: unreadable line skipped: " in stderr and REASON in stderr, stderr[-2000:]
    clean_out = tmp_path / "clean.asr.jsonl"
    before = _stats(run_limited("convert", str(clean), "--agent", agent, "-o", str(clean_out), "--stats"))
    assert _stats(result)["unreadable"] == before["unreadable"] + 1
    assert out.read_bytes().count(b"\n") >= clean_out.read_bytes().count(b"\n") - 1  # the rest converted


def test_a_document_of_tiny_values_is_one_error_under_a_memory_limit(tmp_path: Path) -> None:
    """A Gemini CLI ``.json`` (one document: the document is the item) is refused, not parsed."""
    document = orjson.loads((GOLDEN / "gemini-cli" / "json-tool-calls" / "input.json").read_bytes())
    raw = orjson.dumps({**document, "v": []})
    path = tmp_path / "session.json"
    path.write_bytes(raw.replace(b'"v":[]', b'"v":[' + TINY + b"]"))
    result = run_limited("convert", str(path), "--agent", "gemini-cli", memory=MEMORY)
    assert REASON in one_error(result)


@pytest.mark.heavy  # lines of many MB (.ci/run runs -m heavy)
@pytest.mark.parametrize("agent", ["t3code", "opencode", "openclaw"])
def test_a_row_of_tiny_values_is_one_unreadable_row_under_a_memory_limit(agent: str, tmp_path: Path) -> None:
    case, table, column = {
        "t3code": ("v1-activities", "orchestration_events", "payload_json"),
        "opencode": ("sqlite-turn-tools-usage", "part", "data"),
        "openclaw": ("sqlite-era", "transcript_events", "event_json"),
    }[agent]
    sql = GOLDEN / agent / case / "input.sql"
    clean = build_sqlite(sql, tmp_path / "clean.sqlite")
    before = _stats(run_limited("convert", str(clean), "--agent", agent, "-o", f"{tmp_path}/clean/", "--stats"))
    database = build_sqlite(sql, tmp_path / "input.sqlite")
    with sqlite3.connect(database) as connection:
        rowid, text = connection.execute(
            f"SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        value = orjson.loads(text)
        huge = orjson.dumps({**value, "v": []}).replace(b'"v":[]', b'"v":[' + TINY + b"]").decode()
        connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (huge, rowid))
    connection.close()
    result = run_limited("convert", str(database), "--agent", agent, "-o", f"{tmp_path}/out/", "--stats", memory=MEMORY)
    stderr = result.stderr.decode()
    assert result.returncode == 0, (result.returncode, stderr[-2000:])
    assert REASON in stderr, stderr[-2000:]
    assert _stats(result)["unreadable"] == before["unreadable"] + 1


@pytest.mark.heavy  # lines of many MB (.ci/run runs -m heavy)
def test_the_estimate_counts_values_outside_strings_only() -> None:
    """A long text full of commas is not a long list of values: the second, exact count (outside
    strings) lets it through; tiny values are refused whether or not they are quoted."""
    from asr_adapters.core.items import BYTES_PER_VALUE, MAX_PARSED_BYTES, ItemTooLarge, check_size, parsed_size

    prose = b'{"text":"' + b"a, b, c, " * 8_000_000 + b'"}'
    assert parsed_size(prose) < MAX_PARSED_BYTES < len(prose) + BYTES_PER_VALUE * prose.count(b",")
    check_size(prose)
    with pytest.raises(ItemTooLarge, match="would take about"):
        check_size(b"[" + TINY + b"]")
    quoted = b"[" + b'"a",' * 14_000_000 + b'"a"]'  # 88 bytes parsed each: quoted or not
    with pytest.raises(ItemTooLarge):
        check_size(quoted)
    assert parsed_size(b"[1,2]") == 5  # small items are not scanned


@pytest.mark.heavy  # lines of many MB (.ci/run runs -m heavy)
def test_json_inside_a_string_is_bounded_too(tmp_path: Path) -> None:
    """A Codex tool call whose ``arguments`` string is JSON of tiny values: the line itself is
    small parsed (one long string), the arguments are not parsed; kept as the raw string."""
    _, clean = LINE_INPUTS["codex"]
    lines = clean.read_bytes().splitlines(keepends=True)
    payload = {"type": "function_call", "name": "exec_command", "arguments": "", "call_id": "call_huge"}
    call = orjson.dumps({"timestamp": "2026-05-11T08:28:00.000Z", "type": "response_item", "payload": payload})
    call = call.replace(b'"arguments":""', b'"arguments":"[' + TINY + b']"')
    path = tmp_path / clean.name
    path.write_bytes(b"".join([lines[0], call + b"\n", *lines[1:]]))
    out = tmp_path / "out.asr.jsonl"
    result = run_limited("convert", str(path), "--agent", "codex", "-o", str(out), "--stats", memory=MEMORY)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert _stats(result)["unreadable"] == 0
    (record,) = [r for r in map(orjson.loads, out.read_bytes().splitlines()) if r.get("callId") == "call_huge"]
    assert "input" not in record and record["arguments"].startswith("[[],[],")


@pytest.mark.heavy  # lines of many MB (.ci/run runs -m heavy)
def test_a_huge_first_line_is_not_parsed_by_the_header_prescan(tmp_path: Path) -> None:
    """Claude Code reads header facts from its first lines before converting: that peek is
    bounded the same way (it parsed the line whole before)."""
    _, clean = LINE_INPUTS["claude-code"]
    path = tmp_path / clean.name
    path.write_bytes(HUGE_LINES["claude-code"] + b"\n" + clean.read_bytes())
    result = run_limited("convert", str(path), "--agent", "claude-code", "--stats", memory=MEMORY)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr[-2000:]
    assert f"{path}:1: unreadable line skipped: " in stderr and REASON in stderr
