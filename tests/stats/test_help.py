"""``asr stats --help`` names every agent whose recorded cost stats uses (review finding 5)."""

from __future__ import annotations

from click.testing import CliRunner

from asr_adapters.cli import main
from asr_adapters.stats.recorded import RECORDED_COST

#: How the help spells each agent (its product name).
SPELLED = {"openclaw": "OpenClaw", "pi": "pi", "cline": "Cline", "opencode": "OpenCode"}


def test_help_names_every_agent_whose_recorded_cost_is_used() -> None:
    result = CliRunner().invoke(main, ["stats", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert set(SPELLED) == set(RECORDED_COST), "a new agent's recorded cost: add its name here"
    start = text.index("the cost the agent recorded itself (") + len("the cost the agent recorded itself (")
    named = text[start : text.index(")", start)]
    for spelled in SPELLED.values():
        assert spelled in named.replace(",", " ").split(), (spelled, named)
