"""Issue 25.14-16: ``asr export --endpoint`` against OTLP/HTTP receivers that misbehave, each a
listener of the test's own on 127.0.0.1: redirects, a reply that trickles or never ends, a
collector that caps the request size. (Phoenix, a real receiver, is in test_otlp_send.py.)"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main

send = pytest.importorskip("asr_adapters.export.otlp_send", reason="otel extra (OTLP exporter)")
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2  # noqa: E402 - after the skip above

EVERY_KIND = GOLDEN / "_show" / "every-record-kind" / "stream.asr.jsonl"
#: A hang is a failure; the tests below give the export this long to end (not a speed check: the
#: deadline they set is 2 s).
HANG = 60


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every POST with ``status`` (and ``headers``), keeping each request body."""

    status = 200
    headers_out: ClassVar[dict[str, str]] = {}
    bodies: ClassVar[list[bytes]] = []
    paths: ClassVar[list[str]] = []
    reply = b""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Recorder.bodies.append(body)
        Recorder.paths.append(self.path)
        self.send_response(Recorder.status)
        for name, value in Recorder.headers_out.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(Recorder.reply)))
        self.end_headers()
        self.wfile.write(Recorder.reply)

    def do_GET(self) -> None:  # a client that follows a redirect with GET would land here
        Recorder.paths.append("GET " + self.path)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[str]:
    Recorder.status, Recorder.headers_out, Recorder.bodies, Recorder.paths, Recorder.reply = 200, {}, [], [], b""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def spans_in(body: bytes) -> int:
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


def export(endpoint: str, *options: str, source: Path = EVERY_KIND) -> Any:
    return CliRunner().invoke(main, ["export", "--to", "otel", str(source), "--endpoint", endpoint, *options])


# -- 25.14: any status but 2xx is a failure ------------------------------------------------


@pytest.mark.parametrize(
    ("status", "phrase"),
    [(301, "Moved Permanently"), (302, "Found"), (307, "Temporary Redirect"), (308, "Permanent Redirect")],
)
def test_a_redirect_is_a_failure_naming_the_status(recorder: str, status: int, phrase: str) -> None:
    Recorder.status = status
    Recorder.headers_out = {"Location": "https://collector.example/v1/traces"}
    result = export(recorder)
    assert result.exit_code == 3, result.output
    assert result.stderr.count("\n") == 1
    assert f"OTLP export failed: HTTP {status} {phrase}" in result.stderr
    assert "https://collector.example/v1/traces" in result.stderr, "the error says where it was sent"
    assert Recorder.paths == ["/v1/traces"], "a redirect is never followed (no second request, no GET)"


@pytest.mark.parametrize(("status", "phrase"), [(204, None), (202, None)])
def test_any_2xx_is_accepted(recorder: str, status: int, phrase: str | None) -> None:
    Recorder.status = status
    result = export(recorder)
    assert result.exit_code == 0, result.output
    assert sum(spans_in(body) for body in Recorder.bodies) > 0


@pytest.mark.parametrize("status", [300, 304, 404, 500, 503, 599])
def test_other_statuses_are_failures(recorder: str, status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "2")
    Recorder.status = status
    result = export(recorder)
    assert result.exit_code == 3, result.output
    assert f"HTTP {status}" in result.stderr


def test_a_partial_success_names_the_spans_the_receiver_rejected(recorder: str) -> None:
    reply = trace_service_pb2.ExportTraceServiceResponse()
    reply.partial_success.rejected_spans = 2
    reply.partial_success.error_message = "span name too long"
    Recorder.reply = reply.SerializeToString()
    Recorder.headers_out = {"Content-Type": "application/x-protobuf"}
    result = export(recorder)
    assert result.exit_code == 3, result.output
    assert "the receiver rejected 2 span(s): span name too long" in result.stderr


# -- 25.15: one deadline per request, a capped reply ---------------------------------------


