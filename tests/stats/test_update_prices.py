"""``asr stats --update-prices``: genai-prices' own updater fetches price data (here from a real
HTTP server on 127.0.0.1 serving the library's data format) and the report uses it; a fetch that
fails is an error, never a silent fall-back."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from genai_prices import data_snapshot

from asr_adapters.cli import main
from stats.homes import codex_rollout, home_env

#: One provider in genai-prices' data format (the list its update URL serves).
PAYLOAD = [
    {
        "id": "acme",
        "name": "Acme",
        "api_pattern": "https://api\\.acme\\.test",
        "model_match": {"starts_with": "acme-"},
        "models": [
            {
                "id": "acme-internal-7",
                "match": {"equals": "acme-internal-7"},
                "prices": {"input_mtok": 2, "output_mtok": 8},
            }
        ],
    }
]


@pytest.fixture
def price_server() -> Iterator[str]:
    body = orjson.dumps(PAYLOAD)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/data.json":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        data_snapshot.set_custom_snapshot(None)  # the bundled data again for the other tests


def test_updated_prices_are_used(tmp_path: Path, price_server: str) -> None:
    env = home_env(tmp_path)
    at = datetime(2026, 1, 5, 10, tzinfo=UTC)
    codex_rollout(
        Path(env["CODEX_HOME"]),
        "019e3000-0000-7000-8000-000000000001",
        [{"at": at, "input": 1_000_000, "output": 1_000_000, "model": "acme-internal-7"}],
    )
    offline = orjson.loads(CliRunner(env=env).invoke(main, ["stats", "--json"]).stdout)
    assert offline["unpricedModels"] == {"acme-internal-7": 2_000_000}
    result = CliRunner(env=env).invoke(main, ["stats", "--json", "--prices-url", f"{price_server}/data.json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["totals"]["cost"] == pytest.approx(10.0)  # $2 + $8 a million tokens
    assert data["unpricedModels"] == {} and "updated" in data["priceData"]


def test_a_failed_update_is_an_error(tmp_path: Path, price_server: str) -> None:
    env = home_env(tmp_path)
    result = CliRunner(env=env).invoke(main, ["stats", "--prices-url", f"{price_server}/missing.json"])
    assert result.exit_code == 1
    assert "asr: error: price data from" in result.stderr and "404" in result.stderr
