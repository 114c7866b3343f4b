"""The registry in code matches the profile's table and the docs."""

from __future__ import annotations

import pytest
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


def test_an_agent_adapter_without_a_sniff_module_or_detect_is_refused_but_a_shared_base_is_not() -> None:
    from collections.abc import Iterator

    from asr_adapters.core.adapter import Adapter, Context, Stream
    from asr_adapters.core.source import Source

    class SharedBase(Adapter):  # no name: a base other adapters build on
        def streams(self, source: Source, context: Context) -> Iterator[Stream]:
            return iter(())

    with pytest.raises(TypeError, match="no sniff module beside it and no detect"):

        class Nameless(SharedBase):
            name = "nameless"
            registry_name = "dev.example.nameless"

    class Detecting(SharedBase):
        name = "detecting"
        registry_name = "dev.example.detecting"

        def detect(self, source: Source) -> int:
            return 0

    assert Detecting.detection is None and Detecting.discovery is None  # nothing beside tests/


def test_each_module_registry_constant_is_the_name_vocab_lists() -> None:
    """``registry_name`` is read from ``REGISTRY_NAMES``; the modules that write vendor values
    keep a ``REGISTRY`` constant of their own, which must be the same name."""
    import importlib
    import pkgutil

    from asr_adapters.adapters import PACKAGES

    checked = 0
    for agent, package in PACKAGES.items():
        root = importlib.import_module(f"asr_adapters.adapters.{package}")
        for info in pkgutil.iter_modules(root.__path__):
            module = importlib.import_module(f"{root.__name__}.{info.name}")
            value = vars(module).get("REGISTRY")
            if isinstance(value, str):
                assert value == REGISTRY_NAMES[agent], (module.__name__, value)
                checked += 1
    assert checked >= 10


def test_detection_asks_a_sniff_function_replaced_after_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """``registry.score`` keeps each sniff module, not its function: a replaced ``detect`` (a
    test's monkeypatch) is the one asked, as the adapter's own ``detect`` asks it."""
    from asr_adapters.adapters.codex import sniff
    from asr_adapters.core.source import Source

    source = Source(ROOT / "pyproject.toml")
    assert registry.score(source, "codex") == 0
    monkeypatch.setattr(sniff, "detect", lambda source: 99)
    assert registry.score(source, "codex") == 99 == registry.get("codex").detect(source)
