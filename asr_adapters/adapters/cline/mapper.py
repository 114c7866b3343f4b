# Whole, over 400 lines: one task's ui rows and api messages aligned in one pass over shared alignment state.
"""One Cline task (ui timeline and/or api history) -> the records of its stream.

The ui timeline gives the order. An api message is written just before the first row
that belongs to it (``rows.align``), carrying the rows that show it as ``displayContent``
and the usage of the request that produced it; rows without an api message of their own
(or every row, when there is no api history) are mapped on their own (``timeline``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.adapter import Context, Emitter
from ...core.items import misplaced
from .parts import (
    block_part,
    metrics_usage,
    parse_json,
    piece_part,
    provider_of,
    reports_tokens,
    request_usage,
    result_parts,
    shown_row,
    unanswered_status,
    with_result_state,
)
from .rows import Alignment, align, human_kind
from .split import (
    HARNESS,
    RESULT,
    XmlCall,
    block_result_state,
    interrupted,
    result_header,
    skipped,
    split_assistant,
    split_text,
    starts_section,
    targets,
    wrapper_start,
)
from .timeline import API_NAMES, Timeline, new_body

#: calls whose input holds the text a ui row shows (the completion result, the plan-mode answer)
_SHOWN_CALLS = frozenset({"attempt_completion", "plan_mode_respond", "act_mode_respond"})
_API_KEYS = frozenset({"role", "content", "ts", "modelInfo", "metrics"})


class TaskMapper(Timeline):
    """Emits the records of one task, accounting for every row and api message."""

    def __init__(self, emit: Emitter, context: Context, ui: list[Any], api: list[Any]) -> None:
        super().__init__(emit, context, ui)
        self.api = api
        self.alignment: Alignment = align(ui, api, self.kinds)
        self.response = self.alignment.response
        self.next_api = 0
        #: the calls of the latest assistant message still waiting for a result, in order:
        #: (callId, name, input). Cline answers every call of a reply in the next user message,
        #: so a call left unanswered there is never answered later
        self.open_calls: list[tuple[str, str, Any]] = []
        #: every call's name by callId (a ``tool_result`` block names its call by id only)
        self.call_names: dict[str, str] = {}
        self._last_request: tuple[int, Any] | None = None

    def records(self) -> Iterator[dict[str, Any]]:
        targets = self.alignment.target
        members = {p for rows in self.alignment.display.values() for p in rows}
        members.update(p for rows in self.alignment.requests.values() for p in rows)
        api_last = len(self.api) - 1
        for position, row in enumerate(self.ui):
            target = targets[position]
            if target is not None and api_last >= 0:
                # an api message is written at the first row that shows it; rows before that
                # (plans, checkpoints) keep their place in the timeline
                last = target if position in members else target - 1
                if self.next_api <= last:
                    yield from self._api_until(min(last, api_last))
            if self.seen(position, row):
                yield from self.row(position, row)
        yield from self._api_until(len(self.api) - 1)
        yield from self.flush()

    # -- api messages --------------------------------------------------------------

    def _api_until(self, last: int) -> Iterator[dict[str, Any]]:
        while self.next_api <= last:
            index = self.next_api
            self.next_api += 1
            message = self.api[index]
            self.context.accounting.native_items += 1
            problem = misplaced(message, API_NAMES)
            if problem is not None:
                self.context.unreadable(None, f"api message {index + 1} unreadable: {problem}; skipped")
                continue
            before = self.emit.seq
            if isinstance(message, dict) and message.get("role") == "assistant":
                yield from self._assistant(index, message)
            elif isinstance(message, dict) and message.get("role") == "user":
                yield from self._user(index, message)
            else:
                yield self.put(self._vendor("api_message", message))
            self._outcome(before, self.emit.seq)

    def _outcome(self, before: int, after: int) -> None:
        accounting = self.context.accounting
        if after == before:
            accounting.folded += 1
        elif self.last_kind == "vendor" and after == before + 1:
            accounting.vendor += 1
        else:
            accounting.records += 1

    def _blocks(self, message: dict[str, Any]) -> list[Any]:
        content = message.get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return content if isinstance(content, list) else []

    def _head(self, index: int, message: dict[str, Any], ts: Any) -> dict[str, Any]:
        body = new_body("message", message.get("ts", ts))
        body["messageId"] = f"api:{index}"
        return body

    def _api_tail(self, body: dict[str, Any], message: dict[str, Any]) -> None:
        body["idSource"] = "derived"
        model_info = message.get("modelInfo")
        if (
            body.get("author") == "model"  # a user message names no model: it did not write it
            and isinstance(model_info, dict)
            and isinstance(model_info.get("modelId"), str)
        ):
            body["model"] = model_info["modelId"]
        extra = {k: v for k, v in message.items() if k not in _API_KEYS or k in ("modelInfo", "metrics")}
        if extra:
            body["cline"] = extra

    def _take_display(self, index: int, author: str | None) -> tuple[list[dict[str, Any]], list[int]]:
        human = author == "human"
        rows = [p for p in self.alignment.display.get(index, []) if self.human_row(p) == human]
        parts: list[dict[str, Any]] = []
        for position in rows:
            parts += self.display_parts(self.ui[position], author, self.kinds[position])
            self.folded.add(position)
        return parts, rows

    def _display(self, body: dict[str, Any], parts: list[dict[str, Any]], rows: list[int]) -> None:
        if not parts:
            return
        body["displayContent"] = parts
        body["displayRows"] = [shown_row(self.ui[p]) for p in rows]
        if body["content"]:
            body["displayCorrespondence"] = "native" if self.alignment.native else "derived"
        else:
            body["capture"] = {"content": {"state": "absent", "reason": "Cline's api history holds no text for it"}}

    def _user(self, index: int, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        requests = self.alignment.requests.get(index, [])
        request_row = self.ui[requests[-1]] if requests else {}
        for position in requests[-1:]:
            self.folded.add(position)  # its request text is this message; its usage goes to the reply
        parts: list[dict[str, Any]] = []
        ts = message.get("ts", request_row.get("ts"))
        blocks = self._blocks(message)
        position = 0
        while position < len(blocks):
            block = blocks[position]
            position += 1
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                if isinstance(call_id, str) and call_id in self.known_calls:
                    name = self.call_names.get(call_id)  # its call names it
                    yield self.put(self._result(call_id, name, result_parts(block.get("content")), ts, block))
                    self.open_calls = [c for c in self.open_calls if c[0] != call_id]
                    continue
                parts += [{**p, "author": "tool", "origin": "injected"} for p in result_parts(block.get("content"))]
                continue
            if not (isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)):
                parts.append(block_part(block))
                continue
            header = result_header(block["text"])
            if header is not None and self.open_calls:
                # XML era: the header is a block of its own, the output follows in the next blocks
                output: list[dict[str, Any]] = [{"type": "text", "text": block["text"]}]
                rest: str | None = None
                while position < len(blocks):
                    following = blocks[position]
                    text = following.get("text") if isinstance(following, dict) else None
                    if isinstance(following, dict) and following.get("type") == "text" and isinstance(text, str):
                        if starts_section(text) and not (len(output) == 1 and skipped(text) is not None):
                            break  # (Cline's notice for a skipped call right after the header is its output)
                        cut = wrapper_start(text)
                        if cut is not None:  # the person's feedback Cline appended: not tool output
                            if cut:
                                output.append({"type": "text", "text": text[:cut]})
                            rest = text[cut:]
                            position += 1
                            break
                        output.append({"type": "text", "text": text})
                    elif isinstance(following, dict) and following.get("type") == "image":
                        output.append(block_part(following))
                    else:
                        break
                    position += 1
                call_id = self._match(header[0], header[1])
                yield self.put(self._result(call_id, header[0], output, ts, None))
                if rest is not None:
                    parts += [piece_part(p.kind, p.text) for p in split_text(rest)]
                continue
            for piece in split_text(block["text"]):
                if piece.kind == RESULT and self.open_calls:
                    call_id = self._match(piece.tool, piece.target)
                    yield self.put(self._result(call_id, piece.tool, [{"type": "text", "text": piece.text}], ts, None))
                elif piece.skipped:  # a skipped call's notice with no call to answer: Cline's words
                    parts.append(piece_part(HARNESS, piece.text))
                else:
                    parts.append(piece_part(piece.kind, piece.text))
        display, rows = self._take_display(index, "human")
        if not parts and not display:
            return
        body = self._head(index, message, ts)
        body["role"] = "user"
        body["content"] = parts
        self._display(body, display, rows)
        self._api_tail(body, message)
        if requests:
            info = self._request_info(requests[-1])
            if isinstance(info, dict):
                answered = index + 1 < len(self.api) and _role(self.api[index + 1]) == "assistant"
                # no reply carries what an unanswered request cost: the request does (never dropped)
                own_usage = not answered and reports_tokens(info)
                if not answered:
                    unanswered_status(body, info)
                moved = answered or own_usage
                request_extra = {k: v for k, v in info.items() if k != "request" and not (moved and k in _USAGE_NAMES)}
                if request_extra:
                    body["apiRequest"] = request_extra
                if own_usage:
                    usage, native, _status = request_usage(info, provider_of(self.ui[requests[-1]]))
                    self._put_usage(body, usage, native)
        yield self.put(body)

    def _match(self, tool: str | None, target: str | None) -> str:
        """The open call a ``[tool for 'target'] Result:`` text answers (its callId): the first of
        that name whose input holds the target (Cline writes the command or path it ran there),
        else the first of that name, else the first (a header can spell the tool differently:
        ``[subagents] Result:`` answers ``use_subagents``)."""
        calls = self.open_calls
        named = [n for n, (_c, name, _i) in enumerate(calls) if name == tool]
        if target is not None:
            for position in named:
                if targets(calls[position][2], target):
                    return calls.pop(position)[0]
        return calls.pop(named[0] if named else 0)[0]

    def _result(
        self, call_id: str, name: str | None, content: list[dict[str, Any]], ts: Any, block: Any
    ) -> dict[str, Any]:
        body = new_body("tool_result", ts)
        body["callId"] = call_id
        if name:
            body["name"] = name
        if isinstance(block, dict) and isinstance(block.get("is_error"), bool):
            body["isError"] = block["is_error"]
        body["content"] = content
        if isinstance(block, dict):  # Cline's words for a call it did not run or the person refused
            status = block_result_state("".join(p.get("text", "") for p in content if p.get("type") == "text"))
            if status is not None:  # the tool did not run to an outcome: no isError (docs/semantics.md)
                body["status"] = status
                if "isError" in body:
                    body["block"] = {"is_error": body.pop("isError")}
        if block is None:  # a `[tool] Result:` text: Cline's own words there state an error or a denial
            with_result_state(body, name, "".join(p.get("text", "") for p in content if p.get("type") == "text"))
        return body

    def _assistant(self, index: int, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        self.open_calls = []  # the previous reply's unanswered calls stay unanswered
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        display_rows = [p for p in self.alignment.display.get(index, []) if not self.human_row(p)]
        ts = message.get("ts", self.ui[display_rows[0]].get("ts") if display_rows else None)
        cut_short: str | None = None
        for block in self._blocks(message):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                text, marker = block["text"], None
                found = interrupted(text)
                if found is not None:  # Cline's marker for a reply it cut short: its words, not the model's
                    text, marker, cut_short = found
                for piece in split_assistant(text) if text else ():
                    if isinstance(piece, XmlCall):
                        calls.append(self._xml_call(index, len(calls), piece, ts))
                    else:
                        parts.append({"type": "text", "text": piece})
                if marker is not None:
                    parts.append({"type": "text", "text": marker, "author": "harness", "origin": "injected"})
            elif kind == "tool_use":
                calls.append(self._native_call(index, len(calls), block, ts))
            else:
                parts.append(block_part(block))
        usage, native, status = self._usage(index, message)
        if status is None:  # the request row states no cancellation: the marker does
            status = cut_short
        body: dict[str, Any] | None = None
        if parts:
            display, rows = self._take_display(index, None)
            body = self._head(index, message, ts)
            body.update(role="assistant", author="model", content=parts)
            self._display(body, display, rows)
            self._api_tail(body, message)
            self._put_usage(body, usage, native, status)
            yield self.put(body)
        if body is None and calls:
            # a response of tool calls only: its ui rows (completion_result, plan_mode_respond…)
            # show one of them, whose input holds their text
            display, rows = self._take_display(index, None)
            if display:
                shown = next((c for c in calls if c.get("name") in _SHOWN_CALLS), calls[0])
                shown["displayContent"] = display
                shown["displayRows"] = [shown_row(self.ui[p]) for p in rows]
        for number, call in enumerate(calls):
            if body is not None:
                call["messageId"] = body["messageId"]
            elif number == 0:
                model_info = message.get("modelInfo")
                if isinstance(model_info, dict) and isinstance(model_info.get("modelId"), str):
                    call["model"] = model_info["modelId"]
                self._put_usage(call, usage, native, status)
            yield self.put(call)
        if body is None and not calls:
            yield self.put(self._vendor("api_message", message))

    def _usage(self, index: int, message: dict[str, Any]) -> tuple[dict[str, int] | None, Any, str | None]:
        requests = self.alignment.requests.get(index - 1, [])
        if requests:
            info = self._request_info(requests[-1])
            if isinstance(info, dict):
                return request_usage(info, provider_of(self.ui[requests[-1]]))
        usage = metrics_usage(message.get("metrics"), provider_of(message))
        return usage, (message.get("metrics") if usage is not None else None), None

    def _request_info(self, position: int) -> Any:
        """An ``api_req_started`` row's parsed text. The request's user message and the reply
        (its usage) both read it, one after the other: the last one parsed is kept."""
        last = self._last_request
        if last is not None and last[0] == position:
            return last[1]
        info = parse_json(self.ui[position].get("text"))
        self._last_request = (position, info)
        return info

    def _xml_call(self, index: int, number: int, call: XmlCall, ts: Any) -> dict[str, Any]:
        body = new_body("tool_call", ts)
        body["callId"] = f"api:{index}:call[{number}]"
        body["name"] = call.name
        body["input"] = call.params
        body["idSource"] = "derived"
        body["xml"] = call.raw
        if call.name == "condense":
            self._condensed(body, index)
        self.known_calls.add(body["callId"])
        self.open_calls.append((body["callId"], call.name, call.params))
        self.call_names[body["callId"]] = call.name
        return body

    def _condensed(self, body: dict[str, Any], index: int) -> None:
        """The ``condense`` call holds the summary (its ``context``) that replaces the history
        once the person accepts it: Cline then sets ``conversationHistoryDeletedRange``, which the
        next request row records. ``compaction`` names that range of api messages
        (docs/format.md, Compaction); no range recorded after the call (the person answered
        with feedback instead): the summary replaced nothing."""
        body["summaryOf"] = "compaction"
        before: Any = None
        for row in self.ui:
            if not isinstance(row, dict):
                continue
            deleted = row.get("conversationHistoryDeletedRange")
            at = row.get("conversationHistoryIndex")
            changed = isinstance(at, int) and at >= index and deleted is not None and deleted != before
            if changed and isinstance(deleted, list) and len(deleted) == 2 and all(type(n) is int for n in deleted):
                start, end = deleted
                body["compaction"] = {"from": f"messageId=api:{start}", "through": f"messageId=api:{end}"}
                return
            if deleted is not None:
                before = deleted
        body["compaction"] = {}

    def _native_call(self, index: int, number: int, block: dict[str, Any], ts: Any) -> dict[str, Any]:
        body = new_body("tool_call", ts)
        native_id = block.get("id")
        derived = not (isinstance(native_id, str) and native_id)
        body["callId"] = f"api:{index}:call[{number}]" if derived else native_id
        if isinstance(block.get("name"), str):
            body["name"] = block["name"]
        body["input"] = block.get("input")
        if derived:
            body["idSource"] = "derived"
        extra = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
        if extra:
            body["block"] = extra
        self.known_calls.add(body["callId"])
        self.open_calls.append((body["callId"], str(block.get("name")), block.get("input")))
        if isinstance(block.get("name"), str):
            self.call_names[body["callId"]] = block["name"]
        return body

    def human_row(self, position: int) -> bool:
        return human_kind(self.kinds[position], position)


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


_USAGE_NAMES = frozenset(("tokensIn", "tokensOut", "cacheReads", "cacheWrites", "cost"))
