"""Claude Code: ``~/.claude/projects/<project>/<session>.jsonl`` and its subagent transcripts."""

from . import adapter

__all__ = ["adapter"]
