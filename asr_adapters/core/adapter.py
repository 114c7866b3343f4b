"""What an adapter is: a sniff, and a converter from one native input to ASR streams."""

from __future__ import annotations

import importlib
import importlib.util
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import orjson

from ..model.order import canonical_order
from ..model.vocab import REGISTRY_NAMES
from ..version import PRODUCER_NAME, __version__
from .accounting import Accounting, Diagnostic
from .companion import CompanionSkipped, read_companion
from .errors import InputError
from .items import CHECKED_FROM, check_size, lenient_loads, loads, misplaced
from .lenient import REPLACED
from .nesting import MAX_NATIVE_NESTING, deeper_than, too_deep_reason
from .refs import schema_name, session_ref
from .source import Source
from .valueclass import field, valueclass


def start(kind: str) -> dict[str, Any]:
    """A new record with ``seq`` and ``id`` placeholders in their canonical place, so the
    emitter can number it in place instead of copying it."""
    return {"type": kind, "seq": 0, "id": ""}


class Emitter:
    """Numbers records in the order they are emitted and puts their keys in canonical order.

    Adapters pass every record through one emitter per stream, so a record knows its own
    ``id`` at the moment it is written (for ``supersedes`` and parent links).
    """

    def __init__(self, accounting: Accounting) -> None:
        self.seq = 0
        self._types = accounting.record_types

    def __call__(self, record: dict[str, Any]) -> dict[str, Any]:
        self.seq = seq = self.seq + 1
        kind = record["type"]
        types = self._types
        types[kind] = types.get(kind, 0) + 1
        if "seq" in record:  # built with placeholders after ``type`` (see ``start``): no copy
            record["seq"] = seq
            record["id"] = f"r{seq}"
            return canonical_order(record)
        return canonical_order({"type": kind, "seq": seq, "id": f"r{seq}", **record})

    @property
    def next_id(self) -> str:
        """The id the next emitted record will get."""
        return f"r{self.seq + 1}"


