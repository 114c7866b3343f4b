"""docs/semantics.md holds: every registered agent has a row in every concept's table, and a
row's golden case really shows what the row claims (issue 26 item 7).

The page has one ``##`` section per concept; each section ends in a table ``| agent | from
the native fields | golden case |``. The last cell is one or more golden cases
(`` `<agent>/<case>` ``) or text starting with "the source has no such thing" and why. Facets a
row claims are the **bold** words of its middle cell (``**denied**``, ``**exit code**``); each
concept's checker below proves every claimed facet on the cases' expected streams, so a row that
claims what its case does not show fails. Adding an agent without its rows fails; so does a
concept heading with no checker here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import GoldenCase, golden_cases, materialize_input

from asr_adapters import registry
from asr_adapters.convert import Conversion
from asr_adapters.model.vocab import REGISTRY_NAMES, TOOL_STATUSES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "semantics.md"
NO_SUCH_THING = "the source has no such thing"

Records = list[dict[str, Any]]


@dataclass(frozen=True)
class Row:
    concept: str
    agent: str
    native: str
    cases: tuple[str, ...]  # "<agent>/<case>" ids; empty when the source has no such thing
    absent: str | None  # the "no such thing" text

    def facets(self) -> set[str]:
        return {f.strip().lower() for f in re.findall(r"\*\*([^*]+)\*\*", self.native)}

    def quoted(self) -> list[str]:
        """Texts the row quotes as `` `"…"` ``: phrases a case must hold."""
        return re.findall(r'`"([^`]+)"`', self.native)

    def cited_schemas(self) -> list[str]:
        """Vendor schemas the row names (`` `<registry name>/<kind>` ``)."""
        names = tuple(REGISTRY_NAMES.values())
        return [s for s in re.findall(r"`([a-z0-9.-]+/[^`\s]+)`", self.native) if s.startswith(names)]


def sections(text: str) -> dict[str, str]:
    """``## heading`` -> its body."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def table_rows(concept: str, body: str) -> list[Row]:
    rows = []
    for line in body.splitlines():
        if not line.startswith("|") or line.startswith(("| agent", "|---", "| ---")):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            raise AssertionError(f"{concept}: a row needs 3 cells: {line!r}")
        agent, native, last = cells
        cases = tuple(re.findall(r"`([a-z0-9-]+/[A-Za-z0-9._-]+)`", last))
        absent = last if last.startswith(NO_SUCH_THING) else None
        rows.append(Row(concept, agent.strip("`"), native, cases, absent))
    return rows


def page() -> dict[str, list[Row]]:
    return {concept: table_rows(concept, body) for concept, body in sections(PAGE.read_text("utf-8")).items()}


CASES = {case.id: case for case in golden_cases()}


def streams(case_id: str) -> list[Records]:
    case = CASES[case_id]
    out = []
    for path in case.expected_files():
        out.append([orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()])
    return out


