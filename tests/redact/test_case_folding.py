"""Keywords in text whose lower-cased copy is not aligned with it, or that holds a letter
matching an ASCII one only case-insensitively (review of issue 34's fast paths).

``İ`` lowers to two characters, so positions found in ``text.lower()`` are not positions of the
text: the lines that hold a keyword were looked up by them, which scanned the wrong lines (a
password left in clear) or found the same place forever (a hang). ``ſ`` and ``ı`` match ``s``
and ``i`` in a case-insensitive regex but do not lower to them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from asr_adapters.redact import Policy, Redactor

from .test_redact import KEY, _text


def _redacted(text: str) -> str:
    return str(Redactor(Policy.make(key=KEY)).record(_text(text))["content"][0]["text"])


def test_a_dotted_capital_i_before_a_keyword_does_not_hang_the_scan() -> None:
    code = (
        "from asr_adapters.redact import Policy, Redactor\n"
        "r = Redactor(Policy.make(key=b'k' * 32))\n"
        "rec = {'type': 'message', 'seq': 1, 'id': 'r1', 'messageId': 'm', 'role': 'user',"
        " 'author': 'person', 'origin': 'typed', 'content': [{'type': 'text', 'text': '\\u0130' * 10 + ' password'}]}\n"
        "print(r.record(rec)['content'][0]['text'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "\u0130" * 10 + " password"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("\u0130" * 40 + "\npassword = 'hunter2hunter2'\n" + "x" * 60 + "\n" + "y" * 60, "hunter2hunter2"),
        ("Türkçe: " + "\u0130" * 40 + '\napi_key: "sk12345678secretvalue"\n' + "z" * 80, "sk12345678secretvalue"),
        ("databasekey = 'abcdef12345678'", "abcdef12345678"),
        ("DATABASEPASS = 'abcdef12345678'", "abcdef12345678"),
        ("pa\u017f\u017fword = 'hunter2hunter2'", "hunter2hunter2"),
    ],
    ids=["dotted-I-before-the-line", "dotted-I-in-turkish", "databasekey", "databasepass", "long-s"],
)
def test_the_keyword_line_is_found_and_its_secret_redacted(text: str, secret: str) -> None:
    out = _redacted(text)
    assert secret not in out and "[REDACTED:" in out, out


def test_a_wrapped_base64_block_with_a_short_last_line_is_replaced_whole() -> None:
    """``base64`` wraps at 76 and ends with what is left: a last line under 24 characters was
    not joined to its block, so a token it cut kept its encoded tail beside the placeholder,
    and the placeholder was keyed on part of the token."""
    import base64
    import textwrap

    token = "ghp_R8vNq2LmT5xW9yZaB3cD4eF6gH7iJ0kL1mN2"
    encoded = base64.b64encode(f"export GITHUB_TOKEN={token}\nexport X=1\n".encode()).decode()
    lines = textwrap.wrap(encoded, 76)
    assert len(lines) == 2 and len(lines[1]) < 24
    out = _redacted("\n".join(lines))
    plain = _redacted(f"export GITHUB_TOKEN={token}")
    assert lines[1] not in out and out.startswith("[REDACTED:") and out.endswith("]")
    assert plain.split("=", 1)[1] == out  # the same placeholder as the token written plainly
