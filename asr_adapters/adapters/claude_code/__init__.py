"""The claude_code adapter package."""
