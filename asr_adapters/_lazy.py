"""Packages whose public names are imported when first used (PEP 562).

``import asr_adapters`` used to load the batch machinery, the validator and the exporters
before a caller asked for any of them (76 of its ~98 ms); each CLI command loaded the HTML
viewer. A package lists its names here instead, each with the module that defines it, and the
module is imported at the first attribute access. Type checkers see the names through an
``if TYPE_CHECKING:`` import block beside the table.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_names(
    package: str, names: dict[str, str], eager: list[str], submodules: tuple[str, ...] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps a public name to the module
    (relative to the package, ``.runner``) that defines it; a name in ``submodules`` is that
    submodule itself (``asr_adapters.convert``). ``eager`` are the names the package defines
    itself."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(where, package)
        value = module if name in submodules else getattr(module, name)
        vars(sys.modules[package])[name] = value  # the next access is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*eager, *names})

    return __getattr__, __dir__
