"""The docs' per-agent tables name every registered agent (issue 32 item 5): a new adapter
fails here until its rows are written (homes and companions in docs/batch.md, its entry in
docs/agents/README.md linking its page)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from asr_adapters import registry

DOCS = Path(__file__).resolve().parents[1] / "docs"
AGENTS = sorted(registry.names())


def _table_first_cells(text: str, header: str) -> set[str]:
    """The first cell of each row of the table whose header row starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    cells = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells.add(line.split("|")[1].strip())
    return cells


@pytest.mark.parametrize("header", ["| agent | homes |", "| agent | companions of a source |"])
def test_batch_tables_list_every_agent(header: str) -> None:
    assert set(AGENTS) <= _table_first_cells((DOCS / "batch.md").read_text(), header)


def test_the_agent_registry_page_links_every_agents_page() -> None:
    text = (DOCS / "agents" / "README.md").read_text()
    for name in AGENTS:
        row = re.search(rf"^\|[^|\n]*\| `{re.escape(name)}` \|.*\[[^]]+\]\(([^)]+)\) \|$", text, re.M)
        assert row, f"docs/agents/README.md has no row for {name} linking its page"
        assert (DOCS / "agents" / row.group(1)).is_file(), row.group(1)
