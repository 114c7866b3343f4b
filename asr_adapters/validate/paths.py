"""What ``asr validate`` checks: files, every stream under a folder, stdin; a native log is
named as such before anything else is said about it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import registry
from ..core.errors import ASRError, UsageProblem
from ..core.source import Source
from ..stream.folders import streams_under
from ..stream.sniff import is_asr_stream
from .reading import validate as validate_stream
from .stream import Finding


def native_log(source: Source, head: bytes) -> Finding | None:
    """One finding when ``head`` starts a native session log rather than an ASR stream."""
    if is_asr_stream(head):
        return None
    try:
        adapter = registry.detect(source)
    except (ASRError, OSError):
        return None
    name = source.display if source.path is not None else "-"
    message = f"not an ASR stream: it looks like a {adapter.name} session log; convert it first (asr convert {name})"
    return Finding("PROFILE-jsonl", None, None, message, source.display)


def _one(path: str) -> list[Finding]:
    if path == "-":  # the first bytes are kept and replayed: standard input is read once
        stdin = Source(sys.stdin.buffer)
        head = stdin.head()
        native = native_log(Source(head, name="-"), head)
        return [native] if native is not None else validate_stream(stdin.open())
    source = Source(path)
    try:
        native = native_log(source, source.head())
    except OSError:
        native = None  # the validator reports an unreadable file
    return [native] if native is not None else validate_stream(path)


def validate_paths(paths: tuple[str, ...]) -> tuple[list[str], list[Finding]]:
    """The files checked and the findings; a folder holding no stream is a usage problem."""
    files: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = streams_under(Path(path))
            if not found:
                raise UsageProblem(f"{path}: no ASR streams (*.asr.jsonl) under this folder")
            files.extend(str(p) for p in found)
        else:
            files.append(path)
    findings: list[Finding] = []
    for path in files:
        findings.extend(_one(path))
    return files, findings
