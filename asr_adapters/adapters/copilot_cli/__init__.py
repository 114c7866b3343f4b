"""GitHub Copilot CLI session event logs (``~/.copilot/session-state``)."""

from .adapter import CopilotCliAdapter

__all__ = ["CopilotCliAdapter"]
