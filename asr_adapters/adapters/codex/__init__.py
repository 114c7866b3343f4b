"""The Codex CLI adapter: rollouts to ASR."""

from . import adapter

__all__ = ["adapter"]
