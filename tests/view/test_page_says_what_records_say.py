"""Issue 31: the page says exactly what the records say (DOM checks in headless Chromium).

Each test renders a golden stream that shows one case and reads the page as a person would:
what the page states must be what the records state, nothing more.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main
from view.conftest import PageWatch, write_chunked

SHOW = GOLDEN / "_show"


def render(stream: Path, out: Path, *extra: str) -> Path:
    result = CliRunner().invoke(main, ["show", str(stream), "-o", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


def record_id(stream: Path, test: Any) -> str:
    """The id of the first record of ``stream`` for which ``test(record)`` holds (golden cases are
    regenerated as adapters change, so tests find records by what they hold, not by number)."""
    import json

    for line in stream.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if test(record):
            return str(record["id"])
    raise AssertionError(f"no such record in {stream}")


def open_page(page: PageWatch, stream: Path, tmp_path: Path) -> PageWatch:
    html = render(stream, tmp_path / "page.html")
    page.page.goto(html.as_uri())
    return page


# item 1: opaque values are never rendered (ASR-215, ASR-232, docs/format.md "Encrypted tool arguments")

HOSTILE_OPAQUE = SHOW / "hostile-opaque" / "stream.asr.jsonl"
CIPHERTEXT = re.compile(r"SEALED0\w+")


def test_no_opaque_value_appears_in_the_page_text_or_attributes(page: PageWatch, tmp_path: Path) -> None:
    every = set(CIPHERTEXT.findall(HOSTILE_OPAQUE.read_text(encoding="utf-8")))
    assert len(every) >= 20, "the hostile stream holds ciphertext in every place"
    html = render(HOSTILE_OPAQUE, tmp_path / "page.html")
    assert CIPHERTEXT.findall(html.read_text(encoding="utf-8")) == []
    p = page.page
    p.goto(html.as_uri())
    p.check("#asr-show-vendor")
    for details in p.locator("details").element_handles():
        details.evaluate("d => d.open = true")
    dom = p.content()
    attributes = p.evaluate(
        "() => Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes).map(a => a.value))"
    )
    assert CIPHERTEXT.findall(dom) == []
    assert CIPHERTEXT.findall(" ".join(attributes)) == []
    assert CIPHERTEXT.findall(p.locator("body").inner_text()) == []
    # each encrypted argument is shown as existing, by name, with its format
    sealed_args = p.locator("#rec-r4 .arg.sealed")
    assert sealed_args.locator(".argname").all_inner_texts() == ["message", "token", "note"]
    assert "encrypted (openai.encrypted_function_args)" in sealed_args.first.inner_text()
    assert "not shown" in p.locator("#rec-r4 pre.json").inner_text(), "a nested opaque value is sealed in the JSON"
    assert p.locator("#rec-r6 pre.shell").count() == 0, "an encrypted shell command is not a command line"
    assert p.locator("#rec-r6 .arg.sealed .argname").inner_text() == "command"
    assert "signature" in p.locator("#rec-r9").inner_text()
    assert not page.console_errors, page.console_errors


def test_no_opaque_value_appears_in_the_markdown() -> None:
    result = CliRunner().invoke(main, ["show", "--format", "markdown", str(HOSTILE_OPAQUE)])
    assert result.exit_code == 0, result.output
    assert CIPHERTEXT.findall(result.output) == []
    assert "token: ‹encrypted, 20 characters: not shown›" in result.output


def test_codex_encrypted_function_args_show_that_the_argument_exists(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "codex" / "29-encrypted-function-args-sealed" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    assert "Q0lQSEVSLW1lc3NhZ2U=" not in p.content()
    assert p.locator("#rec-r2 .arg.sealed .argname").inner_text() == "message"
    assert "/root/worker" in p.locator("#rec-r2 pre.json").inner_text(), "the plaintext arguments stay"
    assert "Also check the CLI entry point." in p.locator("#rec-r4").inner_text()


# item 2: a refused, cancelled or interrupted call is shown by its own status, never as failed


def test_denied_cancelled_and_interrupted_calls_are_not_labelled_failed(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "tool-outcomes" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    expected = {
        "r4": "failed",
        "r8": "denied",
        "r10": "failed",
        "r12": "cancelled",
        "r14": "interrupted",
        "r17": "denied",
    }
    for rid, outcome in expected.items():
        result = p.locator(f"#rec-{rid}")
        assert result.get_attribute("class").split().count(f"outcome-{outcome}") == 1, rid
        assert ("failed" in (result.locator("header").text_content() or "")) == (outcome == "failed"), rid
    assert p.locator("article.tool-result.failed").count() == 2
    assert p.locator("#rec-r6").get_attribute("class") == "rec tool-result", "a success is marked as nothing else"
    assert "refused" in (p.locator("#rec-r8 .badge.outcome").get_attribute("title") or "")
    assert "harness" in (p.locator("#rec-r12 .badge.outcome").get_attribute("title") or "")
    assert p.locator("#rec-r4 .badge.exit").text_content() == "exit code 1"
    # the results sit under their calls, so the call shows its outcome where the reader looks
    assert p.locator('article.tool-call[data-call-id="toolu_E1"] .results .badge.outcome.denied').count() == 1


# item 3: records a rewind, revert or /undo removed are shown removed; revisions as revisions

REWIND = GOLDEN / "gemini-cli" / "jsonl-rewind" / "expected.asr.jsonl"


def removed_by(page: PageWatch) -> dict[str, str]:
    return page.page.evaluate(
        "() => Object.fromEntries(Array.from(document.querySelectorAll('article.removed')).map("
        "a => [a.id, a.querySelector('.badge.removed-by').textContent]))"
    )


def test_a_rewind_shows_what_it_removed_and_the_records_show_what_removed_them(page: PageWatch, tmp_path: Path) -> None:
    p = open_page(page, REWIND, tmp_path).page
    assert removed_by(page) == {
        "rec-r4": "removed by r6 (rewind)",
        "rec-r5": "removed by r6 (rewind)",
        "rec-r2": "removed by r9 (rewind)",
        "rec-r3": "removed by r9 (rewind)",
        "rec-r7": "removed by r9 (rewind)",
        "rec-r8": "removed by r9 (rewind)",
    }
    # the rewinds themselves are on the page, not hidden as bookkeeping
    for rid in ("r6", "r9"):
        assert p.locator(f"#rec-{rid}.removal").is_visible()
    assert p.locator("#rec-r6 a.removed-ref").all_text_contents() == ["r4", "r5"]
    # the message written again after the rewind is live, and a revision of the record it revises
    assert "removed" not in (p.locator("#rec-r10").get_attribute("class") or "")
    assert p.locator('#rec-r10 a.supersedes[href="#rec-r2"]').text_content() == "revises r2"
    assert p.locator("#rec-r2 .badge.revised-by").text_content() == "revised by r10"
    assert "line-through" in p.locator("#rec-r4 .part").first.evaluate("e => getComputedStyle(e).textDecorationLine")
    assert not page.console_errors, page.console_errors


def test_removals_in_a_later_chunk_mark_records_already_on_the_page(page: PageWatch, tmp_path: Path) -> None:
    from asr_adapters.stream.reader import read_records

    html = tmp_path / "page.html"
    assert write_chunked(html, read_records(REWIND), inline_chars=1500, chunk_chars=800) >= 2
    p = page.page
    p.goto(html.as_uri())
    p.click("#asr-load-all")
    assert sorted(removed_by(page)) == ["rec-r2", "rec-r3", "rec-r4", "rec-r5", "rec-r7", "rec-r8"]
    assert not page.console_errors, page.console_errors


def test_a_t3_revert_and_an_opencode_undo_mark_what_they_remove(page: PageWatch, tmp_path: Path) -> None:
    t3 = GOLDEN / "t3code" / "v1-revert-delete" / "expected.t3code_thread-f.asr.jsonl"
    open_page(page, t3, tmp_path)
    assert sorted(removed_by(page)) == ["rec-r6", "rec-r7", "rec-r8", "rec-r9"]
    undo = (
        GOLDEN / "opencode" / "sqlite-abort-steps-undo" / "expected.opencode_ses_37a2f7100ffePartRevert0002.asr.jsonl"
    )
    page.page.goto(render(undo, tmp_path / "undo.html").as_uri())
    assert sorted(removed_by(page)) == ["rec-r3", "rec-r4", "rec-r5", "rec-r6"]


# item 4: the site index takes every figure from the session summary; usage on the record that carries it


def index_cells(page: PageWatch) -> dict[str, dict[str, str]]:
    return page.page.evaluate(
        "() => { const heads = Array.from(document.querySelectorAll('table.index th')).map(h => h.textContent);"
        " return Object.fromEntries(Array.from(document.querySelectorAll('tr.session-row')).map(row => {"
        " const cells = Array.from(row.cells).map(c => c.textContent);"
        " return [cells[0], Object.fromEntries(heads.map((h, i) => [h, cells[i]]))]; })); }"
    )


def usage_sum(stream: Path, member: str) -> int:
    import json

    total = 0
    for line in stream.read_text(encoding="utf-8").splitlines():
        usage = json.loads(line).get("usage")
        total += usage.get(member, 0) if isinstance(usage, dict) else 0
    return total


def test_the_site_index_columns_say_what_they_count(page: PageWatch, tmp_path: Path) -> None:
    from asr_adapters.stats import session_summary

    codex = GOLDEN / "codex" / "30-usage-follows-the-response" / "expected.asr.jsonl"
    claude = GOLDEN / "claude-code" / "tool-outcomes" / "expected.asr.jsonl"
    archive = tmp_path / "archive"
    archive.mkdir()
    for name, stream in (("codex", codex), ("claude", claude)):
        (archive / f"{name}.asr.jsonl").write_bytes(stream.read_bytes())
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["show", str(archive), "-o", str(site)])
    assert result.exit_code == 0, result.output
    page.page.goto((site / "index.html").as_uri())
    cells = index_cells(page)
    assert set(cells) == {"codex", "claude-code"}
    for agent, stream in (("codex", codex), ("claude-code", claude)):
        row, summary = cells[agent], session_summary(stream)
        # tokens as the records' usage adds them up (totals are not output: 55,500 is not 430)
        assert row["output tokens"] == f"{usage_sum(stream, 'outputTokens'):,}"
        assert row["input tokens"] == f"{usage_sum(stream, 'inputTokens'):,}"
        assert row["responses"] == str(summary.totals.responses)
        assert row["tool calls"] == str(len(summary.tool_calls))
        assert row["prompts"] == str(summary.prompts)
    assert cells["codex"]["output tokens"] == "430"
    # two failures: the refused, cancelled and interrupted calls are not counted as failed
    assert cells["claude-code"]["failed calls"] == "2"
    assert cells["codex"]["cost"] == "unpriced", "a model with no known price is never $0"
    tips = page.page.evaluate("() => Array.from(document.querySelectorAll('table.index th[title]')).length")
    assert tips >= 10, "each figure's header says what it counts"


def test_usage_is_shown_on_the_record_that_carries_it(page: PageWatch, tmp_path: Path) -> None:
    import json

    case = GOLDEN / "claude-code" / "fold-tool-calls" / "expected.asr.jsonl"
    stream = [json.loads(line) for line in case.read_text(encoding="utf-8").splitlines()]
    carriers = [r["id"] for r in stream if isinstance(r.get("usage"), dict)]
    assert any(r["type"] == "tool_call" for r in stream if r["id"] in carriers), "a response whose usage is on a call"
    p = open_page(page, case, tmp_path).page
    shown = p.evaluate(
        "() => Array.from(document.querySelectorAll('article.rec')).filter(a => "
        "Array.from(a.children).some(c => c.classList.contains('usage'))).map(a => a.id)"
    )
    assert sorted(shown) == sorted(f"rec-{rid}" for rid in carriers)


# item 5: no blank subagent entry, no empty model block for text of only whitespace


def test_whitespace_text_and_an_undescribed_subagent_are_not_blank_blocks(page: PageWatch, tmp_path: Path) -> None:
    p = open_page(page, SHOW / "blank-parts" / "stream.asr.jsonl", tmp_path).page
    empty_parts = p.evaluate(
        "() => Array.from(document.querySelectorAll('.part')).filter(e => !e.textContent.replace("
        "e.querySelector('.marker') ? e.querySelector('.marker').textContent : '', '').trim()).length"
    )
    assert empty_parts == 0, "no part is laid out with nothing but its author's label"
    assert p.locator("#rec-r3.blank .part").count() == 0
    assert "only whitespace" in (p.locator("#rec-r3 .note.blank").text_content() or "")
    assert "2 character(s): newline" in (p.locator("#rec-r3").text_content() or "")
    assert p.locator("#rec-r4 .part").count() == 1, "the whitespace beside real text is not a block of its own"
    assert "Renamed in 3 files." in (p.locator("#rec-r4 .part").text_content() or "")
    undescribed = p.locator("#rec-r5").text_content() or ""
    assert "no type or description" in undescribed and "agent-a0b1c2" in undescribed
    assert "no type or description" not in (p.locator("#rec-r6").text_content() or "")
    compaction = GOLDEN / "claude-code" / "compaction" / "expected.asr.jsonl"
    p.goto(render(compaction, tmp_path / "compaction.html").as_uri())
    agent = record_id(compaction, lambda r: r["type"] == "subagent")
    assert "no type or description" in (p.locator(f"#rec-{agent}").text_content() or "")


# item 6: a divider where the context was compacted, with the summary that replaced it


def test_a_compaction_is_a_divider_with_its_summary_open(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "compaction" / "expected.asr.jsonl"
    summary_id = record_id(case, lambda r: r.get("summaryOf") == "compaction")
    through = next(
        json.loads(line)["compaction"]["through"]
        for line in case.read_text(encoding="utf-8").splitlines()
        if '"summaryOf":"compaction"' in line
    )
    p = open_page(page, case, tmp_path).page
    divider = p.locator(".compaction-divider")
    assert divider.count() == 1
    # the divider stands right before the summary, and names what it replaced
    assert (
        p.evaluate("() => document.querySelector('.compaction-divider').nextElementSibling.id") == f"rec-{summary_id}"
    )
    assert p.locator(f'.compaction-divider a.ref[href="#rec-{through}"]').count() == 1
    assert f"from the start of the session through {through}" in (divider.text_content() or "")
    summary = p.locator(f"#rec-{summary_id}")
    assert "summary-compaction" in (summary.get_attribute("class") or "")
    assert summary.locator("details.injected").count() == 0, "the summary is shown, not folded away"
    assert "continued from a previous conversation" in (summary.text_content() or "")


def test_a_compaction_named_by_message_ids_links_to_them(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "cline" / "condense-task-folder" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    links = p.locator(".compaction-divider a.ref")
    assert links.all_text_contents() == ["messageId=api:1", "messageId=api:2"]
    for link in links.element_handles():
        target = (link.get_attribute("href") or "#")[1:]
        assert p.locator(f"#{target}").get_attribute("data-message-id") == link.text_content()[len("messageId=") :]


# item 7: terminal output in colour, never as control glyphs (the record keeps the bytes)


def test_ansi_styles_are_rendered_and_no_escape_reaches_the_page(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "compaction" / "expected.asr.jsonl"
    assert "\\u001b[2mCompacted" in case.read_text(encoding="utf-8")
    output = record_id(case, lambda r: "\\u001b[2mCompacted" in json.dumps(r))
    p = open_page(page, case, tmp_path).page
    assert "\x1b" not in p.content() and "[2m" not in (p.locator("body").text_content() or "")
    dim = p.locator(f"#rec-{output} span.ansi.ansi-dim")
    assert dim.text_content() == "Compacted (ctrl+o to see full summary)"
    assert float(dim.evaluate("e => getComputedStyle(e).opacity")) < 1
    markdown = CliRunner().invoke(main, ["show", "--format", "markdown", str(case)])
    assert "\x1b" not in markdown.output and "Compacted (ctrl+o to see full summary)" in markdown.output


def test_ansi_colours_of_every_kind_and_other_sequences(tmp_path: Path) -> None:
    from asr_adapters.view.ansi import to_html

    html = to_html('\x1b[1;31mbold red\x1b[0m \x1b[38;5;208mo\x1b[39m \x1b[48;2;1;2;3mbg\x1b[m \x1b]0;t\x07\x1b[2K<b>"')
    assert html == (
        '<span class="ansi ansi-bold" style="color:#cd0000">bold red</span> '
        '<span class="ansi " style="color:#ff8700">o</span> '
        '<span class="ansi " style="background-color:#010203">bg</span> &lt;b&gt;"'
    )
    assert to_html("\x1b[38;2;999;0;0mx\x1b[0m") == "x", "an out-of-range colour is no style"


# item 8: an untitled session is named by what the person typed; a slash command as typed


def test_an_untitled_session_is_named_by_the_command_the_person_typed(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "slash-command-lines" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    assert p.locator("header.session h1").text_content() == "/review src/lexer.rs"
    assert p.title() == "/review src/lexer.rs"
    assert p.locator("#rec-r2 .command-line code").text_content() == "/review src/lexer.rs"
    assert p.locator("#rec-r3 .command-line code").text_content() == "/init"
    # the markup as recorded is one click away, folded
    recorded = p.locator("#rec-r2 details.command-recorded")
    assert recorded.get_attribute("open") is None
    assert "<command-name>/review</command-name>" in (recorded.text_content() or "")
    assert "<command-name>" not in (p.locator("#rec-r2 .command-line").text_content() or "")


def test_the_harness_expansion_of_a_command_is_folded_under_it(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "compaction" / "expected.asr.jsonl"
    command = record_id(case, lambda r: "<command-name>/compact" in json.dumps(r))
    output = record_id(case, lambda r: "\\u001b[2mCompacted" in json.dumps(r))
    p = open_page(page, case, tmp_path).page
    assert p.locator(f"#rec-{command} .command-line code").text_content() == "/compact"
    expansion = p.locator(f"#rec-{output} details.injected")
    assert expansion.count() == 1 and expansion.get_attribute("open") is None
    assert "Compacted (ctrl+o to see full summary)" in (expansion.locator("summary").text_content() or "")
    assert "\x1b" not in (expansion.locator("summary").text_content() or "")


def test_the_site_index_names_untitled_sessions_by_their_first_words(page: PageWatch, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    for name, case in (
        ("slash", GOLDEN / "claude-code" / "slash-command-lines" / "expected.asr.jsonl"),
        ("cline", GOLDEN / "cline" / "xml-tools-task-folder" / "expected.asr.jsonl"),
    ):
        (archive / f"{name}.asr.jsonl").write_bytes(case.read_bytes())
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["show", str(archive), "-o", str(site)]).exit_code == 0
    page.page.goto((site / "index.html").as_uri())
    titles = page.page.locator("tr.session-row td a").all_text_contents()
    assert sorted(titles) == ["/review src/lexer.rs", "Add a --verbose flag to cli.py"]
    # a UI-only Cline task: the person's words are only in displayContent (the page review found
    # the index calling it by its id while the page named it by the prompt)
    ui = GOLDEN / "cline" / "ui-only-multiline-command-result" / "expected.asr.jsonl"
    (archive / "ui.asr.jsonl").write_bytes(ui.read_bytes())
    assert CliRunner().invoke(main, ["show", str(archive), "-o", str(tmp_path / "site2")]).exit_code == 0
    page.page.goto((tmp_path / "site2" / "index.html").as_uri())
    titles = page.page.locator("tr.session-row td a").all_text_contents()
    assert len(titles) == 3 and not [t for t in titles if t.startswith("cline:")], titles


# item 10: a shell call shows its command once


def test_a_bash_call_shows_its_command_once(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "tool-outcomes" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    call = p.locator("#rec-r3")
    own_text = call.evaluate(
        "e => Array.from(e.children).filter(c => !c.classList.contains('results')).map(c => c.textContent).join(' ')"
    )
    assert own_text.count("npm test") == 1
    assert call.locator("pre.shell").text_content() == "$ npm test"
    other = call.locator("pre.json").text_content() or ""
    assert '"description": "Run the tests"' in other and '"command"' not in other, "the other members stay"
    markdown = CliRunner().invoke(main, ["show", "--format", "markdown", str(case)]).output
    section = markdown.split("### r3 ·", 1)[1].split("### r4 ·", 1)[0]
    assert section.count("npm test") == 1 and "Run the tests" in section


# item 9: the words a newcomer cannot read are explained (a legend, tooltips)


def test_labels_a_newcomer_cannot_read_are_explained(page: PageWatch, tmp_path: Path) -> None:
    p = open_page(page, SHOW / "every-record-kind" / "stream.asr.jsonl", tmp_path).page
    legend = p.locator("details.legend-words")
    assert legend.count() == 1
    text = legend.text_content() or ""
    for word in (
        "r26",
        "bookkeeping records",
        "injected",
        "reasoning: visibility unknown",
        "seen by user",
        "truncated",
    ):
        assert word in text, word
    assert "number in the stream" in (p.locator("#rec-r3 a.rid").get_attribute("title") or "")
    assert "native items" in (p.locator("label:has(#asr-show-vendor)").get_attribute("title") or "")
    assert "only a summary" in (
        p.locator("#rec-r3 .reasoning.vis-summary .badge.visibility").get_attribute("title") or ""
    )
    assert "only the person saw" in (p.locator("#rec-r15 .badge.audience").get_attribute("title") or "")
    assert "no copy" in (p.locator("#rec-r14 .badge.capture").first.get_attribute("title") or "")
    marker = p.locator("#rec-r2 .part.author-human .marker").first.get_attribute("title") or ""
    assert "written by: person" in marker
    # every badge whose word is not plain English carries its explanation
    unexplained = p.evaluate(
        "() => Array.from(document.querySelectorAll("
        "'.badge.visibility, .badge.audience, .badge.capture, a.rid, .marker'"
        ")).filter(e => !e.getAttribute('title')).length"
    )
    assert unexplained == 0


# item 11: search the whole session (chunks not yet inserted too); the index gets asr search's filters


def chunked_page(tmp_path: Path, stream: Path) -> Path:
    from asr_adapters.stream.reader import read_records

    html = tmp_path / "chunked.html"
    assert write_chunked(html, read_records(stream)) >= 3
    return html


def search(page: PageWatch, words: str, author: str = "") -> list[str]:
    p = page.page
    p.select_option("#asr-search-author", author)
    p.fill("#asr-search", words)
    p.click("#asr-search-go")
    return p.evaluate("() => Array.from(document.querySelectorAll('.search-hit')).map(e => e.id)")


def test_search_finds_text_in_chunks_not_yet_on_the_page(page: PageWatch, tmp_path: Path) -> None:
    p = page.page
    p.set_viewport_size({"width": 1200, "height": 400})
    p.goto(chunked_page(tmp_path, SHOW / "every-record-kind" / "stream.asr.jsonl").as_uri())
    assert p.locator("#rec-r18").count() == 0, "the failed request waits in a chunk"
    assert search(page, "403 key limit") == ["rec-r18"]
    assert p.locator("#asr-search-status").text_content() == "1 of 1 record(s)"
    assert p.locator("#rec-r18").is_visible()
    assert search(page, "no such words anywhere") == []
    assert p.locator("#asr-search-status").text_content() == "0 record(s)"
    assert not page.console_errors, page.console_errors


def test_search_keeps_to_what_one_author_wrote(page: PageWatch, tmp_path: Path) -> None:
    p = open_page(page, SHOW / "every-record-kind" / "stream.asr.jsonl", tmp_path).page
    everyone = search(page, "11:00")
    by_person = search(page, "11:00", "human")
    by_model = search(page, "11:00", "model")
    assert by_person == ["rec-r8", "rec-r11"], "the person's steering message and their answer"
    assert "rec-r8" not in by_model and "rec-r12" in by_model
    assert set(by_person) | set(by_model) <= set(everyone)
    # Enter searches, and again steps to the next record found
    p.select_option("#asr-search-author", "")
    p.fill("#asr-search", "11:00")
    p.press("#asr-search", "Enter")
    assert p.locator("#asr-search-status").text_content() == f"1 of {len(everyone)} record(s)"
    p.press("#asr-search", "Enter")
    assert p.locator("#asr-search-status").text_content() == f"2 of {len(everyone)} record(s)"


def test_the_site_index_has_the_filters_of_asr_search(page: PageWatch, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    cases = {
        "claude": GOLDEN / "claude-code" / "tool-outcomes" / "expected.asr.jsonl",
        "codex": GOLDEN / "codex" / "30-usage-follows-the-response" / "expected.asr.jsonl",
        "openclaw": GOLDEN / "openclaw" / "synthetic-assistants-deliveries" / "expected.asr.jsonl",
    }
    for name, case in cases.items():
        (archive / f"{name}.asr.jsonl").write_bytes(case.read_bytes())
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["show", str(archive), "-o", str(site)]).exit_code == 0
    p = page.page
    p.goto((site / "index.html").as_uri())

    def shown() -> list[str]:
        return sorted(p.locator("tr.session-row:visible td:first-child").all_text_contents())

    assert shown() == ["claude-code", "codex", "openclaw"]
    p.select_option("#asr-filter-agent", "codex")
    assert shown() == ["codex"]
    p.select_option("#asr-filter-agent", "")
    p.check("#asr-filter-failed")
    assert shown() == ["claude-code", "openclaw"], "codex's calls all succeeded"
    p.uncheck("#asr-filter-failed")
    p.fill("#asr-filter-tool", "Bash")
    assert shown() == ["claude-code"]
    p.fill("#asr-filter-tool", "")
    p.fill("#asr-filter-since", "2026-05-01")
    assert "claude-code" not in shown() and "codex" in shown()
    p.fill("#asr-filter-since", "")
    p.select_option("#asr-filter-author", "human")
    assert "claude-code" in shown()
    assert p.locator("#asr-shown").text_content() == str(len(shown()))
    assert not page.console_errors, page.console_errors


def test_a_chat_whose_sender_has_no_kind_is_named_by_their_prompt(page: PageWatch, tmp_path: Path) -> None:
    """OpenClaw names the sender (from: p1) but not their kind, so the prompt's author is absent
    (ASR-202): the untitled page is still named by that prompt, never the session id."""
    case = GOLDEN / "openclaw" / "synthetic-assistants-deliveries" / "expected.asr.jsonl"
    p = open_page(page, case, tmp_path).page
    heading = p.locator("header.session h1").text_content() or ""
    assert heading == "Tell Bob the meeting moved to 3pm, and post it in the team group."


def test_the_new_references_and_titles_cannot_run_or_fetch_anything(page: PageWatch, tmp_path: Path) -> None:
    """Record ids, removal lists, compaction refs and titles come from the stream: as hostile
    values they stay text (no dialog, no console error, no request, no on* attribute)."""
    import json

    evil = 'x" onmouseover="alert(1)" \'><img src=https://example.org/t.png>'
    lines = [json.loads(line) for line in (SHOW / "every-record-kind" / "stream.asr.jsonl").read_text().splitlines()]
    lines[3]["supersedes"] = evil
    lines[4]["summaryOf"] = "compaction"
    lines[4]["compaction"] = {"from": "messageId=" + evil, "through": evil}
    lines.append({"type": "vendor", "seq": 21, "id": "r21", "schema": evil, "data": {}, "reverted": [evil, "r2"]})
    lines.append({"type": "vendor", "seq": 22, "id": "r22", "schema": "x/title", "data": {}, "title": evil})
    lines.append(
        {"type": "vendor", "seq": 23, "id": "r23", "schema": "x/undo", "data": {}, "removedMessageIds": [evil]}
    )
    stream = tmp_path / "evil.asr.jsonl"
    stream.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    html = render(stream, tmp_path / "page.html")
    p = page.page
    p.goto(html.as_uri())
    for handle in p.locator("article, a, summary").element_handles():
        handle.dispatch_event("mouseover")
    p.fill("#asr-search", evil)
    p.click("#asr-search-go")
    assert page.dialogs == [] and page.console_errors == [], (page.dialogs, page.console_errors)
    assert page.requests == [html.as_uri()]
    assert p.locator("header.session h1").text_content() == evil, "a later title names the session, as text"
    assert "removed by r21" in (p.locator("#rec-r2 .badge.removed-by").text_content() or "")
    handlers = p.evaluate(
        "() => Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes)"
        ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))"
    )
    assert handlers == []
    assert p.locator("img").count() == 0


def test_a_tool_result_known_only_as_what_the_user_saw_is_shown(page: PageWatch, tmp_path: Path) -> None:
    """Cline's UI-only results hold their text in ``displayContent`` (content absent): the page
    shows it as what the user saw (the viewer review found all 56 results of a Cline task blank)."""
    stream = GOLDEN / "cline" / "ui-only-multiline-command-result" / "expected.asr.jsonl"
    records = [json.loads(line) for line in stream.read_text(encoding="utf-8").splitlines()]
    result = next(r for r in records if r["type"] == "tool_result" and r.get("displayContent"))
    shown = next(p["text"] for p in result["displayContent"] if p.get("type") == "text" and p["text"].strip())
    p = open_page(page, stream, tmp_path).page
    text = p.locator(f"#rec-{result['id']} .display").text_content() or ""
    assert "what the user saw" in text and shown.strip().splitlines()[0] in text
