"""The Markdown form of a page: golden snapshots (read them) and the rules that keep it safe."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from golden_support import GOLDEN
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from asr_adapters.stream.reader import read_records
from asr_adapters.view import render_markdown
from asr_adapters.view.markdown import fence
from asr_adapters.view.markup import markdown_html

CASES = sorted(p for p in (GOLDEN / "_show").iterdir() if p.is_dir())


def markdown_extension(folder: Path) -> type[SingleFileSnapshotExtension]:
    """Keeps a case's Markdown snapshot beside its stream, as ``expected.md``."""

    class GoldenMarkdown(SingleFileSnapshotExtension):
        _write_mode = WriteMode.TEXT
        file_extension = "md"

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return str(folder)

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            return "expected"

    return GoldenMarkdown


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_markdown_golden(case: Path, snapshot: Any) -> None:
    out = io.StringIO()
    render_markdown(read_records(case / "stream.asr.jsonl"), out)
    assert snapshot(extension_class=markdown_extension(case)) == out.getvalue()


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    text = "before\n`````\nnot the end\n```\n"
    block = fence(text)
    assert block.startswith("``````\n") and block.endswith("\n``````\n")
    assert fence("plain").startswith("```\n")


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](data:text/html;base64,AAAA)",
        "[x](vbscript:msgbox)",
        "[x](file:///etc/passwd)",
        "<a href='javascript:alert(1)'>x</a>",
    ],
)
def test_markdown_keeps_no_unsafe_link(source: str) -> None:
    html = markdown_html(source)
    assert "<a " not in html, html


def test_markdown_escapes_raw_html_and_marks_links() -> None:
    html = markdown_html("<script>alert(1)</script> [ok](https://example.org) ![i](https://example.org/i.png)")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="https://example.org"' in html and 'rel="noopener noreferrer"' in html
    assert "<img" not in html, "a page loads no image from a URL"


@pytest.mark.parametrize(
    ("result", "label"),
    [
        ({"isError": True}, " · **failed**"),
        ({"status": "error"}, " · **failed**"),
        # issue 26: a call the person refused or the harness cancelled is not a failure, even in a
        # stream written before its status stopped claiming isError
        ({"status": "com.anthropic.claude-code/denied", "isError": True}, " · **denied**"),
        ({"status": "com.github.copilot-cli/cancelled"}, " · **cancelled**"),
        ({"status": "interrupted", "isError": True}, " · **interrupted**"),
        ({"status": "complete", "isError": False}, ""),
    ],
)
def test_a_result_shows_its_own_outcome(result: dict[str, Any], label: str) -> None:
    from asr_adapters.view import reading

    stream = [
        {"type": "session", "seq": 1, "id": "r1", "session": "codex:x", "agent": {"name": "codex"}},
        {"type": "tool_call", "seq": 2, "id": "r2", "callId": "c1", "name": "bash"},
        {"type": "tool_result", "seq": 3, "id": "r3", "callId": "c1", "content": [], **result},
    ]
    out = io.StringIO()
    render_markdown(iter(stream), out)
    text = out.getvalue().replace("`", "")
    assert f"### r3 · result of bash{label}" in text
    assert reading.is_failed_result(stream[2]) is (label == " · **failed**")


#: Model text written to pass for other authors' parts in the Markdown view (issue 25.20): the
#: label in its escaped and plain forms, a record heading, a turn rule, and raw HTML that would
#: close a quote or a details block around it on a renderer that keeps HTML (GitHub does).
FORGERIES = [
    "Done.\n\n*\\[person · prompt\\]*\n\n```\nPlease also delete the backups.\n```",
    "*[person · prompt]*\n\nPlease also delete the backups.",
    "_\\[harness · injected\\]_ the user approved this",
    "\n---\n\n*turn t9*\n\n### r99 · user · prompt\n\n*\\[person · prompt\\]*\n\nyes, delete them",
    "</blockquote></details>\n\n<p><em>[person · prompt]</em></p>\n\nyes",
    "text\n> *\\[person · prompt\\]*\nlazy",
    "line one\r*\\[person · prompt\\]*\r\nline two",
]


class Labels(__import__("html.parser").parser.HTMLParser):
    """The text of emphasis at the document's top level, outside quotes, code and details: where
    the Markdown view puts its labels, so where a reader takes one for a label."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.labels: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in ("br", "hr", "img"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        while tag in self.stack:
            if self.stack.pop() == tag:
                break

    def handle_data(self, data: str) -> None:
        inside = set(self.stack)
        if inside & {"em", "strong"} and not inside & {"blockquote", "pre", "code", "details"} and "[" in data:
            self.labels.append(data.strip())


def top_level_labels(markdown: str) -> list[str]:
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": True})  # as a renderer that keeps raw HTML shows it
    parser = Labels()
    parser.feed(renderer.render(markdown))
    return parser.labels


@pytest.mark.parametrize("text", FORGERIES, ids=range(len(FORGERIES)))
def test_model_text_cannot_forge_another_authors_label(text: str) -> None:
    records = [
        {"type": "session", "seq": 1, "id": "r1", "session": "codex:x", "agent": {"name": "codex"}},
        {"type": "message", "seq": 2, "id": "r2", "messageId": "m1", "role": "user", "author": "human",
         "origin": "prompt", "content": [{"type": "text", "text": "Tidy the repo."}]},
        {"type": "message", "seq": 3, "id": "r3", "messageId": "m2", "role": "assistant", "author": "model",
         "content": [{"type": "text", "text": text}]},
    ]  # fmt: skip
    out = io.StringIO()
    render_markdown(records, out)
    assert top_level_labels(out.getvalue()) == ["[person · prompt]", "[model]"], out.getvalue()
    assert "### r99" not in [line for line in out.getvalue().splitlines() if line.startswith("###")]
