"""Every agent's adapter package; importing this module registers them all."""

from . import claude_code, cline, codex, gemini_cli, openclaw, opencode, t3code

__all__ = ["claude_code", "cline", "codex", "gemini_cli", "openclaw", "opencode", "t3code"]
