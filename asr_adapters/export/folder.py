"""A folder of ASR streams (a batch archive) exported one document per session.

Each stream becomes ``OUTDIR/<its path>.atif.json`` (or ``.otlp.json``), mirroring the folder,
except a stream whose parent session (header ``parent``) is also in the folder: it goes into
its top ancestor's document, as a native input's subagent streams do (ATIF: an embedded
subagent trajectory; OpenTelemetry: a trace of its own in the same file). Children are written
first into temporary files, so a child that cannot be read is left out whole; a stream that
cannot be read is one error line naming it, and the others are still exported; an output that
cannot be written (a read-only or full disk, a link inside OUTDIR) stops the export with one
``OutputError``, since every other document would fail alike.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ..batch.naming import unique_under_folding
from ..core.errors import ASRError, InputError
from ..outputs import OutputError, PipeClosed, text_output
from ..stream.folders import find_streams
from ..stream.reader import read_records
from ..validate.checked import require_valid
from . import atif
from .report import LossReport
from .sink import Write

SUFFIXES = {"atif": ".atif.json", "otel": ".otlp.json"}


@dataclass
class FolderExport:
    """What a folder export gave: the documents written (source, target), one line per failure,
    and the loss report of everything written."""

    report: LossReport
    written: list[tuple[Path, Path]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def one_line(path: Path, error: BaseException) -> str:
    """An error as one line that names the stream (and its line when known)."""
    if isinstance(error, InputError):
        where = f"{path}:{error.line}" if error.line is not None else str(path)
        return f"{where}: {error.reason}"
    if isinstance(error, OSError):
        return f"{error.filename or path}: {error.strerror or error}"
    return f"{path}: {error}"


def _header(path: Path) -> dict[str, Any]:
    """The stream's first line, which must be its ``session`` header."""
    with open(path, "rb") as handle:
        first = handle.readline(1 << 20)
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        raise InputError(str(path), "not an ASR stream: line 1 is not JSON", line=1) from None
    if not isinstance(header, dict) or header.get("type") != "session" or not isinstance(header.get("session"), str):
        raise InputError(str(path), "not an ASR stream: line 1 is not a session header", line=1)
    return header


def plan(streams: list[Path]) -> tuple[dict[Path, list[Path]], dict[Path, str], list[str]]:
    """Documents to write (top stream -> the streams embedded in it, in folder order), each
    stream's session, and the streams whose header could not be read."""
    sessions: dict[Path, str] = {}
    parents: dict[Path, str | None] = {}
    errors: list[str] = []
    for path in streams:
        try:
            header = _header(path)
        except (ASRError, OSError) as exc:
            errors.append(one_line(path, exc))
            continue
        sessions[path] = header["session"]
        parent = header.get("parent")
        parents[path] = parent.split("#", 1)[0] if isinstance(parent, str) else None
    by_session: dict[str, Path] = {}
    for path, session in sessions.items():
        by_session.setdefault(session, path)

    def top(path: Path) -> Path:
        seen = {path}
        while (up := by_session.get(parents[path] or "")) is not None and up not in seen:
            seen.add(up)
            path = up
        return path

    documents: dict[Path, list[Path]] = {}
    for path in sessions:
        root = top(path)
        documents.setdefault(root, [])
        if root != path:
            documents[root].append(path)
    return documents, sessions, errors


def _spool(
    to: str, path: Path, session: str, report: LossReport, include_content: bool, redactor: Any = None
) -> IO[bytes]:
    """One child stream written into a temporary file: an ATIF trajectory object, or OTLP/JSON
    spans each preceded by a comma (they follow the parent's spans)."""
    require_valid(path)  # a stream asr validate rejects is not exported (its first finding says why)
    spool = tempfile.TemporaryFile("w+b")  # noqa: SIM115 - returned open; closed once copied
    try:
        if to == "atif":
            atif.write_trajectory(_records(path, redactor), spool.write, report, default_id=session)
        else:
            from . import otel

            otel.write_fragment(_records(path, redactor), spool.write, report, include_content=include_content)
        spool.flush()  # a full scratch disk fails this child here, not the close below
    except BaseException:
        with contextlib.suppress(OSError):
            spool.close()
        raise
    return spool


def _copy_in(spools: list[IO[bytes]], to: str) -> Callable[[Write], None]:
    def tail(write: Write) -> None:
        for number, spool in enumerate(spools):
            if to == "atif":
                write(b',"subagent_trajectories":[' if number == 0 else b",")
            spool.seek(0)
            while chunk := spool.read(1 << 16):
                write(chunk)
        if spools and to == "atif":
            write(b"]")

    return tail


def export_folder(
    folder: str | os.PathLike[str],
    outdir: str | os.PathLike[str],
    to: str = "atif",
    *,
    include_content: bool = False,
    redactor: Any = None,
) -> FolderExport:
    """Export every ``*.asr.jsonl`` under ``folder`` into ``outdir``, one document per top session
    (every record redacted by ``redactor``, an ``asr_adapters.redact.Redactor``, when given)."""
    source, target = Path(folder), Path(outdir)
    if not source.is_dir():
        raise InputError(str(folder), "not a folder")
    streams = find_streams(source)
    if not streams:
        raise InputError(str(folder), "no ASR streams (*.asr.jsonl) in this folder")
    version = atif.VERSION if to == "atif" else _otel_version()
    result = FolderExport(LossReport(to, version))
    documents, sessions, result.errors = plan(streams)
    names = {root: root.relative_to(source).as_posix()[: -len(".asr.jsonl")] + SUFFIXES[to] for root in documents}
    names = unique_under_folding(names, SUFFIXES[to])
    for root, children in documents.items():
        report = LossReport(to, version)
        spools: list[IO[bytes]] = []
        try:
            for child in children:
                part = LossReport(to, version)
                try:
                    spools.append(_spool(to, child, sessions[child], part, include_content, redactor))
                except (ASRError, OSError) as exc:
                    result.errors.append(one_line(child, exc) + f" (left out of {root.name})")
                    continue
                report.absorb(part)
            out = target / names[root]
            try:
                with text_output(out, root, inside=target) as handle:
                    _write_root(to, root, handle, report, _copy_in(spools, to), include_content, redactor)
                    handle.write("\n")
            except (OutputError, PipeClosed):  # the folder cannot be written: one error, not one a stream
                raise
            except (ASRError, OSError) as exc:
                result.errors.append(
                    one_line(root, exc) + (f" ({len(children)} embedded streams not written)" if children else "")
                )
                continue
        finally:
            for spool in spools:
                with contextlib.suppress(OSError):
                    spool.close()
        result.report.absorb(report)
        result.written.append((root, out))
    return result


def _write_root(
    to: str,
    root: Path,
    handle: IO[str],
    report: LossReport,
    tail: Callable[[Write], None],
    include_content: bool,
    redactor: Any = None,
) -> None:
    require_valid(root)
    if to == "atif":
        atif.write_trajectory(_records(root, redactor), handle, report, tail, default_id=str(root))
    else:
        from . import otel

        otel.write_otlp_json([_records(root, redactor)], handle, report, include_content=include_content, tail=tail)


def _records(path: Path, redactor: Any) -> Iterator[dict[str, Any]]:
    records = read_records(path)
    return records if redactor is None else redactor.records(records)


def _otel_version() -> str:
    try:
        from . import otel
    except ImportError as exc:
        raise InputError("otel", f"needs the OpenTelemetry SDK: pip install 'asr-adapters[otel]' ({exc})") from None
    return otel.VERSION
