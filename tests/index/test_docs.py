"""docs/index.md says what the index is: its schema block is the one the code makes, every SQL
query it shows runs with plain ``sqlite3`` on an index of the golden archive, the declaration
Datasette looks for is there, and every option of the two commands is described."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from golden_support import ROOT

from asr_adapters.cli.index import index_command
from asr_adapters.cli.search import search_command
from asr_adapters.index.schema import markdown

DOC = ROOT / "docs" / "index.md"
SQL = re.compile(r"```sql\n(.*?)```", re.DOTALL)


def test_the_schema_block_is_the_schema() -> None:
    text = DOC.read_text(encoding="utf-8")
    begin = text.index("\n", text.index("<!-- schema:begin")) + 1
    assert text[begin : text.index("<!-- schema:end -->")] == markdown()


def test_every_query_shown_runs_on_the_index(golden_index: Path) -> None:
    queries = SQL.findall(DOC.read_text(encoding="utf-8"))
    assert len(queries) >= 8
    conn = sqlite3.connect(f"file:{golden_index}?mode=ro", uri=True)
    results = [conn.execute(query).fetchall() for query in queries]
    person = results[0]
    assert person and all("[" in row[3] for row in person), "the person's words about the parser, marked"
    assert results[1], "sessions that ran cargo test"
    assert [r[0] for r in results[-1]] == ["parts_fts"], "Datasette finds the full-text table of parts"
    assert any(r[1] == "human" for r in results[4])


def test_every_option_is_described() -> None:
    text = DOC.read_text(encoding="utf-8")
    for command in (index_command, search_command):
        for param in command.params:
            for flag in getattr(param, "opts", []):
                if flag.startswith("--") and flag not in ("--help",):
                    assert f"`{flag}" in text or f"{flag} " in text or f"{flag}`" in text, flag
