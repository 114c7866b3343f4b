# Over 400 lines, whole for now: one pass over a ui timeline; split by row kind once no one else edits Cline.
"""ui rows mapped on their own: the whole task when only ``ui_messages.json`` exists, and
the rows that have no api message to fold into otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from ...core.adapter import Context, Emitter
from ...core.items import misplaced, names
from ...core.timestamps import TsPair, from_epoch_millis, stamp
from .parts import (
    REGISTRY,
    USAGE_KEYS,
    attachments,
    checklist,
    parse_json,
    provider_of,
    rendered_part,
    reports_tokens,
    request_usage,
    row_extra,
    shown_row,
    unanswered_status,
    with_result_state,
)
from .rows import (
    NOTICE_ASKS,
    NOTICE_SAYS,
    REQUEST,
    call_kind,
    human_kind,
    pick_shown_call,
    subtype,
    subtypes,
    text_kind,
    ui_label,
)
from .split import HARNESS, RESULT, Piece, split_text

PLAN_ID = "task_progress"
ANSWERED = f"{REGISTRY}/answered"
#: Cline appends this to a completion_result row's text when files changed; its ui strips it
CHANGES_FLAG = "HAS_CHANGES"
#: rows that can sit between a prompt and the request that sends it (checkpoint, retries, resume)
_KEEP_WAITING = frozenset(
    {
        "checkpoint_created",
        "task_progress",
        "api_req_retried",
        "error_retry",
        "api_req_failed",
        "resume_task",
        "resume_completed_task",
        "deleted_api_reqs",
    }
)
#: rows in which Cline says it retried the request before them (auto retry, the person's retry)
_RETRY_ROWS = frozenset({("say", "error_retry"), ("say", "api_req_retried")})
#: asks after a followup question that end its wait for an answer (asked again, or the task was interrupted)
_ASKED_AGAIN = frozenset({"followup", "resume_task", "resume_completed_task"})
#: record types the model writes (a call, a followup question): they name the model
_MODEL_WRITTEN = frozenset({"tool_call", "input_request"})
#: the native-style id of each record type: written twice, the later record revises the earlier
_NATIVE_ID = {"message": "messageId", "tool_call": "callId", "input_request": "requestId"}
UI_NAME = (
    "Cline's ui label of the tool (ClineSayTool.tool), not the name the model called: no request"
    " in this input names the tool in a result header"
)
_DISPLAY_ONLY = "Cline's ui timeline holds only what it showed; the model-facing text is not in this input"
#: ``api_req_started.request`` is Cline's display rendering of a request, not what the model got
RENDERED = (
    "api_req_started.request is Cline's display rendering of the request (formatContentBlockToMarkdown: "
    "blocks joined by blank lines, images as [Image]); the blocks the model received are not in this input"
)
#: a ui row shows what Cline's ui tool message (ClineSayTool, the command text) says, not the model's arguments
UI_INPUT = (
    "Cline's ui timeline shows its own rendering of the call (ClineSayTool / the command row); "
    "the model's arguments are not in this input"
)


def new_body(kind: str, ts: Any = None) -> dict[str, Any]:
    """A record body with ``seq``/``id`` placeholders and the epoch-ms time ``ts``, if any."""
    if type(ts) is int and 0 <= ts < _EXACT_MS:  # every row and 2026 api message: no tsPrecision
        return {"type": kind, "seq": 0, "id": "", "ts": _millis_text(ts)}
    return stamp({"type": kind, "seq": 0, "id": ""}, from_epoch_millis(ts))


_DAY_MS = 86_400_000
#: Below 2**31 seconds (January 2038) ``ms / 1000`` as a float is within 0.25 µs of the exact
#: time, so ``from_epoch_millis`` (``datetime.fromtimestamp``, rounded to the microsecond)
#: lands on the exact millisecond: whole-number arithmetic writes the same text, faster.
_EXACT_MS = 2**31 * 1000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@lru_cache(maxsize=1024)
def _day(days: int) -> str:
    return (_EPOCH + timedelta(days=days)).strftime("%Y-%m-%dT")


def epoch_millis(value: Any) -> TsPair:
    """``from_epoch_millis(value)``, the same text for every value: every record of a task has
    a ``ts`` in milliseconds, and ``strftime`` per record was a tenth of the conversion."""
    if type(value) is not int or not 0 < value < _EXACT_MS:  # 0 is no time (from_epoch_millis)
        return from_epoch_millis(value)
    return _millis_text(value), None


#: the last value written and its text (records of one native item share it); one tuple,
#: replaced whole, so threads converting side by side never pair a value with another's text
_last_millis: tuple[int, str] = (-1, "")


def _millis_text(value: int) -> str:
    """RFC 3339 text of ``0 <= value < _EXACT_MS`` epoch milliseconds."""
    global _last_millis
    last = _last_millis
    if last[0] == value:
        return last[1]
    days, rest = divmod(value, _DAY_MS)
    seconds, millis = divmod(rest, 1000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    text = f"{_day(days)}{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"
    _last_millis = (value, text)
    return text


#: Members a ui row or an api message is dispatched on by name (``core.items``): an array or
#: object there makes it one unreadable item.
UI_NAMES = names("type", "say", "ask")
API_NAMES = names("role")


class Timeline:
    """Row-by-row mapping, with the state records share (ids written, open calls, plan)."""

    def __init__(self, emit: Emitter, context: Context, ui: list[Any]) -> None:
        self.emit = emit
        self.context = context
        self.ui = ui
        #: every row's (say/ask, subtype), worked out once
        self.kinds = subtypes(ui)
        self.api: list[Any] = []
        self.folded: set[int] = set()
        self.known_calls: set[str] = set()
        #: per record type with a native id (``_NATIVE_ID``): the record that last wrote each id
        #: (a dict per type, not (type, id) keys: no tuple kept per record for the collector to walk)
        self.written: dict[str, dict[str, str]] = {kind: {} for kind in _NATIVE_ID}
        self.last_kind = ""
        self.deleted_range: Any = None
        self.pending_truncation: Any = None
        self.plan_record: str | None = None
        self.plan_entries: Any = None
        self.waiting_human: list[int] = []  # ui-only: a prompt waits for the request that sends it
        self.ui_calls: list[str] = []  # ui-only: calls shown since the last request
        #: ui-only: each shown call's (name, uiTool), to pair rendered results by tool and target
        self.ui_call_rows: dict[str, tuple[str, Any]] = {}
        #: ui-only: the tool each shown call of the current group was, as the result header of
        #: the request that answered it names it (the row's ``tool`` is Cline's ui label)
        self.header_names: dict[str, str] = {}
        #: ui-only: the status a cancelled request gives the last row of its reply (the one cut)
        self.cut_at: dict[int, str] = {}
        self.usage_at: dict[int, tuple[Any, Any, str | None]] = {}
        self.outcome: str | None = None
        #: a completion_result row was shown and no request or call since (its `command` row follows)
        self.completed = False
        self.response: dict[int, int] = {}

    # -- writing ---------------------------------------------------------------------

    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Emit one record: a repeated message or call id revises the earlier record."""
        if self.pending_truncation is not None:
            body["contextTruncation"] = {"deletedRange": self.pending_truncation}
            self.pending_truncation = None
        kind = body["type"]
        field = _NATIVE_ID.get(kind)
        key = body.get(field) if field is not None else None
        if isinstance(key, str):
            written = self.written[kind]
            if key in written and "supersedes" not in body:
                body["supersedes"] = written[key]
            written[key] = self.emit.next_id
        self.last_kind = kind
        return self.emit(body)

    def _put_usage(self, body: dict[str, Any], usage: Any, native: Any, status: str | None = None) -> None:
        """The request's numbers as the source records them; a cancelled request marks its reply."""
        if status is not None:
            body["status"] = status
        if usage is not None:
            body["usage"] = usage
        if native is not None:
            body["nativeUsage"] = native

    def _count(self, outcome: str) -> None:
        accounting = self.context.accounting
        setattr(accounting, outcome, getattr(accounting, outcome) + 1)

    # -- rows --------------------------------------------------------------------------

    def seen(self, position: int, row: Any) -> bool:
        """Count a row and note a truncation it records; False when the row was folded into a
        record written already (about half the rows of a task folder: no ``row`` call for them)."""
        accounting = self.context.accounting
        accounting.native_items += 1
        if isinstance(row, dict):
            deleted = row.get("conversationHistoryDeletedRange")
            if deleted is not None and deleted != self.deleted_range:
                self.deleted_range = self.pending_truncation = deleted
        if position in self.folded:
            accounting.folded += 1
            return False
        problem = misplaced(row, UI_NAMES)
        if problem is not None:
            self.context.unreadable(None, f"ui message {position + 1} unreadable: {problem}; skipped")
            return False
        return True

    def row(self, position: int, row: Any) -> Iterator[dict[str, Any]]:
        """The records of a row ``seen`` let through."""
        self.outcome = "records"
        pair = self.kinds[position]
        kind, sub = pair
        request = pair == REQUEST
        human = human_kind(pair, position)
        if request or human:
            self.completed = False
        elif pair == ("say", "completion_result"):
            self.completed = True
        if self.waiting_human and sub not in _KEEP_WAITING and not request and not human:
            yield from self._flush_human()  # the prompt was not sent by a request after it
        if not kind:
            self.outcome = "vendor"
            yield self.put(self._vendor("row", row))
        elif human:
            if self.api:
                yield self._display_message(position, row, "user")
            else:
                self.waiting_human.append(position)
                self.outcome = None
        elif request:
            yield from self._request(position, row)
        elif text_kind(pair, row):
            yield from self._flush_human()
            yield self._display_message(position, row, "assistant")
        elif call_kind(pair) and not self.api:
            yield from self._flush_human()
            yield self.put(self._ui_call(position, row, kind, sub))
        elif kind == "say" and sub == "task_progress":
            yield from self._plan(row)
        elif kind == "ask" and sub == "followup":
            yield from self._flush_human()
            yield self.put(self._question(position, row))
        elif (kind == "say" and sub in NOTICE_SAYS) or (kind == "ask" and sub in NOTICE_ASKS):
            yield self.put(self._notice(row, sub))
        else:
            self.outcome = "vendor"
            yield self.put(self._vendor(f"{kind}/{sub}", row))
        if self.outcome is not None:
            self._count(self.outcome)

    def flush(self) -> Iterator[dict[str, Any]]:
        yield from self._flush_human()

    def _flush_human(self) -> Iterator[dict[str, Any]]:
        waiting, self.waiting_human = self.waiting_human, []
        for position in waiting:
            self._count("records")
            yield self._display_message(position, self.ui[position], "user")

    def _vendor(self, kind: str, data: Any) -> dict[str, Any]:
        """The native item verbatim, at its own time (a row's or api message's ``ts``) when it has one."""
        body = new_body("vendor", data.get("ts") if isinstance(data, dict) else None)
        body.update(schema=f"{REGISTRY}/{kind}", data=data)
        return body

    def display_parts(
        self, row: dict[str, Any], author: str | None, pair: tuple[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """What the ui showed for a row, as parts (``author`` on each when given; ``pair``: the
        row's ``subtype`` when the caller has it)."""
        kind, sub = subtype(row) if pair is None else pair
        text = row.get("text")
        parts: list[dict[str, Any]] = []
        if isinstance(row.get("reasoning"), str) and row["reasoning"]:
            parts.append({"type": "reasoning", "text": row["reasoning"]})
        if sub == "reasoning":
            parts.append({"type": "reasoning", "text": text if isinstance(text, str) else ""})
        elif kind == "ask":  # plan_mode_respond / act_mode_respond: {"response": …}
            parsed = parse_json(text)
            shown = parsed.get("response") if isinstance(parsed, dict) else None
            parts.append({"type": "text", "text": shown if isinstance(shown, str) else str(text or "")})
        elif isinstance(text, str) and (text or (not row.get("images") and not row.get("files"))):
            flag = sub == "completion_result" and text.endswith(CHANGES_FLAG)
            part: dict[str, Any] = {"type": "text", "text": text[: -len(CHANGES_FLAG)] if flag else text}
            if sub == "completion_result":
                part["phase"] = "final"
            parts.append(part)
            if flag:  # Cline's flag (COMPLETION_RESULT_CHANGES_FLAG), kept exactly, not the model's text
                parts.append({"type": "text", "text": CHANGES_FLAG, "author": "harness", "origin": "injected"})
        parts += attachments(row)
        if author is not None:
            parts = [{**p, "author": author, **({"origin": "prompt"} if author == "human" else {})} for p in parts]
        return parts

    def _tail(self, body: dict[str, Any], row: dict[str, Any]) -> None:
        """The row's members under ``cline``; ``model`` only on what the model wrote (its
        messages, calls and questions): a prompt or notice stamped with the model in use
        is not that model's output (``modelInfo`` stays under ``cline``)."""
        model_info = row.get("modelInfo")
        if (
            isinstance(model_info, dict)
            and isinstance(model_info.get("modelId"), str)
            and (body.get("author") == "model" or body["type"] in _MODEL_WRITTEN)
        ):
            body["model"] = model_info["modelId"]
        extra = row_extra(row)
        if extra:
            body["cline"] = extra

    def _display_message(self, position: int, row: dict[str, Any], role: str) -> dict[str, Any]:
        """A row shown in the ui with no model-facing copy here: displayContent only (ASR-207)."""
        body = new_body("message", row.get("ts"))
        body["messageId"] = f"ui:{row.get('ts')}"
        body["role"] = role
        body["author"] = "human" if role == "user" else "model"
        if role == "user":
            body["origin"] = "prompt"
        finished = row.get("partial") is True and self._finished_reasoning(position)
        cut = self.cut_at.pop(position, None)
        if cut is not None:  # the row a cancelled request cut: its status, not partial's
            body["status"] = cut
        elif row.get("partial") is True and not finished:
            body["status"] = "partial"
        body["content"] = []
        body["displayContent"] = self.display_parts(row, None, self.kinds[position])
        body["capture"] = {"content": {"state": "absent", "reason": _DISPLAY_ONLY}}
        body["idSource"] = "derived"
        self._tail(body, row)
        if finished or (cut is not None and row.get("partial") is True):
            body.setdefault("cline", {})["partial"] = True  # the row's own flag, kept: the status says more
        usage = self.usage_at.pop(position, None)
        if usage is not None:
            self._put_usage(body, *usage)
        return self.put(body)

    def _finished_reasoning(self, position: int) -> bool:
        """A ``reasoning`` row left ``partial`` whose reply went on to another row (text, a tool
        call, the completion, a question) before the next request or prompt: Cline updates only
        the last row while streaming and clears the flag only on some paths (a text chunk), so
        the row's text is the reasoning as it finished. A partial row the reply never got past
        (the stream failed) stays partial."""
        if self.kinds[position] != ("say", "reasoning"):
            return False
        kinds, ui = self.kinds, self.ui
        for later in range(position + 1, len(ui)):
            pair = kinds[later]
            if pair == REQUEST or human_kind(pair, later):
                return False
            if text_kind(pair, ui[later]) or call_kind(pair) or pair == ("ask", "followup"):
                return True
        return False

    def _request(self, position: int, row: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """``api_req_started``: the request text Cline sent, as a user message (ui-only input)."""
        taken = self._consumes(position)
        if taken is None:
            # not JSON, or a request the api history holds, or a retry that cost nothing
            self.outcome = "vendor"
            yield self.put(self._vendor("say/api_req_started", row))
            return
        info, request = taken
        spent = reports_tokens(info)
        ts = row.get("ts")
        rendered: list[dict[str, Any]] = []
        pieces = split_text(request, flattened=True)
        for number, piece in enumerate(pieces):
            if piece.kind == RESULT and piece.skipped:
                # a call Cline did not run shows no ui row: its notice stays Cline's words here
                rendered.append(rendered_part(HARNESS, piece.text))
            elif piece.kind == RESULT and self.ui_calls:
                yield self.put(self._rendered_result(piece, ts, last=number == len(pieces) - 1))
            else:
                rendered.append(rendered_part(piece.kind, piece.text))
        self.ui_calls = []
        waiting, self.waiting_human = self.waiting_human, []
        display: list[dict[str, Any]] = []
        for human in waiting:
            display += self.display_parts(self.ui[human], "human", self.kinds[human])
            self._count("folded")
        shown = [shown_row(self.ui[human]) for human in waiting]
        body = new_body("message", ts)
        body["messageId"] = f"ui:{ts}"
        body["role"] = "user"
        body["content"] = []
        if display or rendered:
            body["displayContent"] = display + rendered
        body["capture"] = {"content": {"state": "absent", "reason": RENDERED}}
        body["idSource"] = "derived"
        if waiting:
            body["assembly"] = {"mode": "folded", "sourceIds": [str(self.ui[h].get("ts")) for h in waiting] + [str(ts)]}
        self._tail(body, row)
        # with an api history, this is a try the history does not hold: no reply row is its own
        response = None if self.api else self.response.get(position)
        if response is None:
            unanswered_status(body, info)
        own_usage = response is None and spent  # no reply carries what it cost: the request does
        moved = response is not None or own_usage
        rest = {k: v for k, v in info.items() if k != "request" and not (moved and k in USAGE_KEYS)}
        if rest:
            body["apiRequest"] = rest
        if shown:
            body["displayRows"] = shown
        if response is not None:
            usage, native, status = request_usage(info, provider_of(row))
            self.usage_at[response] = (usage, native, None)
            if status is not None:  # the failure cut the reply where it stopped: its last row
                self.cut_at[self._reply_end(response)] = status
        elif own_usage:
            usage, native, _status = request_usage(info, provider_of(row))
            self._put_usage(body, usage, native)
        yield self.put(body)

    def _reply_end(self, first: int) -> int:
        """The last row of the reply that starts at ``first``: its text, call or question rows
        up to the next request or prompt."""
        kinds, ui = self.kinds, self.ui
        end = first
        for later in range(first + 1, len(ui)):
            pair = kinds[later]
            if pair == REQUEST or human_kind(pair, later):
                break
            if text_kind(pair, ui[later]) or call_kind(pair) or pair == ("ask", "followup"):
                end = later
        return end

    def _consumes(self, position: int) -> tuple[dict[str, Any], str] | None:
        """(the request row's JSON, its request text) when the row is written as a request
        (and so answers the calls shown before it); None for one written as a vendor record:
        not JSON, one the api history holds, a retry that cost nothing."""
        info = parse_json(self.ui[position].get("text"))
        request = info.get("request") if isinstance(info, dict) else None
        spent = isinstance(info, dict) and reports_tokens(info)
        if not isinstance(request, str) or (self.api and not spent) or self._retried(position, request, spent):
            return None
        assert isinstance(info, dict)
        return info, request

    def _header_names(self, start: int) -> dict[str, str]:
        """The tool each call shown from ``start`` on was, as the ``[tool for 'x'] Result:``
        headers of the request that answers them name it: the calls and their pairing worked
        out ahead, as ``row`` and ``_request`` will make them."""
        kinds, ui = self.kinds, self.ui
        completed = self.completed
        calls: list[str] = []
        shown: dict[str, tuple[str, Any]] = {}
        for later in range(start, len(ui)):
            pair, row = kinds[later], ui[later]
            if not isinstance(row, dict) or later in self.folded or misplaced(row, UI_NAMES) is not None:
                continue
            if pair == REQUEST:
                completed = False
                taken = self._consumes(later)
                if taken is None:
                    continue
                names: dict[str, str] = {}
                for piece in split_text(taken[1], flattened=True):
                    if piece.kind == RESULT and not piece.skipped and calls:
                        call_id = pick_shown_call(calls, shown, piece.tool, piece.target)
                        if piece.tool:
                            names[call_id] = piece.tool
                return names
            if human_kind(pair, later):
                completed = False
            elif pair == ("say", "completion_result"):
                completed = True
            elif call_kind(pair):
                label, shown_as = ui_label(row, pair[1], completed)
                completed = False
                call_id = f"ui:{row.get('ts')}"
                calls.append(call_id)
                shown[call_id] = (label, shown_as)
        return {}

    def _rendered_result(self, piece: Piece, ts: Any, last: bool) -> dict[str, Any]:
        """A ``[tool] Result:`` piece of a request's rendering answering a shown call: display only."""
        body = new_body("tool_result", ts)
        body["callId"] = self._pick_ui_call(piece.tool, piece.target)
        if piece.tool:
            body["name"] = piece.tool
        text = piece.text
        if not last and text.endswith("\n\n"):
            text = text[:-2]  # the blank line Cline joins blocks with belongs to neither block
        body["content"] = []
        body["capture"] = {"content": {"state": "absent", "reason": RENDERED}}
        body["displayContent"] = [{"type": "text", "text": text}]
        return with_result_state(body, piece.tool, text)

    def _pick_ui_call(self, tool: str | None, target: str | None) -> str:
        return pick_shown_call(self.ui_calls, self.ui_call_rows, tool, target)

    def _retried(self, position: int, request: str, spent: bool) -> bool:
        """A request with no reply whose next request sends the same text, when the source says
        Cline retried it (an ``error_retry`` or ``api_req_retried`` row between the two) and the
        try reports no tokens: a retry, folded. One that cost tokens stays a request, so what it
        cost is never dropped from usage; one the source does not call a retry stays a request."""
        if position in self.response or spent:
            return False
        kinds = self.kinds
        said = False
        for later in range(position + 1, len(self.ui)):
            pair = kinds[later]
            if pair in _RETRY_ROWS:
                said = True
            elif pair == REQUEST:
                info = parse_json(self.ui[later].get("text"))
                return said and isinstance(info, dict) and info.get("request") == request
        return False

    def _ui_call(self, position: int, row: dict[str, Any], kind: str, sub: str) -> dict[str, Any]:
        text = row.get("text")
        body = new_body("tool_call", row.get("ts"))
        call_id = body["callId"] = f"ui:{row.get('ts')}"
        if not self.ui_calls:  # the first call since a request: look up the headers answering them
            self.header_names = self._header_names(position)
        name, shown_as = ui_label(row, sub, self.completed)
        self.completed = False
        header = self.header_names.get(call_id)
        label = sub == "tool" and isinstance(shown_as, dict) and shown_as.get("tool") == name
        body["name"] = header if header is not None else name
        # what the row shows is Cline's ui message about the call, not the model's arguments
        body["capture"] = {"input": {"state": "absent", "reason": UI_INPUT}}
        if label and header is None:
            body["capture"]["name"] = {"state": "masked", "reason": UI_NAME}
        if text is not None:
            body["uiTool"] = shown_as
        body["idSource"] = "derived"
        self._tail(body, row)
        extra = body.setdefault("cline", {})
        extra["row"] = f"{kind}/{sub}"
        if header is not None and header != name:
            extra["uiName"] = name  # Cline's ui label of the call (``ClineSayTool.tool``)
        usage = self.usage_at.pop(position, None)
        if usage is not None:
            self._put_usage(body, *usage)
        cut = self.cut_at.pop(position, None)
        if cut is not None:
            body["status"] = cut
        self.known_calls.add(body["callId"])
        self.ui_calls.append(body["callId"])
        self.ui_call_rows[body["callId"]] = (name, shown_as)
        return body

    def _plan(self, row: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """``task_progress``: the focus-chain checklist; each changed version a revision."""
        text = row["text"] if isinstance(row.get("text"), str) else ""
        entries = checklist(text)
        if (entries or text) == self.plan_entries:
            self.outcome = "duplicates"
            return
        body = new_body("plan", row.get("ts"))
        body["planId"] = PLAN_ID
        if entries:
            body["planType"] = "items"
            body["entries"] = entries
        else:
            body["planType"] = "document"
            body["content"] = [{"type": "text", "text": text}]
        body["idSource"] = "derived"
        if self.plan_record is not None:
            body["supersedes"] = self.plan_record
        body["markdown"] = text
        self._tail(body, row)  # the row's own members (history index, modelInfo, range)
        self.plan_entries = entries or text
        self.plan_record = self.emit.next_id
        yield self.put(body)

    def _answer(self, position: int) -> dict[str, Any] | None:
        """The ``user_feedback`` row that answers the followup question at ``position``: the
        next one before the next request or question (Cline writes the answer as that row)."""
        for later in range(position + 1, len(self.ui)):
            row = self.ui[later]
            pair = self.kinds[later]
            if pair == ("say", "user_feedback"):
                return row if isinstance(row, dict) else None
            if pair == REQUEST or (pair[0] == "ask" and pair[1] in _ASKED_AGAIN):
                return None  # asked again, or the task was interrupted: what the person writes next is no answer
        return None

    def _question(self, position: int, row: dict[str, Any]) -> dict[str, Any]:
        body = new_body("input_request", row.get("ts"))
        body["requestId"] = f"ui:{row.get('ts')}"
        body["kind"] = f"{REGISTRY}/followup"
        parsed = parse_json(row.get("text"))
        question = parsed.get("question") if isinstance(parsed, dict) else row.get("text")
        body["content"] = [{"type": "text", "text": question if isinstance(question, str) else ""}]
        options = parsed.get("options") if isinstance(parsed, dict) else None
        if isinstance(options, list):
            body["options"] = options
        body["idSource"] = "derived"
        self._tail(body, row)
        if isinstance(parsed, dict) and "selected" in parsed:
            body.setdefault("cline", {})["selected"] = parsed["selected"]
        answer = self._answer(position)
        if answer is not None:
            body["answer"] = [{**p, "author": "human"} for p in self.display_parts(answer, None)]
            body["status"] = ANSWERED
            body.setdefault("cline", {})["answerTs"] = answer.get("ts")
        usage = self.usage_at.pop(position, None)
        if usage is not None:  # the question was the reply to the request before it: its cost
            self._put_usage(body, usage[0], usage[1])
        cut = self.cut_at.pop(position, None)
        if cut is not None and answer is None:
            body["status"] = cut
        return body

    def _notice(self, row: dict[str, Any], sub: str) -> dict[str, Any]:
        body = new_body("message", row.get("ts"))
        body["messageId"] = f"ui:{row.get('ts')}"
        body.update(author="harness", origin="notice", audience="user")
        text = row.get("text")
        parsed = parse_json(text)
        if parsed is not None:
            body["content"] = [{"type": "data", "data": parsed, "schema": f"{REGISTRY}/{sub}"}]
        else:
            body["content"] = [{"type": "text", "text": text if isinstance(text, str) else ""}]
        body["capture"] = {"role": {"state": "absent", "reason": "a ui notice; Cline gives it no role"}}
        body["idSource"] = "derived"
        self._tail(body, row)
        body.setdefault("cline", {})["row"] = f"{subtype(row)[0]}/{sub}"
        return body
