"""The t3code adapter package."""
