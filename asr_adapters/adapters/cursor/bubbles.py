# Over 400 lines: one mapper for three bubble shapes whose members overlap (a split would repeat them).
"""One Cursor bubble (a chat or composer message) into ASR records.

Three shapes, one mapping (docs/agents/cursor.md): the 2024 chat pane's bubbles (``type``
"user" / "ai", ``id``, context arrays at the top), the 2024 inline composer's (``type`` 1 / 2,
``bubbleId``, context in ``context``) and the 2025 ``bubbleId:*`` rows (``type`` 1 / 2, context
arrays at the top, ``thinking``, ``toolFormerData``, ``tokenCount``). Every member is optional.
A user bubble's typed ``text`` is the person's; the context the person attached (files,
selections, images …) is harness-inserted data. An assistant bubble's ``thinking`` and ``text``
are the model's; its ``toolFormerData`` is one tool call with its result, in the same bubble.
The members not mapped stay verbatim under the record's ``cursor`` member.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core import items
from ...core.accounting import Accounting
from ...core.adapter import Emitter, start
from ...core.timestamps import from_epoch_millis, from_iso, stamp
from .keys import scrub_member

AGENT = "cursor"
REGISTRY = "com.cursor"
USER_TYPES = ("user", 1)
ASSISTANT_TYPES = ("ai", 2)
#: members that hold context the person attached to a prompt (observed 2024 and May/Sept 2025
#: shapes, research/cursor.md §2; the Dec 2025 names from michaeldhood/chatrxiv
#: docs/cursor/storage-reference.md @ d28513a8): each non-empty one becomes a data part
CONTEXT = (
    "selections", "fileSelections", "folderSelections", "selectedDocs", "selectedCommits", "selectedPullRequests",
    "terminalSelections", "terminalFiles", "quotes", "externalLinks", "selectedImages", "notepads",
    "attachedCodeChunks", "attachedFileCodeChunksUris", "attachedFolders", "lints", "cursorRules",
    "webReferences", "docsReferences", "images", "gitDiffs", "commits", "pullRequests", "knowledgeItems",
    "attachedFileCodeChunksMetadataOnly", "cursorCommands", "gitPRDiffSelections", "composers",
)  # fmt: skip
#: the opening of the text Cursor's fix-in-chat action puts in a prompt for a diagnostic (the same
#: English wording, diagnostic filled in, in exports whose people write in other languages):
#: not shown to be typed by the person
FIX_IN_CHAT = "For the code present, we get this error:"
#: members Cursor's default bubble template sets on every bubble and no source shows to be sent:
#: ``relevantFiles`` (``[]`` by default, composerDataCreation.js in the public workbench dump
#: depressedX/cursor-hack; 9-10 paths on later composer user bubbles of the 2024 sample) is kept
#: under ``cursor`` when non-empty, never a model-facing part
NOT_CONTEXT = ("relevantFiles",)
_TOOL_STATUS = {"completed": "complete", "error": "error", "cancelled": f"{REGISTRY}/cancelled"}
_TOOL_MAPPED = ("toolCallId", "name", "rawArgs", "status", "result", "error")


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def when(bubble: dict[str, Any]) -> tuple[str | None, str | None]:
    """The bubble's own time: ``createdAt`` (an ISO string, or epoch ms); none otherwise."""
    created = bubble.get("createdAt")
    if isinstance(created, str):
        return from_iso(created)
    if isinstance(created, int | float) and not isinstance(created, bool):
        return from_epoch_millis(created)
    return None, None


