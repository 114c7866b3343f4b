"""Cursor (Anysphere's editor): the chat and composer history in its ``state.vscdb`` databases.

Read: the workspace database's 2024 chat tabs and inline composers (``ItemTable``), and the
global database's ``composerData:*`` / ``bubbleId:*`` rows (``cursorDiskKV``, 2025 builds).
Not read (no established format, docs/agents/cursor.md): the ``cursor-agent`` CLI's
``store.db`` and the agent transcripts under ``~/.cursor/projects``.
"""
