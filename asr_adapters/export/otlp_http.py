"""OTLP/HTTP with protobuf bodies, sent with the standard library so that every request keeps
three rules the SDK's exporter does not (issue 25.14-15):

- only a 2xx status is success; any other is a failure naming it. A redirect (an http -> https
  hop in front of a collector) is never followed: the traces would go to a place the user did
  not name, and the SDK counted the 3xx itself as delivered;
- one deadline for the whole batch (connect, send, status line, headers, body, retries): a
  watchdog shuts the socket when it passes, so a receiver that trickles its reply a byte at a
  time cannot hold the export (requests' timeout is per read, and a trickle resets it);
- the reply is read up to ``MAX_REPLY_BYTES``; OTLP's reply is a few bytes of
  ``ExportTraceServiceResponse``, whose ``partial_success`` (spans the receiver rejected) is a
  failure too.

The SDK's environment variables keep their meaning (headers, timeout, compression, TLS files),
and so does the standard ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``. Retries, as the SDK's: a
429, 502, 503 or 504 and a refused or reset connection are tried again after 1, 2, 4 ... s
(``Retry-After`` when the receiver gives one) while the deadline allows.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import http.client
import os
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import getproxies, proxy_bypass

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ..version import __version__

#: Bytes of a reply read at most (OTLP's reply is a few bytes; a receiver that sends more is cut off).
MAX_REPLY_BYTES = 65536
#: Statuses worth a retry (as the SDK's exporter and the OTLP specification say).
RETRYABLE = frozenset({429, 502, 503, 504})
DEFAULT_TIMEOUT = 10.0
_PRINTABLE = {i: None for i in range(32)} | {127: None}


def env(name: str) -> str | None:
    """``OTEL_EXPORTER_OTLP_TRACES_<name>``, else ``OTEL_EXPORTER_OTLP_<name>``."""
    return os.environ.get(f"OTEL_EXPORTER_OTLP_TRACES_{name}") or os.environ.get(f"OTEL_EXPORTER_OTLP_{name}") or None


def timeout_from_env() -> float:
    raw = env("TIMEOUT")
    try:
        value = float(raw) if raw is not None else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def headers_from_env() -> dict[str, str]:
    from opentelemetry.util.re import parse_env_headers

    return dict(parse_env_headers(env("HEADERS") or "", liberal=True))


def said(text: str, limit: int = 200) -> str:
    """Text the receiver chose (a reason phrase, a Location), fit for one line of ours."""
    cleaned = text.translate(_PRINTABLE)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


class ExportFailure(Exception):
    """Why a batch was not delivered, in words for the one error line."""


class _Retry(ExportFailure):
    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason)
        self.after = after


@dataclass
class _Route:
    """Where the connection goes: the receiver itself, or a proxy (``tunnel`` for https)."""

    host: str
    port: int
    target: str  # what the request line names: a path, or the whole URL through an http proxy
    tunnel: bool = False
    proxy_auth: str | None = None


class HttpSpanExporter(SpanExporter):
    """Posts each batch as one ``ExportTraceServiceRequest`` to ``url``; any failure is kept in
    ``failure`` (the reason the caller reports) and the batch answered FAILURE."""

    def __init__(self, url: str, *, timeout: float | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url}: not an http(s) URL")
        self.url = url
        self.parts = parts
        self.timeout = timeout if timeout is not None and timeout > 0 else timeout_from_env()
        self.compression = (env("COMPRESSION") or "none").strip().lower()
        self.headers = {
            "Content-Type": "application/x-protobuf",
            "User-Agent": f"asr-adapters/{__version__}",
            **headers_from_env(),
        }
        if self.compression in ("gzip", "deflate"):
            self.headers["Content-Encoding"] = self.compression
        self.failure: str | None = None
        self._context: ssl.SSLContext | None = None

    # -- the SpanExporter interface ---------------------------------------------------------

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        ok = self.deliver(encode_spans(spans).SerializeToString())
        return SpanExportResult.SUCCESS if ok else SpanExportResult.FAILURE

    def deliver(self, body: bytes) -> bool:
        """Send one encoded ``ExportTraceServiceRequest``; False (and ``failure`` says why) if it failed."""
        try:
            self.send(body)
        except ExportFailure as exc:
            self.failure = str(exc)
            return False
        return True

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    # -- one batch ---------------------------------------------------------------------------

    def send(self, body: bytes) -> None:
        """Deliver one encoded request within the deadline, retrying what may pass; raises
        ``ExportFailure`` saying why not."""
        if self.compression == "gzip":
            body = gzip.compress(body, mtime=0)
        elif self.compression == "deflate":
            body = zlib.compress(body)
        deadline = time.monotonic() + self.timeout
        wait = 1.0
        while True:
            try:
                self._attempt(body, deadline)
                return
            except _Retry as retry:
                pause = retry.after if retry.after is not None else wait
                if time.monotonic() + pause >= deadline:
                    raise ExportFailure(str(retry)) from None
                time.sleep(pause)
                wait *= 2

    def _attempt(self, body: bytes, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ExportFailure(self._late())
        route = self._route()
        connection = self._connection(route, left)
        expired = threading.Event()

        def cut() -> None:  # the deadline passed: wake whatever read or write is waiting
            expired.set()
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # already closed
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

        watchdog = threading.Timer(left, cut)
        watchdog.daemon = True
        watchdog.start()
        try:
            headers = dict(self.headers)
            if route.proxy_auth and not route.tunnel:
                headers["Proxy-Authorization"] = route.proxy_auth
            connection.request("POST", route.target, body=body, headers=headers)
            response = connection.getresponse()
            reply = response.read(MAX_REPLY_BYTES + 1)
            if expired.is_set():
                raise ExportFailure(self._late())
            self._judge(response, reply)
        except (OSError, http.client.HTTPException) as exc:
            if expired.is_set():
                raise ExportFailure(self._late()) from None
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            if isinstance(exc, ConnectionRefusedError | ConnectionResetError | http.client.RemoteDisconnected):
                raise _Retry(reason) from None
            raise ExportFailure(reason) from None
        finally:
            watchdog.cancel()
            connection.close()

    def _judge(self, response: http.client.HTTPResponse, reply: bytes) -> None:
        status = response.status
        phrase = said(response.reason or "")
        named = f"HTTP {status} {phrase}".rstrip()
        if 200 <= status < 300:
            if len(reply) > MAX_REPLY_BYTES:
                raise ExportFailure(f"{named} with a reply longer than {MAX_REPLY_BYTES} bytes; not read further")
            self._partial_success(response, reply)
            return
        if 300 <= status < 400:
            location = response.getheader("Location")
            where = f" to {said(location)}" if location else ""
            raise ExportFailure(f"{named}{where}: redirects are not followed; give --endpoint the receiver's own URL")
        if status in RETRYABLE:
            raise _Retry(named, _retry_after(response.getheader("Retry-After")))
        raise ExportFailure(named)

    @staticmethod
    def _partial_success(response: http.client.HTTPResponse, reply: bytes) -> None:
        """A 2xx whose reply says some spans were rejected (OTLP ``partial_success``) is a failure."""
        if not reply or "protobuf" not in (response.getheader("Content-Type") or ""):
            return
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

        try:
            answer = ExportTraceServiceResponse.FromString(reply)
        except Exception:  # a reply we cannot parse says nothing against success
            return
        rejected = answer.partial_success.rejected_spans
        if rejected:
            message = said(answer.partial_success.error_message)
            raise ExportFailure(f"the receiver rejected {rejected} span(s)" + (f": {message}" if message else ""))

    def _late(self) -> str:
        return f"no complete reply within {self.timeout:g} s (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT)"

    # -- where to connect ---------------------------------------------------------------------

    def _route(self) -> _Route:
        parts = self.parts
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        proxy = getproxies().get(parts.scheme)
        if not proxy or proxy_bypass(f"{host}:{port}") or proxy_bypass(host):
            return _Route(host, port, path)
        proxied = urlsplit(proxy if "://" in proxy else "http://" + proxy)
        auth = None
        if proxied.username is not None:
            pair = f"{unquote(proxied.username)}:{unquote(proxied.password or '')}".encode()
            auth = "Basic " + base64.b64encode(pair).decode("ascii")
        route = _Route(proxied.hostname or "", proxied.port or 8080, path, tunnel=parts.scheme == "https")
        route.proxy_auth = auth
        if not route.tunnel:
            route.target = f"http://{host}:{port}{path}"
        return route

    def _connection(self, route: _Route, left: float) -> http.client.HTTPConnection:
        parts = self.parts
        if parts.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                route.host, route.port, timeout=left, context=self._tls()
            )
        else:
            connection = http.client.HTTPConnection(route.host, route.port, timeout=left)
        if route.tunnel:
            tunnel_headers = {"Proxy-Authorization": route.proxy_auth} if route.proxy_auth else None
            connection.set_tunnel(parts.hostname or "", parts.port or 443, headers=tunnel_headers)
        return connection

    def _tls(self) -> ssl.SSLContext:
        if self._context is None:
            context = ssl.create_default_context(cafile=env("CERTIFICATE"))
            certificate = env("CLIENT_CERTIFICATE")
            if certificate:
                context.load_cert_chain(certificate, env("CLIENT_KEY"))
            self._context = context
        return self._context


def _retry_after(value: Any) -> float | None:
    """``Retry-After`` in seconds (the HTTP-date form is not worth a wait we cannot bound)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if 0 <= seconds < 3600 else None
