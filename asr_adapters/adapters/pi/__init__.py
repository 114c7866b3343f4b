"""pi (the pi coding agent): session files to ASR.

``blocks`` and ``tree`` are pi's session format, which OpenClaw (built on pi's runtime) reads
through them too. Nothing is imported here: ``registry`` imports ``adapter`` (which registers
the agent) when the agent is named or chosen, and detection imports only ``sniff``.
"""

from ..._lazy import lazy_names

__getattr__, __dir__ = lazy_names(__name__, {"adapter": ".adapter"}, [], ("adapter",))

__all__ = ["adapter"]
