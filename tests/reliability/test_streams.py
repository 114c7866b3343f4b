"""Bad input at the stream level: a 100 MB line, cut or corrupt zstd, a file appended to while it
is read, and ``--agent`` forced to the wrong agent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
import zstandard
from corpus import AGENTS, DOCUMENT_INPUTS, LINE_INPUTS, SQLITE_INPUTS, build_sqlite, lines_of, middle
from harness import content_strings, convert

ASR = [sys.executable, "-c", "from asr_adapters.cli import main; main()"]
BIG = 100 << 20


def _blow_up(value: object, big: str) -> bool:
    """Puts ``big`` in place of the first content string (``text``, ``content``, ``output`` …)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and key in ("text", "content", "output", "message", "thinking"):
                value[key] = big
                return True
            if _blow_up(item, big):
                return True
    elif isinstance(value, list):
        return any(_blow_up(item, big) for item in value if not isinstance(item, str))
    return False


#: Runs its arguments as a child and prints the child's peak RSS (KB) as its last stderr line.
#: The measured command is a grandchild of the test: Linux carries a process's peak RSS across
#: fork and exec (the kernel keeps the old memory's high-water mark), so a child forked straight
#: from a pytest process of 800 MB reported 800 MB whatever it used. This small parent starts
#: fresh, so its child's peak is the command's own.
_MEASURE = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "sys.stderr.write(f'\\nMAXRSS_KB {usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def run_measured(args: list[str], timeout: float) -> tuple[int, str, int]:
    """Runs ``asr`` in a grandchild process; returns exit code, stderr and its peak RSS in KB."""
    process = subprocess.Popen(
        [sys.executable, "-c", _MEASURE, *ASR, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a timeout kills the command with its parent
    )
    timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL))
    timer.start()
    try:
        err = process.communicate()[1].decode()
    finally:
        timer.cancel()
    err, _, peak = err.rpartition("\nMAXRSS_KB ")
    return process.returncode, err, int(peak) if peak.strip().isdigit() else 1 << 40


@pytest.mark.heavy  # a 100 MB line (.ci/run runs -m heavy)
@pytest.mark.parametrize("name", list(LINE_INPUTS))
def test_100mb_content_line_converts_whole_in_bounded_memory(name: str, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    lines = lines_of(clean.read_bytes())
    big = "BIG<" + "x" * BIG + ">BIG"
    for at in range(middle(lines), len(lines)):
        value = orjson.loads(lines[at])
        if _blow_up(value, big):
            break
    else:
        pytest.fail("no content string to blow up")
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:at]) + orjson.dumps(value) + b"\n" + b"".join(lines[at + 1 :]))
    del big, value
    out = tmp_path / "out"
    code, err, peak_kb = run_measured(["convert", str(path), "--agent", agent, "-o", f"{out}/"], timeout=120)
    assert code == 0 and "Traceback" not in err, err
    assert peak_kb < 8 * BIG // 1024, f"peak RSS {peak_kb} KB for a 100 MB line"
    data = b"".join(p.read_bytes() for p in sorted(out.rglob("*.asr.jsonl")))
    start, end = data.find(b"BIG<"), data.find(b">BIG")
    assert end - start - 4 == BIG, "the 100 MB string is not in the output whole"


