"""The Codex CLI adapter: rollout files of every generation to one ASR stream."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from ...core.adapter import Adapter, Context, Stream
from ...core.errors import InputError
from ...core.source import Source
from ...registry import register
from .containers import bare_lines, envelope_lines, era_of, json_document
from .session import RolloutConverter


@register
class CodexAdapter(Adapter):
    name = "codex"
    description = "OpenAI Codex CLI rollouts (.jsonl, .jsonl.zst, TS-era .json)"

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        era = era_of(source)[0]
        if era is None:
            raise InputError(source.display, "not a Codex rollout (no session_meta or rollout header line)")
        converter = RolloutConverter(self, context, era)
        lines = {"envelope": envelope_lines, "bare": bare_lines, "json": json_document}[era](context)
        records = converter.run(lines)
        # The stream is keyed by the session reference, as every adapter's is: the header,
        # the first record, names it (the thread id, else the id in the file name).
        header = next(records, None)
        key = header["session"] if header is not None else f"codex:{converter.thread_from_name()}"
        yield Stream(key, records if header is None else chain((header,), records))
