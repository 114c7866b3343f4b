"""`asr export --to otel --endpoint`: the SDK's OTLP/HTTP exporter, against a real Arize Phoenix
server on 127.0.0.1 (spans read back through its REST API) and against endpoints that refuse."""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main

pytestmark = pytest.mark.services
send = pytest.importorskip("asr_adapters.export.otlp_send", reason="otel extra (OTLP exporter)")
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402 - after the skip above
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult  # noqa: E402

EVERY_KIND = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"
USAGE = GOLDEN / "claude-code" / "usage-normalized" / "expected.asr.jsonl"
SUBAGENTS = GOLDEN / "claude-code" / "subagent-folder" / "input.jsonl"
PHOENIX_START_SECONDS = 90
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


class Phoenix(str):
    """Phoenix's base URL (OTLP/HTTP at /v1/traces, its REST API), with its OTLP/gRPC URL."""

    grpc: str


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    """A Phoenix server (arize-phoenix, the test-services extra) on free ports; its base URL."""
    if importlib.util.find_spec("phoenix") is None:  # not imported here: the server runs in its own process
        pytest.skip("arize-phoenix is not installed (pip install -e '.[test-services]')")
    folder = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "phoenix.server.main", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = Phoenix(f"http://127.0.0.1:{port}")
    base.grpc = f"http://127.0.0.1:{grpc_port}"
    try:
        deadline = time.monotonic() + PHOENIX_START_SECONDS
        while True:
            if server.poll() is not None:
                tail = (folder / "server.log").read_text(errors="replace")[-600:]
                pytest.skip(f"Phoenix exited with {server.returncode} before it listened: {tail}")
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.skip(f"Phoenix did not answer on {base} within {PHOENIX_START_SECONDS} s")
                time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def phoenix_spans(base: str, trace_ids: set[str], expected: int) -> list[dict[str, Any]]:
    """Phoenix's spans of these traces, once it holds ``expected`` of them (it inserts in batches)."""
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        data = get_json(f"{base}/v1/projects/default/spans?limit=1000")["data"]
        found = [span for span in data if span["context"]["trace_id"] in trace_ids]
        if len(found) >= expected:
            break
        time.sleep(0.3)
    return found


def file_spans(tmp_path: Path, source: Path, *options: str) -> list[dict[str, Any]]:
    """The spans the OTLP/JSON file export writes for ``source``."""
    out = tmp_path / f"{source.parent.name}.json"
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(source), "-o", str(out), *options])
    assert result.exit_code == 0, result.output
    return [
        span
        for resource in json.loads(out.read_text())["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


def micros(moment: str) -> int:
    """Phoenix's ISO time as Unix microseconds."""
    return (datetime.fromisoformat(moment) - EPOCH) // timedelta(microseconds=1)


def attribute(value: dict[str, Any]) -> Any:
    """An OTLP/JSON AnyValue as the plain value Phoenix's API returns."""
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [attribute(item) for item in value["arrayValue"]["values"]]
    return next(iter(value.values()))


@pytest.mark.parametrize(
    ("source", "protocol"),
    [(EVERY_KIND, "http/protobuf"), (USAGE, "http/protobuf"), (EVERY_KIND, "grpc")],
    ids=["every-record-kind", "usage-normalized", "every-record-kind-grpc"],
)
def test_phoenix_holds_the_same_spans_as_the_file(
    phoenix: Phoenix, tmp_path: Path, source: Path, protocol: str
) -> None:
    expected = file_spans(tmp_path, source, "--include-content")
    endpoint = phoenix.grpc if protocol == "grpc" else phoenix
    if protocol == "grpc":  # the file's spans again, so the ids must be new to Phoenix: another session
        source = renamed_session(tmp_path, source)
        expected = file_spans(tmp_path, source, "--include-content")
    result = CliRunner().invoke(
        main,
        ["export", "--to", "otel", str(source), "--endpoint", endpoint, "--include-content", "--protocol", protocol],
    )
    assert result.exit_code == 0, result.output
    assert "as otel" in result.stderr  # the loss report still comes

    received = phoenix_spans(phoenix, {span["traceId"] for span in expected}, len(expected))
    by_id = {span["context"]["span_id"]: span for span in received}
    assert sorted(by_id) == sorted(span["spanId"] for span in expected)
    for span in expected:
        got = by_id[span["spanId"]]
        assert got["name"] == span["name"]
        assert got["context"]["trace_id"] == span["traceId"]
        assert got["parent_id"] == span.get("parentSpanId")
        assert got["status_code"] == {0: "UNSET", 1: "OK", 2: "ERROR"}[span["status"].get("code", 0)]
        ours = {a["key"]: attribute(a["value"]) for a in span["attributes"]}
        assert {k: v for k, v in got["attributes"].items() if k in ours} == ours, span["name"]
        for ours_key, theirs_key in (("startTimeUnixNano", "start_time"), ("endTimeUnixNano", "end_time")):
            assert micros(got[theirs_key]) == int(span[ours_key]) // 1000


def renamed_session(tmp_path: Path, source: Path) -> Path:
    """``source`` with another session reference (so other trace and span ids)."""
    lines = source.read_text().splitlines()
    header = json.loads(lines[0])
    renamed = tmp_path / "renamed" / source.parent.name / source.name
    renamed.parent.mkdir(parents=True)
    text = "\n".join(lines).replace(json.dumps(header["session"]), json.dumps(header["session"] + "-grpc"))
    renamed.write_text(text + "\n")
    return renamed


def test_subagents_arrive_as_traces_of_their_own(phoenix: str, tmp_path: Path) -> None:
    expected = file_spans(tmp_path, SUBAGENTS)
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(SUBAGENTS), "--endpoint", phoenix + "/"])
    assert result.exit_code == 0, result.output
    traces = {span["traceId"] for span in expected}
    received = phoenix_spans(phoenix, traces, len(expected))
    roots = [span for span in received if span["parent_id"] is None]
    assert len(traces) == 2 and {span["context"]["trace_id"] for span in roots} == traces


