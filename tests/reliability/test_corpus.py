"""The bad-input corpus through ``asr convert``: a complete conversion with the problem counted
and reported, or one clear error line; never a traceback, never a hang; what came before the bad
spot is kept. docs/reliability.md lists what each agent does with each case."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import DOCUMENT_CASES, DOCUMENT_INPUTS, LINE_CASES, LINE_INPUTS, REPORTED, lines_of
from harness import Outcome, content_strings, convert

#: The cases that are one error line with ``--agent`` given (every other case converts, with the
#: problem counted and reported). docs/reliability.md has the same table.
ERRORS = {
    ("claude-code", "empty"), ("claude-code", "blank"),
    ("codex", "empty"), ("codex", "blank"), ("codex", "json-array"), ("codex", "json-array-pretty"), ("codex", "png"),
    ("openclaw", "empty"), ("openclaw", "blank"), ("openclaw", "json-array-pretty"), ("openclaw", "png"),
    ("gemini-cli", "empty"), ("gemini-cli", "blank"), ("gemini-cli", "json-array-pretty"), ("gemini-cli", "png"),
    ("gemini-cli-json", "empty"), ("gemini-cli-json", "blank"), ("gemini-cli-json", "cut"),
    ("gemini-cli-json", "invalid-utf8"), ("gemini-cli-json", "nul-bytes"), ("gemini-cli-json", "png"),
    ("gemini-cli-json", "nested-100000"),
    ("codex-json", "empty"), ("codex-json", "blank"), ("codex-json", "cut"), ("codex-json", "invalid-utf8"),
    ("codex-json", "nul-bytes"), ("codex-json", "json-array"), ("codex-json", "jsonl-instead"), ("codex-json", "png"),
    ("codex-json", "nested-100000"), ("codex-json", "duplicate-keys"),
}  # fmt: skip
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
    assert forced.converted == ((name, case) not in ERRORS), forced.describe()
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
    assert forced.converted == ((name, case) not in ERRORS), forced.describe()
    if detected.converted:
        assert forced.converted and forced.stats == detected.stats


@pytest.mark.parametrize("name", list(LINE_INPUTS))
@pytest.mark.parametrize("line", [b"[1, 2]", b'"text"', b"42", b"null", b"true"])
def test_line_that_is_not_an_object_is_kept_and_reported(name: str, line: bytes, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    lines = lines_of(clean.read_bytes())
    at = len(lines) // 2
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:at]) + line + b"\n" + b"".join(lines[at:]))
    outcome = convert(path, tmp_path / "out", "--agent", agent)
    assert outcome.converted and any(f"session.jsonl:{at + 1}: " in w for w in outcome.warnings), outcome.warnings


EMPTY = list(LINE_INPUTS)


@pytest.mark.parametrize("name", EMPTY)
@pytest.mark.parametrize("content", [b"", b"\n\n  \n"], ids=["0-bytes", "blank-lines"])
def test_empty_input_is_an_error_or_reported(name: str, content: bytes, tmp_path: Path) -> None:
    agent, _ = LINE_INPUTS[name]
    path = tmp_path / "session.jsonl"
    path.write_bytes(content)
    outcome = convert(path, tmp_path / "out", "--agent", agent)
    assert not outcome.converted or outcome.warnings, outcome.describe()


@pytest.mark.parametrize("case", list(LINE_CASES))
def test_validator_on_the_corpus(case: str, tmp_path: Path) -> None:
    """``asr validate`` on each bad file (made from an ASR stream and from a native input): findings
    or ok, exit 0 or 1, never a traceback."""
    from click.testing import CliRunner
    from golden_support import GOLDEN

    from asr_adapters.cli import main

    stream = GOLDEN / "codex" / "10-tool-calls-every-kind" / "expected.asr.jsonl"
    for index, base in enumerate((stream, LINE_INPUTS["codex"][1])):
        path = tmp_path / f"{index}.asr.jsonl"
        path.write_bytes(LINE_CASES[case](base.read_bytes()).data)
        result = CliRunner().invoke(main, ["validate", str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 1) and "Traceback" not in result.stderr
