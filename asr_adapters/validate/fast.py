"""The usual record, accepted in one generated function per key shape.

A stream holds a few dozen key shapes (a type and a key sequence), each repeated thousands of
times, and nearly every record is valid. ``accept_for(kind, keys)`` writes, once per shape, a
function ``accept(validator, record, line)`` that tests every value the record's own rules
look at in one ``and`` chain, with each check written out for the keys the shape holds (no
loops over member tables, no presence tests, no calls per rule). At the first doubt it returns
False before touching any state, and the validator takes its full path
(``StreamValidator._add``), which gives the findings. Each test is at least as strict as the
rule it stands for (a namespaced open value, an unusual part or entry, a ``str`` subclass all
count as doubt), so an accepted record is one the full path finds nothing wrong with.

Once the record-local rules pass, the function does what the full path does after them, in
the same order: the bookkeeping, the checks that need other records (``supersedes``,
``parent``, cross references) and the checks that have no written-out form here (rare
members, rare types), called exactly as the full path calls them. Findings are therefore the
same, in the same order. Generated source is built only from this module's literals; values
from the stream (type names, keys) never enter it, they are bound in the function's globals.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any

from ..model.vocab import (
    AUDIENCES,
    AUTHORS,
    CAPTURE_STATES,
    ENTRY_STATUSES,
    MESSAGE_STATUSES,
    ORIGINS,
    PHASES,
    PLAN_STATUSES,
    PLAN_TYPES,
    ROLES,
)
from .formats import path_problem, valid_ts
from .parts import check_parts
from .records import _MESSAGE_RARE, RECORD_CHECKS, _check_entries, _state

Accept = Callable[[Any, dict, "int | None"], bool]

#: Members whose rules the generated function leaves to the full path's own check, called in
#: the full path's order (the envelope's, see ``stream._ENVELOPE``) after the local tests pass.
_ENVELOPE_CALLS = (
    ("tsPrecision", "v._ts_precision(r, KIND)"),
    ("supersedes", "v._supersedes(r, KIND)"),
    ("parent", "v._parent(r, KIND)"),
    ("copiedFrom", "v._copied_from(r, KIND)"),
    ("assembly", "v._assembly(r, KIND)"),
)
_INDEXED = ("messageId", "callId", "planId", "requestId")  # stream.INDEXED, in its order
_NON_EMPTY = '(x := r["{0}"]).__class__ is str and x != ""'
_STRING = 'r["{0}"].__class__ is str'
_CODE_LIMIT = 1024  # generated sources kept compiled, across validators
_code: dict[str, CodeType] = {}


def accept_for(kind: str, keys: tuple[str, ...], cross: Callable | None) -> Accept | None:
    """The accept function of records of type ``kind`` with these keys in this order, or None
    when such records always take the full path (no seq or id, a session header)."""
    if kind == "session" or "seq" not in keys or "id" not in keys:
        return None
    present = frozenset(keys)
    tests = ['(s := r["seq"]).__class__ is int', "s == count", 'r["id"] == f"r{count}"']
    tests += _envelope_tests(present)
    own = _OWN_TESTS.get(kind)
    own_tests = own(present) if own is not None else None if kind in RECORD_CHECKS else []
    if own_tests is not None and False in own_tests:
        return None  # a rule every such record breaks: the full path reports it each time
    tests += [test for test in own_tests or () if isinstance(test, str)]
    body = [
        "def accept(v, r, line):",
        "    count = v.count + 1",
        "    if not (" + "\n        and ".join(tests) + "\n    ):",
        "        return False",
        "    v.count = count",
        "    v._seq = count",
        "    v._line = line",
        "    v._kinds.append(KIND)",
    ]
    body += [f"    {call}" for member, call in _ENVELOPE_CALLS if member in present]
    if own_tests is None and kind in RECORD_CHECKS:
        body.append("    CHECK(r, v._report)")
    for field in _INDEXED:
        if field in present:
            body += [
                f'    x = r["{field}"]',
                "    if x.__class__ is str:",
                f'        table = v._fields["{field}"]',
                # a message's id names the message; other records name a message id first seen
                "        table[x] = KIND" if kind == "message" else "        table.setdefault(x, KIND)",
            ]
    if cross is not None:
        body.append("    CROSS(v, r)")
    body.append("    return True")
    source = "\n".join(body)
    code = _code.get(source)
    if code is None:
        code = compile(source, "<accept>", "exec")
        if len(_code) < _CODE_LIMIT:
            _code[source] = code
    namespace = dict(_GLOBALS, KIND=kind, CHECK=RECORD_CHECKS.get(kind), CROSS=cross)
    exec(code, namespace)  # the source is built from this module's literals only
    accept: Accept = namespace["accept"]
    return accept


def _envelope_tests(present: frozenset[str]) -> list[str]:
    tests = []
    if "ts" in present:
        tests.append('valid_ts(r["ts"])')
    tests += [_NON_EMPTY.format(member) for member in ("turnId", "inferenceId") if member in present]
    if "idSource" in present:
        tests.append('r["idSource"] == "derived"')
    if "capture" in present:
        tests.append('capture_ok(r["capture"])')
    return tests


# -- each type's own rules: a list of tests (False: always broken), or None (call its check) ----


def _message_tests(present: frozenset[str]) -> list[str | bool] | None:
    if "messageId" not in present or "content" not in present or not (_MESSAGE_RARE - {"status"}).isdisjoint(present):
        return None
    tests: list[str | bool] = [
        _NON_EMPTY.format("messageId"),
        '(content := r["content"]).__class__ is list and content and parts_ok(content, "content", r)',
    ]
    if "role" in present:
        tests.append('(role := r["role"]).__class__ is str and role in ROLES')
        if "capture" in present:
            tests.append('state(r["capture"], "role") != "absent"')
        tests.append('(len(content) != 1 or content[0].get("type") != "reasoning" or role == "assistant")')
    elif "capture" in present:
        tests.append('"role" in r["capture"]')
    else:
        tests.append(False)  # ASR-200: no role and no capture.role
    listed_in = {"author": "AUTHORS", "origin": "ORIGINS", "phase": "PHASES", "audience": "AUDIENCES"}
    for member, listed in listed_in.items():
        if member in present:
            tests.append(f'(x := r["{member}"]).__class__ is str and x in {listed}')
    if "origin" in present:
        author = 'r["author"]' if "author" in present else "None"
        audience = 'r["audience"]' if "audience" in present else "None"
        tests.append(
            f'(r["origin"] != "notice" or ({author} == "harness" and {audience} == "user"))'
            f' and (r["origin"] != "injected" or {author} != "human")'
        )
    if "status" in present:
        tests.append('(x := r["status"]).__class__ is str and x in MESSAGE_STATUSES and x != "withdrawn"')
    return tests


def _plan_tests(present: frozenset[str]) -> list[str | bool] | None:
    if "planId" not in present or "planType" not in present:
        return None
    tests: list[str | bool] = [
        _NON_EMPTY.format("planId"),
        '(plan_type := r["planType"]).__class__ is str and plan_type in PLAN_TYPES',
    ]
    if "status" in present:
        tests.append('(x := r["status"]).__class__ is str and (plan_type != "goal" or x in PLAN_STATUSES)')
    if "entries" in present:
        tests.append('(plan_type != "items" or ((x := r["entries"]).__class__ is list and entries_ok(x)))')
    else:
        tests.append('plan_type != "items"')
    if "content" in present:
        tests.append('parts_ok(r["content"], "content", None)')
    elif "capture" in present:
        tests.append('(plan_type == "items" or "content" in r["capture"])')
    else:
        tests.append('plan_type == "items"')
    if "source" in present:
        tests.append('path_problem(r["source"]) is None')
    if "callId" in present:
        tests.append(_STRING.format("callId"))
    return tests


def _tool_call_tests(present: frozenset[str]) -> list[str | bool] | None:
    if "callId" not in present or ("input" in present and "arguments" in present):
        return None
    tests: list[str | bool] = [_NON_EMPTY.format("callId")]
    tests += [_STRING.format(member) for member in ("name", "messageId", "arguments") if member in present]
    return tests


def _tool_result_tests(present: frozenset[str]) -> list[str | bool] | None:
    if "callId" not in present:
        return None
    tests: list[str | bool] = [_NON_EMPTY.format("callId")]
    if "name" in present:
        tests.append(_STRING.format("name"))
    if "content" in present:
        tests.append('parts_ok(r["content"], "content", None)')
    if "isError" in present:
        tests.append('r["isError"].__class__ is bool')
    return tests


def _input_request_tests(present: frozenset[str]) -> list[str | bool] | None:
    tests: list[str | bool] = [_STRING.format(member) for member in ("requestId", "callId") if member in present]
    tests += [f'parts_ok(r["{member}"], "{member}", None)' for member in ("content", "answer") if member in present]
    return tests


def _vendor_tests(present: frozenset[str]) -> list[str | bool] | None:
    if "schema" not in present or "data" not in present:
        return None
    return ['(x := r["schema"]).__class__ is str and "." in (x := x.partition("/"))[0] and x[2] != ""']


_OWN_TESTS: dict[str, Callable[[frozenset[str]], list[str | bool] | None]] = {
    "message": _message_tests,
    "plan": _plan_tests,
    "tool_call": _tool_call_tests,
    "tool_result": _tool_result_tests,
    "input_request": _input_request_tests,
    "vendor": _vendor_tests,
}


# -- value tests the generated functions call: True only where the full check finds nothing ----


class _Found(Exception):
    """Raised by ``_stop`` at a check's first finding: the value needs the full path."""


