"""A secret inside JSON held in a string, where the raw text spells it with JSON's escapes
(``\\u0067hp_…``, ``\\/``, ``\\u000a`` for a line break, escaped neighbours): found in the
decoded string, it must be replaced in the raw text whatever its spelling there, the rest of
the raw text left byte for byte (docs/redaction.md: "replaced where it stands in its escaped
spelling, so the string stays the same JSON").

Planted-secret style: no spelling of the secret (as written, ``\\u``-escaped, JSON-decoded, and
any of those escaped again in the stream's bytes) may be in the output, and the placeholder
must be.
"""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from asr_adapters.redact import PLACEHOLDER, Policy, Redactor
from asr_adapters.stream.writer import StreamWriter

KEY = b"j" * 32
GH = "ghp_R8vNq2LmT5xW9yZaB3cD4eF6gH7iJ0kL1mN2"
AWS = "AKIAQ3EGRSPUB7KXN4WD"
#: base64 of a line holding the token, chosen so that the run holds a ``/`` (spelled ``\\/``)
BLOB = base64.b64encode(f"GH_TOKEN={GH} ???\n".encode()).decode()
assert "/" in BLOB


@dataclass(frozen=True)
class Case:
    id: str
    #: the raw JSON text of the arguments, as the source wrote it
    raw: str
    #: the span of ``raw`` that must become the placeholder (the secret in its raw spelling)
    spelled: str
    kind: str
    #: what must not be left anywhere: the secret decoded, and pieces of it (a wrapped token's
    #: halves, a base64 run's)
    secrets: tuple[str, ...]


