"""OpenHands: the per-event JSON files of a conversation folder, V1 (openhands-sdk) and V0.

Nothing is imported here: ``registry`` imports ``adapter`` (which registers the agent) when the
agent is named or chosen, and detection imports only ``sniff``.
"""

from ..._lazy import lazy_names

__getattr__, __dir__ = lazy_names(__name__, {"adapter": ".adapter"}, [], ("adapter",))

__all__ = ["adapter"]
