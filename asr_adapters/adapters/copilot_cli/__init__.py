"""GitHub Copilot CLI session event logs (``~/.copilot/session-state``).

Nothing is imported here: ``registry`` imports ``adapter`` (which registers the agent) when the
agent is named or chosen, and detection imports only ``sniff``.
"""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

__getattr__, __dir__ = lazy_names(__name__, {"CopilotCliAdapter": ".adapter"}, [])

if TYPE_CHECKING:
    from .adapter import CopilotCliAdapter

__all__ = ["CopilotCliAdapter"]