@pytest.mark.heavy  # a 100 MB line (.ci/run runs -m heavy)
@pytest.mark.parametrize("name", list(LINE_INPUTS))
def test_100mb_garbage_line_is_one_unreadable_line(name: str, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    lines = lines_of(clean.read_bytes())
    at = middle(lines)
    path = tmp_path / "session.jsonl"
    with open(path, "wb") as handle:
        handle.write(b"".join(lines[:at]))
        handle.write(b"{" * BIG + b"\n")
        handle.write(b"".join(lines[at:]))
    outcome = convert(path, tmp_path / "out", "--agent", agent, timeout=60)
    assert outcome.converted and outcome.stats is not None and outcome.stats["unreadable"] == 1
    assert any(f"session.jsonl:{at + 1}: " in w for w in outcome.warnings)


def _zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(data)


@pytest.mark.parametrize("name", list(LINE_INPUTS))
@pytest.mark.parametrize("damage", ["clean", "cut", "corrupt-tail", "not-zstd", "magic-only"])
def test_zstd(name: str, damage: str, tmp_path: Path) -> None:
    agent, clean = LINE_INPUTS[name]
    data = clean.read_bytes()
    packed = {
        "clean": _zst(data),
        "cut": _zst(data)[: len(_zst(data)) // 2],
        "corrupt-tail": _zst(data) + b"\x28\xb5\x2f\xfd" + bytes(range(200)),
        "not-zstd": b"\x28\xb5\x2f\xfd" + data,
        "magic-only": b"\x28\xb5\x2f\xfd",
    }[damage]
    path = tmp_path / "session.jsonl.zst"
    path.write_bytes(packed)
    forced = convert(path, tmp_path / "forced", "--agent", agent)
    convert(path, tmp_path / "detected")
    if damage == "clean":
        plain = tmp_path / "session.jsonl"
        plain.write_bytes(data)
        expected = convert(plain, tmp_path / "plain", "--agent", agent).records
        expected[0]["source"]["file"] += ".zst"
        assert forced.records == expected
    elif damage == "corrupt-tail":
        assert forced.converted and any("corrupt zstd data" in w for w in forced.warnings)
    elif forced.converted:
        assert forced.warnings, "a damaged zstd input converted without a warning"
    else:
        assert "zstd" in (forced.error or "").replace(str(path), "<file>"), forced.error


@pytest.mark.parametrize("name", list(LINE_INPUTS))
def test_file_appended_to_while_read(name: str, tmp_path: Path) -> None:
    """A writer appends (some lines in two writes) while the conversion reads: it ends, accounts for
    what it read, and keeps every line that was whole before it started."""
    agent, clean = LINE_INPUTS[name]
    lines = lines_of(clean.read_bytes())
    body = lines[1:] * 400
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines) + b"".join(body[:2000]))
    stop = threading.Event()

    def append() -> None:
        with open(path, "ab", buffering=0) as handle:
            for line in body:
                if stop.is_set():
                    return
                half = len(line) // 2
                handle.write(line[:half])
                time.sleep(0.0005)
                handle.write(line[half:])

    writer = threading.Thread(target=append)
    writer.start()
    try:
        outcome = convert(path, tmp_path / "out", "--agent", agent, timeout=60)
    finally:
        stop.set()
        writer.join()
    assert outcome.converted, outcome.describe()
    before = tmp_path / "before.jsonl"
    before.write_bytes(b"".join(lines))
    missing = content_strings(convert(before, tmp_path / "before", "--agent", agent).records)
    missing -= content_strings(outcome.records)
    assert not missing, missing


def _all_inputs(tmp_path: Path) -> list[tuple[str, str, Path]]:
    inputs = [(name, agent, path) for name, (agent, path) in {**LINE_INPUTS, **DOCUMENT_INPUTS}.items()]
    for name, (agent, sql) in SQLITE_INPUTS.items():
        inputs.append((name, agent, build_sqlite(sql, tmp_path / f"{name}.sqlite")))
    return inputs


def test_agent_forced_to_every_wrong_agent(tmp_path: Path) -> None:
    """Every input read as every other agent: a clear error or a valid, balanced stream."""
    seen = {}
    for name, agent, path in _all_inputs(tmp_path):
        for other in AGENTS:
            if other != agent:
                outcome = convert(path, tmp_path / f"{name}-as-{other}", "--agent", other)
                seen[(name, other)] = outcome.describe()[:60]
    assert len(seen) == 4 * (len(LINE_INPUTS) + len(DOCUMENT_INPUTS) + len(SQLITE_INPUTS))
