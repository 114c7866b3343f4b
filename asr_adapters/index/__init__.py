"""The archive as a database: ``asr index`` builds it, ``asr search`` queries it (docs/index.md).

SQLite (Python's own ``sqlite3``, FTS5) with documented, versioned tables; the same tables as
Parquet for data pipelines. Built from ASR records only (no per-agent code).
"""

from .build import DEFAULT_NAME, IndexReport, build_index, default_index, stream_files
from .schema import SCHEMA_VERSION, TABLES
from .store import IndexFileError

__all__ = [
    "DEFAULT_NAME",
    "SCHEMA_VERSION",
    "TABLES",
    "IndexFileError",
    "IndexReport",
    "build_index",
    "default_index",
    "stream_files",
]
