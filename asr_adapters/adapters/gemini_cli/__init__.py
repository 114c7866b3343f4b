"""Gemini CLI: chat recordings of both eras (JSON up to v0.38, JSONL from v0.39)."""

from . import adapter

__all__ = ["adapter"]
