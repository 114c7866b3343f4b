"""The Codex CLI adapter: rollout files of every generation to one ASR stream."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from ...core.adapter import Adapter, Context, Stream
from ...core.errors import InputError
from ...core.source import Source
from ...registry import register
from . import discover
from .containers import bare_lines, envelope_lines, json_document, sniff_era
from .session import RolloutConverter


@register
class CodexAdapter(Adapter):
    name = "codex"
    registry_name = "com.openai.codex"
    description = "OpenAI Codex CLI rollouts (.jsonl, .jsonl.zst, TS-era .json)"
    discovery = discover

    def detect(self, source: Source) -> int:
        if source.is_sqlite:
            return 0
        era = sniff_era(source.head())
        if era == "envelope":
            return 100
        if era is not None:
            return 80 if source.name.startswith("rollout-") else 60
        return 0

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        era = sniff_era(source.head())
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
