"""Session references: one escaping rule for every adapter."""

from __future__ import annotations

from urllib.parse import unquote

from asr_adapters.core.refs import session_ref
from asr_adapters.validate.records import is_session_ref


def test_plain_ids_pass_through() -> None:
    assert session_ref("codex", "019e1625-789d-76c0-80ab-3724b5ddb799") == "codex:019e1625-789d-76c0-80ab-3724b5ddb799"


def test_unsafe_characters_are_percent_encoded_and_reversible() -> None:
    for native in ("with space", "a#b", "100%", "tab\there", "line\nbreak", "nbsp\u00a0x", "é#\u2028"):
        ref = session_ref("openclaw", native)
        assert is_session_ref(ref), ref
        assert unquote(ref.split(":", 1)[1]) == native


def test_no_id_is_unknown() -> None:
    assert session_ref("t3code", "") == "t3code:unknown" and session_ref("t3code", None) == "t3code:unknown"


def test_vendor_schema_names_always_have_a_kind() -> None:
    from asr_adapters.core.refs import schema_name

    assert schema_name("com.openai.codex", "turn_context") == "com.openai.codex/turn_context"
    assert schema_name("com.openai.codex", "") == "com.openai.codex/unknown"
    assert schema_name("ai.openclaw", None) == "ai.openclaw/unknown"
    assert schema_name("com.openai.codex", "event_msg/") == "com.openai.codex/event_msg/unknown"
