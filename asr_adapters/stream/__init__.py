"""Writing and reading ASR streams."""

from .reader import read_models, read_records
from .writer import StreamWriter, dumps, write_jsonl

__all__ = ["StreamWriter", "dumps", "read_models", "read_records", "write_jsonl"]
