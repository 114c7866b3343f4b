"""The done-when checks of issue 30 over real archives: the golden inputs batch-converted
(runs everywhere) and the shared samples of every agent (skipped where they are absent).

Phrases are chosen from the streams themselves (``truth``), so the right answer is known
without the index: a phrase only a person typed is found with --author human in its session;
one only injected instructions hold is found without the filter and not with it; ciphertext
is not findable; every message record has its row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.index.search import Search, literal_query, run_search
from index import truth

ARCHIVES = ["golden", pytest.param("samples", marks=pytest.mark.samples)]


def _archive(request: pytest.FixtureRequest, name: str) -> tuple[Path, Path]:
    return request.getfixturevalue(f"{name}_archive"), request.getfixturevalue(f"{name}_index")


def _search(index: Path, *args: str) -> list[dict]:
    result = CliRunner().invoke(main, ["search", *args, "--index", str(index), "--json", "-n", "1000"])
    assert result.exit_code in (0, 1), result.output
    return [orjson.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("name", ARCHIVES)
def test_a_phrase_only_a_person_typed_is_found_as_theirs(request: pytest.FixtureRequest, name: str) -> None:
    archive, index = _archive(request, name)
    words, part = truth.human_only_phrase(archive)
    phrase = '"' + " ".join(words) + '"'
    hits = _search(index, phrase, "--author", "human")
    assert hits, f"{phrase} not found with --author human"
    assert {h["session"] for h in hits} == {part.session}
    assert part.record_id in {h["record_id"] for h in hits}
    assert all(h["author"] == "human" for h in hits)
    assert hits[0]["link"] == f"{archive / part.path}#{hits[0]['record_id']}"


@pytest.mark.parametrize("name", ARCHIVES)
def test_injected_instructions_are_not_a_persons_words(request: pytest.FixtureRequest, name: str) -> None:
    archive, index = _archive(request, name)
    words, part = truth.injected_only_phrase(archive)
    phrase = '"' + " ".join(words) + '"'
    found = _search(index, phrase)
    assert part.record_id in {h["record_id"] for h in found if h["session"] == part.session}
    assert any(h["author"] == "harness" and h["origin"] == "injected" for h in found)
    assert _search(index, phrase, "--author", "human") == []


@pytest.mark.parametrize("name", ARCHIVES)
def test_ciphertext_is_never_findable(request: pytest.FixtureRequest, name: str) -> None:
    archive, index = _archive(request, name)
    blobs = truth.opaque_values(archive)
    assert blobs, "the archive holds encrypted reasoning or signatures"
    conn = sqlite3.connect(index)
    for blob in blobs:
        tokens = sorted({t for t in truth.WORD.findall(blob) if len(t) >= 12}, key=len, reverse=True)[:3]
        for token in tokens:
            assert run_search(index, Search(text=literal_query(token), include_copies=True)) == [], token
        probe = blob[:48]
        assert conn.execute("SELECT count(*) FROM parts WHERE instr(text, ?) > 0", (probe,)).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM tool_calls WHERE instr(input, ?) > 0", (probe,)).fetchone()[0] == 0


@pytest.mark.parametrize("name", ARCHIVES)
def test_every_message_record_has_its_row(request: pytest.FixtureRequest, name: str) -> None:
    archive, index = _archive(request, name)
    expected = truth.message_counts(archive)
    conn = sqlite3.connect(index)
    rows = conn.execute(
        "SELECT s.path, (SELECT count(*) FROM messages m WHERE m.sid = s.sid), "
        "(SELECT count(*) FROM parts p WHERE p.sid = s.sid AND p.record_type = 'message') FROM sessions s"
    ).fetchall()
    assert {path: (messages, parts) for path, messages, parts in rows} == expected
    assert sum(m for m, _ in expected.values()) > 0
    total = sum(1 for p in truth.streams(archive) for r in truth.records(p))
    assert conn.execute("SELECT sum(records) FROM sessions").fetchone()[0] == total


@pytest.mark.parametrize("name", ARCHIVES)
def test_tool_calls_are_joined_to_their_results(request: pytest.FixtureRequest, name: str) -> None:
    archive, index = _archive(request, name)
    calls = results = 0
    paired: set[tuple[str, str]] = set()
    for path in truth.streams(archive):
        ids = set()
        for record in truth.records(path):
            if record["type"] == "tool_call":
                calls += 1
                ids.add(record["callId"])
            elif record["type"] == "tool_result" and record["callId"] in ids:
                results += 1
                paired.add((path.relative_to(archive).as_posix(), record["callId"]))
    conn = sqlite3.connect(index)
    assert conn.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == calls
    joined = conn.execute(
        "SELECT DISTINCT s.path, t.call_id FROM tool_calls t JOIN sessions s USING (sid) WHERE t.result_seq IS NOT NULL"
    ).fetchall()
    assert set(joined) == paired
