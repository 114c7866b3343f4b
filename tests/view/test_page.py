"""The page in a real browser: what a reader sees matches the stream, and nothing runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main
from view.conftest import PageWatch, write_chunked

SHOW = GOLDEN / "_show"

#: One golden case of every agent (their expected streams), plus the hand-made stream.
PER_AGENT = [
    GOLDEN / "codex" / "10-tool-calls-every-kind",
    GOLDEN / "claude-code" / "todowrite-plan",
    GOLDEN / "openclaw" / "synthetic-assistants-deliveries",
    GOLDEN / "gemini-cli" / "json-tool-calls",
    GOLDEN / "t3code" / "v1-activities",
    GOLDEN / "copilot-cli" / "subagent-agentid-reasoning-hooks",
    SHOW / "every-record-kind",
]


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def expected_counts(stream: list[dict[str, Any]]) -> dict[str, int]:
    """Counts worked out from the records alone (ASR-224 resolution written out again here)."""
    human = 0
    for record in stream:
        if record.get("type") != "message":
            continue
        for field in ("content", "displayContent"):
            for part in record.get(field) or []:
                author = part.get("author", record.get("author"))
                human += author == "human"
    failed = sum(
        1
        for r in stream
        if r.get("type") == "tool_result"
        and (r.get("isError") is True or str(r.get("status", "")).rsplit("/", 1)[-1] in ("error", "failed"))
    )
    return {
        "messages": sum(r.get("type") == "message" for r in stream),
        "human parts": human,
        "failed results": failed,
        "plan entries": sum(len(r.get("entries") or []) for r in stream if r.get("type") == "plan"),
        "tool calls": sum(r.get("type") == "tool_call" for r in stream),
    }


def dom_counts(watch: PageWatch) -> dict[str, int]:
    page = watch.page
    return {
        "messages": page.locator("article.message").count(),
        "human parts": page.locator('article.message .part[data-author="human"]').count(),
        "failed results": page.locator("article.tool-result.failed").count(),
        "plan entries": page.locator("article.plan ul.checklist > li").count(),
        "tool calls": page.locator("article.tool-call").count(),
    }


def render(stream: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["show", str(stream), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("case", PER_AGENT, ids=lambda p: p.parent.name + "/" + p.name)
def test_page_shows_what_the_stream_holds(case: Path, page: PageWatch, tmp_path: Path) -> None:
    streams = sorted(case.glob("*.asr.jsonl"))
    assert streams, f"{case} has no stream"
    stream = streams[0]
    html = render(stream, tmp_path / "page.html")
    page.page.goto(html.as_uri())
    assert dom_counts(page) == expected_counts(records(stream))
    page.page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
    assert not page.console_errors, page.console_errors
    assert page.requests == [html.as_uri()], "the page made a request of its own"


def test_every_record_kind_is_labelled(page: PageWatch, tmp_path: Path) -> None:
    html = render(SHOW / "every-record-kind" / "stream.asr.jsonl", tmp_path / "page.html")
    p = page.page
    p.goto(html.as_uri())
    # the failed result moved under its call by the page's own script (so the CSP hash is right)
    assert p.locator('article.tool-call[data-call-id="call_1"] .results article.tool-result.failed').count() == 1
    assert p.locator("#rec-r3 .reasoning.vis-full").count() == 1
    assert "encrypted, 12 bytes" in p.locator("#rec-r3 .reasoning.vis-encrypted").inner_text()
    assert "Z0FBQUFB" not in p.content(), "ciphertext must never be shown"
    assert p.locator("#rec-r3 .reasoning.vis-summary").inner_text().count("Checked the calendar.") == 1
    assert "steering" in p.locator("#rec-r8 header").inner_text()
    assert "Withdrawn" in p.locator("#rec-r9").inner_text()
    assert p.locator("#rec-r12.status-interrupted").count() == 1
    # deliveries are shown on the messages they deliver
    assert "sent" in p.locator("#rec-r12 .deliveries").inner_text()
    assert "suppressed" in p.locator("#rec-r15 .deliveries").inner_text()
    # injected context is collapsed with its size; the person's words are not
    assert p.locator("#rec-r2 details.injected").count() == 1
    assert not p.locator("#rec-r2 details.injected").get_attribute("open")
    assert p.locator("#rec-r2 .part.author-human pre").is_visible()
    # display-only content: what the user saw, and why the model's view is empty
    assert "content: absent" in p.locator("#rec-r14 header").inner_text()
    assert p.locator("#rec-r14 .display").count() == 1
    # plan revision history
    assert "revision 2" in p.locator("#rec-r7 header").inner_text()
    assert p.locator('#rec-r7 a.supersedes[href="#rec-r6"]').count() == 1
    # a failed request shows its error; a call nothing answered says so; tables render
    # (text_content: content-visibility lets a browser skip laying out what is off screen)
    assert "403 Key limit exceeded" in (p.locator("#rec-r18 pre.error-text").text_content() or "")
    assert p.locator("#rec-r19 .badge.no-result").count() == 1
    assert p.locator("#rec-r4 .badge.no-result").count() == 0
    assert p.locator("#rec-r20 .md table td").count() == 2
    assert "| Fri | 11:00 |" in (p.locator("#rec-r19 .arg pre").text_content() or ""), "multi-line members as text"
    # the sender is named as the header declares the participant; collapsed context says what it holds
    assert "from Ana" in p.locator("#rec-r2 header").inner_text()
    assert "<context>calendar: 3 events</context>" in p.locator("#rec-r2 details.injected summary").inner_text()
    # vendor records are hidden until asked for
    assert not p.locator("#rec-r17").is_visible()
    p.check("#asr-show-vendor")
    assert p.locator("#rec-r17").is_visible()
    assert not page.console_errors


def test_subagent_and_parent_pages_link_both_ways(page: PageWatch, tmp_path: Path) -> None:
    case = GOLDEN / "claude-code" / "subagent-folder"
    archive = tmp_path / "archive"
    archive.mkdir()
    for stream in case.glob("expected*.asr.jsonl"):
        (archive / stream.name).write_bytes(stream.read_bytes())
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["show", str(archive), "-o", str(site)])
    assert result.exit_code == 0, result.output
    p = page.page
    p.goto((site / "index.html").as_uri())
    assert p.locator("tr.session-row").count() == 2
    p.fill("#asr-filter", "no such words anywhere")
    assert p.locator("tr.session-row:visible").count() == 0
    p.fill("#asr-filter", "")
    p.locator("tr.session-row:not(.child) a").first.click()
    p.locator("a.child-link").first.click()
    assert "agent-" in p.url
    child_url = p.url
    p.locator("a.parent-link").click()
    assert p.url.endswith("expected.asr.html")
    assert p.url != child_url
    assert not page.console_errors


def test_hostile_content_runs_and_fetches_nothing(page: PageWatch, tmp_path: Path) -> None:
    html = render(SHOW / "hostile-content" / "stream.asr.jsonl", tmp_path / "page.html")
    p = page.page
    p.goto(html.as_uri())
    p.check("#asr-show-vendor")
    for selector in ("article", ".part", "a", "img", "summary"):
        for handle in p.locator(selector).element_handles():
            handle.dispatch_event("mouseover")
            handle.dispatch_event("click") if selector != "a" else None
    p.wait_for_timeout(300)
    assert page.dialogs == []
    assert page.console_errors == []
    assert page.requests == [html.as_uri()]
    text = p.locator("body").inner_text()
    assert "<script>alert('prompt')</script>" in text
    assert "<script>alert('md')</script>" in text
    handlers = p.evaluate(
        "() => Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes)"
        ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))"
    )
    assert handlers == []
    hrefs = p.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))")
    assert all(h.startswith(("#", "https://", "http://", "mailto:")) for h in hrefs), hrefs
    assert "https://example.org/ok" in hrefs
    for a in p.locator('a[href^="http"]').element_handles():
        assert "noopener" in (a.get_attribute("rel") or "")
    sources = p.evaluate("() => Array.from(document.images).map(i => i.getAttribute('src'))")
    assert all(
        s.startswith(("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/webp;")) for s in sources
    )
    assert p.locator("script").count() == 1
    assert p.locator("style").count() == 1


def test_a_long_session_loads_later_records_as_the_reader_scrolls(page: PageWatch, tmp_path: Path) -> None:
    from asr_adapters.stream.reader import read_records

    stream = SHOW / "every-record-kind" / "stream.asr.jsonl"
    html = tmp_path / "page.html"
    assert write_chunked(html, read_records(stream)) >= 3
    p = page.page
    p.set_viewport_size({"width": 1200, "height": 400})
    p.goto(html.as_uri())
    loaded = p.locator("article").count()
    assert loaded < len(records(stream)) - 1, "later records wait in chunks"
    p.goto(html.as_uri() + "#r13")  # a link into a chunk loads up to it
    assert p.locator("#rec-r13").count() == 1
    p.click("#asr-load-all")
    assert dom_counts(page) == expected_counts(records(stream))
    assert "sent" in p.locator("#rec-r12 .deliveries").inner_text(), "wired after insertion"
    assert not page.console_errors, page.console_errors


#: Every element id the page and its script look up, and some they might: a record may carry any
#: of them as its ``id`` (issue 25.19).
CLOBBERING_IDS = ["more", "load-all", "models", "show-vendor", "filter", "shown", "asr-more", "asr-load-all"]


def test_record_ids_cannot_clobber_the_page_script(page: PageWatch, tmp_path: Path) -> None:
    """A forged stream whose records are named like the page's own elements still loads its
    whole tail: the ids a record gives are namespaced apart from the page's."""

    stream = records(SHOW / "every-record-kind" / "stream.asr.jsonl")
    for record, forged in zip(stream[1:], CLOBBERING_IDS, strict=False):
        record["id"] = forged
    html = tmp_path / "page.html"
    assert write_chunked(html, stream) >= 3, "later records wait in chunks the script must insert"
    p = page.page
    p.goto(html.as_uri())
    assert p.locator("article").count() < len(stream) - 1
    p.locator("button", has_text="show the rest of the session").click()
    assert dom_counts(page) == expected_counts(stream)
    assert p.locator("article").count() == len(stream) - 1, "the whole tail is on the page"
    assert not page.console_errors, page.console_errors
