"""A real headless Chromium for the viewer tests, driven by Playwright.

The browser is Debian's ``chromium`` (Playwright's own browser download cannot run here).
Where it is missing and the tests run as root with apt-get (CI, fresh machines), the fixture
installs it; elsewhere the browser tests skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _install_chromium() -> str | None:
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        if subprocess.run(command, env=env, capture_output=True, timeout=900).returncode != 0:
            return None
    return _chromium()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test-services]')"
    )
    executable = _chromium() or _install_chromium()
    if executable is None:
        pytest.skip("no chromium on this machine and it could not be installed (needs root and apt-get)")
    with playwright_api.sync_playwright() as runner:
        launched = runner.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


class PageWatch:
    """A page with everything it tried to do recorded: dialogs, console errors, requests."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.console_errors: list[str] = []
        self.requests: list[str] = []
        page.on("dialog", self._dialog)
        page.on("console", lambda msg: self.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.console_errors.append(str(exc)))
        page.on("request", lambda request: self.requests.append(request.url))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


@pytest.fixture
def page(browser: Any) -> Iterator[PageWatch]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        yield PageWatch(context.new_page())
    finally:
        context.close()


def write_chunked(html: Path, records: Iterable[Any], inline_chars: int = 3000, chunk_chars: int = 2000) -> int:
    """``records`` as a page at ``html`` whose later records wait in chunks for the script to
    insert; how many chunks it has."""
    from asr_adapters.view.html import PageWriter

    with open(html, "w", encoding="utf-8") as handle:
        writer = PageWriter(handle, inline_chars=inline_chars, chunk_chars=chunk_chars)
        for record in records:
            writer.record(record)
        writer.finish()
    return writer.chunks
