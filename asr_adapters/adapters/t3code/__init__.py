"""T3 Code adapter: threads of ``state.sqlite`` (orchestration V1 and V2) to ASR streams."""

from . import adapter

__all__ = ["adapter"]
