"""A ``kill -9`` in the middle of ``asr index`` (a real child process, killed by the test)
leaves a usable index, and the next run completes it to what a clean run gives."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from asr_adapters.index import build_index
from asr_adapters.index.search import Search, run_search
from index import truth
from index.test_incremental import dump

CHILD = "import sys; from asr_adapters.index import build_index; build_index(sys.argv[1], sys.argv[2], batch_streams=8)"
COPIES = 6


def _committed(index: Path) -> int:
    if not index.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT count(*) FROM sessions WHERE sha256 IS NOT NULL").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:  # not made yet, or its tables not yet there
        return 0


def test_kill_9_while_indexing_leaves_a_usable_index(golden_archive: Path, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    for copy in range(COPIES):
        shutil.copytree(golden_archive, archive / f"copy{copy}")
    total = len(truth.streams(archive))
    index = tmp_path / "index.sqlite"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(archive), str(index)])
    deadline = time.monotonic() + 120
    while _committed(index) < 40 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert child.poll() is None, "the child finished before it could be killed mid-run"
    child.send_signal(signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL

    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('integrity-check')")
    done = conn.execute("SELECT path, messages FROM sessions WHERE sha256 IS NOT NULL").fetchall()
    assert 40 <= len(done) < total
    counts = truth.message_counts(archive)
    assert all(counts[path][0] == messages for path, messages in done), "a committed session is whole"
    conn.close()
    assert run_search(index, Search(text="parser", include_copies=True)) != []

    report = build_index(archive, index)
    assert report.indexed + report.unchanged == total
    assert report.unchanged >= len(done)
    build_index(archive, tmp_path / "fresh.sqlite")
    assert dump(index) == dump(tmp_path / "fresh.sqlite"), "the killed transaction left nothing behind"
