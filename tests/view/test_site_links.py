"""Issue 25.18: a site's links are built from stream file names, which an archive's author chooses.

Every link the site writes (index rows, parent and child pages, "all sessions") must stay a
relative path inside the site that names the page it means: percent-encoded segments, a ``./``
prefix (so ``https:evil`` or ``javascript:`` cannot read as a scheme), and an index name no
stream can take.
"""

from __future__ import annotations

import html.parser
import json
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main

STREAM = GOLDEN / "codex" / "03-user-message-parts" / "expected.asr.jsonl"

#: File names an archive's author may choose; each is a legal name on Linux.
HOSTILE_NAMES = [
    "https:evil.example",
    "javascript:alert(1)",
    "..evil",
    "index",
    "INDEX",
    "a#b?c=d",
    "%2e%2e",
    "%41",
    "sp ace & amp",
    "ünï<code>",
    "data:text",
]


class Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.headings: list[str] = []
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(value or "" for name, value in attrs if name == "href")
        self._in_h1 = tag == "h1"

    def handle_data(self, data: str) -> None:
        if self._in_h1:
            self.headings.append(data)
            self._in_h1 = False


def parse(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def stream_text(session: str, parent: str | None = None) -> str:
    lines = STREAM.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["session"] = session
    if parent is not None:
        header["parent"] = parent
    return "\n".join([json.dumps(header, separators=(",", ":")), *lines[1:]]) + "\n"


def build(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An archive whose stream names are hostile, each a child of the one before (so pages link
    to each other); the site made of it; the session of each stream by its file name."""
    archive = tmp_path / "archive"
    sessions: dict[str, str] = {}
    previous = None
    for number, name in enumerate(HOSTILE_NAMES):
        path = archive / ("nested" if number % 2 else "") / f"{name}.asr.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        session = f"codex:hostile-{number}"
        path.write_text(stream_text(session, previous), encoding="utf-8")
        sessions[path.relative_to(archive).as_posix()] = session
        previous = session
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["show", str(archive), "-o", str(site)])
    assert result.exit_code == 0, result.output
    return site, sessions


def resolve(page: Path, href: str, site: Path) -> Path:
    """The file a relative href on ``page`` opens, as a browser resolves it; fails for anything
    that is not a plain relative path inside the site."""
    assert href.startswith(("./", "../")), f"{href!r}: not an explicit relative path"
    target = urlsplit(urljoin(page.as_uri(), href))
    assert target.scheme == "file" and not target.netloc, f"{href!r} leaves the site"
    assert not target.query and not target.fragment, f"{href!r}: a name read as a query or fragment"
    opened = Path(unquote(target.path))
    assert opened.resolve().is_relative_to(site.resolve()), f"{href!r} leaves the site"
    return opened


def test_every_link_of_the_site_names_the_page_it_means(tmp_path: Path) -> None:
    site, sessions = build(tmp_path)
    index = site / "index.html"
    links = parse(index)
    assert links.headings[0] == "Sessions", "a stream named index.asr.jsonl overwrote the index"
    opened = {resolve(index, href, site) for href in links.hrefs}
    assert len(opened) == len(sessions), "one row per stream, each its own page"
    for page in opened:
        assert page.is_file() and page != index
        text = page.read_text(encoding="utf-8")
        session = next(s for s in sessions.values() if f"<code>{s}</code>" in text)
        page_links = parse(page)
        assert page_links.headings  # a session page, not the index
        for href in page_links.hrefs:
            if href.startswith("#") or href.startswith(("http://", "https://", "mailto:")):
                continue
            target = resolve(page, href, site)
            assert target.is_file(), f"{href!r} on the page of {session} opens nothing"


def test_the_index_name_is_reserved_whatever_its_case(tmp_path: Path) -> None:
    site, _ = build(tmp_path)
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert [p for p in pages if p.lower() == "index.html"] == ["index.html"]
    assert len(pages) == len(HOSTILE_NAMES) + 1