def _stop(rule: str, message: str) -> None:
    raise _Found


def parts_ok(parts: Any, field: str, message: dict | None) -> bool:
    """``check_parts`` would report nothing: text and data parts here, others through it."""
    if parts.__class__ is not list:
        return False
    for part in parts:
        if (
            part.__class__ is dict
            and len(part) == 2
            and part.get("type") == "text"
            and part.get("text").__class__ is str
        ):
            continue  # {type: text, text: string}, the usual part
        if part.__class__ is dict:
            kind = part.get("type")
            if kind == "text":
                plain = part.get("text").__class__ is str
            elif kind == "data":
                plain = "data" in part and part.get("schema", "").__class__ is str
            else:
                plain = False
            if plain and (len(part) == 2 or _MEMBERS.isdisjoint(part) or _members_ok(part, message)):
                continue
        try:
            check_parts(parts, field, _stop, message)
        except _Found:
            return False
        return True
    return True


def _members_ok(part: dict, message: dict | None) -> bool:
    """``parts._check_members`` would report nothing about a part's author and origin."""
    if "phase" in part or "derivation" in part:
        return False
    author = part.get("author")
    if "author" in part and not (author.__class__ is str and author in AUTHORS):
        return False
    origin = part.get("origin")
    if "origin" in part and not (origin.__class__ is str and origin in ORIGINS):
        return False
    if message is not None:  # the notice and injected rules, on the part's effective values
        if "origin" not in part:
            origin = message.get("origin")
        if "author" not in part:
            author = message.get("author")
        if origin == "notice":
            return author == "harness" and message.get("audience") == "user"
        if origin == "injected":
            return author != "human"
    return True


