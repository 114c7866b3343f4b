# Whole, over 400 lines: TrajectoryWriter is one streaming state machine (open step, step index) over every type.
"""ASR stream -> ATIF trajectory (Harbor's Agent Trajectory Interchange Format), written as it is read.

One trajectory JSON document per session stream. Steps are written as soon as they are
complete; what stays in memory is the open step and the step index (call id -> step id).
The root document's members after ``steps`` (agent, metrics, extra, embedded subagents) are
written last, which JSON's unordered objects allow. docs/export.md has the field table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from ..core.nesting import dumps as nested_dumps
from .parts import flag_only, map_parts
from .report import APPROXIMATE, CARRIED, DROPPED, LossReport
from .sink import Write, byte_writer

NAME = "atif"
VERSION = "ATIF-v1.8"
ROLE_SOURCE = {"user": "user", "assistant": "agent", "system": "system", "developer": "system"}
#: Envelope members no ATIF consumer can use: counted as dropped.
DROPPED_MEMBERS = {
    "seq": "ATIF step_id renumbers",
    "tsPrecision": "no ATIF field",
    "idSource": "no ATIF field",
    "assembly": "native source ids of folded records: no ATIF field",
}
#: Members holding content parts: kept with opaque data and signatures as flags only.
PART_MEMBERS = frozenset(("content", "displayContent", "answer"))
KEPT_HOW = {"author": "collapsed to the step's source; kept in extra.asr"}
USAGE_METRICS = (
    ("inputTokens", "prompt_tokens"),
    ("outputTokens", "completion_tokens"),
    ("cacheReadTokens", "cached_tokens"),
)
USAGE_HOW = (
    "inputTokens->prompt_tokens (cached input included, as ATIF counts it), outputTokens->completion_tokens "
    "(reasoning included), cacheReadTokens->cached_tokens: the one usage definition (docs/format.md); "
    "whole usage in metrics.extra"
)
NON_AGENT_USAGE_HOW = (
    "ATIF allows metrics on agent steps only: the usage of a model call whose record is not the "
    "agent's (a compaction summary the harness inserts) is kept in the step's extra.asr and "
    "counted in final_metrics"
)
PARTIAL_HOW = "no ATIF field says a count is a running one; kept in metrics.extra.usage"


_dumps = nested_dumps  # orjson, or past its 255 levels the standard library (core/nesting)


@dataclass(slots=True)
class Step:
    """One ATIF step being filled: an ASR message and what joins it (its calls, results, notes)."""

    source: str
    timestamp: str | None = None
    texts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    model: str | None = None
    metrics: dict[str, Any] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    copied: bool = False
    inference: str | None = None
    message_id: str | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)

    def call_ids(self) -> set[str]:
        return {call["tool_call_id"] for call in self.calls}

    def as_atif(self, step_id: int) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": step_id}
        if self.timestamp:
            step["timestamp"] = self.timestamp
        step["source"] = self.source
        if self.model and self.source == "agent":
            step["model_name"] = self.model
        if len(self.texts) == 1:
            step["message"] = self.texts[0]
        elif self.texts:
            step["message"] = [{"type": "text", "text": text} for text in self.texts]
        else:
            step["message"] = ""
        if self.reasoning:
            step["reasoning_content"] = "\n\n".join(self.reasoning)
        if self.calls:
            step["tool_calls"] = self.calls
        if self.results:
            step["observation"] = {"results": self.results}
        if self.metrics is not None:
            step["metrics"] = self.metrics
        if self.copied:
            step["is_copied_context"] = True
        if self.notes:
            step["extra"] = {"asr": self.notes}
        return step


class TrajectoryWriter:
    """Writes one stream's records as one ATIF trajectory object, as UTF-8 bytes through ``write``."""

    def __init__(self, write: Write, report: LossReport, default_id: str | None = None) -> None:
        self.write = write
        self.default_id = default_id
        self.report = report
        self.open: Step | None = None
        self.step_count = 0
        self.step_of_call: dict[str, int] = {}
        self.header: dict[str, Any] = {}
        self.declarations: list[dict[str, Any]] = []
        self.models: set[str] = set()
        self.totals: dict[str, int] = {}
        self.started = False
        self.shapes: dict[tuple[Any, ...], tuple[tuple[str, ...], tuple[str, ...], int]] = {}
        self.counts = report.batch_counts
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "session": self._on_session,
            "message": self._on_message,
            "tool_call": self._on_tool_call,
            "tool_result": self._on_tool_result,
            "subagent": self._on_subagent,
            "participant": self._on_participant,
            "conversation": self._on_participant,
            "vendor": self._on_vendor,
        }

    # -- writing -------------------------------------------------------------------------
    def _start(self) -> None:
        if self.started:
            return
        self.started = True
        session = self.header.get("session", self.default_id)
        head: dict[str, Any] = {"schema_version": VERSION}
        if isinstance(session, str):
            head["session_id"] = session
            head["trajectory_id"] = session
        self.write(_dumps(head)[:-1] + b',"steps":[')

    def _flush(self) -> None:
        step, self.open = self.open, None
        if step is None:
            return
        self._start()
        self.step_count += 1
        for call in step.calls:
            self.step_of_call[call["tool_call_id"]] = self.step_count
        if self.step_count > 1:
            self.write(b",")
        self.write(_dumps(step.as_atif(self.step_count)))

    def _begin(self, source: str, record: dict[str, Any]) -> Step:
        self._flush()
        self.open = Step(source, timestamp=record.get("ts"), inference=record.get("inferenceId"))
        self.open.copied = "copiedFrom" in record
        return self.open

    def _pending(self, record: dict[str, Any]) -> Step:
        """The open step, or a new system step to hold a record that belongs to no message."""
        return self.open if self.open is not None else self._begin("system", record)

    def finish(self, tail: Callable[[Write], None] | None = None) -> None:
        """Close the trajectory: the last step, then agent, metrics, extra and ``tail``'s members."""
        self._flush()
        if self.step_count == 0:  # ATIF needs one step; an empty session says so in extra
            self.open = Step("system", notes=[{"emptyStream": True}])
            self._flush()
        agent: dict[str, Any] = self.header["agent"] if isinstance(self.header.get("agent"), dict) else {}
        atif_agent: dict[str, Any] = {
            "name": str(agent.get("name") or "unknown"),
            "version": str(agent.get("version") or "unknown"),
        }
        if len(self.models) == 1:
            atif_agent["model_name"] = next(iter(self.models))
        self.write(b"]," + _dumps({"agent": atif_agent})[1:-1])
        metrics: dict[str, Any] = {
            f"total_{atif}": self.totals[atif] for _, atif in USAGE_METRICS if atif in self.totals
        }
        metrics["total_steps"] = self.step_count
        self.write(b',"final_metrics":' + _dumps(metrics))
        extra = {k: v for k, v in self.header.items() if k not in ("type", "seq", "id", "session", "agent")}
        if self.declarations:
            extra["declarations"] = self.declarations
        if extra:
            self.write(b',"extra":' + _dumps({"asr": extra}))
        if tail is not None:
            tail(self.write)
        self.write(b"}")

    # -- records -------------------------------------------------------------------------
    def add(self, record: dict[str, Any]) -> None:
        kind = str(record.get("type"))
        self.report.records[kind] += 1
        handler = self.handlers.get(kind)
        if handler is None:
            self._on_other(kind, record)
        else:
            handler(record)

    def _leftovers(
        self, kind: str, record: dict[str, Any], mapped: dict[str, str], mapped_key: Any = None
    ) -> dict[str, Any]:
        """Members with no ATIF field, for extra.asr; each member's outcome counted in the report.
        Records of one shape (type, member names, mapping) share one classification
        (``mapped_key``: a constant mapping's key, else its items)."""
        shape = (kind, tuple(record), mapped_key if mapped_key is not None else tuple(mapped.items()))
        known = self.shapes.get(shape)
        if known is None:
            known = self._classify(kind, shape[1], mapped)
            self.shapes[shape] = known
        names, part_names, batch = known
        self.counts[batch] += 1
        kept: dict[str, Any] = {"type": kind, "id": record.get("id")}
        kept.update(zip(names, map(record.__getitem__, names), strict=True))
        for name in part_names:
            value = kept[name]
            if isinstance(value, list):
                kept[name] = [flag_only(p) for p in value if isinstance(p, dict)]
        return kept

    def _classify(
        self, kind: str, names: tuple[str, ...], mapped: dict[str, str]
    ) -> tuple[tuple[str, ...], tuple[str, ...], int]:
        kept: list[str] = []
        notes: list[tuple[str, str, str, str]] = []
        for name in names:
            if name == "type" or name == "id":
                continue
            how = mapped.get(name)
            if how is not None:
                notes.append((kind, name, APPROXIMATE if how else CARRIED, how))
            elif name in DROPPED_MEMBERS:
                notes.append((kind, name, DROPPED, DROPPED_MEMBERS[name]))
            else:
                kept.append(name)
                notes.append((kind, name, APPROXIMATE, KEPT_HOW.get(name, "kept in extra.asr")))
        parts = tuple(name for name in kept if name in PART_MEMBERS)
        return tuple(kept), parts, self.report.add_batch(tuple(notes))

    def _on_session(self, record: dict[str, Any]) -> None:
        self.header = record
        for name in record:
            if name in ("session", "agent"):
                self.report.note("session", name, CARRIED)
            elif name not in ("type",):
                self.report.note("session", name, APPROXIMATE, "kept in the trajectory's extra.asr")

    def _on_participant(self, record: dict[str, Any]) -> None:
        self.declarations.append(record)
        self.report.note(str(record.get("type")), "*", APPROXIMATE, "kept in the trajectory's extra.asr.declarations")

    def _on_vendor(self, record: dict[str, Any]) -> None:
        self.report.note("vendor", "*", DROPPED, "native items no ASR type carries have no ATIF counterpart")

    def _usage(self, step: Step, record: dict[str, Any]) -> None:
        usage = record.get("usage")
        if not isinstance(usage, dict):
            return
        metrics: dict[str, Any] = {}
        for asr, atif in USAGE_METRICS:
            if isinstance(usage.get(asr), int):
                metrics[atif] = usage[asr]
        if usage.get("partial") is True:
            self.report.note(str(record.get("type")), "usage.partial", APPROXIMATE, PARTIAL_HOW)
        for atif, value in metrics.items():
            self.totals[atif] = self.totals.get(atif, 0) + value
        if step.source != "agent":
            self.report.note(str(record.get("type")), "usage", APPROXIMATE, NON_AGENT_USAGE_HOW)
            return  # the record's usage stays among its leftovers (extra.asr)
        metrics["extra"] = {"usage": usage}
        if isinstance(record.get("nativeUsage"), dict):
            metrics["extra"]["nativeUsage"] = record["nativeUsage"]
        step.metrics = metrics

    def _on_message(self, record: dict[str, Any]) -> None:
        role = record.get("role")
        source = ROLE_SOURCE.get(str(role), "system")
        if record.get("status") == "withdrawn":  # ASR-225: never presented as received
            self._pending(record).notes.append(self._leftovers("message", record, {}))
            self.report.note("message", "status=withdrawn", APPROXIMATE, "withdrawn input kept only in extra.asr")
            return
        has_usage = isinstance(record.get("usage"), dict)
        step = self.open
        joins = (
            source == "agent"
            and step is not None
            and step.source == "agent"
            and not step.texts
            and not step.calls
            and not step.results
            and not (has_usage and step.metrics is not None)
            and _joins_response(step.inference, record)
        )
        if not joins:
            step = self._begin(source, record)
        assert step is not None
        step.message_id = step.message_id or record.get("messageId")
        step.inference = step.inference or record.get("inferenceId")
        pieces = map_parts(record.get("content"), "message", "content", self.report, agent_step=source == "agent")
        step.texts.extend(pieces.texts)
        step.reasoning.extend(pieces.reasoning)
        if isinstance(record.get("model"), str) and source == "agent":
            step.model = record["model"]
            self.models.add(record["model"])
        self._usage(step, record)
        which = (role in ("user", "assistant", "system"), has_usage and step.source == "agent", joins)
        leftover = self._leftovers("message", record, MESSAGE_MAPPED[which], which)
        leftover.pop("content", None)
        if "copiedFrom" in record:
            leftover["copiedFrom"] = record["copiedFrom"]
        if joins and "ts" in record:
            leftover["ts"] = record["ts"]
        if pieces.extra:
            leftover["parts"] = pieces.extra
        step.notes.append(leftover)

    def _on_tool_call(self, record: dict[str, Any]) -> None:
        step = self.open
        message_id = record.get("messageId")
        joins = (
            step is not None
            and step.source == "agent"
            and not step.results
            and _same(step.inference, record.get("inferenceId"))
            and (message_id is None or step.message_id is None or message_id == step.message_id)
            and not (isinstance(record.get("usage"), dict) and step.metrics is not None)
        )
        if not joins:
            step = self._begin("agent", record)
        assert step is not None
        step.inference = step.inference or record.get("inferenceId")
        value = record.get("input")
        opaque = set(record.get("opaqueInput") or ())
        mapped = {"callId": "", "name": ""}
        if isinstance(value, dict):
            arguments = {k: (flag_only(v) if k in opaque and isinstance(v, dict) else v) for k, v in value.items()}
            mapped["input"] = "" if not opaque else "encrypted arguments kept only as a flag"
        else:
            arguments = {}
            if "input" in record:
                mapped["input"] = "not an object: kept in tool_call.extra.asr"
        if "arguments" in record:
            mapped["arguments"] = "unparsed argument string: kept in tool_call.extra.asr, arguments {}"
        call: dict[str, Any] = {
            "tool_call_id": str(record.get("callId")),
            "function_name": str(record.get("name")),
            "arguments": arguments,
        }
        self._usage(step, record)
        if isinstance(record.get("usage"), dict):
            mapped["usage"] = USAGE_HOW
            mapped["nativeUsage"] = "kept in metrics.extra"
        leftover = self._leftovers("tool_call", record, mapped)
        for name in ("input", "arguments"):
            if name in record and name in mapped and mapped[name]:
                leftover[name] = record[name] if name == "arguments" or not isinstance(value, dict) else True
        call["extra"] = {"asr": leftover}
        step.calls.append(call)

    def _result_step(self, record: dict[str, Any]) -> tuple[Step, bool]:
        """The step whose calls include the record's call, or a new system step (then False)."""
        call_id = record.get("callId")
        if self.open is not None and call_id in self.open.call_ids():
            return self.open, True
        step = self._begin("system", record)
        if isinstance(call_id, str) and call_id in self.step_of_call:
            step.notes.append({"resultOfCallInStep": self.step_of_call[call_id], "callId": call_id})
        return step, False

    def _on_tool_result(self, record: dict[str, Any]) -> None:
        step, linked = self._result_step(record)
        pieces = map_parts(record.get("content"), "tool_result", "content", self.report, agent_step=False)
        result: dict[str, Any] = {}
        if linked:
            result["source_call_id"] = record["callId"]
        if len(pieces.texts) == 1:
            result["content"] = pieces.texts[0]
        elif pieces.texts:
            result["content"] = [{"type": "text", "text": text} for text in pieces.texts]
        leftover = self._leftovers("tool_result", record, RESULT_MAPPED[linked], linked)
        leftover.pop("content", None)
        if not linked and "callId" in record:
            leftover["callId"] = record["callId"]
        if pieces.extra:
            leftover["parts"] = pieces.extra
        result["extra"] = {"asr": leftover}
        step.results.append(result)

    def _on_subagent(self, record: dict[str, Any]) -> None:
        step, linked = self._result_step(record)
        child = record.get("session")
        ref: dict[str, Any] = {}
        if isinstance(child, str):
            ref = {"trajectory_id": child, "session_id": child}
        result: dict[str, Any] = {}
        if linked:
            result["source_call_id"] = record["callId"]
        mapped = {"session": "subagent_trajectory_ref (trajectory_id = the child's session reference)"}
        if "callId" in record:
            mapped["callId"] = "" if linked else "its call is in another step: kept in extra.asr"
        leftover = self._leftovers("subagent", record, mapped)
        if not linked and "callId" in record:
            leftover["callId"] = record["callId"]
        if ref:
            ref["extra"] = {"asr": leftover}
            result["subagent_trajectory_ref"] = [ref]
        else:
            result["extra"] = {"asr": leftover}
        step.results.append(result)

    def _on_other(self, kind: str, record: dict[str, Any]) -> None:
        """Plans, questions, deliveries and unknown types: kept in the open step's extra.asr."""
        leftover = self._leftovers(kind, record, {})
        self._pending(record).notes.append(leftover)


