"""Every agent's adapter package; importing this module registers them all."""

from . import claude_code, cline, codex, copilot_cli, gemini_cli, openclaw, opencode, pi, qwen_code, t3code

__all__ = [
    "claude_code",
    "cline",
    "codex",
    "copilot_cli",
    "gemini_cli",
    "openclaw",
    "opencode",
    "pi",
    "qwen_code",
    "t3code",
]
