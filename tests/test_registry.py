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


def test_the_names_listed_without_loading_are_the_names_the_adapters_register() -> None:
    """``registry.names()`` reads ``PACKAGES`` so that ``--agent``'s choices and ``asr convert
    --help`` import no converter; each package's adapter must register under its key."""
    from asr_adapters.adapters import PACKAGES

    listed = registry.names()
    assert listed == sorted(PACKAGES)
    assert sorted(adapter.name for adapter in registry.all_adapters()) == listed
    for name, package in PACKAGES.items():
        assert type(registry.get(name)).__module__ == f"asr_adapters.adapters.{package}.adapter"
