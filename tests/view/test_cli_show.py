"""``asr show`` from the command line: native files converted on the fly, sites, usage errors."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main
from asr_adapters.stream.reader import read_records
from asr_adapters.view import render_markdown

CASE = GOLDEN / "codex" / "03-user-message-parts"


def test_a_native_file_is_converted_on_the_fly() -> None:
    result = CliRunner().invoke(main, ["show", str(CASE / "input.jsonl")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("<!DOCTYPE html>")
    assert 'data-author="human"' in result.output
    assert "Fix the failing parser test shown here." in result.output


def test_markdown_of_a_native_file_equals_markdown_of_its_stream() -> None:
    result = CliRunner().invoke(main, ["show", str(CASE / "input.jsonl"), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    expected = io.StringIO()
    render_markdown(read_records(CASE / "expected.asr.jsonl"), expected)
    assert result.output == expected.getvalue()


def test_a_page_file_is_written_whole_and_readable(tmp_path: Path) -> None:
    out = tmp_path / "new" / "page.html"
    result = CliRunner().invoke(main, ["show", str(CASE / "expected.asr.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert stat.S_IMODE(out.stat().st_mode) & 0o044, "a page is readable by others, as umask allows"
    assert [p.name for p in out.parent.iterdir()] == ["page.html"], "no temp file left"


def test_a_folder_needs_an_output_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["show", str(CASE)])
    assert result.exit_code == 2
    assert "-o SITE_DIR" in result.output


def test_a_bad_stream_is_listed_in_the_site_not_fatal(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    (archive / "codex").mkdir(parents=True)
    (archive / "codex" / "good.asr.jsonl").write_bytes((CASE / "expected.asr.jsonl").read_bytes())
    (archive / "codex" / "bad.asr.jsonl").write_bytes(b'{"type":"session","seq":1}\nnot json\n')
    result = CliRunner().invoke(main, ["show", str(archive), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "breaks rules of the ASR format" in index  # shown, marked (issue 25.11), not left out
    bad = (tmp_path / "site" / "codex" / "bad.asr.html").read_text(encoding="utf-8")
    assert "not a JSON line" in bad and "the header needs agent.name" in bad
    assert (tmp_path / "site" / "codex" / "good.asr.html").is_file()
    assert not [p for p in (tmp_path / "site" / "codex").iterdir() if p.name.endswith(".part")]


def test_an_unconvertible_file_is_one_error_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2, 3]\n")
    result = CliRunner().invoke(main, ["show", str(junk), "-o", str(tmp_path / "p.html")])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "asr: error:" in result.output
    assert not (tmp_path / "p.html").exists()
    assert os.listdir(tmp_path) == ["junk.json"]


def test_the_page_is_never_written_over_its_input(tmp_path: Path) -> None:
    stream = tmp_path / "s.asr.jsonl"
    stream.write_bytes((CASE / "expected.asr.jsonl").read_bytes())
    before = stream.read_bytes()
    for command in (
        ["show", str(stream), "-o", str(stream)],
        ["export", "--to", "atif", str(stream), "-o", str(stream)],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, result.output
        assert "the output is the input file" in result.output
    assert stream.read_bytes() == before
    assert os.listdir(tmp_path) == ["s.asr.jsonl"]


def test_the_site_index_counts_output_tokens_and_a_page_marks_a_running_count(tmp_path: Path) -> None:
    """Issue 26: the index column says output tokens and showed totals (33.9 M "output" for a
    Codex session whose output is 134 k); a running count is marked as one."""
    usage = GOLDEN / "claude-code" / "usage-normalized" / "expected.asr.jsonl"
    running = GOLDEN / "claude-code" / "todowrite-plan" / "expected.asr.jsonl"
    archive = tmp_path / "archive" / "claude-code"
    archive.mkdir(parents=True)
    (archive / "usage.asr.jsonl").write_bytes(usage.read_bytes())
    result = CliRunner().invoke(main, ["show", str(tmp_path / "archive"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    outputs = sum(r.get("usage", {}).get("outputTokens", 0) for r in read_records(usage))
    totals = sum(r.get("usage", {}).get("totalTokens", 0) for r in read_records(usage))
    assert f'>{outputs:,}</td><td class="num"' in index and f"{totals:,}" not in index
    page = CliRunner().invoke(main, ["show", str(running)])
    assert page.exit_code == 0 and "running count</span>" in page.output
    lines = []
    for line in usage.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["type"] == "message" and "usage" in record:
            record["usage"]["partial"] = True
        lines.append(json.dumps(record))
    marked = tmp_path / "partial.asr.jsonl"
    marked.write_text("\n".join(lines) + "\n", encoding="utf-8")
    markdown = CliRunner().invoke(main, ["show", str(marked), "--format", "markdown"])
    assert "(a running count, not the final one)" in markdown.output