@valueclass
class Context:
    """Per-input state shared by an adapter's streams: accounting and diagnostics."""

    source: Source
    accounting: Accounting = field(default_factory=Accounting)

    def warn(self, line: int | None, reason: str) -> None:
        bad = self.source.bad_lines
        if bad and line in bad:  # a line the source could not read at all: say why
            reason = f"unreadable line skipped: {bad[line]}"
        self.accounting.diagnostics.append(Diagnostic(self.source.display, line, reason))

    def unreadable(self, line: int | None, reason: str) -> None:
        """One native item that cannot be converted: counted unreadable, reported with ``reason``."""
        self.accounting.unreadable += 1
        self.warn(line, reason)

    def document(self, refused: str) -> Any:
        """The whole input as one JSON document (``core.items``: its parsed size bounded, lone
        surrogate escapes repaired with one warning); ``InputError`` "``refused``: reason" when
        it cannot be read."""
        source = self.source
        try:
            value, repaired = loads(source.read_all())
        except orjson.JSONDecodeError as exc:
            raise InputError(source.display, f"{refused}: {_short(exc)}") from None
        if repaired:
            self.warn(None, REPLACED)
        return value

    def companion_json(self, path: Path, limit: int) -> Any:
        """A sidecar beside the input (its own folder the root, ``core.companion``), parsed as
        ``document`` parses; None, with a warning naming it and why, when it is refused,
        unreadable, gone or not JSON: a sidecar that cannot be read loses what it adds, not
        the conversion."""
        try:
            data = read_companion(path, [path.parent], limit)
        except CompanionSkipped as exc:
            reason = exc.reason
        except OSError as exc:
            reason = f"unreadable ({exc.strerror})"
        else:
            if data is None:
                reason = "gone before it was read"
            else:
                try:
                    value, repaired = loads(data)
                except orjson.JSONDecodeError as exc:
                    reason = f"not JSON ({exc})"
                else:
                    if repaired:
                        self.warn(None, f"{path.name}: {REPLACED}")
                    return value
        self.warn(None, f"{path.name}: {reason}; not read")
        return None

    def first_line(self, dispatch: Sequence[tuple[str, ...]], empty: str) -> Lines:
        """``json_lines`` with the first line held apart; ``InputError`` ``empty`` when the
        input has no line that parses."""
        lines = self.json_lines(dispatch)
        first = next(lines, None)
        if first is None:
            raise InputError(self.source.display, empty)
        return Lines(first, lines)

    def json_lines(self, dispatch: Sequence[tuple[str, ...]] = ()) -> Iterator[tuple[int, Any]]:
        """Parsed JSON lines as ``(line number, value)`` (see ``parsed_lines``)."""
        for number, value, _raw in self.parsed_lines(dispatch):
            yield number, value

    def parsed_lines(self, dispatch: Sequence[tuple[str, ...]] = ()) -> Iterator[tuple[int, Any, bytes]]:
        """``(line number, parsed value, the line's bytes)`` for every line: the one place
        lines are parsed and counted. A line that does not parse (or would take more than
        ``core.items.MAX_PARSED_BYTES`` parsed), or whose member named in ``dispatch`` (the
        members the adapter looks up by name, ``core.items.names``) is an array or an object, is
        counted unreadable and reported; one that parses to something other than an object is
        reported (the adapter keeps it)."""
        accounting = self.accounting
        loads = orjson.loads
        for number, raw in self.source.lines():
            accounting.native_items += 1
            try:
                if len(raw) >= CHECKED_FROM:
                    check_size(raw)
                value = loads(raw)
            except orjson.JSONDecodeError as exc:
                try:  # JavaScript's lone surrogate escapes: kept as U+FFFD, counted (core.lenient)
                    value = lenient_loads(raw, exc)
                except orjson.JSONDecodeError:
                    self.unreadable(number, f"unreadable line skipped: {_short(exc)}")
                    continue
                self.warn(number, REPLACED)
            if deeper_than(raw, value, MAX_NATIVE_NESTING):  # its records could not be read back (core/nesting)
                self.unreadable(number, f"unreadable line skipped: {too_deep_reason(MAX_NATIVE_NESTING)}")
                continue
            if type(value) is not dict:  # JSON, but not a line any agent writes: the adapter keeps it
                self.warn(number, f"line is JSON {_JSON_KINDS.get(type(value), 'value')}, not an object")
            elif dispatch:
                problem = misplaced(value, dispatch)
                if problem is not None:
                    self.unreadable(number, f"unreadable line skipped: {problem}")
                    continue
            yield number, value, raw


@valueclass
class Lines:
    """A line format's parsed lines, the first held apart: it decides the session (a header
    line, or the first record of a file written without one)."""

    first: tuple[int, Any]
    rest: Iterator[tuple[int, Any]]

    def entries(self, header: bool, accounting: Accounting) -> Iterator[tuple[int, Any]]:
        """The lines the mapper reads: every one, or all but the first when it was the header
        (counted as the ``session`` record it became)."""
        if header:
            accounting.records += 1
        else:
            yield self.first
        yield from self.rest


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "true/false", type(None): "null"}


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 160 else text[:157] + "..."


@valueclass
class Stream:
    """One ASR stream produced from an input: a session, or a subagent or thread of it."""

    key: str
    records: Iterator[dict[str, Any]]
    main: bool = True
    parent_key: str | None = None


def header(
    agent: str,
    session_id: str,
    *,
    agent_version: str | None,
    source_format: str,
    variant: str | None,
    file: str,
) -> dict[str, Any]:
    """The start of a ``session`` record; adapters add ``ts``, ``cwd`` and the rest in order."""
    agent_info: dict[str, Any] = {"name": agent}
    if agent_version is not None:
        agent_info["version"] = agent_version
    source: dict[str, Any] = {"format": source_format}
    if variant is not None:
        source["variant"] = variant
    source["file"] = file
    return {
        "type": "session",
        "session": session_ref(agent, session_id),
        "agent": agent_info,
        "producer": {"name": PRODUCER_NAME, "version": __version__},
        "source": source,
    }


#: the packages whose ``sniff`` and ``discover`` modules are an adapter's own
_AGENT_PACKAGES = __name__.rpartition(".core.")[0] + ".adapters."