def entries_ok(entries: list) -> bool:
    """``_check_entries`` would report nothing: ``{content, status}`` entries here, others through it."""
    for entry in entries:
        if not (
            entry.__class__ is dict
            and len(entry) == 2
            and entry.get("content").__class__ is str
            and (status := entry.get("status")).__class__ is str
            and status in ENTRY_STATUSES
        ):
            try:
                _check_entries(entries, _stop)
            except _Found:
                return False
            return True
    return True


def capture_ok(capture: Any) -> bool:
    """``StreamValidator._capture`` would report nothing."""
    if capture.__class__ is not dict:
        return False
    for entry in capture.values():
        if (
            entry.__class__ is not dict
            or (state := entry.get("state")).__class__ is not str
            or state not in CAPTURE_STATES
            or ("reason" in entry and entry["reason"].__class__ is not str)
        ):
            return False
    return True


_MEMBERS = frozenset({"author", "origin", "phase", "derivation"})  # parts.py: members with rules
_GLOBALS: dict[str, Any] = {
    "valid_ts": valid_ts,
    "capture_ok": capture_ok,
    "parts_ok": parts_ok,
    "entries_ok": entries_ok,
    "path_problem": path_problem,
    "state": _state,
    "ROLES": ROLES,
    "AUTHORS": AUTHORS,
    "ORIGINS": ORIGINS,
    "PHASES": PHASES,
    "AUDIENCES": AUDIENCES,
    "MESSAGE_STATUSES": MESSAGE_STATUSES,
    "PLAN_STATUSES": PLAN_STATUSES,
    "PLAN_TYPES": PLAN_TYPES,
}
