"""OpenCode's session stores (SQLite database, global and per-project JSON trees) -> ASR streams."""

from .adapter import OpenCodeAdapter

__all__ = ["OpenCodeAdapter"]
