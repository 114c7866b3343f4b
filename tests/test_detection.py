"""Detection: one read of an input's head for every adapter, scored over its first parsed lines.

A peer's hostile fixtures (letta-ai/trajectory) showed what a sniff of the first line alone
refuses: a garbage first line, minimal transcript lines without session facts, a rollout cut
before its header, an export whose ids have another shape. Each is scored here by the share of
the head's parsed lines that look like the agent's, and an input no adapter is sure of names
the likeliest agent in its error.
"""

from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from golden_support import GOLDEN

from asr_adapters import registry, validate
from asr_adapters.convert import Conversion
from asr_adapters.core.errors import UnknownAgentError
from asr_adapters.core.source import Source
from asr_adapters.stream.writer import StreamWriter


def _lines(*objects: Any) -> bytes:
    return b"".join((o if isinstance(o, bytes) else orjson.dumps(o)) + b"\n" for o in objects)


def _opens_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``open`` of ``path`` from now on (the builtin: what ``Source`` reads with)."""
    seen: list[str] = []
    real = builtins.open

    def counting(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | os.PathLike) and Path(file) == path:
            seen.append(str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting)
    return seen


@pytest.mark.parametrize(
    "case",
    [
        "codex/03-user-message-parts",
        "claude-code/fold-tool-calls",
        "gemini-cli/jsonl-messages",
        "cline/ui-only-retries-reasoning",
    ],
)
def test_detection_reads_the_head_once_for_every_adapter(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each adapter used to re-read the head (about 37 opens of a small file); now one read
    serves the sniffs of all of them."""
    path = next((GOLDEN / case).glob("input.*"))
    opens = _opens_of(path, monkeypatch)
    assert registry.detect(Source(path)).name == case.split("/")[0]
    assert len(opens) == 1, opens


def test_detection_with_a_compressed_input_decompresses_its_head_once(monkeypatch: pytest.MonkeyPatch) -> None:
    path = GOLDEN / "codex" / "20-zstd-compressed" / "input.jsonl.zst"
    opens = _opens_of(path, monkeypatch)
    assert registry.detect(Source(path)).name == "codex"
    assert len(opens) <= 2, opens  # the stored bytes (magic) and one decompressed head


def test_a_garbage_first_line_does_not_hide_the_lines_after_it(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(
        _lines(
            b"not json at all",
            {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hello"}},
            {
                "type": "assistant",
                "uuid": "a1",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            },
        )
    )
    source = Source(path)
    lines = source.head_lines()
    assert (len(lines.values), lines.unreadable) == (2, 1)
    assert registry.detect(source).name == "claude-code"


def test_a_rollout_cut_before_its_header_converts_with_a_derived_session_id(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(
        _lines(
            {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
            {
                "type": "response_item",
                "payload": {"type": "function_call", "name": "f", "call_id": "c", "arguments": "x"},
            },
        )
    )
    conversion = Conversion(path, as_dicts=True)
    assert conversion.adapter.name == "codex"
    records = list(conversion)
    head = records[0]
    assert head["session"] == "codex:cut" and head["idSource"] == "derived"
    assert head["capture"]["meta"]["state"] == "absent"
    assert records[-1]["arguments"] == "x"  # not JSON: kept raw
    assert any("no session_meta" in d.reason for d in conversion.accounting.diagnostics)


def test_weak_evidence_names_the_likeliest_agent_instead_of_choosing_it(tmp_path: Path) -> None:
    """One transcript-shaped line among other objects is a quarter of the head: not enough to
    convert on its own, but the error says which agent it looks like."""
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        _lines(
            {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hello"}},
            {"level": "info", "msg": "started"},
            {"level": "info", "msg": "listening"},
            {"level": "warn", "msg": "slow"},
        )
    )
    with pytest.raises(UnknownAgentError) as caught:
        registry.detect(Source(path))
    message = str(caught.value)
    assert "looks most like claude-code" in message and "--agent claude-code" in message
    assert registry.scores(Source(path))[0] == (19, "claude-code")  # round(75 * 1/4)


def test_nothing_like_any_agent_is_refused_naming_every_agent(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(_lines({"level": "info", "msg": "started"}, {"level": "info", "msg": "done"}))
    with pytest.raises(UnknownAgentError, match="cannot tell which agent wrote this file; known agents"):
        registry.detect(Source(path))


def test_an_export_whose_ids_are_not_ses_shaped_is_opencode(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    document = {
        "info": {"id": "my-session", "directory": "/w", "time": {"created": 1}},
        "messages": [
            {"info": {"id": "m1", "role": "user", "time": {"created": 2}}, "parts": [{"type": "text", "text": "x"}]}
        ],
    }
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    assert registry.detect(Source(path)).name == "opencode"


def test_a_copilot_log_after_a_garbage_line_takes_its_session_id_from_session_start(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    start = {"id": "e1", "type": "session.start", "timestamp": "2026-01-01T00:00:00.000Z", "data": {"sessionId": "s-9"}}
    path.write_bytes(_lines(b"{oops", start))
    conversion = Conversion(path, as_dicts=True)
    assert conversion.adapter.name == "copilot-cli"
    assert next(iter(conversion))["session"] == "copilot-cli:s-9"


# -- letta-ai/trajectory's own fixtures, opt-in ------------------------------------------------

#: The folder ``fixtures/`` of a letta-ai/trajectory checkout at commit 21ae92d1 (Apache-2.0 test
#: data, read in place: never copied into this project). ``golden/`` holds reduced cases of the
#: shapes it showed; this runs the real files when they are on the machine.
TRAJECTORY_ENV = "ASR_TRAJECTORY_FIXTURES"
#: Its inputs for the agents we read: fixture folder -> our agent.
TRAJECTORY_CASES = {
    f"{agent}/{case}": agent
    for agent, cases in {
        "claude-code": ("cleanup", "subagent", "tool-call"),
        "codex": ("cleanup", "tool-calls"),
        "copilot-cli": ("cleanup", "tool-calls"),
        "gemini-cli": ("cleanup", "tool-calls"),
        "openclaw": ("cleanup", "tool-calls"),
        "opencode": ("cleanup", "tool-calls"),
    }.items()
    for case in cases
}


@pytest.mark.parametrize("case", sorted(TRAJECTORY_CASES))
def test_letta_trajectory_fixture_converts_detected(case: str, tmp_path: Path) -> None:
    folder = os.environ.get(TRAJECTORY_ENV)
    if not folder:
        pytest.skip(f"set {TRAJECTORY_ENV} to the fixtures/ folder of letta-ai/trajectory @ 21ae92d1 to run it")
    inputs = sorted((Path(folder) / case).glob("input.*"))
    assert len(inputs) == 1, f"{case}: expected one input.* in {folder}/{case}"
    conversion = Conversion(inputs[0], as_dicts=True)
    assert conversion.adapter.name == TRAJECTORY_CASES[case]
    written = 0
    for number, stream in enumerate(conversion.streams()):
        out = tmp_path / f"{number}.asr.jsonl"
        with out.open("wb") as handle:
            writer = StreamWriter(handle)
            writer.write_all(stream.records)
            written += writer.count
        errors = [f.describe() for f in validate(out) if f.is_error]
        assert not errors, errors
    accounting = conversion.accounting
    assert written > 1 and accounting.balanced(), accounting.as_dict()
