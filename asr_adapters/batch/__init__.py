"""Batch conversion of session folders and discovery of every agent's home."""
