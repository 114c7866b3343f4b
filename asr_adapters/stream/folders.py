"""The ASR streams under a folder (an ``asr batch`` archive), as each command looks for them."""

from __future__ import annotations

import os
from pathlib import Path

#: The names of streams looked for under a folder (as ``asr batch`` and ``convert -o DIR/`` write them).
STREAM_SUFFIXES = (".asr.jsonl", ".asr.jsonl.zst", ".asr.jsonl.gz")


def streams_under(folder: Path) -> list[Path]:
    """Every stream file under ``folder`` (``asr validate``), compressed ones too, sorted; hidden
    files and folders (temporary outputs) are left out, and links are not followed."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root) / name for name in files if name.endswith(STREAM_SUFFIXES) and name[0] != ".")
    return sorted(found)


def find_streams(folder: Path) -> list[Path]:
    """Every ``*.asr.jsonl`` below ``folder`` (a site, a folder export), in a stable order
    (symlinks not followed)."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(Path(root) / name for name in sorted(files) if name.endswith(".asr.jsonl"))
    return found