def _message_mapping(plain_role: bool, usage: bool, joined: bool) -> dict[str, str]:
    mapped = {"ts": "", "content": "", "model": "", "copiedFrom": "is_copied_context; the reference kept in extra.asr"}
    mapped["role"] = "" if plain_role else "mapped to the step's source 'system'"
    if usage:
        mapped["usage"] = USAGE_HOW
        mapped["nativeUsage"] = "kept in metrics.extra"
    if joined:
        mapped["ts"] = "a message joined to an open step keeps its time in extra.asr"
    return mapped


#: How a message's mapped members are reported, by (role user/assistant/system, usage, joined).
MESSAGE_MAPPED = {
    (a, b, c): _message_mapping(a, b, c) for a in (True, False) for b in (True, False) for c in (True, False)
}


#: How a tool result's mapped members are reported, by whether its call is in its step.
RESULT_MAPPED = {
    True: {"callId": "", "content": ""},
    False: {"callId": "its call is in another step: a system step with callId in extra.asr", "content": ""},
}


def _joins_response(inference: str | None, message: dict[str, Any]) -> bool:
    """Whether an assistant message continues an open step that holds only reasoning: the same
    recorded response, or (responses unrecorded) text following its reasoning. Two
    reasoning-only messages of unknown responses stay two steps."""
    if inference is not None and inference == message.get("inferenceId"):
        return True
    content = message.get("content")
    has_text = isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("text", "refusal") for p in content
    )
    return has_text and _same(inference, message.get("inferenceId"))


def _same(left: Any, right: Any) -> bool:
    return left is None or right is None or left == right


def write_trajectory(
    records: Iterable[dict[str, Any]],
    out: IO[str] | Write,
    report: LossReport,
    tail: Callable[[Write], None] | None = None,
    default_id: str | None = None,
) -> None:
    """Write one stream's records as one ATIF trajectory object into a text stream or a bytes
    ``write`` function (``default_id``: its id when the stream has no header; ``tail(write)``
    adds members at the end of the object)."""
    writer = TrajectoryWriter(out if callable(out) else byte_writer(out), report, default_id)
    for record in records:
        writer.add(record)
    writer.finish(tail)
    report.trajectories += 1
