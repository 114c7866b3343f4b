"""The codex adapter package."""
