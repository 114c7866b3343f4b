"""The Claude Code adapter: a session transcript and its subagents, as ASR streams.

Streams, in order: the session's own (main), one per subagent transcript file, one per
inline sidechain (CLI 1.0.x wrote subagent lines into the session file). Subagent
streams start with a header naming the parent; the parent links them by ``subagent``
records. Lines are read one at a time; a small pre-pass over the raw bytes finds the
header facts (session id, cwd, version, first time, title) without parsing most lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ...core import items
from ...core.accounting import Diagnostic
from ...core.adapter import Adapter, Context, Stream
from ...core.companion import CompanionSkipped, open_companion
from ...core.digests import DigestMap
from ...core.errors import InputError
from ...core.lenient import REPLACED
from ...core.refs import session_ref
from ...core.source import BadLine, Source
from ...registry import register
from . import discover
from .builder import Builder
from .hanging import agent_request, compaction_agent, hanging_lines
from .info import AGENT, StreamInfo, agent_key
from .prescan import Facts, prescan


class _Refs:
    """``uuid in refs`` / ``refs[uuid]``: the parent session's line uuids, for ``copiedFrom``."""

    def __init__(self, uuids: Any, key: str) -> None:
        self._uuids = uuids
        self._key = key

    def __contains__(self, uuid: object) -> bool:
        return isinstance(uuid, str) and uuid in self._uuids

    def __getitem__(self, uuid: str) -> str:
        return self._key


#: Members a line is dispatched on by name (``core.items``): an array or object there is one
#: unreadable line.
DISPATCH = items.names("type", "uuid")

#: Bytes read to tell an empty (or all-blank) file from a transcript.
HEAD_PROBE = 4096


