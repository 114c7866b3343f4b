"""``asr batch --redact`` redacts every source, also those re-run alone after a worker died.

When a worker process dies, its chunk runs again in a fresh process, then each source alone;
that last path once left the redaction policy behind, so the other sources of the killer's
chunk were written with their secrets in clear.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
from golden_support import GOLDEN

from asr_adapters.batch.worker import KILL_HOOK

AWS = "AKIAQ3EGRSPUB7KXN4WD"
SESSION = "5f0c2a7e-91b4-4d6a-8c2e-5a7b3d1e9f04"


def test_sources_rerun_alone_after_a_worker_died_are_still_redacted(tmp_path: Path) -> None:
    template = (GOLDEN / "claude-code" / "fold-tool-calls" / "input.jsonl").read_text(encoding="utf-8")
    needle = "The parser test fails on empty input. Can you look?"
    assert needle in template and SESSION in template
    src = tmp_path / "src" / "project"
    src.mkdir(parents=True)
    paths = []
    for index in range(24):  # enough for chunks of several sources on two workers
        session = f"{SESSION[:-4]}{index:04d}"
        text = template.replace(SESSION, session).replace(needle, f"{needle} My key is {AWS}.")
        path = src / f"{session}.jsonl"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    killer = os.path.realpath(paths[5])
    out = tmp_path / "out"
    env = {**os.environ, KILL_HOOK: killer}
    command = [sys.executable, "-m", "asr_adapters.cli", "batch", str(tmp_path / "src"), "-o", str(out)]
    done = subprocess.run([*command, "--redact", "--jobs", "2", "--json"], env=env, capture_output=True, check=False)
    summary = orjson.loads(done.stdout)
    assert (summary["converted"], summary["failed"]) == (23, 1), done.stderr.decode()
    written = sorted(out.rglob("*.asr.jsonl"))
    assert len(written) == 23
    for stream in written:
        data = stream.read_bytes()
        assert AWS.encode() not in data, stream
        assert b"[REDACTED:aws-access-key:" in data, stream
