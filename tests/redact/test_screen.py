"""The screen (asr_adapters/redact/screen.py) only saves work: a record it passes over is one
the walk would have left as it is. Here every record is redacted twice, with the screen and
without it, and the two outputs (and reports) must be the same, on secrets in every disguise
the scan knows, in the spellings where JSON escaping could hide them from a search of the
record's JSON text, and on every golden expected stream."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import orjson
import pytest
from golden_support import GOLDEN

from asr_adapters.redact import Policy, Redactor

KEY = bytes(range(32))
AWS = "AKIAQ3EGRSPUB7KXN4WD"
GITHUB = "ghp_R8vNq2LmT5xW9yZaB3cD4eF6gH7iJ0kL1mN2"
ENV = f"AWS_ACCESS_KEY_ID={AWS}\nDB_PASSWORD=Xk29fLq0zz\n"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


#: texts holding a secret, each where a search of the record's escaped JSON could miss it
TRICKY = [
    f"plain {AWS} here",
    f"wrapped {GITHUB[:20]}\n{GITHUB[20:]} across a line",
    f"wrapped {GITHUB[:20]}\r\n\t  {GITHUB[20:]} with CRLF and indentation",
    f"telltale split AK\nIA{AWS[4:]}",
    f"base64 {_b64(ENV)} of an env file",
    f"after a line break\n{_b64(ENV)}",
    f"after a control character\x1f{_b64(ENV)}",
    f"after a tab\t{_b64(ENV)}",
    f"after a backslash \\{_b64(ENV)}",
    f'after a quote "{_b64(ENV)}"',
    _b64(ENV),
    "api_\u212aey = 'Xk29fLq0zzPq'",  # the Kelvin sign lower-cases to k
    'password = "Xk29fLq0zz"',
    "TOKEN\t=\tXk29fLq0zzPq",
    "curl -H 'Authorization: Bearer Xk29fLq0zzPq1234abcd' https://api",
    "postgres://app:Xk29fLq0zz@db:5432/prod",
    json.dumps({"env": ENV}),  # JSON in a string, decoded by the scan
    "\n " + json.dumps([{"k": f"x {AWS}"}]),
    "\u00a0" + json.dumps({"k": GITHUB}),
    f"-----BEGIN RSA PRIVATE KEY-----\nMIIEow{'A' * 60}\n-----END RSA PRIVATE KEY-----",
    "[not json] " + AWS,
]
#: texts with nothing to find, shaped like what is (a JSON text that fails, base64 of binary)
CLEAN = [
    "ordinary prose, nothing here at all",
    "[System: a bracket that is not JSON",
    '{"a": "json with nothing", "b": [1, 2]}',
    base64.b64encode(bytes(range(256))).decode(),
    "ToolUseIdAbCdEfGhIjKlMnOpQrStUv",
    "laws and draws and jaws",
]
#: what the scan misses (and so must the screen change nothing): a backslash and an "n" written
#: out run into the base64 run, which then decodes to nothing (in the JSON text they look like
#: a line break's escape); a secret in JSON whose raw text spells it with \u escapes is found
#: when decoded but has no plain spelling in the raw text to replace (left as it is)
MISSED = [
    f"after an escaped n \\n{_b64(ENV)}",
    json.dumps({"env": ENV}, ensure_ascii=True).replace("A", "\\u0041"),
]


def _records(text: str) -> list[dict[str, Any]]:
    """The text in each place a record can hold it."""
    base = {"seq": 1, "id": "r1", "ts": "2026-01-01T00:00:00Z"}
    return [
        {**base, "type": "message", "role": "user", "content": [{"type": "text", "text": text}]},
        {**base, "type": "tool_call", "callId": "c1", "name": "bash", "input": {"cmd": {"deep": [text]}}},
        {**base, "type": "tool_call", "callId": "c1", "name": "bash", "arguments": json.dumps({"cmd": text})},
        {**base, "type": "tool_result", "callId": "c1", "output": [{"type": "text", "text": text}]},
        {**base, "type": "vendor", "data": {"native": {"signature": text, "text": text}}},
        {**base, "type": "vendor", "signature": text, "data": {"signature": text}},  # a top-level one is read
        {**base, "type": "vendor", "data": {"blocks": [{"type": "redacted_thinking", "data": text}, text]}},
        {**base, "type": "session", "title": text, "cwd": "/work"},
    ]


def _both(records: list[dict[str, Any]], policy: Policy) -> tuple[list[bytes], list[bytes], Redactor]:
    screened = Redactor(policy)
    walked = Redactor(policy)
    walked._walker.screen = None
    walked._walker.scanner.json_clear = None
    a = [orjson.dumps(screened.record(copy.deepcopy(r))) for r in records]
    b = [orjson.dumps(walked.record(copy.deepcopy(r))) for r in records]
    assert screened.report() == walked.report()
    return a, b, screened


@pytest.mark.parametrize("drop_opaque", [False, True])
@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_a_record_with_a_secret_in_any_spelling_is_walked(text: str, drop_opaque: bool) -> None:
    records = _records(text)
    screened, walked, redactor = _both(records, Policy.make(key=KEY, drop_opaque=drop_opaque))
    assert screened == walked
    assert redactor.report()["redactions"] > 0, "the test text holds no secret the scan finds"


@pytest.mark.parametrize("text", CLEAN + MISSED, ids=range(len(CLEAN + MISSED)))
def test_a_record_with_nothing_to_find_is_passed_over_unchanged(text: str) -> None:
    records = _records(text)
    screened, walked, redactor = _both(records, Policy.make(key=KEY))
    assert screened == walked == [orjson.dumps(r) for r in records]
    assert redactor.report()["redactions"] == 0


def test_the_optional_kinds_are_screened_too() -> None:
    policy = Policy.make(key=KEY, paths=True, emails=True)
    for text in ("see /home/alice/project and /Users/bob/x", "mail carol@example.org", "C:\\Users\\dave\\x"):
        screened, walked, redactor = _both(_records(text), policy)
        assert screened == walked
        assert redactor.report()["redactions"] > 0


def test_every_golden_stream_is_redacted_the_same_with_and_without_the_screen() -> None:
    streams = sorted(GOLDEN.glob("*/*/expected*.asr.jsonl"))
    assert streams
    policy = Policy.make(key=KEY, paths=True, emails=True)
    for path in streams:
        records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        screened, walked, _ = _both(records, policy)
        assert screened == walked, path
