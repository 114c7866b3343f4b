"""What ``asr convert`` writes: the main stream to stdout or a file, or every stream to a folder.

Nothing is written under a final name until the conversion has succeeded (``outputs``); a
folder gets the names ``asr batch`` gives (``batch.naming``), and nothing is dropped
silently: streams found but not written are counted and named on stderr.
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from ..convert import Conversion
from ..core.adapter import Stream
from ..core.errors import ASRError, UsageProblem
from ..core.valueclass import field, valueclass
from ..outputs import (
    DirectFile,
    PendingFile,
    Sink,
    as_output_error,
    commit,
    make_folder,
    open_output,
)
from ..stream.writer import StreamWriter


@valueclass
class StreamReport:
    key: str
    records: int = 0
    written_to: str | None = None


@valueclass
class Report:
    """What was written, for ``--stats`` and the note about streams left out."""

    streams: list[StreamReport] = field(default_factory=list)
    types: Counter[str] = field(default_factory=Counter)
    check: bool = True  # every stream written is validated as it is written (--no-check: off)

    def add(self, key: str) -> StreamReport:
        report = StreamReport(key)
        self.streams.append(report)
        return report


class InvalidOutput(ASRError):
    """A converted stream that ``asr validate`` rejects: a converter bug, never exit 0."""


def _written(
    records: Iterator[dict[str, Any]], entry: StreamReport, types: Counter[str], report: Report, display: str
) -> Iterator[dict[str, Any]]:
    """The records of one stream as they are written: counted, and (unless ``report.check`` is
    off) each fed to the validator; a stream that ends with an error finding is
    ``InvalidOutput``, raised before the output gets its name."""
    validator = None
    if report.check:
        from ..validate.stream import StreamValidator  # not loaded for --no-check or other commands

        validator = StreamValidator()
    add = validator.add if validator is not None else None
    for record in records:
        entry.records += 1
        types[record.get("type", "?")] += 1
        if add is not None:
            add(record)
        yield record
    if validator is None:
        return
    errors = [finding for finding in validator.finish() if finding.is_error]
    if errors:
        first = errors[0]
        where = f"seq {first.seq}: " if first.seq is not None else ""
        raise InvalidOutput(
            f"{display}: the converted stream {entry.key} is one asr validate rejects ({len(errors)} error(s); "
            f"the first: {where}{first.rule}: {first.message}); a converter bug, please report it"
        )


def _drain(stream: Stream, report: Report) -> None:
    entry = report.add(stream.key)
    for _ in stream.records:
        entry.records += 1


def _thread_ids(conversion: Conversion) -> str:
    ids = [key.split(":", 1)[1] if ":" in key else key for key in conversion.keys]
    shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
    return shown or "none"


def _check_thread(conversion: Conversion) -> None:
    """An unknown ``--thread`` is a usage problem naming the threads there are."""
    display = conversion.source.display
    if conversion.select is not None and not any(conversion.selected(k) for k in conversion.keys):
        raise UsageProblem(f"no thread {conversion.select} in {display}; its threads: {_thread_ids(conversion)}")


def _check_selection(conversion: Conversion, written: int) -> None:
    """An unknown ``--thread``, or an input with no main stream, is a usage problem."""
    _check_thread(conversion)
    display = conversion.source.display
    if written == 0:
        raise UsageProblem(
            f"{display} holds {len(conversion.keys)} threads and none is its main stream: "
            f"choose one with --thread ID, or write every one with -o DIR/ (threads: {_thread_ids(conversion)})"
        )


def _check_agent(conversion: Conversion) -> None:
    problem = conversion.mismatch()
    if problem is not None:
        raise ASRError(problem)


def _write_main(conversion: Conversion, dest: Sink, report: Report) -> None:
    """The main stream (or the ``--thread`` one) into ``dest``; every other stream drained and
    counted. An input whose first stream is not a main one (a T3 Code database) is written
    when that stream turns out to be its only one: it is held in a temporary file until then."""
    written = 0
    display = conversion.source.display
    held: IO[bytes] | None = None
    held_types: Counter[str] = Counter()
    try:
        for index, stream in enumerate(conversion.streams()):
            if stream.main and written == 0:
                entry = report.add(stream.key)
                entry.written_to = "stdout"
                records = _written(iter(stream.records), entry, report.types, report, display)
                StreamWriter(cast(IO[bytes], dest)).write_all(records)
                written += 1
            elif index == 0 and conversion.select is None:
                import tempfile  # only for an input whose first stream is not a main one

                held = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
                entry = report.add(stream.key)
                sink = Sink(held, "a temporary file")
                records = _written(iter(stream.records), entry, held_types, report, display)
                StreamWriter(cast(IO[bytes], sink)).write_all(records)
            else:
                _drain(stream, report)
        if written == 0 and held is not None and len(conversion.keys) == 1:
            held.seek(0)
            while block := held.read(1 << 16):
                dest.write(block)
            report.streams[0].written_to = "stdout"
            report.types.update(held_types)
            written = 1
        _check_selection(conversion, written)
        _check_agent(conversion)
    finally:
        if held is not None:
            held.close()


def to_stdout(conversion: Conversion, report: Report, dest: Sink | None = None) -> None:
    """The main stream on stdout (or ``dest``, a stream the user named: a FIFO, a device).
    When the named agent does not claim the input by its sniff, the stream is held in a
    temporary file first, so a wrong ``--agent`` prints nothing."""
    out = dest or Sink(sys.stdout.buffer, "standard output", stream=True)
    doubtful = conversion.named and conversion.adapter.detect(conversion.source) <= 0
    if not doubtful:
        _write_main(conversion, out, report)
        out.flush()
        return
    import tempfile  # only when a named agent may be wrong

    with tempfile.TemporaryFile() as held:
        _write_main(conversion, Sink(held, "a temporary file"), report)
        held.seek(0)
        while block := held.read(1 << 16):
            out.write(block)
        out.flush()


def to_file(conversion: Conversion, target: Path, source: Path | None, report: Report) -> None:
    """The main stream into ``target``, which appears (or is replaced) only on success; a
    FIFO, socket or character device named there is written into as stdout is."""
    output = open_output(target, source)
    try:
        if isinstance(output, DirectFile):
            to_stdout(conversion, report, output.sink)
        else:
            _write_main(conversion, output.sink, report)
        commit(output)
    except BaseException:
        output.discard()
        raise
    for entry in report.streams:
        if entry.written_to == "stdout":
            entry.written_to = str(target)


def to_folder(conversion: Conversion, folder: Path, source: Path | None, report: Report) -> None:
    """Every stream (or the ``--thread`` one) under ``folder``, named as ``asr batch`` names
    them; all are renamed into place once the whole input has converted."""
    from ..batch.naming import header_facts, native_id, output_path, short_hash  # only -o DIR/ names streams

    agent = conversion.adapter.name
    display = conversion.source.display
    ids: dict[str, str] = {}
    placed: dict[str, PendingFile] = {}
    try:
        _make_folder(folder)
        for stream in conversion.streams():
            if conversion.select is not None and not conversion.selected(stream.key):
                _drain(stream, report)
                continue
            records = iter(stream.records)
            first = next(records, None)
            if first is None:
                report.add(stream.key)
                continue
            session_id, parent_id = header_facts(first, agent, stream.key)
            if stream.parent_key is not None:
                parent_id = ids.get(stream.parent_key) or native_id(stream.parent_key, agent)
            ids[stream.key] = session_id
            relative = output_path(agent, session_id, parent_id)
            if relative in placed:  # two streams of one input with one name: as batch does
                relative = output_path(agent, session_id, parent_id, short_hash(f"{display}\0{stream.key}", 8))
            target = folder / relative
            pending = placed[relative] = cast(PendingFile, open_output(target, source, inside=folder))
            entry = report.add(stream.key)
            entry.written_to = str(target)
            written = _written(itertools.chain([first], records), entry, report.types, report, display)
            StreamWriter(cast(IO[bytes], pending.sink)).write_all(written)
            _guarded(pending.finish, target)
        _check_thread(conversion)
        _check_agent(conversion)
        for pending in placed.values():
            _guarded(pending.place, pending.target)
    except BaseException:
        for pending in placed.values():
            pending.discard()
        raise


def _make_folder(folder: Path) -> None:
    try:
        make_folder(folder)
    except OSError as exc:
        raise as_output_error(exc, folder) from exc


def _guarded(step: Callable[[], None], target: Path) -> None:
    try:
        step()
    except OSError as exc:
        raise as_output_error(exc, target) from exc


def copy_note(report: Report, display: str) -> str | None:
    """What stderr says about streams that were found but not written."""
    left = [entry for entry in report.streams if entry.written_to is None]
    written = len(report.streams) - len(left)
    if not left or not written:
        return None
    names = ", ".join(e.key.split(":", 1)[-1] for e in left[:10]) + (" ..." if len(left) > 10 else "")
    return (
        f"{display} holds {len(left)} more stream(s) not written here (subagents or threads: {names}); "
        "write every stream with -o DIR/, or one with --thread ID"
    )
