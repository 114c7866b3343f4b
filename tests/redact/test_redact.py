"""The redactor's rules, one at a time (docs/redaction.md): placeholders, capture states, what
is never scanned, the disguises, the optional kinds, and the option family on the commands."""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from golden_support import GOLDEN

from asr_adapters.cli import main
from asr_adapters.redact import PLACEHOLDER, Policy, PolicyError, Redactor

KEY = b"k" * 32
AWS = "AKIAQ3EGRSPUB7KXN4WD"
GITHUB = "ghp_R8vNq2LmT5xW9yZaB3cD4eF6gH7iJ0kL1mN2"
SLACK = "xoxb-20394857612-30495867123-AbCdEfGhIjKlMnOpQrStUvWx"


def _text(text: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "seq": 5,
        "id": "r5",
        "messageId": "m-1",
        "role": "user",
        "author": "person",
        "origin": "typed",
        "content": [{"type": "text", "text": text}],
        **fields,
    }


def _redacted_text(text: str, policy: Policy | None = None) -> str:
    record = Redactor(policy or Policy.make(key=KEY)).record(_text(text))
    return str(record["content"][0]["text"])


def test_a_secret_becomes_a_keyed_placeholder_naming_its_kind() -> None:
    out = _redacted_text(f"the key is {AWS}, ok")
    match = PLACEHOLDER.search(out)
    assert match is not None and match.group(1) == "aws-access-key"
    assert out == f"the key is {match.group(0)}, ok"
    assert AWS not in out


def test_the_same_secret_gives_the_same_placeholder_within_a_run_only() -> None:
    redactor = Redactor(Policy.make(key=KEY))
    first = redactor.record(_text(f"export GH={GITHUB}"))["content"][0]["text"]
    second = redactor.record(_text(f"git push https://x:{GITHUB}@github.com/o/r"))["content"][0]["text"]
    assert PLACEHOLDER.findall(first) == [("github-token", PLACEHOLDER.findall(first)[0][1])]
    assert PLACEHOLDER.search(first).group(2) == PLACEHOLDER.search(second).group(2)  # type: ignore[union-attr]
    other = Redactor(Policy.make(key=b"o" * 32)).record(_text(f"export GH={GITHUB}"))["content"][0]["text"]
    assert other != first  # another run (another key) cannot be matched against this one


def test_capture_says_redacted_with_count_and_kinds_and_nothing_else_changes() -> None:
    record = _text(f"{AWS} and {SLACK}", usage={"inputTokens": 3}, turnId="t1")
    before = copy.deepcopy(record)
    out = Redactor(Policy.make(key=KEY)).record(record)
    capture = out["capture"]["content"]
    assert capture["state"] == "redacted"
    assert capture["count"] == 2 and capture["kinds"] == ["aws-access-key", "slack-token"]
    assert AWS not in capture["reason"] and "aws-access-key" in capture["reason"]
    for key in ("type", "seq", "id", "messageId", "role", "author", "origin", "usage", "turnId"):
        assert out[key] == before[key]
    assert list(out) == [*before, "capture"] or list(out).index("capture") > list(out).index("content")


def test_an_earlier_capture_state_is_kept_in_the_reason() -> None:
    record = _text(f"{AWS} tail", capture={"content": {"state": "truncated", "reason": "cut at 180 characters"}})
    out = Redactor(Policy.make(key=KEY)).record(record)
    assert out["capture"]["content"]["state"] == "redacted"
    assert "before: truncated (cut at 180 characters)" in out["capture"]["content"]["reason"]


