"""Qwen Code: importing this package registers the adapter."""

from . import adapter

__all__ = ["adapter"]
