"""The registry in code matches the profile's table and the docs."""

from __future__ import annotations

from golden_support import ROOT

from asr_adapters import registry
from asr_adapters.model.vocab import REGISTRY_NAMES


def test_every_agent_is_registered_with_its_profile_names() -> None:
    assert {a.name: a.registry_name for a in registry.all_adapters()} == REGISTRY_NAMES


def test_every_agent_has_a_registry_entry_in_docs() -> None:
    index = (ROOT / "docs" / "agents" / "README.md").read_text(encoding="utf-8")
    for name, reverse_dns in REGISTRY_NAMES.items():
        assert f"`{name}`" in index and f"`{reverse_dns}`" in index
        assert (ROOT / "docs" / "agents" / f"{name}.md").is_file()
