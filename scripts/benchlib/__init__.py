"""The harness the bench scripts share: how inputs are built from samples, how a conversion is
timed against the orjson floor. Scripts import this package; nothing in it imports a script
(a child process may run one: ``export.peak_rss_mb`` runs ``bench_export.py --child``).

- ``inputs``: the sample each agent's input is built from, and ``build_input`` (cached under bench-data/);
- ``template``: a sample's lines with fresh ids and shifted times per repetition;
- ``databases``: the SQLite inputs (T3 Code, OpenCode) built the same way;
- ``batch``: many small sessions for ``asr batch``;
- ``measure``: CPU and RSS clocks, the orjson floor, the conversion ``asr convert`` does;
- ``child``: a conversion timed in a fresh child process (``bench_convert_check``, ``bench_redact``);
- ``export``: ``asr export`` next to convert (``bench_export``, ``bench.py --export``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (scripts/benchlib/__init__.py)
sys.path.insert(0, str(ROOT))  # measure this checkout's asr_adapters, installed or not
#: the shared samples: $ASR_SAMPLES (as tests/golden_support.py reads them), else ../shared/samples
SAMPLES = Path(os.environ.get("ASR_SAMPLES") or ROOT.parent / "shared" / "samples")
GOLDEN = ROOT / "golden"
DATA = ROOT / "bench-data"
GENERATOR = 1  # bump when the way inputs are built changes: old cache entries are then unused
AGENTS = ("codex", "claude-code", "openclaw", "gemini-cli", "t3code", "opencode", "cline", "copilot-cli")
MB = 1 << 20
