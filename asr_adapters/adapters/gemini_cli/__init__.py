"""The gemini_cli adapter package."""