def test_an_unreachable_endpoint_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "2")  # the SDK retries until then
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(EVERY_KIND), "--endpoint", url])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1
    reason = "OTLP export failed: Connection refused (0 spans accepted before the failure)"
    assert result.stderr == f"asr: error: {url}/v1/traces: {reason}\n"


def test_an_unreachable_grpc_endpoint_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(
        "opentelemetry.exporter.otlp.proto.grpc", reason="the gRPC exporter is not installed (the test-services extra)"
    )
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "2")
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    options = ["--endpoint", url, "--protocol", "grpc"]
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(EVERY_KIND), *options])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"asr: error: {url}: OTLP export failed: gRPC UNAVAILABLE: ")
    assert result.stderr.endswith("(0 spans accepted before the failure)\n")


def test_grpc_without_its_exporter_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the gRPC exporter is not installed (it is, in the otel extra) the send is refused
    with one line saying what to install, never a traceback."""
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.grpc.trace_exporter", None)
    url = f"http://127.0.0.1:{free_port()}"
    options = ["--endpoint", url, "--protocol", "grpc"]
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(EVERY_KIND), *options])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, result.stderr  # as without the SDK: the run cannot start
    assert result.stderr.count("\n") == 1 and "pip install 'asr-adapters[otel]'" in result.stderr


class Refusing(http.server.BaseHTTPRequestHandler):
    """Accepts the first ``accept`` OTLP requests, answers 400 to the rest; counts what it was sent."""

    accept = 0
    requests: ClassVar[list[tuple[str, str | None, int]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Refusing.requests.append((self.path, self.headers["Content-Type"], len(body)))
        ok = len(Refusing.requests) <= Refusing.accept
        self.send_response(200 if ok else 400, None if ok else "Bad Request")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[str]:
    Refusing.accept, Refusing.requests = 0, []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/collector/traces"
    server.shutdown()
    server.server_close()


def test_a_refused_batch_stops_the_send_and_says_how_far_it_got(refusing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(send, "BATCH", 3)
    Refusing.accept = 1
    result = CliRunner().invoke(main, ["export", "--to", "otel", str(EVERY_KIND), "--endpoint", refusing])
    assert result.exit_code == 3
    assert result.stderr == (
        f"asr: error: {refusing}: OTLP export failed: HTTP 400 Bad Request (3 spans accepted before the failure)\n"
    )
    # a URL with a path is used as given; protobuf, as the OTLP/HTTP exporter sends it; nothing after the refusal
    assert [(path, kind) for path, kind, _ in Refusing.requests] == [
        ("/collector/traces", "application/x-protobuf")
    ] * 2


class Recording(SpanExporter):
    def __init__(self, fail_at: int | None = None) -> None:
        self.batches: list[int] = []
        self.fail_at = fail_at

    def export(self, spans: Any) -> SpanExportResult:
        self.batches.append(len(spans))
        return SpanExportResult.FAILURE if len(self.batches) == self.fail_at else SpanExportResult.SUCCESS


def make_spans(sending: Any, count: int) -> None:
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(send.BatchSender(sending))
    tracer = provider.get_tracer("test")
    for number in range(count):
        tracer.start_span(f"s{number}").end()
    provider.shutdown()


def test_every_span_is_sent_in_bounded_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(send, "BATCH", 3)
    sending = send.Sending(Recording())
    make_spans(sending, 7)
    assert sending.exporter.batches == [3, 3, 1] and sending.sent == 7 and not sending.failed


def test_after_a_failed_batch_nothing_more_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(send, "BATCH", 3)
    sending = send.Sending(Recording(fail_at=2))
    make_spans(sending, 8)
    assert sending.exporter.batches == [3, 3] and sending.sent == 3 and sending.failed


def test_the_traces_path_is_added_only_to_a_bare_url() -> None:
    assert send.traces_url("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/traces"
    assert send.traces_url("https://h:6006/") == "https://h:6006/v1/traces"
    assert send.traces_url("http://h/api/public/otel/v1/traces") == "http://h/api/public/otel/v1/traces"
    with pytest.raises(ValueError):
        send.traces_url("127.0.0.1:4318")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--to", "atif", "--endpoint", "http://127.0.0.1:4318"], "use it with --to otel"),
        (["--to", "otel", "--endpoint", "http://127.0.0.1:4318", "-o", "x.json"], "exclusive"),
        (["--to", "otel", "--endpoint", "127.0.0.1:4318"], "not an http(s) URL"),
        (["--to", "otel", "--endpoint", "http://h:4317/v1/traces", "--protocol", "grpc"], "no path"),
        (["--to", "otel", "--protocol", "grpc"], "give --endpoint URL"),
    ],
)
def test_endpoint_usage_errors_exit_2(options: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["export", str(EVERY_KIND), *options])
    assert result.exit_code == 2 and message in result.stderr