@register
class ClaudeCodeAdapter(Adapter):
    name = AGENT
    description = "Claude Code transcripts (~/.claude/projects/*/*.jsonl), with subagents and plans"

    def companion_files(self, path: Path) -> list[Path]:
        """Subagent transcripts and their ``.meta.json`` sidecars, and the plan files of the
        session's slug: converted with the session, so batch conversion re-converts it when one
        of them changes."""
        session_id = discover.head_facts(path).get("sessionId")
        if not isinstance(session_id, str):
            return []
        files: list[Path] = []
        for child in discover.children(path, session_id):
            files.append(child.path)
            if child.meta_path is not None:
                files.append(child.meta_path)
        return files + discover.plan_files(path)

    # -- conversion ---------------------------------------------------------------------

    def streams(self, source: Source, context: Context) -> Iterator[Stream]:
        if not source.head(HEAD_PROBE).strip() and next(iter(source.lines()), None) is None:
            raise InputError(source.display, "empty file: no transcript lines to convert")
        facts = prescan(source)
        root = facts.session_id or _stem(source.name)
        if facts.agent_id is not None:
            yield self._standalone_agent(source, context, facts, root)
            return
        info = StreamInfo(
            root, root, "main", source.name, source.path, None, None, facts.version, facts.cwd, facts.ts, facts.title
        )
        builder = Builder(info, context.accounting)
        sidechains = _Sidechains(root, _rereadable(source))
        state: dict[str, Any] = {}

        def main_records() -> Iterator[dict[str, Any]]:
            yield builder.header()
            # the subagent files first: the parent keeps only what their streams need of it
            skipped: list[tuple[Path, str]] = []
            kids = discover.children(source.path, root, skipped) if source.path is not None else []
            for path, reason in skipped:
                context.accounting.diagnostics.append(Diagnostic(str(path), None, f"subagent file skipped: {reason}"))
            state["kids"] = kids
            builder.child_keys = {agent_key(root, kid.agent_id) for kid in kids}
            for kid in kids:
                if compaction_agent(kid.agent_id) and not _nested(kid.meta):
                    request = agent_request(kid.path)
                    if request is not None:
                        builder.compaction_agents.append((agent_key(root, kid.agent_id), request))
                    for hung in hanging_lines(kid.path):
                        builder.hanging.setdefault(hung["parentUuid"], []).append(hung)
            feed = builder.feed
            for number, obj, _raw in context.parsed_lines(DISPATCH):
                if isinstance(obj, dict) and obj.get("isSidechain") is True:
                    sidechains.add(number, obj, builder)
                    continue
                yield from feed(number, obj)
            # nested agents (sidecar ``parentAgentId``) are linked by their own parent's stream
            linked = [(agent_key(root, k.agent_id), _meta_call(k.meta), k.meta) for k in kids if not _nested(k.meta)]
            linked += [(session_ref(AGENT, key), None, None) for key in sidechains.names()]
            yield from builder.finish(linked)

        yield Stream(info.key, main_records(), True)
        refs = _Refs(builder.uuid_rec, info.key)
        for kid in state.get("kids", []):
            usage = builder.child_usage.get(agent_key(root, kid.agent_id))
            yield self._child_stream(kid, context, root, info.key, refs, usage)
        taken = {f"{root}/agent-{kid.agent_id}" for kid in state.get("kids", [])}
        for key, lines in sidechains.groups():
            first_ts = sidechains.first_ts.get(key)
            name = f"{key}-inline" if key in taken else key  # never two streams with one key
            side = StreamInfo(
                name, root, "sidechain", source.name, source.path, info.key, None, facts.version, facts.cwd, first_ts
            )
            side.derived_id = True
            side.parent_refs = refs
            yield Stream(
                side.key, _run(Builder(side, context.accounting), sidechains.lines(source, lines)), False, info.key
            )

    def _child_stream(
        self,
        kid: discover.Child,
        context: Context,
        root: str,
        parent_key: str,
        refs: _Refs,
        parent_usage: dict[str, Any] | None = None,
    ) -> Stream:
        facts = prescan(Source(kid.path))
        meta = kid.meta or {}
        parent = parent_key
        if isinstance(meta.get("parentAgentId"), str):
            parent = agent_key(root, meta["parentAgentId"])
        title = meta.get("description") if isinstance(meta.get("description"), str) else None
        info = StreamInfo(
            f"{root}/agent-{kid.agent_id}",
            root,
            "subagent",
            kid.path.name,
            kid.path,
            parent,
            kid.agent_id,
            facts.version,
            facts.cwd,
            facts.ts,
            title,
        )
        info.parent_refs = refs
        info.meta = kid.meta
        info.parent_usage = parent_usage
        accounting = context.accounting
        return Stream(info.key, _run(Builder(info, accounting), _file_lines(kid.path, context)), False, parent)

    def _standalone_agent(self, source: Source, context: Context, facts: Facts, root: str) -> Stream:
        """A subagent transcript converted on its own: its parent is named, not converted."""
        agent_id = facts.agent_id or _stem(source.name)
        meta = None
        refs = None
        parent_usage = None
        if source.path is not None:
            kid = discover._child(source.path)
            meta = kid.meta
            parent_path = discover.parent_file(source.path, facts.session_id)
            if parent_path is not None:
                uuids, parent_usage = _parent_facts(parent_path, agent_id)
                refs = _Refs(uuids, session_ref(AGENT, root))
        parent = session_ref(AGENT, root)
        if meta and isinstance(meta.get("parentAgentId"), str):
            parent = agent_key(root, meta["parentAgentId"])
        title = meta.get("description") if meta and isinstance(meta.get("description"), str) else facts.title
        info = StreamInfo(
            f"{root}/agent-{agent_id}",
            root,
            "subagent",
            source.name,
            source.path,
            parent,
            agent_id,
            facts.version,
            facts.cwd,
            facts.ts,
            title,
        )
        info.parent_refs = refs
        info.meta = meta
        info.parent_usage = parent_usage
        return Stream(info.key, _run(Builder(info, context.accounting), context.json_lines(DISPATCH)), True, parent)


def _run(builder: Builder, lines: Iterator[tuple[int, Any]]) -> Iterator[dict[str, Any]]:
    yield builder.header()
    for number, obj in lines:
        yield from builder.feed(number, obj)
    yield from builder.finish()


def _file_lines(path: Path, context: Context) -> Iterator[tuple[int, Any]]:
    """Parsed lines of a subagent file, each counted as a native item (unreadable ones reported)."""
    accounting = context.accounting
    try:
        handle = open_companion(path, None, None)  # listed by discover.children (inside its folder)
    except (OSError, CompanionSkipped) as exc:
        accounting.diagnostics.append(Diagnostic(str(path), None, f"cannot read subagent file: {exc}"))
        return
    if handle is None:
        accounting.diagnostics.append(Diagnostic(str(path), None, "cannot read subagent file: it no longer exists"))
        return
    with handle:  # read by the core: lines bounded by MAX_LINE_BYTES, a BOM ignored
        for number, raw in Source(handle, name=path.name).lines():
            accounting.native_items += 1
            try:
                value, repaired = items.loads(raw)
            except orjson.JSONDecodeError as exc:
                reason = raw.reason if isinstance(raw, BadLine) else str(exc)
                accounting.unreadable += 1
                accounting.diagnostics.append(Diagnostic(str(path), number, f"unreadable line skipped: {reason}"))
                continue
            if repaired:
                accounting.diagnostics.append(Diagnostic(str(path), number, REPLACED))
            problem = items.misplaced(value, DISPATCH)
            if problem is not None:
                accounting.unreadable += 1
                accounting.diagnostics.append(Diagnostic(str(path), number, f"unreadable line skipped: {problem}"))
                continue
            yield number, value


