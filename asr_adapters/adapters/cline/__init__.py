"""Cline task folders (and the Roo Code / Kilo Code forks, same layout) -> ASR streams."""

from .adapter import ClineAdapter

__all__ = ["ClineAdapter"]
