"""V1 tool activities (``tool.started`` / ``tool.updated`` / ``tool.completed`` / ``tool.denied``)
→ one ``tool_call`` and one ``tool_result`` per call.

T3 Code writes a call as a start row (its 180-character ``detail`` only), any number of update
rows and a completion row; updates and completions carry the provider's own item as ``data``:
Claude ``{toolName, input, result?}`` (``result`` is the Anthropic ``tool_result`` block),
Codex the app-server notification ``{item: ThreadItem, threadId, turnId}``. No row carries
T3's own item id, so a row joins the oldest open call of the same turn and item type.

The call's ``callId`` is the provider's own call id where a row records it, so the call joins
the provider's transcript: Codex's ThreadItem ``id`` (``call_…``), Claude's ``tool_result``
block's ``tool_use_id`` (``toolu_…``) or a ``tool.denied`` row's ``toolUseId``; only a call no
row names gets the start row's activity id (derived). The call is written at the first row
whose ``data`` names the tool, its input and that id (the start detail is only a display
string), else when the call ends, with what its rows told; a later row whose input differs
from what was written is a revision. The result holds the provider's output, never the input
detail.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ...core.outcome import set_exit_code
from .state import (
    NO_OUTCOME,
    ThreadState,
    base,
    data_part,
    is_truncated_detail,
    ns,
    obj,
    string,
    text_part,
    tool_status,
)

#: Fields of a Codex ThreadItem that describe what the call produced, not what it was asked.
OUTPUT_FIELDS = frozenset(
    {"id", "type", "status", "aggregatedOutput", "exitCode", "durationMs", "processId", "result", "error"}
    | {"contentItems", "success", "output"}
)
TRUNCATED = {"state": "truncated", "reason": "T3 Code keeps 180 characters of detail"}


@dataclass
class OpenCall:
    """A call between its start row and its end: what is known of it so far."""

    #: the start row's activity id (the derived call id when no row names the provider's)
    activity_id: str
    start: dict[str, Any]
    item_type: str
    #: (name, input) the latest row's data gave, written or not yet
    known: tuple[str, Any] | None = None
    #: the provider's own call id, once a row records it
    native_id: str | None = None
    #: (name, input) as written
    written: tuple[str, Any] | None = None
    record_id: str | None = None
    #: the newest ``status`` an update gave (Claude marks a failed call on its update)
    status: str | None = None
    denied: dict[str, Any] | None = field(default=None)

    @property
    def call_id(self) -> str:
        return self.native_id if self.native_id is not None else self.activity_id


def tool_row(st: ThreadState, act: dict[str, Any], kind: str, payload: dict[str, Any]) -> str:
    """One tool activity row; returns its accounting outcome."""
    turn = act.get("turnId")
    if kind == "tool.denied" and "itemType" not in payload:
        denied = _denied_call(st, turn, payload)
        if denied is not None:
            denied.denied = {"activityId": act.get("id"), "payload": payload}
            if denied.native_id is None and isinstance(payload.get("toolUseId"), str):
                denied.native_id = payload["toolUseId"]
            return "folded"  # the call's completion (an error result) follows
    item_type = string(payload.get("itemType"), string(payload.get("toolName"), "tool"))
    key: tuple[str | None, str] = (turn if isinstance(turn, str) else None, item_type)
    queue = st.open_tools.get(key)
    call = queue[0] if queue else None
    if kind == "tool.started":
        st.open_tools.setdefault(key, deque()).append(OpenCall(str(act.get("id")), act, item_type))
        return "records"
    outcome = "folded"
    if call is None:
        # An update or end with no start row: the call is known only from this row.
        call = OpenCall(str(act.get("id")), act, item_type)
        st.open_tools.setdefault(key, deque()).append(call)
        outcome = "records"
    if isinstance(payload.get("status"), str):
        call.status = payload["status"]
    _learn(call, payload)
    if _write_call(st, call, payload.get("data")):
        outcome = "records"
    if kind == "tool.updated":
        return outcome
    queue = st.open_tools[key]
    queue.popleft()
    if not queue:
        del st.open_tools[key]
    if call.record_id is None:
        _write_call(st, call, None, force=True)
    _result(st, act, kind, payload, call)
    return "records"


def end_turn(st: ThreadState, turn: str | None = None) -> None:
    """Calls still open when their turn (or the thread) ends get no result: write each call
    that is not written yet and stop tracking them."""
    for key in [k for k in st.open_tools if turn is None or k[0] == turn]:
        for call in st.open_tools.pop(key):
            if call.record_id is None:
                _write_call(st, call, None, force=True)


def _denied_call(st: ThreadState, turn: Any, payload: dict[str, Any]) -> OpenCall | None:
    """A later build's ``tool.denied`` names the tool, not the item type: the open call of the
    turn with that name."""
    name = payload.get("toolName")
    for (call_turn, _), queue in st.open_tools.items():
        if call_turn != turn:
            continue
        for call in queue:
            if call.known is not None and call.known[0] == name:
                return call
    return None


def _learn(call: OpenCall, payload: dict[str, Any]) -> None:
    """What a row's ``data`` tells of the call: its name and input, and the provider's own
    call id (Codex item ``id``, Claude ``result.tool_use_id``; a ``tool.denied`` row's
    ``toolUseId``)."""
    found = name_and_input(payload.get("data"))
    if found is not None:
        call.known = found
    if call.native_id is None:
        call.native_id = provider_call_id(payload)


def provider_call_id(payload: dict[str, Any]) -> str | None:
    """The provider's own id for the call, where the row records it."""
    d = obj(payload.get("data"))
    result = d.get("result")
    if isinstance(result, dict) and result.get("type") == "tool_result" and isinstance(result.get("tool_use_id"), str):
        return result["tool_use_id"] or None
    item = _item(d)
    if item is not None and isinstance(item.get("id"), str) and item["id"]:
        return item["id"]
    use = payload.get("toolUseId")
    return use if isinstance(use, str) and use else None