def _u(text: str) -> str:
    """``text`` with every character spelled ``\\uXXXX``."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


CASES = [
    Case(
        "u-escape-first-char",
        '{"command": "gh auth", "token": "\\u0067hp_' + GH[4:] + '"}',
        "\\u0067hp_" + GH[4:],
        "github-token",
        (GH, GH[4:]),
    ),
    Case(
        "u-escape-inside-upper-hex",
        '{"token": "' + GH[:14] + "\\u0078" + GH[15:] + '", "n": 3}',
        GH[:14] + "\\u0078" + GH[15:],
        "github-token",
        (GH, GH[15:]),
    ),
    Case(
        "every-char-escaped",
        '{"env": {"AWS": "' + _u(AWS) + '"}}',
        _u(AWS),
        "aws-access-key",
        (AWS,),
    ),
    Case(
        "escaped-quote-and-backslash-neighbours",
        '{"cmd": "echo \\"\\u0067hp_' + GH[4:] + '\\" > C:\\\\tmp\\\\t.txt"}',
        "\\u0067hp_" + GH[4:],
        "github-token",
        (GH, GH[4:]),
    ),
    Case(
        "u0022-quotes-around",
        '{"cmd": "export T=\\u0022' + GH[:10] + "\\u0052" + GH[11:] + '\\u0022"}',
        GH[:10] + "\\u0052" + GH[11:],
        "github-token",
        (GH, GH[11:]),
    ),
    Case(
        "slash-escape-in-url-password",
        '{"url": "psql postgres:\\/\\/app:Xk29\\u0066Lq0pWzR@db.example.com:5432\\/prod?ssl=1"}',
        "Xk29\\u0066Lq0pWzR",
        "url-password",
        ("Xk29fLq0pWzR", "Lq0pWzR"),
    ),
    Case(
        "non-ascii-escapes-next-to-the-secret",
        '{"text": "caf\\u00e9\\ud83d\\ude00 \\u0067hp_' + GH[4:] + '\\u00e9\\u4e2d end"}',
        "\\u0067hp_" + GH[4:],
        "github-token",
        (GH, GH[4:]),
    ),
    Case(
        "non-ascii-escape-inside-the-secret",
        '{"env": "DB_PASSWORD=p\\u00E4ssW0rd99x\\n"}',
        "p\\u00E4ssW0rd99x",
        "secret-assignment",
        ("pässW0rd99x", "ssW0rd99x"),
    ),
    Case(
        "base64-run-with-slash-escape",
        '{"cmd": "echo ' + BLOB.replace("/", "\\/") + ' | base64 -d"}',
        BLOB.replace("/", "\\/"),
        "secret-assignment",
        (GH, BLOB, BLOB[:32], BLOB[-20:]),
    ),
    Case(
        "wrapped-token-u000a",
        '{"out": "token ' + GH[:20] + "\\u000a  " + GH[20:] + ' end"}',
        GH[:20] + "\\u000a  " + GH[20:],
        "github-token",
        (GH, GH[:20], GH[20:]),
    ),
    Case(
        "wrapped-token-crlf-with-escape-inside",
        '{"out": "token ' + GH[:20] + "\\u000d\\u000a" + GH[20:24] + "\\u0041" + GH[25:] + '\\n"}',
        GH[:20] + "\\u000d\\u000a" + GH[20:24] + "\\u0041" + GH[25:],
        "github-token",
        (GH, GH[:20], GH[25:]),
    ),
]


def _stream_bytes(record: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    StreamWriter(buffer).write_all([record])
    return buffer.getvalue()


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _spellings(text: str) -> set[str]:
    """``text`` as written, JSON-escaped (as orjson and as ``json`` with ASCII escapes), and
    each of those escaped once more (the arguments string inside the stream's JSON line)."""
    once = {text, orjson.dumps(text).decode()[1:-1], json.dumps(text)[1:-1]}
    return once | {orjson.dumps(s).decode()[1:-1] for s in once}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_escaped_secret_in_json_held_in_a_string_is_replaced(case: Case) -> None:
    assert case.raw.count(case.spelled) == 1
    before = json.loads(case.raw)
    assert any(s in "".join(_strings(before)) for s in case.secrets)  # the case does hold it
    record = {"type": "tool_call", "seq": 3, "id": "r3", "callId": "c1", "name": "bash", "arguments": case.raw}
    out = Redactor(Policy.make(key=KEY)).record(record)
    data = _stream_bytes(out)
    for secret in {*case.secrets, case.spelled}:
        for spelling in _spellings(secret):
            assert spelling.encode() not in data, f"{spelling[:12]}… left in the output"
    decoded = "\n".join(_strings(json.loads(out["arguments"])))
    for secret in case.secrets:
        assert secret not in decoded
    found = PLACEHOLDER.findall(out["arguments"])
    assert [kind for kind, _hash in found] == [case.kind]
    placeholder = f"[REDACTED:{found[0][0]}:{found[0][1]}]"
    # only the secret's raw span changed: every other byte of the raw JSON text is kept
    assert out["arguments"] == case.raw.replace(case.spelled, placeholder)
    assert out["capture"]["arguments"] == {
        "state": "redacted",
        "reason": f"1 secret(s) replaced by asr redact ({case.kind})",
        "count": 1,
        "kinds": [case.kind],
    }


def test_the_escaped_and_the_plain_spelling_give_one_placeholder() -> None:
    """The placeholder is keyed on the decoded secret, not on its spelling."""
    redactor = Redactor(Policy.make(key=KEY))
    escaped = redactor.record({"type": "tool_call", "seq": 1, "id": "a", "arguments": CASES[0].raw})
    plain = redactor.record({"type": "tool_call", "seq": 2, "id": "b", "arguments": json.dumps({"token": GH})})
    assert PLACEHOLDER.findall(escaped["arguments"]) == PLACEHOLDER.findall(plain["arguments"])


def test_a_raw_hit_never_cuts_an_escape_in_half() -> None:
    """The raw text's own scan (which sees a key beside its value, as ``"password": "…"``)
    can end a secret on the backslash of an escape: the hit keeps to whole characters, so the
    arguments stay JSON (the value's part after the quote is not what the pattern takes)."""
    raw = '{"password": "Xk29fLq0\\"pWzR", "n": 1}'
    record = {"type": "tool_call", "seq": 3, "id": "r3", "callId": "c1", "name": "bash", "arguments": raw}
    out = Redactor(Policy.make(key=KEY)).record(record)
    value = json.loads(out["arguments"])
    assert "Xk29fLq0" not in out["arguments"] and value["n"] == 1
    assert re.fullmatch(r'\[REDACTED:secret-keyword:[0-9a-f]{10}\]"pWzR', value["password"])


#: base64 as ``base64`` prints it: lines of 76 characters (a multiple of 4, so each decodes alone)
WRAPPED_BLOB = base64.encodebytes(f"# the deploy env\nexport GH_TOKEN={GH}\nexport REGION=eu\n".encode()).decode()


@pytest.mark.parametrize("as_json", [False, True], ids=["plain", "json-in-a-string"])
def test_a_wrapped_base64_run_is_replaced_whole(as_json: bool) -> None:
    """A secret whose base64 a line break cuts: each line decodes alone, the first holding
    only the token's head; the lines are joined and the whole run replaced."""
    lines = WRAPPED_BLOB.splitlines()
    assert len(lines) == 2 and len(lines[0]) == 76
    text = f"$ cat env.b64\n{WRAPPED_BLOB}$ done"
    raw = json.dumps({"output": text}) if as_json else text
    record = {"type": "tool_call", "seq": 3, "id": "r3", "callId": "c1", "name": "bash", "arguments": raw}
    out = Redactor(Policy.make(key=KEY)).record(record)["arguments"]
    value = json.loads(out)["output"] if as_json else out
    for line in lines:
        assert line not in out and line[-24:] not in out
    assert re.fullmatch(r"\$ cat env\.b64\n\[REDACTED:[a-z-]+:[0-9a-f]{10}\]\n\$ done", value)
