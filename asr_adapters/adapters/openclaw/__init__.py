"""The openclaw adapter package."""
