"""Every agent's adapter package; importing this module registers them all."""

from . import claude_code, codex, gemini_cli, openclaw, t3code

__all__ = ["claude_code", "codex", "gemini_cli", "openclaw", "t3code"]