def _beside(package: str, module: str) -> ModuleType | None:
    """The module ``module`` (``sniff`` or ``discover``) of an agent's package under
    ``asr_adapters/adapters/``, or None: the package has none, or it is not an agent's (an
    adapter defined elsewhere, say beside a ``discover`` module of another kind, names its own)."""
    if not package.startswith(_AGENT_PACKAGES) or importlib.util.find_spec(f"{package}.{module}") is None:
        return None
    return importlib.import_module(f"{package}.{module}")


class Adapter(ABC):
    """One agent's reader. Subclasses live in ``asr_adapters/adapters/<agent>/``."""

    #: Short name used in session references and ``--agent`` (profile §7).
    name: ClassVar[str]
    #: Reverse-DNS registry name used in ``schema`` values and vendor values; by default the one
    #: ``model/vocab.py`` lists for ``name`` (profile §7), so it is written once.
    registry_name: ClassVar[str]
    #: One line for ``asr agents``.
    description: ClassVar[str] = ""

    #: The package's ``sniff`` module (detection), and its ``discover`` module (where the agent
    #: keeps its files), which the discovery hooks below ask; a hook the module does not define
    #: keeps the default. A packaged agent's are found beside its adapter module
    #: (``__init_subclass__``), the layout ``registry`` imports by, so the class names neither.
    detection: ClassVar[ModuleType | None] = None
    discovery: ClassVar[ModuleType | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not hasattr(cls, "registry_name") and hasattr(cls, "name"):
            if cls.name not in REGISTRY_NAMES:
                raise TypeError(f"{cls.__name__}: {cls.name!r} has no registry name in model/vocab.py REGISTRY_NAMES")
            cls.registry_name = REGISTRY_NAMES[cls.name]
        package = cls.__module__.rpartition(".")[0]
        if cls.detection is None:
            cls.detection = _beside(package, "sniff")
        if cls.discovery is None:
            cls.discovery = _beside(package, "discover")
        # as an abstract method did, for an agent's adapter (one with a name; a shared base
        # class without one may leave detect to its subclasses)
        if hasattr(cls, "name") and cls.detection is None and cls.detect is Adapter.detect:
            raise TypeError(f"{cls.__name__}: no sniff module beside it and no detect of its own")

    def detect(self, source: Source) -> int:
        """How sure this adapter is that it reads ``source`` (0 = not mine, 100 = certain).

        Must be cheap: look at ``source.head()`` (a few KB) and the name only. Asks the
        ``sniff`` module's ``detect``; an adapter without one beside it defines this.
        """
        if self.detection is None:  # a shared base's subclass that names no sniff module
            raise NotImplementedError(f"{type(self).__name__} has no sniff module and no detect")
        return int(self.detection.detect(source))

    @abstractmethod
    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        """The ASR streams of this input, records yielded lazily."""

    # -- discovery hooks (used by batch conversion, never by parsing) --------------------

    def default_homes(self, env: Mapping[str, str]) -> list[Path]:
        """Folders where this agent keeps sessions by default, honouring its relocation
        variables in ``env`` (e.g. ``CODEX_HOME``). Existing or not; the caller checks."""
        hook = getattr(self.discovery, "default_homes", None)
        return list(hook(env)) if hook is not None else []

    def is_session_file(self, path: Path) -> bool:
        """Whether ``path`` (found under a home or a folder given to ``asr batch``) is a
        session input of its own. False for files converted as part of another input
        (subagent transcripts of a parent session, indexes, sidecars)."""
        hook = getattr(self.discovery, "is_session_file", None)
        return bool(hook(path)) if hook is not None else True

    def companion_files(self, path: Path) -> list[Path]:
        """Files read along with ``path`` (subagent transcripts, an index beside it): batch
        conversion re-converts ``path`` when one of them changes."""
        hook = getattr(self.discovery, "companion_files", None)
        return list(hook(path)) if hook is not None else []

    def vendor(self, kind: str, data: Any) -> dict[str, Any]:
        """A ``vendor`` record keeping a native item verbatim."""
        return {"type": "vendor", "schema": schema_name(self.registry_name, kind), "data": data}

    def value(self, value: str) -> str:
        """A vendor value of an open field, namespaced (profile §2)."""
        return f"{self.registry_name}/{value}"