def name_and_input(data: Any) -> tuple[str, Any] | None:
    """The tool's own name and its full input, from a row's ``data`` (None when it has neither)."""
    d = obj(data)
    if isinstance(d.get("toolName"), str) and "input" in d:  # Claude
        return d["toolName"], d["input"]
    item = _item(d)
    if item is not None:  # Codex ThreadItem
        name = item["type"]
        if name in ("mcpToolCall", "dynamicToolCall") and isinstance(item.get("tool"), str):
            name = item["tool"]
        return name, {k: v for k, v in item.items() if k not in OUTPUT_FIELDS}
    return None


def _write_call(st: ThreadState, call: OpenCall, data: Any, *, force: bool = False) -> bool:
    """Write the call's ``tool_call`` once ``data`` names it and the provider's call id is
    known (or ``force``: at the call's end, from what its rows told, else the start row); a
    written call is revised only when its name or input changed. True when written."""
    found = name_and_input(data)
    if force and found is None:
        found = call.known
    if found is None and not force:
        return False
    if call.record_id is None and call.native_id is None and not force:
        return False  # wait for the row that names the provider's call id (or the end)
    if found is not None and call.written == found:
        return False
    if found is None and call.record_id is not None:
        return False
    act = call.start
    payload = obj(act.get("payload"))
    record = base("tool_call", act.get("createdAt"), act.get("turnId"))
    record["callId"] = call.call_id
    if found is not None:
        record["name"], record["input"] = found
    else:
        record["name"] = call.item_type
        record["input"] = {"summary": act.get("summary")}
        if "detail" in payload and act.get("kind") != "tool.denied":  # a denial's detail is its reason
            record["input"]["detail"] = payload["detail"]
        if is_truncated_detail(record["input"].get("detail")):
            record["capture"] = {"input": TRUNCATED}
    if call.native_id is None:
        record["idSource"] = "derived"
    if call.record_id is not None:
        record["supersedes"] = call.record_id
    record["itemType"] = call.item_type
    record["activityId"] = act.get("id")
    call.record_id = st.put(record, revertable=True)["id"]
    call.written = found
    return True


