"""Issue 25.17: without ``--include-content`` no content reaches an OpenTelemetry export, in any
span member (attributes, status messages, events, links), by the file or by the SDK's spans.

Every golden stream gets a marker planted in every string a record holds except the members the
export is documented to carry as metadata (ids, names, models, enums the spans are made from);
the exported bytes must not hold it. With ``--include-content`` the marker does arrive (so the
planting reaches the text the export would write).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import GOLDEN

from asr_adapters.export.report import LossReport
from asr_adapters.stream.reader import read_records

otel = pytest.importorskip("asr_adapters.export.otel", reason="otel extra")

MARKER = "QX-content-marker-7f3a"
STREAMS = sorted(GOLDEN.glob("*/*/expected*.asr.jsonl")) + sorted(GOLDEN.glob("_show/*/stream.asr.jsonl"))
#: Record and part members that are not content: what the spans are made from (type, role, status
#: ...) and what the export carries as metadata (session, agent, model, tool name, ids).
METADATA = {
    "type", "seq", "id", "ts", "tsPrecision", "role", "author", "origin", "phase", "audience", "status",
    "visibility", "planType", "idSource", "mimeType", "isError", "session", "agent", "model", "inferenceId",
    "turnId", "messageId", "callId", "name", "stopReason", "agentType", "parent", "planId", "supersedes",
    "capture", "usage", "copiedFrom",
}  # fmt: skip


def planted(value: Any) -> Any:
    """Every string of ``value`` (at any depth) with the marker in it."""
    if isinstance(value, str):
        return value + MARKER
    if isinstance(value, list):
        return [planted(item) for item in value]
    if isinstance(value, dict):
        return {key: planted(item) for key, item in value.items()}
    return value


def plant_record(record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key in METADATA:
            out[key] = value
        elif key in ("content", "displayContent", "answer") and isinstance(value, list):
            out[key] = [
                {k: v if k in METADATA else planted(v) for k, v in part.items()} if isinstance(part, dict) else part
                for part in value
            ]
        else:
            out[key] = planted(value)
    return out


def marked(path: Path) -> Iterator[dict[str, Any]]:
    return (plant_record(record) for record in read_records(path))


def exported(path: Path, *, include_content: bool, sdk: bool) -> bytes:
    out = io.StringIO()
    write = otel.write_otlp_json_via_sdk if sdk else otel.write_otlp_json
    write([marked(path)], out, LossReport("otel", "x"), include_content=include_content)
    return out.getvalue().encode()


@pytest.mark.parametrize("sdk", [False, True], ids=["file", "sdk-spans"])
def test_without_include_content_no_content_reaches_the_export(sdk: bool) -> None:
    leaked = []
    for path in STREAMS:
        document = exported(path, include_content=False, sdk=sdk)
        if MARKER.encode() in document:
            at = document.index(MARKER.encode())
            leaked.append(f"{path.relative_to(GOLDEN)}: …{document[max(0, at - 160) : at + 30].decode()}")
    assert not leaked, "\n".join(leaked[:5])


def test_with_include_content_the_planted_text_arrives() -> None:
    arrived = [p for p in STREAMS if MARKER.encode() in exported(p, include_content=True, sdk=False)]
    assert len(arrived) > len(STREAMS) // 2


def test_an_errors_text_is_content() -> None:
    """The failed request of every-record-kind: status ERROR without its text; with content, its text."""
    path = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"
    for include_content in (False, True):
        spans = [
            span
            for resource in orjson.loads(exported(path, include_content=include_content, sdk=False))["resourceSpans"]
            for scope in resource["scopeSpans"]
            for span in scope["spans"]
        ]
        statuses = [span["status"] for span in spans if span["status"].get("code") == 2]
        messages = [status.get("message", "") for status in statuses]
        assert len(statuses) == 2  # the failed request and the failed tool call
        if include_content:
            assert any("403 Key limit exceeded" in m for m in messages), messages
        else:
            assert not any("403" in m or MARKER in m for m in messages), messages
