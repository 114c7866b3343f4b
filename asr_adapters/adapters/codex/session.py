"""One rollout, line by line: the header, then every line dispatched by its kind."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ...core.adapter import header
from ...core.digests import value_digest
from ...core.items import misplaced, names
from ...core.refs import session_ref
from ...core.timestamps import from_iso
from .containers import NativeLine
from .events import EventMapper
from .tools import ToolMapper

_NO_SESSION_META = (
    "no session_meta line before the rollout's items (cut before its header): the session id is derived "
    "from the file name; start time, cwd, Codex version and the rest of the header are unknown"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
VARIANTS = {"envelope": "envelope", "bare": "bare", "json": "json"}
#: session_meta members the header states in its own words; the rest stays under ``meta``.
_ENVELOPE_KEYS = frozenset({"timestamp", "type", "payload"})
_HEADER_KEYS = frozenset({"id", "timestamp", "cwd", "cli_version"})
#: response items that hold a remote compaction's encrypted summary
_COMPACTION_ITEMS = frozenset({"compaction", "compaction_summary", "context_compaction"})
#: response items a model response is made of; any other line ends the open response
_MODEL_ITEMS = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
    }
)
#: events that mark a new turn or prompt: the open response is complete
_RESPONSE_ENDS = frozenset(
    {"task_started", "turn_started", "task_complete", "turn_complete", "user_message", "thread_rolled_back"}
)
#: items with a native id, by the record they become: m(essage), c(all), o(utput)
_ID_KINDS = {
    "message": "m",
    "reasoning": "m",
    "agent_message": "m",
    "compaction": "m",
    "compaction_summary": "m",
    "context_compaction": "m",
    "function_call": "c",
    "custom_tool_call": "c",
    "local_shell_call": "c",
    "web_search_call": "c",
    "tool_search_call": "c",
    "image_generation_call": "c",
    "function_call_output": "o",
    "custom_tool_call_output": "o",
    "tool_search_output": "o",
}
_BUILTIN = {
    "local_shell_call": ("local_shell", "action"),
    "web_search_call": ("web_search", "action"),
    "tool_search_call": ("tool_search", "arguments"),
}


#: Payload members looked up by name (``core.items``): an array or object there is one unreadable line.
_DISPATCH = names("type", "name")


class RolloutConverter(EventMapper, ToolMapper):
    """Maps one rollout's native lines to records, in file order."""

    def run(self, lines: Iterator[NativeLine]) -> Iterator[dict[str, Any]]:
        dispatch = self.dispatch
        for native in lines:
            payload = native[2]
            if type(payload) is dict and (problem := misplaced(payload, _DISPATCH)) is not None:
                self.context.unreadable(native[0], f"unreadable line skipped: payload {problem}")
                continue
            self.line = native[0]
            self.timestamp = native[3]
            if not self.header_done and native[1] != "session_meta":
                self.fallback_header()
            dispatch(native)
            if self.ready:
                yield from self.drain()  # a list: no generator per line
        self.line = None
        self.timestamp = None
        self.close_response()
        self.release_held(paired=False)
        self.close_turn()
        self.flush_spawns()
        if not self.header_done:
            self.fallback_header()
        yield from self.drain()

    def dispatch(self, native: NativeLine) -> None:
        _, kind, payload, _, raw = native
        self.line_extra = (
            {k: v for k, v in raw.items() if k not in _ENVELOPE_KEYS}
            if type(raw) is dict and len(raw) > 3 and self.era == "envelope"
            else None
        )
        if kind not in ("event_msg", "response_item"):
            self.close_response()  # bookkeeping lines come between model requests
        if kind == "event_msg":
            if type(payload) is dict and payload.get("type") in _RESPONSE_ENDS:
                self.close_response()
            self.on_event(raw, payload)
        elif kind == "response_item":
            if self.held is not None:
                self.release_held(paired=False)
            if type(payload) is dict and (
                payload.get("type") in _MODEL_ITEMS
                or (payload.get("type") == "message" and payload.get("role") == "assistant")
            ):
                self.open_response()
            else:
                self.close_response()
            self.on_item(raw, payload)
        elif kind == "session_meta":
            self.release_held(paired=False)
            self.on_session_meta(raw, payload)
        elif kind == "inter_agent_communication_metadata" and isinstance(payload, dict):
            trigger = payload.get("trigger_turn")
            self.trigger_turn = trigger if isinstance(trigger, bool) else None
            self.acc.folded += 1  # becomes triggersTurn of the agent_message that follows
        elif kind == "inter_agent_communication" and isinstance(payload, dict):
            self.release_held(paired=False)
            self.on_agent_message(payload, payload.get("content"))
        elif kind == "compacted" and isinstance(payload, dict):
            self.release_held(paired=False)
            self.on_compacted(raw, payload)
        elif kind == "turn_context" and isinstance(payload, dict):
            self.release_held(paired=False)
            if isinstance(payload.get("turn_id"), str):
                self.turn_id = payload["turn_id"]
            if isinstance(payload.get("model"), str):
                self.model = payload["model"]
            self.keep("turn_context", raw)
        elif kind == "state":
            self.keep("state", raw)
        elif kind == "?":
            self.keep("unknown_line", raw)
            if isinstance(raw, dict):  # a line that is not an object was reported while it was parsed
                self.context.warn(native[0], "line has no recognisable rollout shape; kept as a vendor record")
        else:
            self.keep(kind, raw)

    def on_item(self, raw: Any, item: Any) -> None:
        if type(item) is not dict:
            self.keep("response_item/?", raw)
            return
        kind = item.get("type")
        if self.era == "envelope" and type(raw) is dict and "metadata" in raw:
            metadata = raw["metadata"]
            if isinstance(metadata, dict) and metadata.get("inherited_user_message") and self.copied_from is None:
                self.copied_from = self.parent_thread or "unknown"
        if "internal_chat_message_metadata_passthrough" in item:
            passthrough = item["internal_chat_message_metadata_passthrough"]
            if isinstance(passthrough, dict) and isinstance(passthrough.get("turn_id"), str):
                self.turn_id = passthrough["turn_id"]
        if self.is_repeat(kind, item):
            self.on_repeated_item(item)
            return
        handler = _ITEM_HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, item)
        elif kind in _BUILTIN:
            name, key = _BUILTIN[kind]
            self.on_builtin_call(item, kind, name, key)
        else:
            self.keep(f"response_item/{kind}", raw)

    def is_repeat(self, kind: Any, item: dict[str, Any]) -> bool:
        """Whether this item, by its native id, repeats in full one already read (then it is a
        duplicate). A changed repeat is read again: its record supersedes the earlier one
        (``number``), so no native id is written twice without saying so."""
        key = _ID_KINDS.get(kind) if isinstance(kind, str) else None
        if key is None:
            return False
        native_id = item.get("call_id") or item.get("id") if key != "m" else item.get("id")
        if not isinstance(native_id, str) or not native_id:
            return False
        digest = value_digest(orjson.dumps(item, option=orjson.OPT_SORT_KEYS))
        return self.item_digests.swap(f"{key}:{native_id}", digest) == digest

    # -- header and forks -------------------------------------------------------------------

    parent_thread: str | None = None

    def on_session_meta(self, raw: Any, meta: Any) -> None:
        if not isinstance(meta, dict):
            self.keep("session_meta", raw)
            return
        if not self.header_done:
            self.write_header(meta)
            self.acc.records += 1
            return
        meta_id = meta.get("id")
        if isinstance(meta_id, str) and meta_id != self.thread_id:
            # A fork or forked subagent copies its parent's items after its own header,
            # starting with the parent's session_meta (the parent's line 1). A parent that
            # was itself a fork brings its own copy along: each nested copy ends at its own
            # thread_settings_applied, the outermost one at the last.
            if self.copied_from is None:
                self.copied_from = meta_id
                self.copy_offset = (self.line or 1) - 1
                self.copied_subagent = is_subagent_meta(meta)
            self.copy_depth += 1
        self.keep("session_meta", raw)

    def write_header(self, meta: dict[str, Any], missing: str | None = None) -> None:
        """The ``session`` record from a ``session_meta`` payload; ``missing`` says why there is
        none (then the header's ``capture.meta`` states it)."""
        thread = meta.get("id")
        self.thread_id = thread if isinstance(thread, str) and thread else self.thread_from_name()
        tree = meta.get("session_id")
        self.tree_root = tree if isinstance(tree, str) and tree else self.thread_id
        source = meta.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        self.subagent = is_subagent_meta(meta)
        version = meta.get("cli_version")
        record = header(
            "codex",
            self.thread_id,
            agent_version=version if isinstance(version, str) else None,
            source_format="codex-rollout",
            variant=VARIANTS.get(self.era),
            file=self.context.source.name,
        )
        ts, precision = from_iso(meta.get("timestamp"))
        if ts is not None:
            record = {"type": "session", "ts": ts, **({"tsPrecision": precision} if precision else {}), **record}
        if isinstance(meta.get("cwd"), str):
            record["cwd"] = meta["cwd"]
        parent = meta.get("parent_thread_id") or meta.get("forked_from_id")
        if parent is None and isinstance(spawn, dict) and isinstance(spawn.get("thread_spawn"), dict):
            parent = spawn["thread_spawn"].get("parent_thread_id")
        if isinstance(parent, str) and parent:
            self.parent_thread = parent
            record["parent"] = session_ref("codex", parent)
        rest = {k: v for k, v in meta.items() if k not in _HEADER_KEYS}
        if rest:
            record["meta"] = rest
        if missing is not None:  # no session_meta at all: the id is the file name's
            record["capture"] = {"meta": {"state": "absent", "reason": missing}}
            record["idSource"] = "derived"
        self.session_ref = record["session"]
        self.header_done = True
        self.put(record)

    def thread_from_name(self) -> str:
        match = _UUID.search(self.context.source.name)
        return match.group(0) if match else self.context.source.name.split(".", 1)[0] or "unknown"

    def fallback_header(self) -> None:
        """A rollout cut before its header (its first lines lost, or written without one) still
        gets a header: its session id derived from the file name, ``capture.meta`` saying what
        the missing ``session_meta`` would have told."""
        self.context.warn(self.line, "no session_meta line before this one; session id taken from the file name")
        self.write_header({}, _NO_SESSION_META)

    # -- compaction ---------------------------------------------------------------------------

    def on_compacted(self, raw: Any, payload: dict[str, Any]) -> None:
        """The summary is a harness message; the replacement history is not re-emitted (it
        copies earlier items) but stays, verbatim, in a vendor record."""
        record = self.envelope("message")
        record["messageId"] = self.derived("compacted")
        record["role"] = "user"
        record["author"] = "harness"
        record["origin"] = "injected"
        summary = payload.get("message")
        history = payload.get("replacement_history")
        last = history[-1] if isinstance(history, list) and history else None
        encrypted = (
            last.get("encrypted_content") if isinstance(last, dict) and last.get("type") in _COMPACTION_ITEMS else None
        )
        if isinstance(encrypted, str):
            # Remote compaction: the summary the model gets back is the trailing compaction
            # item; ``message`` is empty (or, in a sanitized file, a marker standing for "").
            record["content"] = [{"type": "opaque", "format": "openai.encrypted_content", "data": encrypted}]
        elif isinstance(summary, str) and summary:
            record["content"] = [{"type": "text", "text": summary}]
        else:
            record["content"] = []
            record["capture"] = {"content": {"state": "absent", "reason": "compaction summary not stored"}}
        record["idSource"] = "derived"
        record["summaryOf"] = "compaction"  # the history before it is replaced (``compaction`` at numbering)
        self.put(record)
        self.put(self.vendor("compacted", raw))
        self.acc.records += 1

    def on_compaction_item(self, item: dict[str, Any]) -> None:
        record = self.envelope("message")
        native_id = item.get("id")
        record["messageId"] = native_id if isinstance(native_id, str) else self.derived("compaction")
        record["role"] = "user"
        record["author"] = "harness"
        record["origin"] = "injected"
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str):
            record["content"] = [{"type": "opaque", "format": "openai.encrypted_content", "data": encrypted}]
        else:
            record["content"] = []
            record["capture"] = {"content": {"state": "absent"}}
        if not isinstance(native_id, str):
            record["idSource"] = "derived"
        record["summaryOf"] = "compaction"
        self.put(record)
        self.acc.records += 1


def is_subagent_meta(meta: dict[str, Any]) -> bool:
    """A thread another agent spawned (its user-role input comes from that agent)."""
    source = meta.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    return meta.get("thread_source") == "subagent" or (isinstance(spawn, dict) and "thread_spawn" in spawn)


_ITEM_HANDLERS: dict[str, Callable[[RolloutConverter, dict[str, Any]], None]] = {
    "message": RolloutConverter.on_message,
    "reasoning": RolloutConverter.on_reasoning,
    "function_call": RolloutConverter.on_function_call,
    "custom_tool_call": RolloutConverter.on_custom_tool_call,
    "function_call_output": lambda self, item: self.on_output(item, "output"),
    "custom_tool_call_output": lambda self, item: self.on_output(item, "output"),
    "tool_search_output": lambda self, item: self.on_output(item, "output"),
    "image_generation_call": RolloutConverter.on_image_generation,
    "agent_message": lambda self, item: self.on_agent_message(item, item.get("content")),
    "compaction": RolloutConverter.on_compaction_item,
    "compaction_summary": RolloutConverter.on_compaction_item,
    "context_compaction": RolloutConverter.on_compaction_item,
}