def _result(st: ThreadState, act: dict[str, Any], kind: str, payload: dict[str, Any], call: OpenCall) -> None:
    record = base("tool_result", act.get("createdAt"), act.get("turnId"))
    record["callId"] = call.call_id
    record["name"] = call.written[0] if call.written is not None else call.item_type
    data = payload.get("data")
    content, is_error, extra = output(data)
    item_status = obj(_item(obj(data))).get("status")
    status = item_status if isinstance(item_status, str) else call.status
    if kind == "tool.denied" or call.denied is not None:
        record["status"] = ns("denied")
    elif isinstance(status, str) and status != "inProgress":
        record["status"] = tool_status(status)
    if record.get("status") not in NO_OUTCOME:
        if is_error or status == "failed":
            record["isError"] = True
        elif is_error is False:
            record["isError"] = False  # the provider's own success mark (Claude ``is_error: false``)
    reason = payload.get("detail") if kind == "tool.denied" else obj(obj(call.denied).get("payload")).get("detail")
    if isinstance(reason, str):
        content = [text_part(reason), *content]  # the denial reason T3 recorded
    record["content"] = content
    if not content:
        record["capture"] = {"content": {"state": "absent", "reason": "T3 Code stored no output for this call"}}
    elif is_truncated_detail(reason):
        record["capture"] = {"content": TRUNCATED}
    if call.native_id is None:
        record["idSource"] = "derived"
    if "exitCode" in extra and record.get("status") not in NO_OUTCOME:
        set_exit_code(record, extra.pop("exitCode"))  # isError from it: 0 is success
    record.update(extra)
    record["activityId"] = act.get("id")
    if call.denied is not None:
        record["denied"] = call.denied
    if data is not None:
        record["data"] = data
    st.put(record, revertable=True)


def output(data: Any) -> tuple[list[dict[str, Any]], bool | None, dict[str, Any]]:
    """The call's output as content parts, whether the provider marked it an error (True,
    False when it marked it a success, None when it said neither), and any output fields kept
    as members (``exitCode``)."""
    d = obj(data)
    result = d.get("result")
    if isinstance(result, dict) and result.get("type") == "tool_result":  # Claude
        flag = result.get("is_error")
        return _blocks(result.get("content")), flag if isinstance(flag, bool) else None, {}
    item = _item(d)
    if item is None:
        return [], None, {}
    parts: list[dict[str, Any]] = []
    extra: dict[str, Any] = {}
    failed = item.get("status") == "failed"
    if isinstance(item.get("aggregatedOutput"), str):
        parts.append(text_part(item["aggregatedOutput"]))
    if "exitCode" in item and item["exitCode"] is not None:
        extra["exitCode"] = item["exitCode"]
        failed = failed or item["exitCode"] != 0
    mcp = item.get("result")
    if isinstance(mcp, dict):
        parts += _blocks(mcp.get("content"))
        if mcp.get("structuredContent") is not None:
            parts.append(data_part(mcp["structuredContent"], "structured-content"))
    error = item.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        parts.append(text_part(error["message"]))
        failed = True
    if isinstance(item.get("contentItems"), list):
        for entry in item["contentItems"]:
            if isinstance(entry, dict) and isinstance(entry.get("text"), str):
                parts.append(text_part(entry["text"]))
            else:
                parts.append(data_part(entry, "content-item"))
    if item.get("success") is False:
        failed = True
    if failed:
        return parts, True, extra
    return parts, (False if item.get("success") is True else None), extra


def _item(data: dict[str, Any]) -> dict[str, Any] | None:
    """The Codex ThreadItem in a row's ``data``: the notification's ``item`` (current builds)
    or ``data`` itself when it is the item (``{id, type, …}``)."""
    item = data.get("item")
    if isinstance(item, dict) and isinstance(item.get("type"), str):
        return item
    if isinstance(data.get("type"), str) and "id" in data:
        return data
    return None


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Anthropic / MCP content blocks → content parts (text kept exactly; others as data)."""
    if isinstance(content, str):
        return [text_part(content)]
    parts: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return parts
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(text_part(block["text"]))
        elif isinstance(block, dict) and block.get("type") == "image" and isinstance(block.get("mimeType"), str):
            parts.append(block)  # MCP image block: already a content part
        else:
            parts.append(data_part(block, "tool-result-block"))
    return parts
