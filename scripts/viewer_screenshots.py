"""The screenshots of docs/viewer.md: two pages rendered by ``asr show`` and photographed in
headless Chromium (the system's ``chromium``, as the viewer tests use it).

    python scripts/viewer_screenshots.py [OUT_DIR]     # default docs/images

The pages are golden streams (constructed, no one's session): a Claude Code session with a
rejected call and a compaction, and an OpenClaw chat with its deliveries.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from asr_adapters.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "viewer-claude-code.png": (ROOT / "golden/_show/screenshot-claude-code/stream.asr.jsonl", "#rec-r5"),
    "viewer-openclaw.png": (ROOT / "golden/openclaw/synthetic-assistants-deliveries/expected.asr.jsonl", "#rec-r2"),
}


def shoot(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        raise SystemExit("no chromium on this machine")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as runner:
        browser = runner.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 900, "height": 780}, device_scale_factor=1)
        for name, (stream, start) in PAGES.items():
            html = Path(scratch) / (name + ".html")
            result = CliRunner().invoke(main, ["show", str(stream), "-o", str(html)])
            if result.exit_code:
                raise SystemExit(result.output)
            page.goto(html.as_uri())
            page.evaluate("(sel) => document.querySelector(sel).scrollIntoView({block: 'start'})", start)
            target = out / name
            page.screenshot(path=str(target))
            written.append(target)
        browser.close()
    return written


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images"):
        print(f"{path}: {path.stat().st_size:,} bytes")
