"""The validator, rule by rule: a small stream that breaks each rule, and one that keeps it.

``stream(...)`` puts a session header first and numbers the records (``seq``, ``id``) in
canonical key order, so a case only writes what it is about. A case that breaks a rule
must give findings of that rule only, at the seq it names; a case that keeps it gives none.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asr_adapters.model.order import canonical_order
from asr_adapters.validate import Finding, StreamValidator, validate, validate_records

DROP: Any = object()
SHA = "sha256:" + "ab" * 32
HEADER = {
    "type": "session",
    "session": "codex:019a3c2e-5d10",
    "agent": {"name": "codex", "version": "0.125.0"},
    "producer": {"name": "asr-adapters", "version": "0.1.0"},
    "source": {"format": "codex-rollout", "file": "rollout.jsonl"},
}


class Raw(dict):
    """A record written exactly as given: no seq, no id, no reordering."""


def stream(*records: dict, header: dict | None = HEADER) -> list[dict]:
    """Records numbered in order. A later message with ``msg()``'s default id ``m1`` (and no
    ``supersedes`` or ``copiedFrom``) becomes ``m1.<seq>``, so that streams which only need
    several messages do not also repeat a native id (PROFILE-native-id has its own cases)."""
    out: list[dict] = []
    first_m1 = True
    for record in (header, *records) if header is not None else records:
        if isinstance(record, Raw):
            out.append(dict(record))
            continue
        n = len(out) + 1
        body = {k: v for k, v in record.items() if v is not DROP}
        if body.get("type") == "message" and body.get("messageId") == "m1":
            if not first_m1 and "supersedes" not in body and "copiedFrom" not in body:
                body["messageId"] = f"m1.{n}"
            first_m1 = False
        out.append(canonical_order({"type": body.pop("type"), "seq": n, "id": f"r{n}", **body}))
    return out


def _with(base: dict, changes: dict) -> dict:
    return {**base, **changes}


def msg(**changes: Any) -> dict:
    base = {"type": "message", "messageId": "m1", "role": "user", "content": [{"type": "text", "text": "hi"}]}
    return _with(base, changes)


OK = {"type": "text", "text": "ok"}


def parts(*items: dict, **changes: Any) -> dict:
    """An assistant message holding these content parts."""
    return msg(role="assistant", content=list(items), **changes)


def plan(**changes: Any) -> dict:
    base = {"type": "plan", "planId": "p1", "planType": "items", "entries": [{"content": "a", "status": "pending"}]}
    return _with(base, changes)


def delivery(**changes: Any) -> dict:
    return _with({"type": "delivery", "message": "messageId=m1", "status": "sent"}, changes)


def header(**changes: Any) -> dict:
    return _with(HEADER, changes)


def found(records: list) -> list[tuple[str, int | None]]:
    return [(f.rule, f.seq) for f in validate_records(records)]


def image(**changes: Any) -> dict:
    return _with({"type": "image", "mimeType": "image/png"}, changes)


def reasoning(**changes: Any) -> dict:
    return _with({"type": "reasoning"}, changes)


BLOB = {"blob": SHA, "size": 3, "mimeType": "image/png"}
CONV_HEADER = header(conversations=[{"conversationId": "c1", "platform": "telegram"}])
PART_HEADER = header(participants=[{"participantId": "p1", "kind": "human"}])

# (rule, seq, records that break it, records that keep it); seq 1 is the header.
CASES: list[tuple[str, int, list[dict], list[dict]]] = [
    # ASR-200: messageId, content, role or capture.role; empty content needs a capture state.
    ("ASR-200", 2, stream(msg(messageId=DROP)), stream(msg())),
    ("ASR-200", 2, stream(msg(messageId="")), stream(msg(messageId="x"))),
    ("ASR-200", 2, stream(msg(content=DROP)), stream(msg())),
    ("ASR-200", 2, stream(msg(content="hi")), stream(msg())),
    ("ASR-200", 2, stream(msg(role=DROP)), stream(msg(role=DROP, capture={"role": {"state": "absent"}}))),
    ("ASR-200", 2, stream(msg(content=[])), stream(msg(content=[], capture={"content": {"state": "truncated"}}))),
    # ASR-201: a role and a capture.role that says the source has none.
    (
        "ASR-201",
        2,
        stream(msg(capture={"role": {"state": "absent"}})),
        stream(msg(capture={"role": {"state": "masked"}})),
    ),
    # ASR-203: harness-inserted content is not the human's.
    (
        "ASR-203",
        2,
        stream(msg(author="human", origin="injected")),
        stream(msg(author="harness", origin="injected")),
    ),
    (
        "ASR-203",
        2,
        stream(msg(author="human", content=[{"type": "text", "text": "# AGENTS.md", "origin": "injected"}])),
        stream(
            msg(
                author="human",
                origin="prompt",
                content=[
                    {"type": "text", "text": "# AGENTS.md", "author": "harness", "origin": "injected"},
                    {"type": "text", "text": "Fix the failing parser test."},
                ],
            )
        ),
    ),
    # ASR-204: audience is closed.
    ("ASR-204", 2, stream(msg(audience="everyone")), stream(msg(audience="both"))),
    ("ASR-204", 2, stream(msg(audience=["user"])), stream(msg(audience="unknown"))),
    ("ASR-204", 2, stream(msg(audience="com.openai.codex/all")), stream(msg(audience="model"))),
    # ASR-205: a notice is author harness, origin notice, audience user.
    (
        "ASR-205",
        2,
        stream(msg(author="harness", origin="notice", audience="both")),
        stream(msg(author="harness", origin="notice", audience="user")),
    ),
    (
        "ASR-205",
        2,
        stream(msg(author="model", origin="notice", audience="user")),
        stream(msg(author="harness", origin="notice", audience="user")),
    ),
    (
        "ASR-205",
        2,
        stream(msg(audience="both", content=[{"type": "text", "text": "x", "author": "harness", "origin": "notice"}])),
        stream(msg(audience="user", content=[{"type": "text", "text": "x", "author": "harness", "origin": "notice"}])),
    ),
    # ASR-206: status values.
    ("ASR-206", 2, stream(msg(status="done")), stream(msg(status="complete"))),
    ("ASR-206", 2, stream(msg(status=3)), stream(msg(status="com.openai.codex/budget_limited"))),
    # ASR-207: display only -> content empty and capture.content absent.
    (
        "ASR-207",
        2,
        stream(msg(content=[], displayContent=[{"type": "text", "text": "hi"}])),
        stream(
            msg(content=[], displayContent=[{"type": "text", "text": "hi"}], capture={"content": {"state": "absent"}})
        ),
    ),
    (
        "ASR-207",
        2,
        stream(
            msg(
                content=[],
                displayContent=[{"type": "text", "text": "hi"}],
                capture={"content": {"state": "truncated"}},
            )
        ),
        stream(msg(displayContent=[{"type": "text", "text": "hi!"}])),
    ),
    # ASR-208: a correspondence needs both representations.
    (
        "ASR-208",
        2,
        stream(msg(displayCorrespondence="native")),
        stream(msg(displayContent=[{"type": "text", "text": "hi"}], displayCorrespondence="native")),
    ),
    (
        "ASR-208",
        2,
        stream(
            msg(
                content=[],
                displayContent=[{"type": "text", "text": "hi"}],
                displayCorrespondence="derived",
                capture={"content": {"state": "absent"}},
            )
        ),
        stream(msg(displayContent=[{"type": "text", "text": "hi"}], displayCorrespondence="derived")),
    ),
    # ASR-210: every part is an object with a string type; a text part has text.
    ("ASR-210", 2, stream(msg(content=["hi"])), stream(msg())),
    ("ASR-210", 2, stream(msg(content=[{"type": 1}])), stream(msg(content=[{"type": "com.example/unknown"}]))),
    ("ASR-210", 2, stream(msg(content=[{"type": "text"}])), stream(msg(content=[{"type": "text", "text": ""}]))),
    ("ASR-210", 2, stream(msg(displayContent="hi")), stream(msg(displayContent=[]))),
    # ASR-212: image and audio.
    ("ASR-212", 2, stream(parts({"type": "audio"})), stream(parts({"type": "audio", "mimeType": "audio/ogg"}))),
    ("ASR-212", 2, stream(parts(image(data="AAAA", blob=BLOB))), stream(parts(image(blob=BLOB)))),
    ("ASR-212", 2, stream(parts(image(data=5))), stream(parts(image(data="AAAA")))),
    # ASR-213: resource_link and resource.
    (
        "ASR-213",
        2,
        stream(parts({"type": "resource_link", "uri": "file:///a"})),
        stream(parts({"type": "resource_link", "uri": "file:///a", "name": "a"})),
    ),
    (
        "ASR-213",
        2,
        stream(parts({"type": "resource", "resource": {"text": "x"}})),
        stream(parts({"type": "resource", "resource": {"uri": "file:///a", "text": "x"}})),
    ),
    (
        "ASR-213",
        2,
        stream(parts({"type": "resource", "resource": {"uri": "u", "text": "x", "blob": "AAAA"}})),
        stream(parts({"type": "resource", "resource": {"uri": "u", "blobRef": BLOB}})),
    ),
    # ASR-214: reasoning text, summary and visibility.
    (
        "ASR-214",
        2,
        stream(parts(reasoning(visibility="summary", text="Checked the empty path."))),
        stream(parts(reasoning(visibility="summary", summary=["Checked the empty path."]))),
    ),
    (
        "ASR-214",
        2,
        stream(parts(reasoning(visibility="encrypted", text="secret"))),
        stream(parts(reasoning(visibility="omitted", text="", signature="EqQB"))),
    ),
    (
        "ASR-214",
        2,
        stream(parts(reasoning(visibility="full", summary=["a summary"]))),
        stream(parts(reasoning(visibility="full", text="all of it", summary=["a summary"]))),
    ),
    ("ASR-214", 2, stream(parts(reasoning(summary="one"))), stream(parts(reasoning(summary=[])))),
    ("ASR-214", 2, stream(parts(reasoning(text=["x"]))), stream(parts(reasoning(text="x")))),
    # ASR-217: refusal text.
    ("ASR-217", 2, stream(parts({"type": "refusal"})), stream(parts({"type": "refusal", "text": "No."}))),
    # ASR-220: a reasoning-only message is the model's.
    (
        "ASR-220",
        2,
        stream(msg(content=[reasoning(text="x")])),
        stream(msg(role="assistant", content=[reasoning(text="x")])),
    ),
    # ASR-221: plan shape.
    ("ASR-221", 2, stream(plan(planType=DROP)), stream(plan())),
    ("ASR-221", 2, stream(plan(planId=DROP)), stream(plan())),
    ("ASR-221", 2, stream(plan(entries=DROP)), stream(plan(entries=[]))),
    ("ASR-221", 2, stream(plan(entries=[{"content": "a"}])), stream(plan())),
    ("ASR-221", 2, stream(plan(entries=["a"])), stream(plan())),
    (
        "ASR-221",
        2,
        stream(plan(planType="document", entries=DROP)),
        stream(plan(planType="document", entries=DROP, content=[{"type": "text", "text": "1. Fix it."}])),
    ),
    (
        "ASR-221",
        2,
        stream(plan(planType="goal", entries=DROP, status="active")),
        stream(plan(planType="goal", entries=DROP, status="active", capture={"content": {"state": "absent"}})),
    ),
    # ASR-222: a revision names the previous record with the same planId.
    ("ASR-222", 3, stream(plan(), plan()), stream(plan(), plan(supersedes="r2"))),
    (
        "ASR-222",
        3,
        stream(plan(planId="p0"), plan(supersedes="r2")),
        stream(plan(planId="p0"), plan()),
    ),
    (
        "ASR-222",
        4,
        stream(plan(), plan(supersedes="r2"), plan(supersedes="r2")),
        stream(plan(), plan(supersedes="r2"), plan(supersedes="r3")),
    ),
    ("ASR-222", 3, stream(msg(), plan(supersedes="r2")), stream(msg(), plan())),
    # ASR-224: part-level author, origin, phase.
    (
        "ASR-224",
        2,
        stream(msg(content=[{"type": "text", "text": "x", "author": "robot"}])),
        stream(msg(content=[{"type": "text", "text": "x", "author": "com.openai.codex/robot"}])),
    ),
    (
        "ASR-224",
        2,
        stream(parts({"type": "text", "text": "x", "phase": "draft"})),
        stream(parts({"type": "text", "text": "x", "phase": "commentary"})),
    ),
    (
        "ASR-224",
        2,
        stream(msg(content=[{"type": "text", "text": "x", "origin": None}])),
        stream(msg(content=[{"type": "text", "text": "x", "origin": "injected", "author": "harness"}])),
    ),
    # ASR-225: withdrawn is for queued input.
    (
        "ASR-225",
        2,
        stream(parts({"type": "text", "text": "x"}, status="withdrawn")),
        stream(msg(origin="queued", status="withdrawn")),
    ),
    # ASR-226: shapes of the routing members.
    ("ASR-226", 2, stream(msg(triggersTurn="yes")), stream(msg(triggersTurn=True))),
    ("ASR-226", 2, stream(msg(addressed=1)), stream(msg(addressed=False))),
    (
        "ASR-226",
        2,
        stream(msg(platform={"messageIds": [1]})),
        stream(msg(platform={"messageIds": ["3EB0"], "replyTo": "3EB1"})),
    ),
    ("ASR-226", 2, stream(msg(platform="3EB0")), stream(msg(platform={}))),
    ("ASR-226", 2, stream(msg(conversation=7), header=CONV_HEADER), stream(msg(conversation="c1"), header=CONV_HEADER)),
    # ASR-227: conversations are declared in the header or at a lower seq.
    ("ASR-227", 2, stream(msg(conversation="c1")), stream(msg(conversation="c1"), header=CONV_HEADER)),
    (
        "ASR-227",
        2,
        stream(msg(conversation="c2"), {"type": "conversation", "conversationId": "c2"}),
        stream({"type": "conversation", "conversationId": "c2"}, msg(conversation="c2")),
    ),
    # ASR-228: actor references and derivedFrom.
    ("ASR-228", 2, stream(msg(**{"from": {"name": "Ann"}})), stream(msg(**{"from": {"session": "codex:abc"}}))),
    (
        "ASR-228",
        2,
        stream(msg(**{"from": {"session": "codex:abc", "address": 5}})),
        stream(msg(**{"from": {"session": "codex:abc", "address": "/root/worker"}})),
    ),
    (
        "ASR-228",
        2,
        stream(msg(**{"from": {"participant": "p1"}})),
        stream(msg(**{"from": {"participant": "p1"}}), header=PART_HEADER),
    ),
    (
        "ASR-228",
        2,
        stream(msg(recipients=[{"actor": "p1"}])),
        stream(msg(recipients=[{"actor": {"session": "codex:a", "address": "/root"}, "kind": "primary"}])),
    ),
    (
        "ASR-228",
        2,
        stream(msg(recipients=[{"actor": {"participant": "p9"}}]), header=PART_HEADER),
        stream(msg(recipients=[{"actor": {"participant": "p1"}}]), header=PART_HEADER),
    ),
    ("ASR-228", 2, stream(msg(recipients={"actor": {}})), stream(msg(recipients=[]))),
    (
        "ASR-228",
        3,
        stream(msg(), msg(messageId="m2", derivedFrom=["codex:abc"])),
        stream(msg(), msg(messageId="m2", derivedFrom=["r2", "codex:abc#messageId=msg_02", "claude-code:x#r4"])),
    ),
    (
        "ASR-228",
        3,
        stream(msg(), msg(messageId="m2", derivedFrom=["r9"])),
        stream(msg(), msg(messageId="m2", derivedFrom=["messageId=m1"])),
    ),
    ("ASR-228", 2, stream(msg(derivedFrom=["r2"])), stream(msg(derivedFrom=[]))),
    ("ASR-228", 2, stream(msg(derivedFrom="r1")), stream(msg(derivedFrom=["r1"]))),
    # ASR-230: data parts.
    (
        "ASR-230",
        2,
        stream(msg(content=[{"type": "data", "schema": "com.anthropic.claude-code/attachment/x"}])),
        stream(msg(content=[{"type": "data", "data": None, "schema": "com.anthropic.claude-code/attachment/x"}])),
    ),
    ("ASR-230", 2, stream(msg(content=[{"type": "data", "data": {}, "schema": 1}])), stream(msg())),
    # ASR-231: opaque parts and reasoning opaque state.
    (
        "ASR-231",
        2,
        stream(parts({"type": "opaque", "data": "Z0FB"})),
        stream(parts({"type": "opaque", "format": "openai.encrypted_content", "data": "Z0FB"})),
    ),
    (
        "ASR-231",
        2,
        stream(parts({"type": "opaque", "format": "f", "data": "Z0FB", "blob": BLOB})),
        stream(parts({"type": "opaque", "format": "f", "blob": BLOB})),
    ),
    (
        "ASR-231",
        2,
        stream(parts(reasoning(visibility="redacted", opaque={"format": "f", "data": "x", "blob": BLOB}))),
        stream(parts(reasoning(visibility="redacted", opaque={"format": "anthropic.redacted_thinking", "data": "x"}))),
    ),
    ("ASR-231", 2, stream(parts(reasoning(opaque="x"))), stream(parts(reasoning(opaque={})))),
    # ASR-233: derivation.
    (
        "ASR-233",
        2,
        stream(
            msg(content=[{"type": "text", "text": "x", "derivation": {"from": 1}}, {"type": "audio", "mimeType": "a"}])
        ),
        stream(
            msg(
                content=[
                    {"type": "text", "text": "x", "derivation": {"method": "transcription", "from": 1}},
                    {"type": "audio", "mimeType": "audio/ogg"},
                ],
                capture={"content": {"state": "absent", "reason": "voice note bytes not kept"}},
            )
        ),
    ),
    (
        "ASR-233",
        2,
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "ocr", "from": 0}}])),
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "ocr"}}])),
    ),
    (
        "ASR-233",
        2,
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "ocr", "from": 3}}])),
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "caption"}}])),
    ),
    ("ASR-233", 2, stream(msg(content=[{"type": "text", "text": "x", "derivation": "ocr"}])), stream(msg())),
    # ASR-234: delivery shape.
    ("ASR-234", 3, stream(msg(), delivery(status=DROP)), stream(msg(), delivery())),
    ("ASR-234", 3, stream(msg(), delivery(status=None)), stream(msg(), delivery(status="unknown"))),
    ("ASR-234", 3, stream(msg(), delivery(attempt=-1)), stream(msg(), delivery(attempt=2))),
    ("ASR-234", 3, stream(msg(), delivery(platformMessageIds="3EB0")), stream(msg(), delivery(platformMessageIds=[]))),
    (
        "ASR-234",
        3,
        stream(msg(), delivery(reason=False)),
        stream(msg(), delivery(status="suppressed", reason="NO_REPLY")),
    ),
    # ASR-235: a delivery's message resolves to a message; its conversation is declared.
    ("ASR-235", 2, stream(delivery()), stream(delivery(), msg())),
    (
        "ASR-235",
        3,
        stream({"type": "tool_call", "callId": "c1", "name": "x"}, delivery(message="r2")),
        stream(msg(), delivery(message="r2")),
    ),
    (
        "ASR-235",
        3,
        stream({"type": "tool_call", "callId": "c1", "name": "x", "messageId": "m1"}, delivery()),
        stream({"type": "tool_call", "callId": "c1", "name": "x", "messageId": "m1"}, msg(), delivery()),
    ),
    ("ASR-235", 3, stream(msg(), delivery(message="m1")), stream(msg(), delivery(message="messageId=m1"))),
    (
        "ASR-235",
        3,
        stream(msg(), delivery(conversation="c1")),
        stream(msg(conversation="c1"), delivery(conversation="c1"), header=CONV_HEADER),
    ),
    # ASR-236: entry ids and blockedBy.
    (
        "ASR-236",
        2,
        stream(plan(entries=[{"entryId": "1", "content": "a", "status": "pending"}] * 2)),
        stream(
            plan(
                entries=[
                    {"entryId": "1", "content": "a", "status": "completed"},
                    {"entryId": "2", "content": "b", "status": "in_progress", "blockedBy": ["1"]},
                ]
            )
        ),
    ),
    (
        "ASR-236",
        2,
        stream(plan(entries=[{"entryId": "1", "content": "a", "status": "pending", "blockedBy": ["1"]}])),
        stream(plan(entries=[{"entryId": "1", "content": "a", "status": "pending", "blockedBy": []}])),
    ),
    (
        "ASR-236",
        2,
        stream(plan(entries=[{"content": "a", "status": "pending", "blockedBy": ["9"]}])),
        stream(plan(entries=[{"entryId": "9", "content": "a", "status": "pending"}])),
    ),
    (
        "ASR-236",
        2,
        stream(plan(entries=[{"entryId": 1, "content": "a", "status": "pending"}])),
        stream(plan(entries=[{"entryId": "1", "content": "a", "status": "pending"}])),
    ),
    (
        "ASR-236",
        2,
        stream(plan(entries=[{"entryId": "1", "content": "a", "status": "pending", "blockedBy": "2"}])),
        stream(
            plan(
                entries=[
                    {"entryId": "1", "content": "a", "status": "pending", "blockedBy": ["2"]},
                    {"entryId": "2", "content": "b", "status": "pending"},
                ]
            )
        ),
    ),
    # The envelope: seq, id, ts, key order, capture, idSource, assembly, turnId.
    ("PROFILE-seq", 2, [*stream(), Raw(type="vendor", seq="2", id="r2", schema="a.b/c", data=1)], stream()),
    ("PROFILE-seq", 2, [*stream(), Raw(type="vendor", seq=2.0, id="r2", schema="a.b/c", data=1)], stream()),
    ("PROFILE-seq", 3, [*stream(), Raw(type="vendor", seq=3, id="r2", schema="a.b/c", data=1)], stream()),
    ("PROFILE-seq", 1, [Raw(canonical_order(header(seq=True, id="r1")))], stream()),
    ("PROFILE-id", 2, [*stream(), Raw(type="vendor", seq=2, id="r3", schema="a.b/c", data=1)], stream()),
    ("PROFILE-id", 2, [*stream(), Raw(type="vendor", seq=2, schema="a.b/c", data=1)], stream()),
    ("PROFILE-ts", 2, stream(msg(ts="2026-10-26 14:02:12Z")), stream(msg(ts="2026-10-26T14:02:12.031Z"))),
    ("PROFILE-ts", 2, stream(msg(ts="2026-10-26T14:02:12+00:00")), stream(msg(ts="2026-10-26T14:02:12.031245Z"))),
    ("PROFILE-ts", 2, stream(msg(ts="2026-02-29T10:00:00Z")), stream(msg(ts="2028-02-29T10:00:00Z"))),
    ("PROFILE-ts", 2, stream(msg(ts="2026-04-31T10:00:00Z")), stream(msg(ts="2026-12-31T23:59:60Z"))),
    ("PROFILE-ts", 2, stream(msg(ts="2026-10-26T24:00:00Z")), stream(msg(ts="2026-10-26T00:00:00Z"))),
    ("PROFILE-ts", 2, stream(msg(ts=1761487332)), stream(msg())),
    (
        "PROFILE-ts",
        2,
        stream(msg(ts="2026-10-26T07:41:19.5Z", tsPrecision="s")),
        stream(msg(ts="2026-10-26T07:41:19Z", tsPrecision="s")),
    ),
    ("PROFILE-ts", 2, stream(msg(tsPrecision="s")), stream(msg())),
    ("PROFILE-ts", 2, stream(msg(ts="2026-10-26T07:41:19Z", tsPrecision="ms")), stream(msg())),
    (
        "PROFILE-key-order",
        2,
        [*stream(), Raw(seq=2, type="vendor", id="r2", schema="a.b/c", data=1)],
        [*stream(), Raw(type="vendor", seq=2, id="r2", schema="a.b/c", data=1, extra=1)],
    ),
    (
        "PROFILE-key-order",
        2,
        [
            *stream(),
            Raw(type="message", seq=2, id="r2", content=[{"type": "text", "text": ""}], messageId="m", role="user"),
        ],
        [
            *stream(),
            Raw(
                type="message", seq=2, id="r2", messageId="m", role="user", content=[{"type": "refusal", "text": "no"}]
            ),
        ],
    ),
    ("PROFILE-envelope", 2, stream(msg(turnId=5)), stream(msg(turnId="t1", inferenceId="resp_1"))),
    ("PROFILE-capture", 2, stream(msg(capture={"content": {"state": "gone"}})), stream(msg(capture={}))),
    ("PROFILE-capture", 2, stream(msg(capture=["content"])), stream(msg())),
    (
        "PROFILE-capture",
        2,
        stream(msg(capture={"content": {"state": "masked", "reason": 1}})),
        stream(msg(capture={"content": {"state": "masked", "reason": "large output"}})),
    ),
    ("PROFILE-capture", 2, stream(msg(capture={"content": "absent"})), stream(msg())),
    ("PROFILE-idSource", 2, stream(msg(idSource="native")), stream(msg(idSource="derived"))),
    (
        "PROFILE-assembly",
        2,
        stream(msg(assembly={"mode": "merged", "sourceIds": ["a", "b"]})),
        stream(msg(assembly={"mode": "folded", "sourceIds": ["a", "b"]})),
    ),
    ("PROFILE-assembly", 2, stream(msg(assembly={"mode": "folded", "sourceIds": [1]})), stream(msg())),
    # supersedes and other references.
    (
        "PROFILE-supersedes",
        3,
        stream(msg(), msg(messageId="m2", supersedes="r9")),
        stream(msg(), msg(supersedes="r2")),
    ),
    (
        "PROFILE-supersedes",
        3,
        stream(msg(), msg(messageId="m2", supersedes="messageId=m1")),
        stream(msg(), msg(supersedes="r2")),
    ),
    ("PROFILE-supersedes", 2, stream(msg(supersedes="r2")), stream(msg())),
    (
        "PROFILE-supersedes",
        3,
        stream(msg(), delivery(supersedes="r2")),
        stream(msg(), delivery(status="queued"), delivery(supersedes="r3")),
    ),
    ("PROFILE-supersedes", 2, stream(msg(supersedes=2)), stream(msg())),
    (
        "PROFILE-ref",
        3,
        stream(msg(), msg(messageId="m2", parent="x y")),
        stream(msg(), msg(messageId="m2", parent="r2")),
    ),
    (
        "PROFILE-ref",
        2,
        stream(msg(parent="r3"), msg(messageId="m2")),
        stream(msg(), msg(messageId="m2", parent="messageId=m1")),
    ),
    (
        "PROFILE-ref",
        2,
        stream(msg(parent="messageId=nope")),
        stream(msg(parent="callId=c1"), {"type": "tool_call", "callId": "c1"}),
    ),
    ("PROFILE-ref", 2, stream(msg(copiedFrom="codex:abc")), stream(msg(copiedFrom="codex:abc#messageId=msg_02"))),
    (
        "PROFILE-ref",
        2,
        stream({"type": "subagent", "session": "019a3c2e"}),
        stream({"type": "subagent", "callId": "c", "session": "codex:019a3c2e", "address": "/root/worker"}),
    ),
    # The header.
    ("PROFILE-header", 1, stream(msg(), header=None), stream(msg())),
    ("PROFILE-header", 2, stream(header()), stream(msg())),
    ("PROFILE-header", 1, stream(header=header(session="019a3c2e")), stream(header=header(session="codex:019a3c2e"))),
    ("PROFILE-header", 1, stream(header=header(session="claude-code:x")), stream(header=header(session="codex:x"))),
    (
        "PROFILE-header",
        1,
        stream(header=header(agent={"version": "1"})),
        stream(header=header(agent={"name": "codex"})),
    ),
    ("PROFILE-header", 1, stream(header=header(producer="asr-adapters")), stream()),
    (
        "PROFILE-header",
        1,
        stream(header=header(source={"format": "codex-rollout", "file": "/home/u/.codex/rollout.jsonl"})),
        stream(header=header(source={"format": "codex-rollout", "file": "rollout.jsonl"})),
    ),
    ("PROFILE-header", 1, stream(header=header(parent="r1")), stream(header=header(parent="codex:019a3c2e-0000"))),
    ("PROFILE-declaration", 1, stream(header=header(participants={"p1": {}})), stream(header=PART_HEADER)),
    ("PROFILE-declaration", 1, stream(header=header(conversations=[{"id": "c1"}])), stream(header=CONV_HEADER)),
    (
        "PROFILE-declaration",
        2,
        stream({"type": "conversation", "conversationId": ""}),
        stream({"type": "conversation", "conversationId": "c1", "platform": "telegram"}),
    ),
    (
        "PROFILE-declaration",
        2,
        stream({"type": "participant", "name": "Ann"}),
        stream({"type": "participant", "participantId": "p2", "kind": "human"}),
    ),
    # Open values: a bare value outside the spec's list is namespaced.
    ("PROFILE-open-value", 2, stream(msg(role="bot")), stream(msg(role="developer"))),
    ("PROFILE-open-value", 2, stream(msg(author="robot")), stream(msg(author="com.openai.codex/robot"))),
    ("PROFILE-open-value", 2, stream(msg(origin="paste")), stream(msg(origin="steer"))),
    ("PROFILE-open-value", 2, stream(msg(phase="draft")), stream(msg(phase="final"))),
    ("PROFILE-open-value", 2, stream(msg(via="fax")), stream(msg(via="channel"))),
    (
        "PROFILE-open-value",
        2,
        stream(msg(displayContent=[{"type": "text", "text": "x"}], displayCorrespondence="guessed")),
        stream(msg(displayContent=[{"type": "text", "text": "x"}], displayCorrespondence="ai.openclaw/x")),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(msg(recipients=[{"actor": {"session": "codex:a"}, "kind": "cc"}])),
        stream(msg(recipients=[{"actor": {"session": "codex:a"}, "kind": "additional"}])),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(parts(reasoning(visibility="partial"))),
        stream(parts(reasoning(visibility="full"))),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "guess"}}])),
        stream(msg(content=[{"type": "text", "text": "x", "derivation": {"method": "translation"}}])),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(plan(planType="list")),
        stream(plan(planType="com.openai.codex/list", entries=DROP)),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(plan(planType="goal", entries=DROP, status="done", content=[])),
        stream(plan(planType="goal", entries=DROP, status="budget_limited", content=[])),
    ),
    ("PROFILE-open-value", 2, stream(plan(status=1)), stream(plan(status="com.openai.codex/whatever"))),
    # issue 26: every plan's status is the spec's list or namespaced, not only a goal's
    ("PROFILE-open-value", 2, stream(plan(status="done")), stream(plan(status="active"))),
    (
        "PROFILE-open-value",
        2,
        stream(plan(entries=[{"content": "a", "status": "done"}])),
        stream(plan(entries=[{"content": "a", "status": "completed"}])),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(plan(entries=[{"content": "a", "status": "pending", "priority": "urgent"}])),
        stream(plan(entries=[{"content": "a", "status": "pending", "priority": "high"}])),
    ),
    ("PROFILE-open-value", 3, stream(msg(), delivery(status="done")), stream(msg(), delivery(status="delivered"))),
    # issue 26: one tool-status vocabulary (complete, error, interrupted, partial; the rest namespaced)
    (
        "PROFILE-open-value",
        2,
        stream({"type": "tool_call", "callId": "c1", "status": "completed"}),
        stream({"type": "tool_call", "callId": "c1", "status": "complete"}),
    ),
    (
        "PROFILE-open-value",
        3,
        stream({"type": "tool_call", "callId": "c1"}, {"type": "tool_result", "callId": "c1", "status": "denied"}),
        stream(
            {"type": "tool_call", "callId": "c1", "status": "partial"},
            {"type": "tool_result", "callId": "c1", "status": "com.openai.codex/denied"},
        ),
    ),
    (
        "PROFILE-open-value",
        2,
        stream({"type": "subagent", "status": "completed"}),
        stream({"type": "subagent", "status": "interrupted"}),
    ),
    (
        "PROFILE-open-value",
        2,
        stream({"type": "input_request", "requestId": "q", "status": "answered", "kind": "followup"}),
        stream({"type": "input_request", "requestId": "q", "status": "bot.cline/answered", "kind": "bot.cline/x"}),
    ),
    (
        "PROFILE-open-value",
        2,
        stream(msg(summaryOf="branch_summary")),
        stream(msg(summaryOf="compaction", compaction={"through": "r1"})),
    ),
    # issue 26: the compaction shape on the summary that replaces history
    (
        "PROFILE-compaction",
        3,
        stream(msg(), msg(compaction={"through": "r2"})),
        stream(msg(), msg(summaryOf="compaction", compaction={"through": "r2"})),
    ),
    (
        "PROFILE-compaction",
        3,
        stream(msg(), msg(summaryOf="compaction", compaction={"through": 2, "kept": "r2"})),
        stream(msg(), msg(summaryOf="compaction", compaction={"from": "r2", "through": "messageId=m1"})),
    ),
    (
        "PROFILE-compaction",
        2,
        stream(msg(summaryOf="compaction", compaction=["r1"])),
        stream(msg(summaryOf="compaction", compaction={})),
    ),
    # BlobRef and PathRef.
    ("PROFILE-blobref", 2, stream(parts(image(blob={"blob": "md5:abc"}))), stream(parts(image(blob={"blob": SHA})))),
    ("PROFILE-blobref", 2, stream(parts(image(blob={**BLOB, "size": -1}))), stream(parts(image(blob=BLOB)))),
    ("PROFILE-blobref", 2, stream(parts(image(blob=SHA))), stream(parts(image()))),
    (
        "PROFILE-blobref",
        2,
        stream(parts({"type": "resource", "resource": {"uri": "u", "blobRef": {"blob": SHA.upper()}}})),
        stream(parts({"type": "resource", "resource": {"uri": "u"}})),
    ),
    (
        "PROFILE-pathref",
        2,
        stream(plan(planType="document", entries=DROP, content=[], source={"path": "/p.md"})),
        stream(plan(planType="document", entries=DROP, content=[], source={"root": None, "path": "/p.md"})),
    ),
    # Records beyond the excerpt.
    ("PROFILE-tool", 2, stream({"type": "tool_call", "name": "x"}), stream({"type": "tool_call", "callId": "c1"})),
    (
        "PROFILE-tool",
        2,
        stream({"type": "tool_call", "callId": "c1", "name": "x", "input": {}, "arguments": "{"}),
        stream({"type": "tool_call", "callId": "c1", "name": "x", "arguments": "{"}),
    ),
    (
        "PROFILE-tool",
        3,
        stream({"type": "tool_call", "callId": "c1"}, {"type": "tool_result", "callId": "c1", "isError": "yes"}),
        stream(
            {"type": "tool_call", "callId": "c1"},
            {"type": "tool_result", "callId": "c1", "isError": True, "content": []},
        ),
    ),
    (
        "PROFILE-tool",
        2,
        stream({"type": "tool_result", "content": []}),
        stream({"type": "tool_call", "callId": "c"}, {"type": "tool_result", "callId": "c"}),
    ),
    (
        "PROFILE-tool",
        3,
        stream({"type": "tool_call", "callId": "c"}, {"type": "tool_result", "callId": "c", "exitCode": "1"}),
        stream({"type": "tool_call", "callId": "c"}, {"type": "tool_result", "callId": "c", "exitCode": -1}),
    ),
    ("PROFILE-subagent", 2, stream({"type": "subagent", "description": 5}), stream({"type": "subagent"})),
    (
        "PROFILE-usage",
        2,
        stream(msg(role="assistant", usage={"inputTokens": -1, "outputTokens": "7"})),
        stream(msg(role="assistant", usage={"inputTokens": 12, "totalTokens": 14}, nativeUsage={"input_tokens": 12})),
    ),
    (
        "PROFILE-usage",
        2,
        stream({"type": "tool_call", "callId": "c1", "usage": [3], "nativeUsage": 5}),
        stream({"type": "tool_call", "callId": "c1", "usage": {"outputTokens": 0}, "nativeUsage": {}}),
    ),
    (
        "PROFILE-input-request",
        2,
        stream({"type": "input_request", "requestId": 1}),
        stream({"type": "input_request", "requestId": "q1", "answer": [{"type": "text", "text": "yes"}]}),
    ),
    (
        "PROFILE-vendor",
        2,
        stream({"type": "vendor", "schema": "codex/turn_context", "data": {}}),
        stream({"type": "vendor", "schema": "com.openai.codex/turn_context", "data": {}}),
    ),
    (
        "PROFILE-vendor",
        2,
        stream({"type": "vendor", "schema": "a.b/c"}),
        stream({"type": "vendor", "schema": "a.b/c", "data": None}),
    ),
    # issue 14.14: a native id written twice must be a revision (supersedes) or a copy (copiedFrom)
    (
        "PROFILE-native-id",
        3,
        stream(msg(messageId="x"), msg(messageId="x")),
        stream(msg(messageId="x"), msg(messageId="x", supersedes="r2")),
    ),
    (
        "PROFILE-native-id",
        4,
        stream(msg(messageId="x"), msg(messageId="x", supersedes="r2"), msg(messageId="x", supersedes="r2")),
        stream(msg(messageId="x"), msg(messageId="y", supersedes="r2"), msg(messageId="x", supersedes="r3")),
    ),
    (
        "PROFILE-native-id",
        3,
        stream({"type": "tool_call", "callId": "c"}, {"type": "tool_call", "callId": "c"}),
        stream({"type": "tool_call", "callId": "c"}, {"type": "tool_call", "callId": "c", "copiedFrom": "codex:a#r2"}),
    ),
    (
        "PROFILE-native-id",
        3,
        stream({"type": "input_request", "requestId": "q"}, {"type": "input_request", "requestId": "q"}),
        stream(
            {"type": "input_request", "requestId": "q"}, {"type": "input_request", "requestId": "q", "supersedes": "r2"}
        ),
    ),
    # normalized usage (issue 14.13)
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"inputTokens": 3, "input": 3})),
        stream(parts(OK, usage={"inputTokens": 3, "outputTokens": 0, "totalTokens": 3})),
    ),
    ("PROFILE-usage", 2, stream(parts(OK, usage={"outputTokens": -1})), stream(parts(OK, usage={"outputTokens": 1}))),
    ("PROFILE-usage", 2, stream(parts(OK, usage={"outputTokens": 1.0})), stream(parts(OK, usage={}))),
    ("PROFILE-usage", 2, stream(parts(OK, usage={"outputTokens": True})), stream(parts(OK, nativeUsage={"x": True}))),
    ("PROFILE-usage", 2, stream(parts(OK, usage=[1])), stream(parts(OK, usage={"reasoningTokens": 0}))),
    # issue 26: usage that breaks the definition (cache and reasoning are parts of their whole)
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"inputTokens": 5, "cacheReadTokens": 4, "cacheWriteTokens": 2})),
        stream(parts(OK, usage={"inputTokens": 6, "cacheReadTokens": 4, "cacheWriteTokens": 2})),
    ),
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"outputTokens": 3, "reasoningTokens": 4})),
        stream(parts(OK, usage={"outputTokens": 4, "reasoningTokens": 4})),
    ),
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"inputTokens": 3, "outputTokens": 4, "totalTokens": 8})),
        stream(parts(OK, usage={"inputTokens": 3, "outputTokens": 4, "totalTokens": 7})),
    ),
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"outputTokens": 9, "totalTokens": 8})),
        stream(parts(OK, usage={"cacheReadTokens": 9, "totalTokens": 8})),
    ),
    (
        "PROFILE-usage",
        2,
        stream(parts(OK, usage={"outputTokens": 1, "partial": False})),
        stream(parts(OK, usage={"outputTokens": 1, "partial": True})),
    ),
    ("PROFILE-type", 2, [*stream(), Raw(seq=2, id="r2")], [*stream(), Raw(type="some_future_type", seq=2, id="r2")]),
    ("PROFILE-record", 2, [*stream(), ["type", "message"]], stream()),
]


def _case_id(case: tuple[str, int, list, list]) -> str:
    return case[0]


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_stream_that_breaks_the_rule(case: tuple[str, int, list[dict], list[dict]]) -> None:
    rule, seq, bad, _ = case
    findings = found(bad)
    assert (rule, seq) in findings, findings
    assert {r for r, _ in findings} == {rule}, findings


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_stream_that_keeps_the_rule(case: tuple[str, int, list[dict], list[dict]]) -> None:
    _, _, _, good = case
    assert found(good) == []


def test_every_rule_the_code_reports_is_documented_and_tested() -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "validation.md").read_text(encoding="utf-8")
    checked = docs.split("## What a stream alone cannot show")[0]
    documented = set(re.findall(r"^\| `((?:ASR|PROFILE)-[A-Za-z0-9-]+)` \|", checked, re.M))
    # the framing, the findings cap and the nesting limit are tested in tests/reliability/test_validate_limits.py
    tested = {case[0] for case in CASES} | {"PROFILE-jsonl", "PROFILE-findings", "PROFILE-nesting"}
    assert documented == tested
    code = Path(__file__).resolve().parent.parent / "asr_adapters" / "validate"
    emitted = {m for f in code.glob("*.py") for m in re.findall(r'"((?:ASR|PROFILE)-[A-Za-z0-9-]+)"', f.read_text())}
    assert emitted == documented


# -- the spec's own examples are valid ----------------------------------------------------------


def test_the_spec_examples_validate() -> None:
    records = stream(
        {"type": "conversation", "conversationId": "c1", "platform": "telegram", "kind": "group"},
        {"type": "participant", "participantId": "p2"},
        msg(
            ts="2026-10-26T14:02:12.031Z",
            messageId="msg_01",
            author="human",
            origin="prompt",
            audience="both",
            content=[{"type": "text", "text": "Fix the failing parser test."}],
        ),
        msg(
            ts="2026-10-26T14:02:29.118Z",
            inferenceId="inf_01C",
            messageId="msg_02",
            role="assistant",
            author="model",
            audience="both",
            status="complete",
            content=[
                reasoning(visibility="full", text="parse_empty expects Ok(vec![])."),
                {"type": "text", "text": "The parser rejects empty input."},
            ],
            assembly={"mode": "folded", "sourceIds": ["b81e2c47", "c03f9a12"]},
        ),
        msg(
            messageId="msg_0c18e4a7b95d2f30",
            author="agent",
            origin="inter_session",
            **{"from": {"session": "codex:019a3c2e-5d10-7aa2", "address": "/root"}},
            recipients=[
                {"actor": {"session": "codex:019a3c2e-5d10-7aa2", "address": "/root/worker"}, "kind": "primary"},
                {"actor": {"session": "codex:019a3c2e-5d10-7aa2", "address": "/root/reviewer"}, "kind": "additional"},
            ],
            triggersTurn=True,
        ),
        msg(
            ts="2026-10-26T07:41:19Z",
            tsPrecision="s",
            messageId="a41f0c9e",
            origin="prompt",
            **{"from": {"participant": "p2"}},
            conversation="c1",
            platform={"messageIds": ["3EB0C431D5A2F1B7E8"], "replyTo": "3EB0B2A9C4D61E05F3"},
            addressed=True,
            via="channel",
        ),
        msg(
            messageId="message:handoff:7c2e",
            author="harness",
            origin="injected",
            derivedFrom=["r4", "r5", "r6"],
        ),
        msg(
            inferenceId="resp_7a19c3e2",
            messageId="rs_0c41f2a9d8e7",
            role="assistant",
            author="model",
            content=[
                reasoning(
                    visibility="encrypted", summary=[], opaque={"format": "openai.encrypted_content", "data": "Z0FB"}
                )
            ],
        ),
        plan(
            idSource="derived",
            callId="call_P3",
            entries=[
                {"content": "Reproduce the parse_empty failure", "status": "completed"},
                {"content": "Return an empty list for empty input", "status": "in_progress"},
            ],
        ),
        plan(
            planId="goal-v1",
            idSource="derived",
            planType="goal",
            entries=DROP,
            status="active",
            content=[{"type": "text", "text": "Keep the parser test suite green on main."}],
            budget={"tokens": 2000000},
            used={"tokens": 412870, "seconds": 1834},
        ),
        plan(
            planId="quiet-amber-falcon",
            planType="document",
            entries=DROP,
            callId="toolu_01P",
            source={"root": None, "path": "/home/dev/.claude/plans/quiet-amber-falcon.md"},
            content=[{"type": "text", "text": "1. Reproduce parse_empty."}],
        ),
        parts(
            {"type": "image", "mimeType": "image/png", "blob": {"blob": SHA, "size": 20311, "mimeType": "image/png"}},
            {"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///b.rs", "mimeType": "text/x-rust", "text": "fn b() {}"}},
            {"type": "refusal", "text": "I can't help with that request."},
            {"type": "data", "data": {"file": "lib.rs", "lineStart": 38}, "schema": "com.anthropic.claude-code/x"},
            {"type": "opaque", "format": "openai.encrypted_content", "data": "Z0FB"},
            messageId="msg_parts",
        ),
        delivery(
            ts="2026-10-26T07:41:31.882Z",
            message="messageId=a41f0c9e",
            conversation="c1",
            platformMessageIds=["3EB0D7F21A9C4E6B20"],
        ),
        delivery(message="messageId=a41f0c9e", conversation="c1", status="suppressed", reason="NO_REPLY"),
        delivery(message="r6", conversation="c1", status="delivered", supersedes="r14"),
        {"type": "tool_call", "callId": "call_1", "name": "shell", "messageId": "msg_02", "input": {"cmd": "ls"}},
        {"type": "tool_result", "callId": "call_1", "content": [{"type": "text", "text": "a.rs"}], "isError": False},
        {"type": "vendor", "schema": "com.openai.codex/turn_context", "data": {"cwd": "/w"}},
        header=header(
            ts="2026-10-26T07:40:00.000Z",
            cwd="/work",
            parent="codex:019a3c2e-0000",
            participants=[{"participantId": "p1", "kind": "human", "name": "Ann"}],
        ),
    )
    assert found(records) == []


# -- findings, files and framing -----------------------------------------------------------------


def _jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def test_a_finding_names_rule_seq_line_and_file(tmp_path) -> None:
    path = tmp_path / "s.asr.jsonl"
    path.write_bytes(_jsonl(stream(msg(), msg(audience="all"))))
    (finding,) = validate(path)
    assert (finding.rule, finding.seq, finding.line, finding.file) == ("ASR-204", 3, 3, str(path))
    assert finding.describe().startswith(f"{path}:3: seq 3 ASR-204: audience must be")
    assert finding.as_dict() == {
        "file": str(path),
        "line": 3,
        "seq": 3,
        "level": "error",
        "rule": "ASR-204",
        "message": finding.message,
    }


def test_a_record_without_a_usable_seq_is_named_by_its_position() -> None:
    records = [*stream(), Raw(type="vendor", seq="two", id="r2", schema="a.b/c", data=1)]
    assert found(records) == [("PROFILE-seq", 2)]


def test_validate_takes_bytes_paths_and_file_objects(tmp_path) -> None:
    data = _jsonl(stream(msg()))
    path = tmp_path / "ok.asr.jsonl"
    path.write_bytes(data)
    assert validate(data) == []
    assert validate(path) == []
    assert validate(str(path)) == []
    assert validate(io.BytesIO(data)) == []


def test_a_zstd_stream_is_read(tmp_path) -> None:
    path = tmp_path / "s.asr.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(_jsonl(stream(msg(audience="x")))))
    assert [(f.rule, f.seq) for f in validate(path)] == [("ASR-204", 2)]


def _framing(data: bytes) -> list[tuple[str, int | None, int | None]]:
    return [(f.rule, f.seq, f.line) for f in validate(data)]


def test_framing_a_byte_order_mark() -> None:
    assert _framing(b"\xef\xbb\xbf" + _jsonl(stream(msg()))) == [("PROFILE-jsonl", None, 1)]


def test_framing_crlf_line_ends_are_reported_once() -> None:
    assert _framing(_jsonl(stream(msg(), msg())).replace(b"\n", b"\r\n")) == [("PROFILE-jsonl", None, 1)]


def test_framing_a_blank_line() -> None:
    lines = _jsonl(stream(msg())).split(b"\n")
    assert _framing(lines[0] + b"\n\n" + lines[1] + b"\n") == [("PROFILE-jsonl", None, 2)]


def test_framing_the_last_record_ends_in_a_newline() -> None:
    assert _framing(_jsonl(stream(msg()))[:-1]) == [("PROFILE-jsonl", None, 2)]


def test_framing_a_broken_line_inside_a_stream() -> None:
    lines = _jsonl(stream(msg())).split(b"\n")
    data = lines[0] + b'\n{"type": "message", \n' + lines[1] + b"\n"
    # The broken line is reported; it holds no record, so the next record's seq 2 is right.
    assert _framing(data) == [("PROFILE-jsonl", None, 2)]


@pytest.mark.parametrize(
    "data",
    [
        b"# A markdown file\n\nNot a stream.\n",
        b'[{"type": "session"}]\n',
        b'"session"\n',
        b'{\n  "type": "session",\n  "seq": 1\n}\n',
        bytes(range(256)) * 4,
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
        b"\x28\xb5\x2f\xfd" + b"\x00broken zstd frame" * 3,
    ],
    ids=["markdown", "json-array", "json-string", "pretty-json", "binary", "png", "broken-zstd"],
)
def test_a_file_that_is_not_jsonl_gives_one_finding(data: bytes) -> None:
    findings = validate(data)
    assert len(findings) == 1, findings
    assert findings[0].rule == "PROFILE-jsonl"
    assert findings[0].seq is None


def test_an_empty_stream_has_no_header() -> None:
    assert _framing(b"") == [("PROFILE-header", None, None)]
    assert found([]) == [("PROFILE-header", None)]


def test_a_missing_file_is_a_finding(tmp_path) -> None:
    findings = validate(tmp_path / "nope.asr.jsonl")
    assert [(f.rule, f.seq) for f in findings] == [("PROFILE-jsonl", None)]
    assert "cannot read" in findings[0].message


def test_stream_validator_is_incremental() -> None:
    validator = StreamValidator("live")
    for record in stream(delivery()):
        validator.add(record)
    assert validator.findings == []  # the delivery's message may still come
    validator.add(canonical_order({"type": "message", "seq": 3, "id": "r3", **msg()}))
    assert validator.finish() == []


def test_findings_are_finding_objects() -> None:
    (finding,) = validate_records(stream(msg(audience=1)))
    assert isinstance(finding, Finding)


# -- never an exception ---------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_TYPES = st.sampled_from(
    [
        "session",
        "message",
        "plan",
        "delivery",
        "tool_call",
        "tool_result",
        "subagent",
        "input_request",
        "vendor",
        "participant",
        "conversation",
        "future",
    ]
)
_KEYS = [
    *("seq", "id", "ts", "tsPrecision", "turnId", "messageId", "role", "author", "origin", "phase", "audience"),
    *("status", "from", "recipients", "triggersTurn", "conversation", "platform", "addressed", "via"),
    *("derivedFrom", "displayCorrespondence", "planId", "planType", "entries", "source", "callId", "message"),
    *("platformMessageIds", "attempt", "input", "arguments", "isError", "session", "schema", "data", "agent"),
    *("participantId", "conversationId", "capture", "idSource", "supersedes", "parent", "copiedFrom", "assembly"),
    *("producer", "participants", "conversations", "reason", "name"),
]
_PART_TYPES = st.sampled_from(
    ["text", "image", "audio", "resource_link", "resource", "reasoning", "refusal", "data", "opaque", "x"]
)
_PART_KEYS = st.sampled_from(
    [
        "text",
        "mimeType",
        "data",
        "blob",
        "uri",
        "name",
        "resource",
        "visibility",
        "summary",
        "opaque",
        "signature",
        "schema",
        "format",
        "author",
        "origin",
        "phase",
        "derivation",
    ]
)
_PART = st.builds(lambda t, extra: {"type": t, **extra}, _PART_TYPES, st.dictionaries(_PART_KEYS, _JSON, max_size=4))
_CONTENT = st.lists(_PART | _JSON, max_size=3) | _JSON
_RECORD = st.builds(
    lambda kind, fields, content, display: {"type": kind, **fields, "content": content, "displayContent": display},
    _TYPES,
    st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=8),
    _CONTENT,
    _CONTENT,
)


@pytest.mark.heavy  # hypothesis, 300 examples (.ci/run runs -m heavy)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_RECORD | _JSON, max_size=5))
def test_any_json_records_give_findings_not_exceptions(records: list[Any]) -> None:
    findings = validate_records(records)
    assert all(isinstance(f, Finding) and f.rule for f in findings)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_findings_not_exceptions(data: bytes) -> None:
    assert all(isinstance(f, Finding) for f in validate(data))


@pytest.mark.parametrize("block", [1, 2, 7, 64, 1 << 22])
def test_lines_are_the_same_whatever_the_read_block_size(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    import sys

    monkeypatch.setattr(sys.modules["asr_adapters.validate.reading"], "_BLOCK", block)
    data = _jsonl(stream(msg(), msg(audience="x"), msg(content=[{"type": "text", "text": "a\nb"}])))
    assert _framing(data) == [("ASR-204", 3, 3)]
    assert _framing(data[:-1]) == [("ASR-204", 3, 3), ("PROFILE-jsonl", None, 4)]
    assert _framing(data.replace(b"\n", b"\r\n")) == [("ASR-204", 3, 3), ("PROFILE-jsonl", None, 1)]
    assert _framing(data + b"\n") == [("ASR-204", 3, 3), ("PROFILE-jsonl", None, 5)]


@pytest.mark.parametrize("depth", [2, 999, 1023])
def test_deeply_nested_values_give_findings_not_recursion_errors(depth: int) -> None:
    deep_list = b"[" * depth + b"]" * depth
    deep_dict = b'{"a":' * depth + b"1" + b"}" * depth
    line = b'{"type":"message","seq":2,"id":"r2","messageId":%s,"role":%s,"content":%s}\n' % (
        deep_list,
        deep_dict,
        deep_list,
    )
    findings = validate(_jsonl(stream()) + line)
    past_limit = {"PROFILE-nesting"} if depth + 1 > 1000 else set()  # core/nesting.MAX_NESTING
    assert {f.rule for f in findings} == {"ASR-200", "ASR-210", "PROFILE-open-value"} | past_limit
    assert all(len(f.message) < 200 for f in findings)


# A record whose key shape was seen before, with one bad value: still flagged (shape caches).


@pytest.mark.parametrize(
    ("shape", "change", "rule"),
    [
        (msg(), {"role": "everyone"}, "PROFILE-open-value"),
        (msg(), {"content": [{"type": "text", "text": 1}]}, "ASR-210"),
        (msg(origin="prompt", author="human"), {"origin": "injected"}, "ASR-203"),
        (msg(capture={"role": {"state": "truncated"}}), {"capture": {"role": {"state": "absent"}}}, "ASR-201"),
        (plan(), {"planId": "p2", "entries": [{"content": "a", "status": "done"}]}, "PROFILE-open-value"),
        ({"type": "tool_call", "callId": "c1", "name": "run"}, {"callId": ""}, "PROFILE-tool"),
        ({"type": "vendor", "schema": "com.example/x", "data": 1}, {"schema": "x"}, "PROFILE-vendor"),
        (msg(ts="2026-01-01T00:00:00Z"), {"ts": "2026-02-30T00:00:00Z"}, "PROFILE-ts"),
        (msg(turnId="t1"), {"turnId": 7}, "PROFILE-envelope"),
    ],
)
def test_a_bad_value_in_a_seen_shape_is_flagged(shape: dict, change: dict, rule: str) -> None:
    records = stream(shape, _with(shape, change))
    assert found(records) == [(rule, 3)]


# -- warnings: references the stream cannot resolve (issue 14.15) ---------------------------------


def _levels(records: list) -> list[tuple[str, int | None, str]]:
    return [(f.rule, f.seq, f.level) for f in validate_records(records)]


def test_a_tool_result_without_its_call_is_a_warning() -> None:
    records = stream({"type": "tool_result", "callId": "gone", "content": []})
    assert _levels(records) == [("PROFILE-ref", 2, "warning")]
    (finding,) = validate_records(records)
    assert "gone" in finding.message and "(warning)" in finding.describe()
    # the call may come after its result; a call elsewhere (a subagent's callId) does not count
    assert _levels(stream({"type": "tool_result", "callId": "c"}, {"type": "tool_call", "callId": "c"})) == []
    assert _levels(stream({"type": "subagent", "callId": "c"}, {"type": "tool_result", "callId": "c"})) == [
        ("PROFILE-ref", 3, "warning")
    ]


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        (stream(msg(parent="messageId=nope")), [("PROFILE-ref", 2, "warning")]),
        (stream(msg(parent="r9")), [("PROFILE-ref", 2, "warning")]),
        (stream(msg(parent="r3"), msg(messageId="m2")), [("PROFILE-ref", 2, "error")]),  # a later record
        (stream(msg(parent="r2")), [("PROFILE-ref", 2, "error")]),  # itself
        (stream(msg(supersedes="r7")), [("PROFILE-supersedes", 2, "warning")]),
        (
            stream(msg(), msg(messageId="m2", supersedes="r4"), msg(messageId="m3")),
            [("PROFILE-supersedes", 3, "error")],
        ),
        # a delivery's message must be a message record (ASR-235): the spec's MUST stays an error
        (stream({"type": "delivery", "message": "messageId=nope", "status": "sent"}), [("ASR-235", 2, "error")]),
    ],
)
def test_dangling_references_are_warnings_misplaced_ones_errors(records: list, expected: list) -> None:
    assert _levels(records) == expected


def test_removal_and_revert_lists_name_records() -> None:
    vendor = {"type": "vendor", "schema": "com.google.gemini-cli/rewind", "data": {}}
    good = stream(msg(messageId="u1"), {**vendor, "removedMessageIds": ["u1"]}, {**vendor, "reverted": ["r2", "r3"]})
    assert _levels(good) == []
    bad = stream(msg(messageId="u1"), {**vendor, "removedMessageIds": ["u1", "u9"]}, {**vendor, "reverted": ["r8"]})
    assert _levels(bad) == [("PROFILE-ref", 3, "warning"), ("PROFILE-ref", 4, "warning")]
    assert _levels(stream({**vendor, "reverted": "r2"})) == [("PROFILE-ref", 2, "error")]
    assert _levels(stream({**vendor, "reverted": ["not a ref"]})) == [("PROFILE-ref", 2, "error")]


def test_a_native_id_may_be_revised_through_a_chain_and_copied() -> None:
    chain = stream(
        msg(messageId="x"),
        msg(messageId="x", supersedes="r2"),
        msg(messageId="x", supersedes="r3"),
        msg(messageId="x", copiedFrom="codex:a#messageId=x"),
    )
    assert _levels(chain) == []
    # a tool call and its message share no id space; a tool_call's messageId names its message
    shared = stream(msg(messageId="x"), {"type": "tool_call", "callId": "x", "messageId": "x"})
    assert _levels(shared) == []
    # a second record that skips the latest revision is a finding
    skip = stream(msg(messageId="x"), msg(messageId="x", supersedes="r2"), msg(messageId="x", supersedes="r2"))
    assert _levels(skip) == [("PROFILE-native-id", 4, "error")]


def test_native_ids_of_records_with_odd_ids_never_raise() -> None:
    odd = [
        *stream(msg(messageId="x")),
        Raw(type="message", seq=3, id="q", messageId="x", role="user", content=[OK], supersedes="r2"),
        Raw(type="message", seq=4, id="r4", messageId="x", role="user", content=[OK], supersedes="q"),
        Raw(type="message", seq=5, id="z", messageId="y", role="user", content=[OK]),
        Raw(type="message", seq=6, id="r6", messageId="y", role="user", content=[OK], supersedes="r5"),
    ]
    rules = {f.rule for f in validate_records(odd)}
    assert "PROFILE-id" in rules and "PROFILE-native-id" in rules


def test_the_type_of_every_earlier_record_is_kept_past_the_254th_type() -> None:
    """The validator keeps a record's type as one byte a record (issue 28): types past the 254th
    are kept aside, and a reference to any record still names its type."""
    kinds = [f"com.example/k{n}" for n in range(300)]
    records = stream(
        *({"type": "vendor", "schema": kind, "data": {}} for kind in kinds[:2]),
        *({"type": kind} for kind in kinds[2:]),
        msg(supersedes="r301"),  # the 301st type: kept aside
        msg(messageId="m2", supersedes="r4"),  # the 4th
        {"type": "delivery", "message": "r300", "status": "sent"},
        {"type": "delivery", "message": "r2", "status": "sent"},
    )
    found = [
        (f.rule, f.seq, f.message) for f in validate_records(records) if f.rule in ("PROFILE-supersedes", "ASR-235")
    ]
    assert found == [
        (
            "PROFILE-supersedes",
            302,
            "supersedes 'r301' names a com.example/k299 record; a revision keeps its type message",
        ),
        ("PROFILE-supersedes", 303, "supersedes 'r4' names a com.example/k2 record; a revision keeps its type message"),
        ("ASR-235", 304, "'r300' names a com.example/k298 record, not a message"),
        ("ASR-235", 305, "'r2' names a vendor record, not a message"),
    ]