def _parent_facts(path: Path, agent_id: str) -> tuple[DigestMap, dict[str, Any] | None]:
    """The parent session's line uuids, and the usage its spawn result records for this
    agent's last response (``toolUseResult.usage`` beside ``agentId``), read in one pass."""
    uuids = DigestMap()  # uuid -> 0: a set, 16 bytes a uuid
    usage: dict[str, Any] | None = None
    wanted = f'"agentId":"{agent_id}"'.encode()
    try:
        handle = open_companion(path, None, None)  # checked by discover.parent_file
        if handle is None:
            return uuids, None
        with handle:
            for raw in handle:
                if b'"uuid"' not in raw:
                    continue
                try:
                    obj = items.parse(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("uuid"), str):
                    uuids[obj["uuid"]] = 0
                    if wanted in raw:
                        result = obj.get("toolUseResult")
                        if isinstance(result, dict) and result.get("agentId") == agent_id:
                            found = result.get("usage")
                            usage = found if isinstance(found, dict) else usage
    except (OSError, CompanionSkipped):
        pass
    return uuids, usage


def _nested(meta: dict[str, Any] | None) -> bool:
    return isinstance((meta or {}).get("parentAgentId"), str)


def _meta_call(meta: dict[str, Any] | None) -> str | None:
    value = (meta or {}).get("toolUseId")
    return value if isinstance(value, str) else None


def _stem(name: str) -> str:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def _rereadable(source: Source) -> bool:
    return source.path is not None or getattr(source, "_bytes", None) is not None


class _Sidechains:
    """Inline sidechain lines (CLI 1.0.x) found in the main pass, grouped by their root.

    Only line numbers are kept; each group is re-read from the source for its own stream.
    A source that cannot be read twice (a pipe) keeps the parsed lines instead.
    """

    def __init__(self, root: str, rereadable: bool) -> None:
        self.root = root
        self.rereadable = rereadable
        self.of: dict[str, str] = {}
        self._groups: dict[str, list[Any]] = {}
        self.first_ts: dict[str, str] = {}

    def add(self, number: int, obj: dict[str, Any], builder: Builder) -> None:
        uuid = obj.get("uuid")
        parent = obj.get("parentUuid")
        agent = obj.get("agentId")
        if isinstance(agent, str) and agent:
            key = f"{self.root}/agent-{agent}"
        elif isinstance(parent, str) and parent in self.of:
            key = self.of[parent]
        elif isinstance(uuid, str):
            key = f"{self.root}/sidechain-{uuid}"
        else:
            key = next(reversed(self._groups), f"{self.root}/sidechain-L{number}")
        if isinstance(uuid, str):
            self.of[uuid] = key
        if key not in self._groups:
            self._groups[key] = []
            if isinstance(obj.get("timestamp"), str):
                self.first_ts[key] = obj["timestamp"]
            prompt = _prompt_text(obj)
            if prompt is not None:
                builder.sidechain_prompts.setdefault(prompt, session_ref(AGENT, key))
        self._groups[key].append(number if self.rereadable else (number, obj))

    def names(self) -> list[str]:
        return list(self._groups)

    def groups(self) -> Iterator[tuple[str, list[Any]]]:
        yield from self._groups.items()

    def lines(self, source: Source, wanted: list[Any]) -> Iterator[tuple[int, Any]]:
        if not self.rereadable:
            yield from wanted
            return
        todo = set(wanted)
        for number, raw in source.lines():
            if number in todo:
                try:  # as the main pass read it (a lone surrogate repaired there, and reported)
                    yield number, items.loads(raw)[0]
                except orjson.JSONDecodeError:
                    continue  # already counted unreadable in the main pass
                todo.discard(number)
                if not todo:
                    return


def _prompt_text(obj: dict[str, Any]) -> str | None:
    if obj.get("type") != "user":
        return None
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if len(texts) == 1 and isinstance(texts[0], str):
            return texts[0]
    return None
