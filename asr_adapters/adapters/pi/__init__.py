"""pi (the pi coding agent): importing this package registers the adapter.

``blocks`` and ``tree`` are pi's session format, which OpenClaw (built on pi's runtime)
reads through them too."""

from . import adapter

__all__ = ["adapter"]