class Trickler:
    """A raw socket listener that answers every request slowly: its status line and headers a
    byte at a time (``mode="headers"``), a 200 whose body trickles (``"body"``), or a 200 whose
    body never ends, sent as fast as the socket takes it (``"endless"``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self.answer, args=(client,), daemon=True).start()

    def answer(self, client: socket.socket) -> None:
        with client:
            client.settimeout(5)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    data += client.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
                             .split(b":")[1])  # fmt: skip
                while len(body) < length:
                    body += client.recv(65536)
                if self.mode == "headers":
                    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n" + b"X-Slow: " + b"a" * 10_000 + b"\r\n\r\n"
                    for byte in reply:
                        if self.stop.is_set():
                            return
                        client.sendall(bytes([byte]))
                        time.sleep(0.05)
                elif self.mode == "body":
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
                    while not self.stop.is_set():
                        client.sendall(b"x")
                        time.sleep(0.05)
                else:
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n\r\n")
                    chunk = b"\0" * 65536
                    while not self.stop.is_set():
                        client.sendall(chunk)
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.listener.close()


@pytest.fixture
def trickler(request: pytest.FixtureRequest) -> Iterator[Trickler]:
    server = Trickler(request.param)
    yield server
    server.close()


def run_export(endpoint: str, timeout: str) -> subprocess.CompletedProcess[str]:
    """The command in a child process, so a hang is a failed test, not a stuck suite."""
    env = {**os.environ, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": timeout}
    command = [sys.executable, "-c", "from asr_adapters.cli import main; main()", "export", "--to", "otel"]
    command.append(str(EVERY_KIND))
    return subprocess.run(
        [*command, "--endpoint", endpoint], env=env, capture_output=True, text=True, timeout=HANG, check=False
    )


@pytest.mark.parametrize("trickler", ["headers", "body"], indirect=True)
def test_a_trickling_reply_ends_at_the_deadline(trickler: Trickler) -> None:
    result = run_export(trickler.url, "2")
    assert result.returncode == 3, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "no complete reply within 2 s" in result.stderr


@pytest.mark.parametrize("trickler", ["endless"], indirect=True)
def test_an_endless_reply_is_read_only_up_to_the_cap(trickler: Trickler) -> None:
    result = run_export(trickler.url, "20")
    assert result.returncode == 3, result.stderr
    assert f"a reply longer than {send.MAX_REPLY_BYTES} bytes" in result.stderr


# -- 25.16: requests stay under the size limit ----------------------------------------------


def big_stream(tmp_path: Path, calls: int, result_bytes: int, huge: int = 0) -> Path:
    """A stream of ``calls`` tool calls whose results hold ``result_bytes`` of text each, and one
    (when ``huge``) whose input and result are ``huge`` bytes."""
    lines = [
        {"type": "session", "seq": 1, "id": "r1", "ts": "2026-10-26T07:41:00.000Z", "session": "codex:big",
         "agent": {"name": "codex"}, "producer": {"name": "asr-adapters", "version": "0.1.0"}},
    ]  # fmt: skip
    for number in range(calls + (1 if huge else 0)):
        size = huge if number == calls else result_bytes
        call = f"call_{number}"
        seq = len(lines) + 1
        lines.append(
            {"type": "tool_call", "seq": seq, "id": f"r{seq}", "ts": "2026-10-26T07:41:01.000Z", "callId": call,
             "name": "exec", "input": {"command": "cat", "body": "é" * (size // 8)}}
        )  # fmt: skip
        seq += 1
        lines.append(
            {"type": "tool_result", "seq": seq, "id": f"r{seq}", "ts": "2026-10-26T07:41:02.000Z", "callId": call,
             "content": [{"type": "text", "text": (f"line of output {number}\n") * (size // 20)}]}
        )  # fmt: skip
    path = tmp_path / "big.asr.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_long_session_is_sent_in_requests_under_the_limit(recorder: str, tmp_path: Path) -> None:
    """600 tool calls of about 20 KB each: 512 spans a request (as before) made one request of
    more than 10 MB, past what collectors take (4 MiB by default)."""
    source = big_stream(tmp_path, calls=600, result_bytes=20_000)
    result = export(recorder, "--include-content", source=source)
    assert result.exit_code == 0, result.output
    sizes = [len(body) for body in Recorder.bodies]
    assert len(sizes) > 1 and max(sizes) <= send.MAX_REQUEST_BYTES, sizes
    assert sum(spans_in(body) for body in Recorder.bodies) == 600 + 1  # the calls and the session


def test_an_attribute_past_the_limit_is_cut_and_reported(recorder: str, tmp_path: Path) -> None:
    otel = pytest.importorskip("asr_adapters.export.otel")
    source = big_stream(tmp_path, calls=2, result_bytes=100, huge=6_000_000)
    report_path = tmp_path / "report.json"
    result = export(recorder, "--include-content", "--report", str(report_path), source=source)
    assert result.exit_code == 0, result.output
    assert max(len(body) for body in Recorder.bodies) <= send.MAX_REQUEST_BYTES
    values = [
        attribute.value.string_value
        for body in Recorder.bodies
        for resource in trace_service_pb2.ExportTraceServiceRequest.FromString(body).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
        for attribute in span.attributes
        if attribute.key in ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result")
    ]
    assert max(len(v.encode()) for v in values) <= otel.MAX_CONTENT_BYTES
    fields = {(row["record"], row["field"]): row for row in json.loads(report_path.read_text())["fields"]}
    assert fields[("tool_call", "input")] | {"how": None} == {
        "record": "tool_call", "field": "input", "carried": 3, "dropped": 1, "how": None
    }  # fmt: skip
    assert fields[("tool_result", "content")]["dropped"] == 1
    assert "is cut" in fields[("tool_result", "content")]["how"]["dropped"]


def test_without_content_nothing_planted_reaches_the_receiver(recorder: str, tmp_path: Path) -> None:
    """25.17 over the network: the protobuf bodies hold none of the stream's text."""
    source = big_stream(tmp_path, calls=3, result_bytes=100)
    result = export(recorder, source=source)
    assert result.exit_code == 0, result.output
    assert Recorder.bodies and not any(b"line of output" in body or "é".encode() in body for body in Recorder.bodies)


def test_an_http_proxy_from_the_environment_is_used(recorder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP_PROXY keeps working as it did with the SDK's requests-based exporter: the request goes
    to the proxy (here the recorder) naming the receiver's whole URL."""
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", recorder)
    monkeypatch.setenv("http_proxy", recorder)
    result = export("http://collector.invalid:4318")
    assert result.exit_code == 0, result.output
    assert Recorder.paths == ["http://collector.invalid:4318/v1/traces"]
