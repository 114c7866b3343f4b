"""The bad-input corpus through ``asr convert``: a complete conversion with the problem counted
and reported, or one clear error line; never a traceback, never a hang; what came before the bad
spot is kept. docs/reliability.md lists what each agent does with each case."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import DOCUMENT_CASES, DOCUMENT_INPUTS, LINE_CASES, LINE_INPUTS, REPORTED, lines_of
from harness import Outcome, content_strings, convert

LINE_PARAMS = [(name, case) for name in LINE_INPUTS for case in LINE_CASES]
DOC_PARAMS = [(name, case) for name in DOCUMENT_INPUTS for case in DOCUMENT_CASES]


def _run(tmp_path: Path, agent: str, data: bytes, suffix: str, forced: bool) -> Outcome:
    path = tmp_path / f"session{suffix}"
    path.write_bytes(data)
    extra = ("--agent", agent) if forced else ()
    return convert(path, tmp_path / ("forced" if forced else "detected"), *extra)


@pytest.mark.parametrize(("name", "case"), LINE_PARAMS, ids=[f"{n}-{c}" for n, c in LINE_PARAMS])
def test_line_case(name: str, case: str, tmp_path: Path) -> None:
    agent, clean_path = LINE_INPUTS[name]
    clean = clean_path.read_bytes()
    bad = LINE_CASES[case](clean)
    forced = _run(tmp_path, agent, bad.data, ".jsonl", forced=True)
    detected = _run(tmp_path, agent, bad.data, ".jsonl", forced=False)
    if detected.converted:
        assert forced.converted and forced.stats == detected.stats
    if case in REPORTED:
        assert forced.converted, forced.describe()
        assert bad.line is not None
        assert any(f"session.jsonl:{bad.line}: " in w for w in forced.warnings), forced.warnings
        assert forced.stats is not None and forced.stats["unreadable"] >= 1
        if bad.line > 1:  # what converted before the bad spot is kept
            prefix = tmp_path / "prefix.jsonl"
            prefix.write_bytes(b"".join(lines_of(clean)[: bad.line - 1]))
            before = convert(prefix, tmp_path / "prefix", "--agent", agent)
            missing = content_strings(before.records) - content_strings(forced.records)
            assert not missing, missing


@pytest.mark.parametrize(("name", "case"), DOC_PARAMS, ids=[f"{n}-{c}" for n, c in DOC_PARAMS])
def test_document_case(name: str, case: str, tmp_path: Path) -> None:
    agent, clean_path = DOCUMENT_INPUTS[name]
    bad = DOCUMENT_CASES[case](clean_path.read_bytes())
    forced = _run(tmp_path, agent, bad.data, ".json", forced=True)
    detected = _run(tmp_path, agent, bad.data, ".json", forced=False)
    if detected.converted:
        assert forced.converted and forced.stats == detected.stats
