"""Cline CLI 3.x sessions: ``<sessionId>.messages.json`` -> one ASR stream.

Cline CLI 3 (``@cline/cli``, built on ``@cline/core``) keeps a session under
``~/.cline/data/sessions/<sessionId>/``: ``<sessionId>.messages.json`` (the replay artifact,
cline/cline ``sdk/packages/core/docs/messages-contract-v1.md``: ``{version: 1, updated_at,
agent, sessionId, taskType?, origin, messages, system_prompt?}``, Anthropic-shaped blocks)
and ``<sessionId>.json`` (the manifest: cwd, model, title, fork), read as a companion.
A ``messages.json`` of another contract version is refused with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ...core.adapter import Context, Emitter, header
from ...core.errors import InputError
from ...core.source import Source
from ...core.timestamps import from_epoch_millis, from_iso, stamp
from ...core.usage import count
from ...core.usage import normalized_usage as normalized
from .files import companion, load
from .parts import REGISTRY, block_part
from .timeline import new_body

FORMAT = "cline-messages"
CONTRACT_VERSION = 1
#: ``<sessionId>.compaction.json``: the compacted context ``@cline/core`` sends after a
#: compaction (``SessionCompactionStateSchema``), beside the full transcript; not read
COMPACTION_SUFFIX = ".compaction.json"
#: the head of a messages file: an object whose first members are the contract's
#: the wrappers ``@cline/shared`` ``prompt/format.ts`` writes around what the person typed
#: (``formatUserInputBlock``, ``formatUserCommandBlock``): the inside is theirs, the tags Cline's
_WRAPPED = re.compile(
    r'(<user_input\b[^>]*>)(.*?)(</user_input>)|(<user_command slash="[^"]*">)(.*?)(</user_command>)', re.S
)
#: whole blocks that Cline's runtime writes into a user message (a compaction notice, a mode switch)
_NOTICE = re.compile(r"\A\s*<(SYSTEM_NOTICE|mode_notice)\b")
_MESSAGE_KEYS = frozenset({"id", "role", "content", "ts", "modelInfo", "metrics"})


def check(source: Source, document: dict[str, Any]) -> None:
    """Refuse what is not a version-1 messages file, naming what was found."""
    if "session_id" in document and "messages_path" in document:
        target = Path(str(document.get("messages_path"))).name
        raise InputError(
            source.display, f"a Cline CLI session manifest, not its transcript: convert {target} beside it"
        )
    if source.name.endswith(COMPACTION_SUFFIX) or "source_message_count" in document:
        raise InputError(
            source.display,
            "a Cline CLI session's compaction state (the compacted context it sends next), not its transcript:"
            " convert the <sessionId>.messages.json beside it",
        )
    if "messages" not in document or "updated_at" not in document:
        raise InputError(
            source.display, "not a Cline file: a JSON object that is neither a Cline CLI messages.json nor its manifest"
        )
    version = document.get("version")
    if version != CONTRACT_VERSION:
        raise InputError(
            source.display,
            f"a Cline CLI messages.json of contract version {version!r}: only version {CONTRACT_VERSION} is read",
        )
    if not isinstance(document.get("messages"), list):
        raise InputError(source.display, "a Cline CLI messages.json whose messages is not a list")


def _file_uri(path: str) -> str:
    """A ``file:`` URI for a path as Cline stores it (forward slashes)."""
    if re.match(r"\A[A-Za-z]:/", path):
        return "file:///" + quote(path, safe="/:")
    return ("file://" if path.startswith("/") else "file:") + quote(path, safe="/")


def _tokens(metrics: Any) -> dict[str, Any] | None:
    """``metrics`` as usage. ``@cline/core`` reports the AI SDK's counts: ``inputTokens`` is the
    whole input, cache reads and writes inside it (``legacyTokenUsageFromUsageEvent``), unless
    the numbers prove otherwise (the cache counts are larger than the whole)."""
    if not isinstance(metrics, dict):
        return None
    total_in, read, write = metrics.get("inputTokens"), metrics.get("cacheReadTokens"), metrics.get("cacheWriteTokens")
    cached = (count(read) or 0) + (count(write) or 0)
    apart = isinstance(total_in, int) and total_in < cached
    return normalized(
        input=total_in,
        input_parts=(read, write) if apart else (),
        cache_read=read,
        cache_write=write,
        output=metrics.get("outputTokens"),
    )


def _harness(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "author": "harness", "origin": "injected"}


class SessionMapper:
    """One messages file, in order: the system prompt, then each stored message."""

    def __init__(self, emit: Emitter, context: Context, document: dict[str, Any]) -> None:
        self.emit = emit
        self.context = context
        self.document = document
        self.agent = document.get("agent")
        self.call_names: dict[str, str] = {}
        self.first_user = True

    def records(self) -> Iterator[dict[str, Any]]:
        accounting = self.context.accounting
        prompt = self.document.get("system_prompt")
        if isinstance(prompt, str):
            accounting.native_items += 1
            accounting.records += 1
            body = new_body("message")
            body.update(messageId="system_prompt", role="system", author="harness", origin="injected")
            body["content"] = [{"type": "text", "text": prompt}]
            body["idSource"] = "derived"
            yield self.emit(body)
        for index, message in enumerate(self.document["messages"]):
            accounting.native_items += 1
            before = self.emit.seq
            if isinstance(message, dict) and message.get("role") == "assistant":
                yield from self._assistant(index, message)
            elif isinstance(message, dict) and message.get("role") == "user":
                yield from self._user(index, message)
            else:
                accounting.vendor += 1
                yield self.emit({"type": "vendor", "schema": f"{REGISTRY}/message", "data": message})
                continue
            if self.emit.seq > before:
                accounting.records += 1
            else:  # a message with no content: nothing to write
                accounting.folded += 1

    def _head(self, index: int, message: dict[str, Any], role: str) -> dict[str, Any]:
        body = new_body("message", message.get("ts"))
        native = message.get("id")
        body["messageId"] = native if isinstance(native, str) and native else f"message:{index}"
        body["role"] = role
        return body

    def _tail(self, body: dict[str, Any], message: dict[str, Any]) -> None:
        if "messageId" in body and body["messageId"] != message.get("id"):
            body["idSource"] = "derived"
        model = message.get("modelInfo")
        if body.get("author") == "model" and isinstance(model, dict) and isinstance(model.get("id"), str):
            body["model"] = model["id"]  # only on what the model wrote (a prompt names none)
        extra = {k: v for k, v in message.items() if k not in _MESSAGE_KEYS or k == "modelInfo"}
        if extra:
            body["cline"] = extra

    def _blocks(self, message: dict[str, Any]) -> list[Any]:
        content = message.get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return content if isinstance(content, list) else []

    # -- user --------------------------------------------------------------------------

    def _user(self, index: int, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        ts = message.get("ts")
        for block in self._blocks(message):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                results.append(self._result(block, ts))
            elif kind == "text" and isinstance(block.get("text"), str):
                parts += self._user_text(block["text"])
            elif kind == "file" and isinstance(block.get("path"), str):
                # the content of a file the person attached or mentioned, loaded by Cline
                resource = {"uri": _file_uri(block["path"]), "text": block.get("content")}
                if not isinstance(resource["text"], str):
                    resource.pop("text")
                parts.append({"type": "resource", "resource": resource, "author": "harness", "origin": "injected"})
            elif kind == "image" and isinstance(block.get("data"), str):
                mime = block.get("mediaType") or block.get("mimeType") or "image/*"
                parts.append({"type": "image", "mimeType": str(mime), "data": block["data"]})
            else:
                parts.append(block_part(block))
        self.first_user = False
        if results and not parts:  # a message of results only: its own members stay on the first
            results[0]["cline"] = {k: v for k, v in message.items() if k != "content"}
        for result in results:
            yield self.emit(result)
        if not parts:
            return
        body = self._head(index, message, "user")
        body["content"] = parts
        metadata = message.get("metadata")
        if isinstance(metadata, dict) and metadata.get("kind") == "compaction":
            # the message the runtime rewrote the history into; what it replaced is gone from
            # the file (``messagesRemoved``), so no ``through``
            body["summaryOf"] = "compaction"
            body["compaction"] = {}
        self._tail(body, message)
        yield self.emit(body)

    def _user_text(self, text: str) -> list[dict[str, Any]]:
        """A user text block split where Cline marks the person's input (ASR-203/224): the
        inside of ``<user_input …>`` / ``<user_command …>`` is theirs, the tags and whatever
        Cline wrote around them (a ``<mode_notice>``, attachments) are its own; a block that is
        Cline's notice (``<SYSTEM_NOTICE>``, ``<mode_notice>``) is its own. Unwrapped text (older
        transcripts) has no author, except the task a lead agent gave a subagent or teammate."""
        out: list[dict[str, Any]] = []
        at = 0
        for match in _WRAPPED.finditer(text):
            command = match.group(4) is not None
            opening, inner, closing = match.group(4, 5, 6) if command else match.group(1, 2, 3)
            if match.start() > at:
                out.append(_harness(text[at : match.start()]))
            out.append(_harness(opening))
            if inner:
                out.append(
                    {"type": "text", "text": inner, "author": "human", "origin": "command" if command else "prompt"}
                )
            out.append(_harness(closing))
            at = match.end()
        if not out:
            if _NOTICE.match(text):
                return [_harness(text)]
            part: dict[str, Any] = {"type": "text", "text": text}
            if self.first_user and self.agent in ("subagent", "teammate"):
                part["author"] = "agent"
            return [part]
        if at < len(text):
            out.append(_harness(text[at:]))
        return out

    def _result(self, block: dict[str, Any], ts: Any) -> dict[str, Any]:
        body = new_body("tool_result", ts)
        call_id = block.get("tool_use_id")
        body["callId"] = str(call_id)
        name = block.get("name") if isinstance(block.get("name"), str) else self.call_names.get(str(call_id))
        if name is not None:
            body["name"] = name
        if block.get("is_error") is True:  # false is the writer's default, not a recorded success
            body["isError"] = True
        content = block.get("content")
        if isinstance(content, str):
            body["content"] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            body["content"] = [
                block_part(item)
                if isinstance(item, dict) and item.get("type") in ("text", "image")
                else {"type": "data", "data": item, "schema": f"{REGISTRY}/tool-output"}
                for item in content
            ]
        else:
            body["content"] = (
                [] if content is None else [{"type": "data", "data": content, "schema": f"{REGISTRY}/tool-output"}]
            )
        extra = {k: v for k, v in block.items() if k not in ("type", "tool_use_id", "name", "content", "is_error")}
        if "is_error" in block and block["is_error"] is not True:
            extra["is_error"] = block["is_error"]
        if extra:
            body["block"] = extra
        return body

    # -- assistant ---------------------------------------------------------------------

    def _assistant(self, index: int, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        ts = message.get("ts")
        for block in self._blocks(message):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call = new_body("tool_call", ts)
                call["callId"] = str(block.get("id"))
                call["name"] = str(block.get("name"))
                call["input"] = block.get("input")
                extra = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
                if extra:
                    call["block"] = extra
                self.call_names[call["callId"]] = call["name"]
                calls.append(call)
            else:
                parts.append(block_part(block))
        usage = _tokens(message.get("metrics"))
        native = message.get("metrics") if usage is not None else None
        body: dict[str, Any] | None = None
        if parts:
            body = self._head(index, message, "assistant")
            body["author"] = "model"
            body["content"] = parts
            self._tail(body, message)
            if usage is not None:
                body.update(usage=usage, nativeUsage=native)
            yield self.emit(body)
        for number, call in enumerate(calls):
            if body is not None:
                call["messageId"] = body["messageId"]
            elif number == 0:  # a response of tool calls only: its first call carries its model and usage
                model = message.get("modelInfo")
                if isinstance(model, dict) and isinstance(model.get("id"), str):
                    call["model"] = model["id"]
                if usage is not None:
                    call.update(usage=usage, nativeUsage=native)
                call["cline"] = {k: v for k, v in message.items() if k not in ("content", "metrics")}
            yield self.emit(call)


def session_header(source: Source, document: dict[str, Any], context: Context) -> dict[str, Any]:
    """The header: the session id the file names, the manifest's cwd, title, model and start."""
    native_id = document.get("sessionId")
    session_id = native_id if isinstance(native_id, str) and native_id else source.name
    derived = session_id is not native_id
    agent = document.get("agent")
    native_origin = document.get("origin")
    origin: dict[str, Any] = native_origin if isinstance(native_origin, dict) else {}
    # ``origin.version`` is the client's version (``extensionContext.client.version``: the CLI's,
    # or the extension's when Cline for VS Code wrote the session through the SDK)
    version = origin.get("version")
    record = header(
        "cline",
        session_id,
        agent_version=version if isinstance(version, str) and version.strip() else None,
        source_format=FORMAT,
        variant=agent if isinstance(agent, str) else None,
        file=source.name,
    )
    manifest: Any = None
    if not derived and source.path is not None:
        path = companion(source.path, f"{session_id}.json", context)
        manifest = load(path, context) if path is not None else None
        if manifest is not None and not isinstance(manifest, dict):
            context.warn(None, f"{session_id}.json: not a Cline CLI session manifest; not read")
            manifest = None
    started = manifest.get("started_at") if manifest else None
    when = from_iso(started) if isinstance(started, str) else None
    if when is None or when[0] is None:  # no manifest: the first message's time
        first = next((m.get("ts") for m in document["messages"] if isinstance(m, dict) and "ts" in m), None)
        when = from_epoch_millis(first)
    stamp(record, when)
    if manifest and isinstance(manifest.get("cwd"), str):
        record["cwd"] = manifest["cwd"]
    source_kind = origin.get("source")
    if isinstance(source_kind, str) and source_kind:
        record["host"] = {"source": source_kind}  # the client that wrote it: cli, vscode, jetbrains …
    parent = origin.get("parentThreadId")
    if isinstance(parent, str) and parent:
        record["parent"] = f"cline:{parent}"
    if derived:
        record["idSource"] = "derived"
    metadata = manifest.get("metadata") if manifest else None
    if isinstance(metadata, dict) and isinstance(metadata.get("title"), str):
        record["title"] = metadata["title"]
    native = {k: v for k, v in document.items() if k not in ("messages", "system_prompt", "sessionId", "agent")}
    record["cline"] = native
    if manifest is not None:
        context.accounting.native_items += 1
        context.accounting.folded += 1
        record["companions"] = [f"{session_id}.json"]
        record["sessionManifest"] = manifest
    return record