class BubbleMapper:
    """The records of one conversation's bubbles, through one emitter."""

    def __init__(
        self,
        emit: Emitter,
        accounting: Accounting,
        vendor: Any,
        conversation_id: str,
        *,
        subagent: bool = False,
        tool_data: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.emit = emit
        #: the composer's ToolFormer ``bubbleDataMap`` entries not yet read (capabilities.py)
        self.tool_data = dict(tool_data or {})
        #: a subagent composer (``subagentInfo`` on the composer): Cursor's subagent service writes
        #: each of its HUMAN bubbles with the parent agent's prompt as ``text``
        self.subagent = subagent
        self.accounting = accounting
        self.vendor = vendor
        self.conversation_id = conversation_id
        self.position = 0

    def bubble(self, bubble: Any, *, header_type: Any = None) -> Iterator[dict[str, Any]]:
        """The records of one bubble (one native item, accounted here)."""
        self.position += 1
        if not isinstance(bubble, dict):
            self.accounting.vendor += 1
            yield self.emit(self.vendor("bubble", bubble))
            return
        kind = bubble.get("type", header_type)
        if kind in USER_TYPES:
            self.accounting.records += 1
            yield self.emit(self._user(bubble))
        elif kind in ASSISTANT_TYPES:
            self.accounting.records += 1
            yield from self._assistant(bubble)
        else:
            self.accounting.vendor += 1
            yield self.emit(self.vendor("bubble", bubble))

    def missing(self, header: dict[str, Any], reason: str) -> Iterator[dict[str, Any]]:
        """A bubble the conversation lists but the database does not hold: its place kept."""
        self.position += 1
        record = start("message")
        record["messageId"] = self._message_id(header)
        role = _role(header.get("type"))
        if role is not None:
            record["role"] = role
        record["content"] = []
        capture: dict[str, Any] = {"content": {"state": "absent", "reason": reason}}
        if role is None:
            capture["role"] = {"state": "absent"}
        record["capture"] = capture
        if "idSource" not in record and not isinstance(header.get("bubbleId"), str):
            record["idSource"] = "derived"
        record[AGENT] = {"header": header}
        yield self.emit(record)

    # -- user -----------------------------------------------------------------------------

    def _user(self, bubble: dict[str, Any]) -> dict[str, Any]:
        record = start("message")
        stamp(record, when(bubble))
        record["messageId"] = self._message_id(bubble)
        record["role"] = "user"
        content: list[dict[str, Any]] = []
        text = bubble.get("text")
        if isinstance(text, str) and text:
            part: dict[str, Any] = {"type": "text", "text": text}
            author = self._prompt_author(bubble, text)
            if author is not None:
                part["author"] = author
            part["origin"] = "prompt"
            content.append(part)
        rest = {k: v for k, v in bubble.items() if k not in ("type", "id", "bubbleId", "text", "createdAt")}
        context = rest.get("context")
        if isinstance(context, dict):  # the 2024 inline composer keeps the attachments in ``context``
            kept = {k: v for k, v in context.items() if k not in CONTEXT}  # parts now, or nothing attached
            content += _context_parts(context)
            rest["context"] = kept
        content += _context_parts(rest)
        for name in CONTEXT:  # a non-empty one is a part now; an empty one says nothing was attached
            rest.pop(name, None)
        record["content"] = content
        if not content:
            record["capture"] = {"content": {"state": "absent", "reason": "the bubble holds no text"}}
        if self._derived(bubble):
            record["idSource"] = "derived"
        _keep(record, rest)
        return record

    def _prompt_author(self, bubble: dict[str, Any], text: str) -> str | None:
        """Who wrote a user bubble's text: the parent agent in a subagent composer; nobody known
        for a nudge (``isNudge``) or the editor's fix-in-chat template (ASR-202: no source says a
        person typed them); else the person."""
        if self.subagent:
            return "agent"
        if bubble.get("isNudge") is True or text.startswith(FIX_IN_CHAT):
            return None
        return "human"

    # -- assistant ------------------------------------------------------------------------

    def _assistant(self, bubble: dict[str, Any]) -> Iterator[dict[str, Any]]:
        rest = {k: v for k, v in bubble.items() if k not in ("type", "id", "bubbleId", "createdAt")}
        content: list[dict[str, Any]] = []
        thinking = rest.pop("thinking", None)
        if isinstance(thinking, dict) and (thinking.get("text") or thinking.get("signature")):
            content.append(_reasoning(thinking))
        elif thinking is not None:
            rest["thinking"] = thinking
        text = rest.pop("text", None)
        if isinstance(text, str) and text:
            content.append({"type": "text", "text": text})
        elif text is not None and text != "":
            rest["text"] = text
        if "rawText" in rest and rest["rawText"] == text:
            del rest["rawText"]  # the 2024 chat pane stores the answer twice, equal (docs/agents/cursor.md)
        tool = rest.pop("toolFormerData", None)
        if tool is None:  # an older composer keeps the call in its ToolFormer capability
            tool = self._capability_tool(bubble)
        if tool is not None and not isinstance(tool, dict):
            rest["toolFormerData"] = tool
            tool = None
        request = rest.pop("requestId", None)
        if request is not None and not (isinstance(request, str) and request):
            rest["requestId"] = request  # not an id: kept as it is
        message_id = self._message_id(bubble)
        has_message = bool(content) or not isinstance(tool, dict)
        model_call = tool.get("modelCallId") if isinstance(tool, dict) else None
        model_call = model_call if isinstance(model_call, str) and model_call else None
        if has_message:
            record = start("message")
            stamp(record, when(bubble))
            if isinstance(request, str) and request:
                record["turnId"] = request
            if model_call is not None:
                record["inferenceId"] = model_call
            record["messageId"] = message_id
            record["role"] = "assistant"
            record["author"] = "model"
            record["content"] = content
            if not content:
                record["capture"] = {"content": {"state": "absent", "reason": "the bubble holds no text"}}
            if self._derived(bubble):
                record["idSource"] = "derived"
            model = rest.pop("modelType", None)
            if isinstance(model, str) and model:
                record["model"] = model
            elif model is not None:
                rest["modelType"] = model
            if isinstance(rest.get("tokenCount"), dict):  # anything else stays under ``cursor``
                record["nativeUsage"] = rest.pop("tokenCount")
            _keep(record, rest)
            yield self.emit(record)
        if isinstance(tool, dict):
            yield from self._tool(bubble, tool, message_id if has_message and content else None, rest, has_message)

    def _tool(
        self, bubble: dict[str, Any], tool: dict[str, Any], message_id: str | None, rest: dict[str, Any], shown: bool
    ) -> Iterator[dict[str, Any]]:
        """The tool call of a bubble, and its result when the bubble holds one."""
        call = start("tool_call")
        stamp(call, when(bubble))
        request = bubble.get("requestId")
        if isinstance(request, str) and request:
            call["turnId"] = request  # the request: a turn (it spans several model calls)
        model_call = tool.get("modelCallId")
        if isinstance(model_call, str) and model_call:
            call["inferenceId"] = model_call  # the per-call id of the model call that made this call
        call_id = tool.get("toolCallId")
        derived = not (isinstance(call_id, str) and call_id)
        if derived:
            call_id = f"{self._message_id(bubble)}:tool"
        call["callId"] = call_id
        name = tool.get("name")
        name = name if isinstance(name, str) and name else f"{REGISTRY}/tool-{tool.get('tool')}"
        call["name"] = name
        if message_id is not None:
            call["messageId"] = message_id
        raw = tool.get("rawArgs")
        if isinstance(raw, str) and raw:
            try:
                call["input"] = items.parse(raw)
            except ValueError:
                call["arguments"] = raw
        native_status = tool.get("status")
        status = _TOOL_STATUS.get(native_status) if isinstance(native_status, str) else None
        if status is None and isinstance(native_status, str) and native_status:
            status = f"{REGISTRY}/{native_status}"
        if status is not None:
            call["status"] = status
        if derived:
            call["idSource"] = "derived"
        extra = {k: v for k, v in tool.items() if k not in _TOOL_MAPPED}
        if "inferenceId" in call:
            extra.pop("modelCallId", None)
        if "rawArgs" in tool and "input" not in call and "arguments" not in call:
            extra["rawArgs"] = tool["rawArgs"]  # empty or not a string: kept as stored
        if not shown:  # the bubble's own members ride on its call when it has no message
            if isinstance(rest.get("tokenCount"), dict):
                call["nativeUsage"] = rest.pop("tokenCount")
            extra = {"toolFormerData": extra, "bubble": rest} if rest else {"toolFormerData": extra}
            if not self._derived(bubble):  # no message carries the bubble's id: the call keeps it
                extra = {"bubbleId": self._message_id(bubble), **extra}
        else:
            extra = {"toolFormerData": extra}
        call[AGENT] = extra
        scrub_member(call, AGENT)
        yield self.emit(call)
        result_text, error = tool.get("result"), tool.get("error")
        if result_text is None and error is None and native_status not in _TOOL_STATUS:
            return  # still running when stored: no result
        result = start("tool_result")
        stamp(result, when(bubble))
        if isinstance(request, str) and request:
            result["turnId"] = request
        result["callId"] = call_id
        result["name"] = name
        if status is not None:
            result["status"] = status
        if native_status == "error" or (not _empty(error) and native_status not in _TOOL_STATUS):
            result["isError"] = True  # a stated status wins; an error beside no status is a failure
        parts: list[dict[str, Any]] = []
        if isinstance(result_text, str) and result_text:
            parts.append({"type": "text", "text": result_text})
        elif result_text is not None and result_text != "":
            parts.append({"type": "data", "data": result_text})
        structured = _tool_error(error)
        display: list[dict[str, Any]] = []
        kept: dict[str, Any] = {}
        if structured is not None:
            model_text, user_text, kept = structured
            if model_text:
                parts.append({"type": "text", "text": model_text})
            if user_text and user_text != model_text:
                display.append({"type": "text", "text": user_text})
        elif isinstance(error, str) and error:
            parts.append({"type": "text", "text": error})
        elif error is not None and error != "":
            parts.append({"type": "data", "data": error})
        result["content"] = parts
        if display:
            result["displayContent"] = display
        if not parts:
            why = "only the error text shown to the user is stored" if display else "the tool bubble holds no result"
            result["capture"] = {"content": {"state": "absent", "reason": why}}
        if derived:
            result["idSource"] = "derived"
        if kept:
            result[AGENT] = {"error": kept}
        yield self.emit(result)

    def _capability_tool(self, bubble: dict[str, Any]) -> dict[str, Any] | None:
        bubble_id = bubble.get("bubbleId")
        if not isinstance(bubble_id, str) or bubble_id not in self.tool_data:
            return None
        self.accounting.native_items += 1
        self.accounting.folded += 1  # the entry: read as this bubble's call
        return self.tool_data.pop(bubble_id)

    def leftover_tool_data(self) -> Iterator[dict[str, Any]]:
        """``bubbleDataMap`` entries no bubble of the conversation named: kept, after it."""
        for bubble_id, entry in self.tool_data.items():
            self.accounting.native_items += 1
            self.accounting.vendor += 1
            yield self.emit(self.vendor("toolformer-bubble-data", {"bubbleId": bubble_id, "value": entry}))
        self.tool_data = {}

    # -- ids ------------------------------------------------------------------------------

    def _message_id(self, bubble: dict[str, Any]) -> str:
        for key in ("bubbleId", "id"):
            value = bubble.get(key)
            if isinstance(value, str) and value:
                return value
        return f"{self.conversation_id}:{self.position}"

    @staticmethod
    def _derived(bubble: dict[str, Any]) -> bool:
        return not any(isinstance(bubble.get(k), str) and bubble.get(k) for k in ("bubbleId", "id"))


def _role(kind: Any) -> str | None:
    if kind in USER_TYPES:
        return "user"
    if kind in ASSISTANT_TYPES:
        return "assistant"
    return None


def _reasoning(thinking: dict[str, Any]) -> dict[str, Any]:
    text, signature = thinking.get("text"), thinking.get("signature")
    part: dict[str, Any] = {"type": "reasoning"}
    if isinstance(text, str) and text:
        part["text"] = text  # full or a provider's summary: no source says which, so no visibility (ASR-214)
    elif isinstance(signature, str) and signature:
        part["visibility"] = "omitted"
    if isinstance(signature, str) and signature:
        part["signature"] = signature
    others = {k: v for k, v in thinking.items() if k not in ("text", "signature")}
    if others:
        part["_meta"] = {AGENT: others}
    return part


def _tool_error(error: Any) -> tuple[str | None, str | None, dict[str, Any]] | None:
    """A ``ToolResultError`` (``aiserver.v1``: ``modelVisibleErrorMessage``, what the model is
    sent; ``clientVisibleErrorMessage``, what the user is shown; the client-only actual error and
    ``errorDetails``), stored as an object or its JSON text: (model text, user text, the rest).
    None when the error is not of that shape."""
    value = error
    if isinstance(error, str) and error.startswith("{"):
        try:
            value = items.parse(error)
        except ValueError:
            return None
    if not isinstance(value, dict) or not (set(value) & {"modelVisibleErrorMessage", "clientVisibleErrorMessage"}):
        return None
    model, user = value.get("modelVisibleErrorMessage"), value.get("clientVisibleErrorMessage")
    model = model if isinstance(model, str) and model else None
    user = user if isinstance(user, str) and user else None
    mapped = {"modelVisibleErrorMessage"} if model else set()
    mapped |= {"clientVisibleErrorMessage"} if user else set()
    return model, user, {k: v for k, v in value.items() if k not in mapped}


def _context_parts(holder: dict[str, Any]) -> list[dict[str, Any]]:
    """A data part for each non-empty context member, in ``CONTEXT`` order."""
    parts = []
    for name in CONTEXT:
        value = holder.get(name)
        if not _empty(value):
            parts.append(
                {
                    "type": "data",
                    "data": value,
                    "schema": f"{REGISTRY}/context/{name}",
                    "author": "harness",
                    "origin": "injected",
                }
            )
    return parts


def _keep(record: dict[str, Any], rest: dict[str, Any]) -> None:
    kept = {k: v for k, v in rest.items() if not ((k in CONTEXT or k in NOT_CONTEXT) and _empty(v))}
    if kept:
        record[AGENT] = kept
        scrub_member(record, AGENT)