def records(case_ids: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    for case_id in case_ids:
        for stream in streams(case_id):
            yield from stream


# -- what a record says -------------------------------------------------------------------------


def texts(record: dict[str, Any]) -> Iterator[tuple[str, str | None, str | None]]:
    """(text, effective author, effective origin) of each text part of a record (ASR-224)."""
    for field in ("content", "displayContent"):
        for part in record.get(field) or ():
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"], part.get("author", record.get("author")), part.get("origin", record.get("origin"))


def suffix(status: Any) -> str:
    return status.rsplit("/", 1)[-1] if isinstance(status, str) else ""


def tool_records(recs: Records) -> Records:
    return [r for r in recs if r.get("type") in ("tool_call", "tool_result")]


# -- one checker per concept: the problems it finds with one row ----------------------------------


def check_usage(row: Row, recs: Records) -> list[str]:
    usage = [r["usage"] for r in recs if isinstance(r.get("usage"), dict)]
    ok = any(any(type(v) is int for v in u.values()) for u in usage)
    return [] if ok else ["no record carries a normalized usage count"]


def check_cost(row: Row, recs: Records) -> list[str]:
    """The cost stays where the source wrote it (``nativeUsage``, native members, a vendor record's
    data): some record holds a number under a key naming a cost."""

    def has_cost(value: Any, depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(value, dict):
            return any(
                ("cost" in str(k).lower() and isinstance(v, int | float | dict)) or has_cost(v, depth + 1)
                for k, v in value.items()
            )
        if isinstance(value, list):
            return any(has_cost(v, depth + 1) for v in value)
        return False

    return [] if any(has_cost(r) for r in recs) else ["no record carries the cost the source recorded"]


_OUTCOMES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "success": lambda r: r.get("isError") is False or r.get("status") == "complete",
    "failure": lambda r: r.get("isError") is True,
    "exit code": lambda r: type(r.get("exitCode")) is int,
    "denied": lambda r: suffix(r.get("status")) == "denied" and "isError" not in r,
    "cancelled": lambda r: suffix(r.get("status")) == "cancelled" and "isError" not in r,
    "interrupted": lambda r: r.get("status") == "interrupted" and r.get("isError") is not True,
}


def check_tool_outcome(row: Row, recs: Records) -> list[str]:
    results = [r for r in recs if r.get("type") == "tool_result"]
    problems = [
        f"no tool_result shows {facet}"
        for facet in sorted(row.facets())
        if facet in _OUTCOMES and not any(_OUTCOMES[facet](r) for r in results)
    ]
    problems += [f"unknown facet {f!r} (known: {sorted(_OUTCOMES)})" for f in row.facets() - set(_OUTCOMES)]
    for r in results:  # exitCode always comes with the isError it implies (or a failure recorded beside it)
        code, failed = r.get("exitCode"), r.get("isError")
        if type(code) is int and failed is not True and failed is not (code != 0):
            problems.append(f"{r['id']}: exitCode {code} but isError {failed}")
    return problems


def check_tool_status(row: Row, recs: Records) -> list[str]:
    registry_name = REGISTRY_NAMES[row.agent]
    problems = []
    statuses = [r["status"] for r in tool_records(recs) if "status" in r]
    for status in statuses:
        if status not in TOOL_STATUSES and not (isinstance(status, str) and status.startswith(registry_name + "/")):
            problems.append(f"status {status!r} is neither the vocabulary's nor namespaced with {registry_name}")
    for facet in row.facets():
        if not any(s == facet or suffix(s) == facet for s in statuses):
            problems.append(f"no tool record has status {facet!r}")
    return problems


def _refs(recs: Records) -> dict[str, int]:
    """Record ref -> position, for ``rN`` and the native-id refs (``messageId=…``)."""
    at: dict[str, int] = {}
    for index, r in enumerate(recs):
        at.setdefault(str(r.get("id")), index)
        for key in ("messageId", "callId"):
            if isinstance(r.get(key), str):
                at.setdefault(f"{key}={r[key]}", index)
    return at


def check_compaction(row: Row, recs: Records) -> list[str]:
    summaries = [(i, r) for i, r in enumerate(recs) if r.get("summaryOf") == "compaction"]
    if not summaries:
        return ["no record carries summaryOf: compaction"]
    problems = []
    at = _refs(recs)
    for index, r in summaries:
        shape = r.get("compaction")
        if not isinstance(shape, dict):
            problems.append(f"{r['id']}: a compaction summary without its compaction member")
            continue
        for key in ("from", "through"):
            ref = shape.get(key)
            if ref is not None and at.get(ref, len(recs)) >= index:
                problems.append(f"{r['id']}: compaction.{key} {ref!r} names no earlier record")
    for facet in row.facets() & {"from", "through"}:
        if not any(isinstance(r.get("compaction"), dict) and facet in r["compaction"] for _, r in summaries):
            problems.append(f"no compaction summary names {facet}")
    known = {"summary", "from", "through"}
    return problems + [f"unknown facet {f!r} (known: {sorted(known)})" for f in row.facets() - known]


_RETRY = re.compile(r"retr|api_error|attempt", re.I)


def check_retries(row: Row, recs: Records) -> list[str]:
    schemas = {r.get("schema") for r in recs if r.get("type") == "vendor"}
    problems = [f"no vendor record {s}" for s in row.cited_schemas() if s not in schemas]
    notices = [t for r in recs for t, _a, o in texts(r) if o == "notice" and _RETRY.search(t)]
    retried = [
        r
        for r in recs
        if _RETRY.search(str(r.get("schema", "")))
        or _RETRY.search(str(r.get("status", "")))
        or type(r.get("attempt")) is int
    ]
    if not (notices or retried or row.cited_schemas()):
        problems.append("no record shows a retry (a retry notice, or a vendor record of the attempt)")
    for phrase in row.quoted():
        if not any(phrase in t for r in recs for t, _a, _o in texts(r)):
            problems.append(f"no text holds {phrase!r}")
    return problems


def check_redacted(row: Row, recs: Records) -> list[str]:
    def states() -> Iterator[tuple[str, str]]:
        for r in recs:
            for entry in (r.get("capture") or {}).values():
                if isinstance(entry, dict):
                    yield entry.get("state", ""), entry.get("reason", "")

    def visibilities() -> Iterator[str]:
        for r in recs:
            for part in r.get("content") or ():
                if isinstance(part, dict) and part.get("type") == "reasoning":
                    yield part.get("visibility", "")

    facts = {
        "sanitizer markers": any(s == "redacted" and "[REDACTED" in reason for s, reason in states()),
        "redacted": any(s == "redacted" for s, _ in states()),
        "masked": any(s == "masked" for s, _ in states()),
        "redacted reasoning": "redacted" in set(visibilities()),
    }
    problems = [f"unknown facet {f!r} (known: {sorted(facts)})" for f in row.facets() - set(facts)]
    problems += [f"the case shows no {f}" for f in sorted(row.facets() & set(facts)) if not facts[f]]
    if not row.facets():
        problems.append("the row claims no facet (sanitizer markers, redacted, masked, redacted reasoning)")
    return problems


_ZERO = re.compile(r"(?:1970|0001)-01-01T00:00:00")


def check_timestamps(row: Row, recs: Records) -> list[str]:
    problems = [f"{r['id']}: ts {r['ts']} is a zero time" for r in recs if _ZERO.match(str(r.get("ts", "")))]
    if not any("ts" not in r for r in recs if r.get("type") != "session"):
        problems.append("no record goes without ts")
    return problems


def check_keys(row: Row, case_ids: tuple[str, ...], scratch: Path) -> list[str]:
    """Converts the cases: every stream's key is its header's session reference."""
    problems = []
    for case_id in case_ids:
        case: GoldenCase = CASES[case_id]
        conversion = Conversion(materialize_input(case, scratch), case.agent, as_dicts=True)
        for stream in conversion.streams():
            first = next(iter(stream.records), None)
            session = first.get("session") if isinstance(first, dict) else None
            for _ in stream.records:
                pass
            if stream.key != session:
                problems.append(f"{case_id}: stream key {stream.key!r} is not its session {session!r}")
    return problems


def check_nudges(row: Row, recs: Records) -> list[str]:
    phrases = row.quoted()
    if not phrases:
        return ['the row quotes no harness text (`"…"`) for its case to show']
    problems = []
    for phrase in phrases:
        found = [(a, o) for r in recs for t, a, o in texts(r) if phrase in t]
        if not found:
            problems.append(f"no text holds {phrase!r}")
        elif not any(a == "harness" and o == "injected" for a, o in found):
            problems.append(f"{phrase!r} is not author harness, origin injected: {found[:3]}")
    return problems


def check_subagent(row: Row, recs: Records) -> list[str]:
    spawns = [r for r in recs if r.get("type") == "subagent"]
    results = {r.get("callId"): r for r in recs if r.get("type") == "tool_result"}
    facts = {
        "result": any(s.get("callId") in results for s in spawns),
        "report": any(o == "subagent_report" for r in recs for _t, _a, o in texts(r)),
        "status": any(isinstance(s.get("status"), str) for s in spawns),
    }
    problems = [f"unknown facet {f!r} (known: {sorted(facts)})" for f in row.facets() - set(facts)]
    problems += [f"the case shows no {f}" for f in sorted(row.facets() & set(facts)) if not facts[f]]
    if not spawns and not facts["report"]:
        problems.append("no subagent record and no subagent report")
    statuses = [s["status"] for s in spawns if "status" in s]
    registry_name = REGISTRY_NAMES[row.agent]
    problems += [
        f"subagent status {s!r} outside the vocabulary"
        for s in statuses
        if s not in TOOL_STATUSES and not str(s).startswith(registry_name + "/")
    ]
    return problems


def unnamed_results(recs: Records) -> list[str]:
    names = {r["callId"]: r["name"] for r in recs if r.get("type") == "tool_call" and isinstance(r.get("name"), str)}
    return [r["id"] for r in recs if r.get("type") == "tool_result" and r.get("callId") in names and not r.get("name")]


def check_result_names(row: Row, recs: Records) -> list[str]:
    named = [r for r in recs if r.get("type") == "tool_result" and isinstance(r.get("name"), str)]
    problems = [] if named else ["no tool_result with a name"]
    missing = unnamed_results(recs)
    return problems + ([f"results whose call names the tool have no name: {missing}"] if missing else [])


def check_titles(row: Row, recs: Records) -> list[str]:
    facts = {
        "header": any(r.get("type") == "session" and isinstance(r.get("title"), str) for r in recs),
        "revision": any(r.get("type") == "vendor" and isinstance(r.get("title"), str) for r in recs),
        "vendor": bool(row.cited_schemas()),
    }
    schemas = {r.get("schema") for r in recs if r.get("type") == "vendor"}
    problems = [f"no vendor record {s}" for s in row.cited_schemas() if s not in schemas]
    problems += [f"unknown facet {f!r} (known: {sorted(facts)})" for f in row.facets() - set(facts)]
    problems += [f"the case shows no title by {f}" for f in sorted(row.facets() & set(facts)) if not facts[f]]
    if not row.facets():
        problems.append("the row claims no facet (header, revision, vendor)")
    return problems


RecordChecker = Callable[[Row, Records], list[str]]
CHECKERS: dict[str, RecordChecker] = {
    "Usage": check_usage,
    "Cost recorded by the source": check_cost,
    "Tool outcome": check_tool_outcome,
    "Tool status vocabulary": check_tool_status,
    "Compaction": check_compaction,
    "Retries": check_retries,
    "Redacted or sanitized content": check_redacted,
    "Missing timestamps": check_timestamps,
    "Harness-written nudges and retries": check_nudges,
    "Subagent outcome": check_subagent,
    "Tool result names": check_result_names,
    "Titles": check_titles,
}
#: concepts checked by converting the cases rather than reading their expected streams
CONVERTING: dict[str, Callable[[Row, tuple[str, ...], Path], list[str]]] = {"Stream and session keys": check_keys}

CONCEPTS = list(page())
AGENTS = registry.names()


def test_every_concept_of_the_issue_has_a_section_and_a_checker() -> None:
    wanted = set(CHECKERS) | set(CONVERTING)
    assert set(CONCEPTS) == wanted, f"sections {sorted(set(CONCEPTS) ^ wanted)} differ from the checkers"


@pytest.mark.parametrize(
    ("concept", "agent"),
    [pytest.param(c, a, id=f"{c}-{a}") for c in CONCEPTS for a in AGENTS],
)
def test_the_row_of_each_agent_holds(concept: str, agent: str, tmp_path: Path) -> None:
    rows = [r for r in page()[concept] if r.agent == agent]
    assert len(rows) == 1, f"{concept}: {agent} needs exactly one row, has {len(rows)}"
    row = rows[0]
    assert row.cases or row.absent, f"{concept}/{agent}: no golden case and no {NO_SUCH_THING!r}"
    if row.absent:
        assert len(row.absent) > len(NO_SUCH_THING) + 10, f"{concept}/{agent}: say why the source has none"
        assert not row.facets(), f"{concept}/{agent}: a row with no golden case claims facets {row.facets()}"
        return
    unknown = [c for c in row.cases if c not in CASES]
    assert not unknown, f"{concept}/{agent}: no such golden case {unknown}"
    foreign = [c for c in row.cases if not c.startswith(agent + "/")]
    assert not foreign, f"{concept}/{agent}: cases of another agent {foreign}"
    if concept in CONVERTING:
        problems = CONVERTING[concept](row, row.cases, tmp_path)
    else:
        problems = CHECKERS[concept](row, list(records(row.cases)))
    assert not problems, f"{concept}/{agent} ({', '.join(row.cases)}): " + "; ".join(problems)


@pytest.mark.parametrize("agent", AGENTS)
def test_every_result_whose_call_names_the_tool_is_named(agent: str) -> None:
    """Tool result names, over every golden stream of the agent, not only the cited case."""
    missing = {
        case.id: unnamed_results(recs)
        for case in golden_cases(agent)
        for recs in streams(case.id)
        if unnamed_results(recs)
    }
    assert not missing, missing


@pytest.mark.parametrize("agent", AGENTS)
def test_no_golden_stream_has_a_zero_time_or_an_unlisted_tool_status(agent: str) -> None:
    bad = []
    for case in golden_cases(agent):
        for recs in streams(case.id):
            bad += [f"{case.id} {r['id']} ts {r['ts']}" for r in recs if _ZERO.match(str(r.get("ts", "")))]
            bad += [f"{case.id} {p}" for p in check_tool_status(Row("", agent, "", (), None), recs)]
    assert not bad, bad
