"""Modules that are also their main function (``asr_adapters.convert``, ``asr_adapters.validate``).

``asr_adapters.validate(path)`` is the library's documented call, and ``asr_adapters.validate``
is also the validator's subpackage (``from asr_adapters.validate import StreamValidator``). A
function bound to that name would shadow the subpackage (``import asr_adapters.validate as v``
would give the function); instead the name is the subpackage, and calling it calls its main
function. The same holds for ``asr_adapters.convert``.
"""

import inspect
import sys
import types
from typing import Any


class CallableModule(types.ModuleType):
    """A module whose call is its ``__call_target__`` function's call."""

    __call_target__: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, self.__call_target__)(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        """The function's own signature, so ``inspect.signature`` and IDEs show its parameters
        rather than ``(*args, **kwargs)``."""
        return inspect.signature(getattr(self, self.__call_target__))


def make_callable(module_name: str, function_name: str) -> None:
    """Make the module ``module_name`` callable as its function ``function_name``."""
    module = sys.modules[module_name]
    module.__class__ = CallableModule
    module.__call_target__ = function_name  # type: ignore[attr-defined]