def test_opaque_values_are_never_scanned_and_drop_opaque_leaves_them_out() -> None:
    record = {
        "type": "message",
        "seq": 2,
        "id": "r2",
        "messageId": "m",
        "role": "assistant",
        "content": [
            {"type": "reasoning", "visibility": "encrypted", "opaque": {"format": "x", "data": AWS}, "signature": AWS},
            {"type": "opaque", "format": "openai.encrypted_content", "data": GITHUB},
            {"type": "image", "mimeType": "image/png", "data": base64.b64encode(AWS.encode()).decode()},
            {"type": "text", "text": "visible"},
        ],
    }
    kept = Redactor(Policy.make(key=KEY)).record(copy.deepcopy(record))
    assert kept == record  # nothing scanned, nothing marked
    dropped = Redactor(Policy.make(key=KEY, drop_opaque=True)).record(copy.deepcopy(record))
    data = orjson.dumps(dropped)
    assert AWS.encode() not in data and GITHUB.encode() not in data
    assert [p["type"] for p in dropped["content"]] == ["reasoning", "image", "text"]
    assert dropped["content"][1] == record["content"][2]  # image bytes are not ciphertext: kept
    assert dropped["capture"]["content"]["opaqueDropped"] == 3
    assert dropped["capture"]["content"]["count"] == 0


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        ("token " + GITHUB[:20] + "\n" + GITHUB[20:] + " end", "github-token", GITHUB),
        ("wrapped\n  " + AWS[:10] + "\n    " + AWS[10:] + "\nnext", "aws-access-key", AWS),
        ("echo " + base64.b64encode(f"GH_TOKEN={GITHUB}\n".encode()).decode() + " | base64 -d", "", GITHUB),
        ("psql postgres://app:Xk29fLq0pWzR@db.example.com:5432/prod", "url-password", "Xk29fLq0pWzR"),
        ("GET https://api.example.com/items?api_key=Zx81Qw02Er93Ty&page=2", "url-secret-param", "Zx81Qw02Er93Ty"),
        ('curl -H "Authorization: Bearer tok_9Qm2Lp7ZrXk3Ab" https://x', "auth-header", "tok_9Qm2Lp7ZrXk3Ab"),
        ("Authorization: Basic dXNlcjpodW50ZXIyaHVudGVy", "auth-header", "dXNlcjpodW50ZXIyaHVudGVy"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKY", "aws-secret-key", "wJalrXUtnFEMI/K7MDENG"),
        ("cat .env\nDATABASE_PASSWORD=s3cr3t-Pa55\nPORT=8080", "secret-assignment", "s3cr3t-Pa55"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
            "-----END OPENSSH PRIVATE KEY-----",
            "private-key",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        ),
        ("key sk-proj-" + "a1B2" * 12 + " set", "openai-key", "a1B2a1B2a1B2a1B2"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe-key", "4eC39HqLyjWDarjtT1zdp7dc"),
    ],
)
def test_each_kind_and_disguise(text: str, kind: str, secret: str) -> None:
    out = _redacted_text(text)
    assert secret not in out
    assert secret[: len(secret) // 2] not in out or len(secret) < 16
    if kind:
        assert f"[REDACTED:{kind}:" in out


def test_json_held_in_a_string_is_redacted_in_its_escaped_spelling() -> None:
    raw = json.dumps({"command": "deploy", "env": {"TOKEN": GITHUB[:18] + "\n" + GITHUB[18:]}, "note": "a\tb"})
    record = {"type": "tool_call", "seq": 3, "id": "r3", "callId": "c", "name": "bash", "arguments": raw}
    out = Redactor(Policy.make(key=KEY)).record(record)
    assert GITHUB[:18] not in out["arguments"] and GITHUB[18:] not in out["arguments"]
    value = json.loads(out["arguments"])  # still the same JSON, the secret replaced inside it
    assert value["command"] == "deploy" and value["note"] == "a\tb"
    assert value["env"]["TOKEN"].startswith("[REDACTED:github-token:")
    assert out["capture"]["arguments"]["kinds"] == ["github-token"]


def test_nested_tool_input_vendor_data_plans_and_header_fields() -> None:
    redactor = Redactor(Policy.make(key=KEY))
    call = {"type": "tool_call", "seq": 3, "id": "r3", "callId": "c", "name": "Write", "input": {"a": [{"b": AWS}]}}
    vendor = {"type": "vendor", "seq": 4, "id": "r4", "schema": "x/y", "data": {"env": f"SLACK={SLACK}"}}
    plan = {"type": "plan", "seq": 5, "id": "r5", "planId": "p", "planType": "document"}
    plan["content"] = [{"type": "text", "text": f"1. rotate {GITHUB}"}]
    header = {
        "type": "session",
        "seq": 1,
        "id": "r1",
        "session": "codex:1",
        "title": f"fix {AWS}",
        "cwd": f"/srv/{AWS}",
    }
    for record in (call, vendor, plan, header):
        out = redactor.record(record)
        data = orjson.dumps(out)
        assert AWS.encode() not in data and SLACK.encode() not in data and GITHUB.encode() not in data
        assert "capture" in out
    assert header["session"] == "codex:1"
    assert set(header["capture"]) == {"title", "cwd"}
    report = redactor.report()
    assert report["byRecordType"]["session"] == {"aws-access-key": 2}
    assert report["byKind"]["aws-access-key"] == 3


def test_paths_emails_and_own_patterns_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "see /home/alice/proj and C:\\Users\\bob\\x, mail alice.doe@corp.example, ticket ZZ-1234"
    assert _redacted_text(text) == text
    policy = Policy.make(key=KEY, paths=True, emails=True, patterns=[r"ZZ-\d+"])
    out = _redacted_text(text, policy)
    for gone in ("alice", "bob", "corp.example", "ZZ-1234"):
        assert gone not in out
    assert "/home/[REDACTED:user-name:" in out and "[REDACTED:pattern-1:" in out and "[REDACTED:email:" in out
    assert "git@github.com:org/repo" in _redacted_text("clone git@github.com:org/repo now", policy)


def test_termux_home_folder_holds_no_user_name() -> None:
    """Termux's home is /data/data/com.termux/files/home itself: what follows it is the person's
    own folder (a qwen-code sample's project), not an account name (the shared samples' read)."""
    policy = Policy.make(key=KEY, paths=True)
    text = "cd /data/data/com.termux/files/home/Happy && ls /data/user/0/com.termux/files/home/notes; /home/alice/x"
    out = _redacted_text(text, policy)
    assert "/files/home/Happy" in out and "/files/home/notes" in out
    assert "alice" not in out


def test_a_bad_pattern_is_refused() -> None:
    with pytest.raises(PolicyError):
        Policy.make(patterns=["("])
    with pytest.raises(PolicyError):
        Policy.make(patterns=["x*"])


def test_placeholders_and_ordinary_text_are_left_alone() -> None:
    text = (
        "commit 3f9c0a1b2c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f; sha256:4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f6"
        " password: the one in the vault; token = getToken(); Bearer of bad news; https://example.com/a?page=2"
    )
    assert _redacted_text(text) == text
    once = _redacted_text(f"{AWS} {GITHUB}")
    assert _redacted_text(once) == once  # a redacted stream redacted again is unchanged


# -- the commands --------------------------------------------------------------------------------

CASE = GOLDEN / "claude-code" / "provenance" / "input.jsonl"


def _planted(tmp_path: Path) -> Path:
    lines = CASE.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        value = json.loads(line)
        if value.get("type") == "user" and isinstance(value.get("message", {}).get("content"), str):
            value["message"]["content"] = f"use {AWS} and {GITHUB} " + value["message"]["content"]
            lines[number] = json.dumps(value)
            break
    else:
        raise AssertionError("no user prompt to plant into")
    path = tmp_path / "input.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _no_secret(data: bytes) -> None:
    assert AWS.encode() not in data and GITHUB.encode() not in data


def test_convert_redact_writes_a_summary_line_and_a_report(tmp_path: Path) -> None:
    source = _planted(tmp_path)
    out, report = tmp_path / "out.asr.jsonl", tmp_path / "report.json"
    result = CliRunner().invoke(main, ["convert", str(source), "-o", str(out), "--redact-report", str(report)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "redacted" in line]
    assert lines == ["asr: redacted 2 in 1 of 18 records (aws-access-key 1, github-token 1)"]
    _no_secret(out.read_bytes())
    _no_secret(report.read_bytes())
    data = json.loads(report.read_text())
    assert data["byRecordType"] == {"message": {"aws-access-key": 1, "github-token": 1}}
    assert CliRunner().invoke(main, ["validate", str(out)]).exit_code == 0
    plain = CliRunner().invoke(main, ["convert", str(source), "-o", str(tmp_path / "plain.asr.jsonl")])
    assert "redacted" not in plain.stderr  # no --redact: nothing redacted, nothing said


def test_asr_redact_on_an_existing_stream(tmp_path: Path) -> None:
    source = _planted(tmp_path)
    plain = tmp_path / "plain.asr.jsonl"
    assert CliRunner().invoke(main, ["convert", str(source), "-o", str(plain)]).exit_code == 0
    out = tmp_path / "red.asr.jsonl"
    result = CliRunner().invoke(main, ["redact", str(plain), "-o", str(out), "--report", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    _no_secret(out.read_bytes())
    assert CliRunner().invoke(main, ["validate", str(out)]).exit_code == 0
    converted = tmp_path / "conv.asr.jsonl"
    CliRunner().invoke(
        main, ["convert", str(source), "-o", str(converted), "--redact"], env={"ASR_REDACT_KEY": "ab" * 16}
    )
    again = tmp_path / "again.asr.jsonl"
    CliRunner().invoke(main, ["redact", str(plain), "-o", str(again)], env={"ASR_REDACT_KEY": "ab" * 16})
    assert again.read_bytes() == converted.read_bytes()  # one key: the same bytes either way
    refused = CliRunner().invoke(main, ["redact", str(source)])
    assert refused.exit_code == 1 and "not an ASR stream" in refused.stderr
    same = CliRunner().invoke(main, ["redact", str(plain), "-o", str(plain)])
    assert same.exit_code == 2
    bad = CliRunner().invoke(main, ["convert", str(source), "--redact-pattern", "("])
    assert bad.exit_code == 2 and "not a regular expression" in bad.stderr


def test_show_export_and_index_redact(tmp_path: Path) -> None:
    source = _planted(tmp_path)
    page = tmp_path / "page.html"
    assert CliRunner().invoke(main, ["show", str(source), "-o", str(page), "--redact"]).exit_code == 0
    html = page.read_text()
    _no_secret(html.encode())
    assert '<span class="redacted" title="redacted: aws-access-key">[REDACTED:aws-access-key:' in html
    for to in ("atif", "otel"):
        doc = tmp_path / f"doc.{to}.json"
        args = ["export", str(source), "--to", to, "-o", str(doc), "--redact", "--include-content"]
        result = CliRunner().invoke(main, args if to == "otel" else args[:-1])
        assert result.exit_code == 0, result.output
        _no_secret(doc.read_bytes())
        assert b"[REDACTED:github-token:" in doc.read_bytes()

    archive = tmp_path / "archive"
    batch = CliRunner().invoke(main, ["batch", str(source), "-o", str(archive), "-q"])
    assert batch.exit_code == 0, batch.output
    index = archive / "_index.sqlite"
    assert CliRunner().invoke(main, ["index", str(archive), "-q"]).exit_code == 0
    assert AWS.encode() in index.read_bytes()  # an index made without --redact holds it
    result = CliRunner().invoke(main, ["index", str(archive), "--redact"])
    assert result.exit_code == 0, result.output
    assert "1 read" in result.stderr  # unchanged streams are read again: the setting changed
    _no_secret(index.read_bytes())

    redacted = tmp_path / "redacted"
    report = tmp_path / "batch-report.json"
    batch = CliRunner().invoke(main, ["batch", str(source), "-o", str(redacted), "--redact-report", str(report)])
    assert batch.exit_code == 0, batch.output
    assert "asr: redacted 2 in 1 of" in batch.stderr
    for path in redacted.rglob("*"):
        if path.is_file():
            _no_secret(path.read_bytes())
    assert json.loads(report.read_text())["redactions"] == 2


def test_a_placeholder_is_never_redacted_inside() -> None:
    """A user's pattern can match a placeholder's hash (hex digits): in JSON held in a
    string, whose raw text is scanned after its decoded strings had their secrets replaced,
    and in a stream redacted again. A placeholder stays whole."""
    policy = Policy.make(key=KEY, patterns=[r"\d{6}"])
    redactor = Redactor(policy)
    raw = json.dumps({"s": "ticket 654321 and 777777", "n": 1})
    out = redactor.record({"type": "tool_call", "seq": 3, "id": "r3", "callId": "c", "arguments": raw})
    value = json.loads(out["arguments"])
    assert re.fullmatch(
        r"ticket \[REDACTED:pattern-1:[0-9a-f]{10}\] and \[REDACTED:pattern-1:[0-9a-f]{10}\]", value["s"]
    )
    assert out["capture"]["arguments"]["count"] == 2
    once = "see [REDACTED:pattern-1:1234567890] and [REDACTED:aws-access-key:0987654321]"
    assert _redacted_text(once, policy) == once
