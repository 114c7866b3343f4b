"""The library's conversion entry point: pick an adapter, run it, keep the accounting."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any

from . import registry
from ._callable import make_callable
from .core.accounting import Accounting
from .core.adapter import Adapter, Context, Stream
from .core.errors import ASRError, InputError
from .core.sanitized import scrub
from .core.source import Source
from .stream.sniff import is_asr_stream

SourceLike = str | os.PathLike[str] | bytes | IO[bytes] | Source


def open_source(obj: SourceLike) -> Source:
    return obj if isinstance(obj, Source) else Source(obj)


class Conversion:
    """One input being converted.

    Iterating it yields the records of its main stream (pydantic models, or plain dicts with
    ``as_dicts=True``); ``streams()`` yields every stream (subagents, threads).
    ``accounting`` is complete once the streams have been read to the end.
    """

    def __init__(
        self,
        source: SourceLike,
        agent: str | None = None,
        *,
        as_dicts: bool = False,
        select: str | None = None,
        redactor: Any = None,
    ) -> None:
        #: an ``asr_adapters.redact.Redactor``: every record is redacted before it is yielded
        self.redactor = redactor
        self.source = open_source(source)
        self.select = select
        #: Whether the agent was named rather than detected (see ``mismatch``).
        self.named = agent is not None
        try:
            self.adapter: Adapter = registry.get(agent) if agent else registry.detect(self.source)
            if agent and not self.source.is_sqlite and is_asr_stream(self.source.head()):
                raise InputError(self.source.display, registry.ASR_STREAM)
        except ASRError as exc:
            raise self._explain(exc) from exc
        except OSError as exc:  # bad input is an InputError, never a bare OSError (docs/reliability.md)
            raise InputError(self.source.display, f"cannot read: {exc.strerror or exc}") from exc
        self.context = Context(self.source)
        self.as_dicts = as_dicts
        self._started = False
        #: The key of every stream the input produced so far, in order.
        self.keys: list[str] = []

    @property
    def accounting(self) -> Accounting:
        return self.context.accounting

    def streams(self) -> Iterator[Stream]:
        if self._started:
            raise RuntimeError("a conversion can be read once")
        self._started = True
        try:
            for stream in self.adapter.streams(self.source, self.context):
                self.accounting.streams += 1
                self.keys.append(stream.key)
                main = stream.main
                if self.select is not None:
                    main = self.selected(stream.key)
                yield Stream(stream.key, self._guard(stream.records), main, stream.parent_key)
        except ASRError as exc:
            raise self._explain(exc) from exc
        except Exception as exc:
            raise self._fail(exc) from exc

    def selected(self, key: str) -> bool:
        """Whether ``select`` (a ``--thread`` id) names the stream ``key``."""
        return self.select is not None and (key == self.select or key.endswith(":" + self.select))

    def mismatch(self) -> str | None:
        """When the agent was named, its adapter recognised none or almost none (at most one in
        twenty) of the input's items and detection would choose another agent: a message naming
        it; None otherwise. Read once the streams are read to the end."""
        counts = self.accounting
        recognised = counts.records + counts.folded + counts.duplicates
        if not self.named or counts.native_items == 0 or recognised * 20 > counts.native_items:
            return None
        try:
            detected = registry.detect(self.source).name
        except ASRError:
            detected = None
        if detected is None or detected == self.adapter.name:  # nothing better to name: as asked
            return None
        return (
            f"{self.source.display}: {self.adapter.name} recognises {recognised} of its {counts.native_items} "
            f"items; it looks like a {detected} session log (use --agent {detected}, or leave --agent out)"
        )

    def _explain(self, exc: ASRError) -> ASRError:
        """An input whose compressed data broke off before anything readable: say so, rather
        than that no agent claims it or that it has no header."""
        problem = self.source.compression_problem
        if problem is None or problem in str(exc):
            return exc
        return InputError(self.source.display, f"{problem}; nothing readable before it")

    def _guard(self, records: Iterator[dict[str, Any]]) -> Iterator[Any]:
        try:
            records = scrub(records)  # sanitizer markers -> capture: redacted, for every adapter
            if self.redactor is not None:
                records = self.redactor.records(records)
            if self.as_dicts:
                yield from records
            else:
                from .model.api import to_model

                for record in records:
                    yield to_model(record)
        except ASRError:
            raise
        except Exception as exc:
            raise self._fail(exc) from exc

    def _fail(self, exc: Exception) -> InputError:
        kind = type(exc).__name__
        return InputError(self.source.display, f"conversion stopped: {kind}: {exc}")

    def __iter__(self) -> Iterator[Any]:
        for stream in self.streams():
            if stream.main:
                yield from stream.records
            else:
                for _ in stream.records:  # drain, so the accounting stays whole
                    pass


def convert(
    source: SourceLike, agent: str | None = None, *, as_dicts: bool = False, redactor: Any = None
) -> Conversion:
    """Convert one native session input; iterate the result for its ASR records (redacted by
    ``redactor``, an ``asr_adapters.redact.Redactor``, when given)."""
    return Conversion(source, agent, as_dicts=as_dicts, redactor=redactor)


make_callable(__name__, "convert")  # asr_adapters.convert(...) is this module's convert(...)
