"""How big and how quick a page ``asr show`` writes for a large session.

Builds a native Claude Code input of ``--size-mb`` (50 by default) the way scripts/bench.py
does (a real sample repeated with fresh ids), converts it to an ASR stream, then measures in
one run:

- render: CPU seconds and peak RSS (a child process) of ``asr show STREAM -o page.html``,
  next to the CPU seconds of ``asr convert`` on the same input (the ratio is the report);
- page: its size in bytes, and the stream's;
- browser: time to first contentful paint, DOMContentLoaded and load of the page in headless
  Chromium (Debian's package), read from the page's own Performance API.

    python scripts/bench_viewer.py               # 50 MB
    python scripts/bench_viewer.py --size-mb 5 --json
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import DATA
from benchlib.inputs import build_input, find_sample

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def child(args: list[str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of a child command."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def browser_timings(page: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        return {}
    with sync_playwright() as runner:
        browser = runner.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1200, "height": 900})
        start = time.perf_counter()
        tab.goto(page.as_uri(), wait_until="load", timeout=600_000)
        wall = time.perf_counter() - start
        timings = tab.evaluate(
            """() => {
                const nav = performance.getEntriesByType('navigation')[0];
                const fcp = performance.getEntriesByName('first-contentful-paint')[0];
                return {fcp: fcp ? fcp.startTime : null, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd};
            }"""
        )
        articles_first = tab.locator("article").count()
        start = time.perf_counter()
        tab.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        tab.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        scroll = time.perf_counter() - start
        load_all = None
        if tab.locator("#asr-load-all").count():
            start = time.perf_counter()
            tab.click("#asr-load-all", timeout=900_000)
            tab.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            load_all = time.perf_counter() - start
        articles_all = tab.locator("article").count()
        browser.close()
    return {
        "first_contentful_paint_ms": timings["fcp"],
        "dom_content_loaded_ms": timings["dcl"],
        "load_ms": timings["load"],
        "goto_wall_s": round(wall, 2),
        "records_shown_at_load": articles_first,
        "scroll_to_end_s": round(scroll, 2),
        "show_all_s": None if load_all is None else round(load_all, 1),
        "records_shown_after_all": articles_all,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sample = find_sample("claude-code")
    assert sample is not None, "no claude-code sample or golden input"
    built = build_input(sample, int(args.size_mb * 1024 * 1024))
    folder = DATA / "viewer"
    folder.mkdir(parents=True, exist_ok=True)
    stream, page = folder / "session.asr.jsonl", folder / "session.html"
    asr = [str(Path(sys.executable).with_name("asr"))]
    convert_cpu, convert_rss = child([*asr, "convert", str(built.path), "-o", str(stream)])
    render_cpu, render_rss = child([*asr, "show", str(stream), "-o", str(page)])
    report: dict[str, Any] = {
        "input_bytes": built.bytes,
        "stream_bytes": stream.stat().st_size,
        "page_bytes": page.stat().st_size,
        "convert_cpu_s": round(convert_cpu, 2),
        "render_cpu_s": round(render_cpu, 2),
        "render_per_convert": round(render_cpu / convert_cpu, 2),
        "render_peak_rss_mb": round(render_rss, 1),
        "convert_peak_rss_mb": round(convert_rss, 1),
        "self_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    report.update(browser_timings(page))
    if args.json:
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        for key, value in report.items():
            print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
