"""The per-response API (``stats.responses.ResponseReader``, ``SessionScanner(on_response=)``)
that the index's totals and any pipeline use instead of the scanner's private members."""

from __future__ import annotations

import ast
from pathlib import Path

from golden_support import GOLDEN

import asr_adapters
from asr_adapters.stats import SessionScanner, session_summary
from asr_adapters.stats.responses import ResponseReader
from asr_adapters.stats.totals import TotalsScanner
from stats.streams import Stream, usage


def _private_uses(path: Path) -> list[str]:
    """``x._name`` attribute uses in a module, but of ``self``'s own members."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id == "self"):
                found.append(f"{ast.unparse(node)} (line {node.lineno})")
            elif node.attr in ("_usage", "_header", "_model", "_last_time", "_usage_responses", "_response_models"):
                found.append(f"{ast.unparse(node)} (line {node.lineno}): a SessionScanner member")
    return found


def test_the_totals_scanner_uses_only_the_public_api() -> None:
    module = Path(asr_adapters.__file__).parent / "stats" / "totals.py"
    assert _private_uses(module) == []


def test_on_response_sees_every_response_the_summary_counts() -> None:
    stream = Stream("claude-code:h", "claude-code")
    stream.reply("2026-01-05T10:00:00Z", "claude-sonnet-4-5", usage(1_000, 10))
    stream.reply("2026-01-05T10:00:05Z", "claude-sonnet-4-5", None, inferenceId="req_aborted")  # no usage
    seen = []
    scanner = SessionScanner(on_response=seen.append)
    for record in stream.records:
        scanner.observe(record)
    summary = scanner.finish()
    assert seen == summary.responses and [r.has_usage for r in seen] == [True, False]


def test_the_reader_and_the_totals_agree_with_the_summary_on_every_golden_stream() -> None:
    for path in sorted(GOLDEN.glob("*/*/expected*.asr.jsonl")):
        records = list(asr_adapters.read_records(path))
        summary = session_summary(records)
        reader = ResponseReader(SessionScanner().prices)
        read = [r for r in map(reader.read, (r for r in records if "copiedFrom" not in r)) if r is not None]
        counted = [r for r in summary.responses if r.has_usage or r.cost_by]
        assert [r for r in read if r.has_usage or r.cost_by] == counted, path
        assert len(read) >= len(summary.responses) - summary.totals.without_usage
        totals = TotalsScanner()
        for record in records:
            totals.observe(record)
        assert totals.totals.tokens == summary.totals.tokens, path
        assert totals.totals.cost == summary.totals.cost, path
