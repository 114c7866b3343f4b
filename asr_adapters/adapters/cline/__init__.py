"""Cline task folders (and the Roo Code / Kilo Code forks, same layout) -> ASR streams.

Nothing is imported here: ``registry`` imports ``adapter`` (which registers the agent) when the
agent is named or chosen, and detection imports only ``sniff``.
"""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

__getattr__, __dir__ = lazy_names(__name__, {"ClineAdapter": ".adapter"}, [])

if TYPE_CHECKING:
    from .adapter import ClineAdapter

__all__ = ["ClineAdapter"]
